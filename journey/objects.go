package journey

import "github.com/tablekit/tablekit/blobstore"

// Object keys of a journey's files, built with blobstore.KeyTemplate, so
// each is a one-to-one function of its ids: every id is escaped into one
// path segment. Ids are also checked before (checkID: letters, digits, '_'
// and '-'), and such ids are written unchanged, so the keys are the seed's.
var (
	// journeys/{journey_id}/stages/{stage_id}/executions/{job_id}/logs/{step_id}.json,
	// the seed's key of a step's log file.
	logObjects = blobstore.MustKeyTemplate("journeys/{journeyId}/stages/{stageId}/executions/{jobId}/logs/{stepId}.json")
	// .../executions/{job_id}/reports/{step_id}/{report_id}.json: one
	// object per report. The seed writes .../reports/{step_id}.json, one
	// file a step, so a second report of the step (another type, or a
	// rerun) replaced the first while its catalog entry still pointed
	// there; the catalog entry's id, unique per report, gives each its own.
	reportObjects = blobstore.MustKeyTemplate("journeys/{journeyId}/stages/{stageId}/executions/{jobId}/reports/{stepId}/{reportId}.json")
	// journeys/{journey_id}/backup.json, the seed's on-demand export.
	backupObjects = blobstore.MustKeyTemplate("journeys/{journeyId}/backup.json")
)

// objectKey builds a key from a template, reporting a refusal as bad input.
func objectKey(t *blobstore.KeyTemplate, values ...string) (string, error) {
	key, err := t.Build(values...)
	if err != nil {
		return "", inputError("object key", t.String(), err.Error())
	}
	return key, nil
}

// jobFilesPrefix is the prefix of one job's log files ("logs") or report
// files ("reports"): .../executions/{job_id}/{kind}/.
func jobFilesPrefix(t *blobstore.KeyTemplate, kind string, ref JobRef) (string, error) {
	prefix, err := t.Prefix(ref.JourneyID, ref.StageID, ref.JobID)
	if err != nil {
		return "", inputError("object key", t.String(), err.Error())
	}
	return prefix + kind + "/", nil
}

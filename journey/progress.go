package journey

import (
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/table"
)

// ProgressKind is what a ProgressEvent reports.
type ProgressKind string

// The progress a journey's change feed reports.
const (
	ProgressJobStarted       ProgressKind = "jobStarted"
	ProgressJobCompleted     ProgressKind = "jobCompleted"
	ProgressJobFailed        ProgressKind = "jobFailed"
	ProgressJobCancelled     ProgressKind = "jobCancelled"
	ProgressStageCompleted   ProgressKind = "stageCompleted"
	ProgressStageSkipped     ProgressKind = "stageSkipped"
	ProgressJourneyCompleted ProgressKind = "journeyCompleted"
	ProgressJourneyFailed    ProgressKind = "journeyFailed"
	ProgressJourneyCancelled ProgressKind = "journeyCancelled"
	// ProgressJourneyRestored: Backups.Import (or ImportFrom) finished
	// restoring the journey; its stages and jobs are now as the backup
	// holds them. The items the import wrote report no job, stage or
	// journey moves of their own (a running job restored is not a job
	// that started), so a consumer that keeps state per journey reloads
	// it on this event. Progress is the restored overallProgress and At
	// the time of the change (the restored item's UpdatedAt is the
	// backup's).
	ProgressJourneyRestored ProgressKind = "journeyRestored"
	// ProgressJourneyDeleted: Journeys.Delete removed the journey (its
	// metadata, the last of its items). The removals of its other items
	// report nothing. It needs the old image (NEW_AND_OLD_IMAGES).
	ProgressJourneyDeleted ProgressKind = "journeyDeleted"
)

// ProgressEvent is one step of a journey's progress, read from the table's
// change feed: a job started or ended, a stage completed or was skipped, a
// journey ended.
type ProgressEvent struct {
	Kind      ProgressKind `json:"kind"`
	JourneyID string       `json:"journeyId"`
	// StageID is the stage of a job or stage event; "" for a journey's.
	StageID string `json:"stageId,omitempty"`
	// JobID and ExecutionNumber name the job of a job event.
	JobID           string `json:"jobId,omitempty"`
	ExecutionNumber int    `json:"executionNumber,omitempty"`
	// Progress is the journey's overallProgress for a journey event, the
	// job's progress for a job event, 0 for a stage event.
	Progress int `json:"progress"`
	// ErrorMessage is a failed job's error.
	ErrorMessage string `json:"errorMessage,omitempty"`
	// TimedOut marks a jobFailed event of a job failed for running past
	// its configuration.timeout (by Jobs.Start or Jobs.Recover), not by
	// its worker.
	TimedOut bool `json:"timedOut,omitempty"`
	// At is when the item changed, as the item says (its UpdatedAt).
	At Time `json:"at"`
	// SequenceNumber is the change's place in its item's order, for
	// handlers that must apply each event once (delivery is at least once).
	SequenceNumber string `json:"sequenceNumber"`
}

// DecodeItem is the changes.Options.Decode for a consumer of the journey
// table: it keeps each image as the raw item (a *table.Item), which
// ProgressEvents reads. Use it as
//
//	c, err := changes.New[table.Item](db, streams, journey.DefaultTableName,
//		changes.Decode(journey.DecodeItem), changes.Name("progress"))
//	for ch, err := range c.Changes(ctx) {
//		events, err := journey.ProgressEvents(ch)
//		...
//	}
//
// The table's stream must carry both images (NEW_AND_OLD_IMAGES): a move
// is told from the status before and after.
func DecodeItem(item map[string]types.AttributeValue, out any) error {
	return changes.DecodeItem(item, out)
}

// ProgressEvents returns the progress one change of the journey table
// means: none for most changes (a log summary, a step's progress, a rule),
// one for a job that started (created running) or ended (moved from
// pending or running to completed, failed or cancelled), a stage that
// moved to completed or skipped, or a journey that moved to completed,
// failed or cancelled. An item changed without such a move (a retried
// write) reports nothing, so a handler sees each move once per delivery of
// its change. An import reports one ProgressJourneyRestored when it
// completes and nothing for the items it wrote, whatever their status was
// before and after. A change without the images it needs (a KEYS_ONLY or
// NEW_IMAGE stream) reports nothing either, but for a job start.
func ProgressEvents(ch changes.Change[table.Item]) ([]ProgressEvent, error) {
	if ch.New == nil {
		// A deletion: nothing progressed, unless it is the last step of
		// Journeys.Delete, the removal of the marked metadata.
		if ch.Old != nil && deleting(*ch.Old) && stringAttr(*ch.Old, attrSK) == metadataSK {
			id := strings.TrimPrefix(stringAttr(*ch.Old, attrPK), "JOURNEY#")
			if id == "" || id == stringAttr(*ch.Old, attrPK) {
				return nil, fmt.Errorf("journey: progress of change %s: PK %q is not a journey's: %w", ch.EventID, stringAttr(*ch.Old, attrPK), changes.ErrDecode)
			}
			return []ProgressEvent{{Kind: ProgressJourneyDeleted, JourneyID: id, At: At(ch.At), SequenceNumber: ch.SequenceNumber}}, nil
		}
		return nil, nil
	}
	newItem := *ch.New
	var oldItem table.Item
	if ch.Old != nil {
		oldItem = *ch.Old
	}
	if ch.Old != nil && stringAttr(oldItem, attrImportID) != "" && stringAttr(newItem, attrImportID) == "" &&
		stringAttr(newItem, attrEntityType) == EntityJourney {
		return restoredEvent(ch, newItem)
	}
	if stringAttr(oldItem, attrImportID) != "" || stringAttr(newItem, attrImportID) != "" {
		return nil, nil // an import's claim, not progress
	}
	if deleting(newItem) {
		return nil, nil // Journeys.Delete's mark: the deletion reports
	}
	if by := stringAttr(newItem, attrRestoredBy); by != "" && by != stringAttr(oldItem, attrRestoredBy) {
		return nil, nil // written by an import: restored, not moved
	}
	before, after := dataStatus(oldItem), dataStatus(newItem)
	if ch.Old != nil && before == after {
		return nil, nil
	}
	ev := ProgressEvent{SequenceNumber: ch.SequenceNumber}
	switch stringAttr(newItem, attrEntityType) {
	case EntityJob:
		j, err := jobFromItem(newItem)
		if err != nil {
			return nil, err
		}
		ev.JourneyID, ev.StageID, ev.JobID, ev.ExecutionNumber, ev.Progress, ev.At =
			j.JourneyID, j.StageID, j.JobID, j.ExecutionNumber, j.Progress, j.UpdatedAt
		if j.ErrorMessage != nil {
			ev.ErrorMessage = *j.ErrorMessage
		}
		ev.TimedOut = j.TimedOut
		active := ch.Old == nil || before == string(JobPending) || before == string(JobRunning)
		switch {
		case ch.Old == nil && j.Status == JobRunning:
			ev.Kind = ProgressJobStarted
		case active && ch.Old != nil && j.Status == JobCompleted:
			ev.Kind = ProgressJobCompleted
		case active && ch.Old != nil && j.Status == JobFailed:
			ev.Kind = ProgressJobFailed
		case active && ch.Old != nil && j.Status == JobCancelled:
			ev.Kind = ProgressJobCancelled
		}
	case EntityStage:
		if ch.Old == nil {
			return nil, nil
		}
		st, err := stageFromItem(newItem)
		if err != nil {
			return nil, err
		}
		ev.JourneyID, ev.StageID, ev.At = st.JourneyID, st.StageID, st.UpdatedAt
		switch st.Status {
		case StageCompleted:
			ev.Kind = ProgressStageCompleted
		case StageSkipped:
			ev.Kind = ProgressStageSkipped
		}
	case EntityJourney:
		if ch.Old == nil {
			return nil, nil
		}
		j, err := journeyFromItem(newItem)
		if err != nil {
			return nil, err
		}
		ev.JourneyID, ev.Progress, ev.At = j.ID, j.OverallProgress, j.UpdatedAt
		switch j.Status {
		case StatusCompleted:
			ev.Kind = ProgressJourneyCompleted
		case StatusFailed:
			ev.Kind = ProgressJourneyFailed
		case StatusCancelled:
			ev.Kind = ProgressJourneyCancelled
		}
	}
	if ev.Kind == "" {
		return nil, nil
	}
	if ev.At.IsZero() {
		ev.At = Time{ch.At.UTC()}
	}
	return []ProgressEvent{ev}, nil
}

// restoredEvent is the ProgressJourneyRestored of an import's swap: the
// claim (old image) replaced by the backup's metadata (new image).
func restoredEvent(ch changes.Change[table.Item], newItem table.Item) ([]ProgressEvent, error) {
	j, err := journeyFromItem(newItem)
	if err != nil {
		return nil, err
	}
	if j.ID == GlobalRules {
		return nil, nil // the rule library (Library.ImportFrom) is not a journey
	}
	at := At(ch.At)
	if at.IsZero() {
		at = j.UpdatedAt
	}
	return []ProgressEvent{{Kind: ProgressJourneyRestored, JourneyID: j.ID, Progress: j.OverallProgress,
		At: at, SequenceNumber: ch.SequenceNumber}}, nil
}

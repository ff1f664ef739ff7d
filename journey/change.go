package journey

import (
	"fmt"
	"strings"

	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/table"
)

// JobFromChange reads the job execution a change of the journey table's
// stream leaves (its new image), as Jobs.Get reads it: the stage's order,
// execution number and start from the key where Data lacks them, the
// item's CreatedAt and UpdatedAt. Use it with a consumer that keeps raw
// items ([DecodeItem]):
//
//	for ch, err := range consumer.Changes(ctx) {
//		job, ok, err := journey.JobFromChange(ch)
//		...
//	}
//
// ok is false, with a nil error, for a change that leaves no job: another
// entity's item (journey metadata, stage, rule, log summary, report
// entry), a removal (Journeys.Delete, or DynamoDB's TTL deletion of a log
// summary), or a stream whose view carries no new image (the stream needs
// NEW_IMAGE or NEW_AND_OLD_IMAGES). A record of another table (its keys are
// not PK and SK) is a *table.InputError; a job item that cannot be read
// (a key that is not the job's layout, a time that is not one, an empty
// jobId) is an error wrapping changes.ErrDecode, never a job of zero
// values.
func JobFromChange(ch changes.Change[table.Item]) (*Job, bool, error) {
	item, ok, err := changeImage(ch, EntityJob)
	if !ok || err != nil {
		return nil, false, err
	}
	j, err := jobFromItem(item)
	if err == nil && (j.JobID == "" || j.StageID == "" || j.StartTime.IsZero()) {
		err = fmt.Errorf("journey: job item %s has no jobId, stageId or start time", stringAttr(item, attrSK))
	}
	if err != nil {
		return nil, false, fmt.Errorf("journey: job from change %s: %w: %w", ch.EventID, changes.ErrDecode, err)
	}
	return &j, true, nil
}

// JourneyFromChange reads the journey metadata a change of the journey
// table's stream leaves, as Journeys.Get reads it, with JobFromChange's
// rules. An import's claim and a journey Journeys.Delete has marked are
// not the journey (Get refuses them too): ok is false for them, and the
// import's publish, or the next change, carries the journey.
func JourneyFromChange(ch changes.Change[table.Item]) (*Journey, bool, error) {
	item, ok, err := changeImage(ch, EntityJourney)
	if !ok || err != nil {
		return nil, false, err
	}
	if claimed(item) {
		return nil, false, nil
	}
	j, err := journeyFromItem(item)
	if err == nil && j.ID == "" {
		err = fmt.Errorf("journey: metadata item %s has no journeyId", stringAttr(item, attrPK))
	}
	if err != nil {
		return nil, false, fmt.Errorf("journey: journey from change %s: %w: %w", ch.EventID, changes.ErrDecode, err)
	}
	return &j, true, nil
}

// changeImage is the new image of a change of the journey table when it
// is an item of entityType; ok false otherwise (no new image, another
// entity), an error for a record of another table.
func changeImage(ch changes.Change[table.Item], entityType string) (table.Item, bool, error) {
	if err := changes.CheckKeys(ch, attrPK, attrSK); err != nil {
		return nil, false, err
	}
	if ch.New == nil {
		return nil, false, nil
	}
	item := *ch.New
	if !strings.HasPrefix(stringAttr(item, attrPK), "JOURNEY#") {
		return nil, false, fmt.Errorf("journey: change %s: PK %q is not a journey's: %w", ch.EventID, stringAttr(item, attrPK), changes.ErrDecode)
	}
	return item, stringAttr(item, attrEntityType) == entityType, nil
}

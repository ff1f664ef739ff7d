package journey

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/table"
)

// followChanges reads every change the stream holds so far.
func followChanges(t *testing.T, c *changes.Consumer[table.Item]) []changes.Change[table.Item] {
	t.Helper()
	var got []changes.Change[table.Item]
	for {
		n, err := c.Step(context.Background(), func(_ context.Context, batch []changes.Change[table.Item]) error {
			got = append(got, batch...)
			return nil
		})
		require.NoError(t, err)
		if n == 0 {
			return got
		}
	}
}

// TestJobAndJourneyFromChangeReadWhatGetReads: from the table's stream on
// the fake, the job and journey items decode as Jobs.Get and
// Journeys.Get read them; every other item (stages, log summaries,
// removals by Delete) is ok false; the Delete mark is no journey.
func TestJobAndJourneyFromChangeReadWhatGetReads(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	c := progressConsumer(t, e)
	job := timedJourney(t, e.store)
	l := must[*StepLogger](t)(e.store.Logs().Logger(job.Ref(), "schema_extraction"))
	l.Info("entry", nil)
	require.NoError(t, l.Close(ctx))
	e.db.Advance(2 * time.Minute)
	_, err := e.store.Jobs().Recover(ctx)
	require.NoError(t, err)
	wantJob := must[*Job](t)(e.store.Jobs().Get(ctx, job.Ref(), Consistent()))
	wantJourney := must[*Journey](t)(e.store.Journeys().Get(ctx, "JRN-T", Consistent()))
	_, err = e.store.Journeys().Delete(ctx, "JRN-T")
	require.NoError(t, err)
	all := followChanges(t, c)

	var jobs []*Job
	var journeys []*Journey
	removals := 0
	for _, ch := range all {
		if ch.New == nil {
			removals++
		}
		j, ok, err := JobFromChange(ch)
		require.NoError(t, err)
		if ok {
			jobs = append(jobs, j)
		}
		jr, ok, err := JourneyFromChange(ch)
		require.NoError(t, err)
		if ok {
			journeys = append(journeys, jr)
		}
	}
	require.NotEmpty(t, jobs)
	assert.Equal(t, wantJob, jobs[len(jobs)-1], "the last job change is the job as Get reads it")
	assert.True(t, jobs[len(jobs)-1].TimedOut)
	require.NotEmpty(t, journeys)
	assert.Equal(t, wantJourney, journeys[len(journeys)-1], "the mark and the removal leave no journey")
	assert.Equal(t, 1+6+1+1, removals, "Delete's removals: metadata, stages, job, summary")
}

// TestFromChangeRefusesRecordsItCannotRead: a record of another table is
// a *table.InputError; a job or journey item that cannot be read is an
// error wrapping changes.ErrDecode, never zero values.
func TestFromChangeRefusesRecordsItCannotRead(t *testing.T) {
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	other := table.Item{"jobId": s("j-1"), "status": s("QUEUED")}
	_, _, err := JobFromChange(changes.Change[table.Item]{Keys: table.Item{"jobId": s("j-1")}, New: &other})
	assert.ErrorIs(t, err, table.ErrInvalidInput)
	_, _, err = JourneyFromChange(changes.Change[table.Item]{Keys: table.Item{"jobId": s("j-1")}, New: &other})
	assert.ErrorIs(t, err, table.ErrInvalidInput)

	keys := func(pk, sk string) table.Item { return table.Item{attrPK: s(pk), attrSK: s(sk)} }
	for name, item := range map[string]table.Item{
		"job key not the job layout": {attrPK: s("JOURNEY#J"), attrSK: s("JOB#x"), attrEntityType: s(EntityJob),
			attrData: &types.AttributeValueMemberM{Value: table.Item{"jobId": s("JOB-1")}}},
		"job without an id": {attrPK: s("JOURNEY#J"), attrSK: s("JOB#01#raw#001#2025-11-01T20:30:00.000000Z"), attrEntityType: s(EntityJob),
			attrData: &types.AttributeValueMemberM{Value: table.Item{}}},
		"job start not a time": {attrPK: s("JOURNEY#J"), attrSK: s("JOB#01#raw#001#2025-11-01T20:30:00.000000Z"), attrEntityType: s(EntityJob),
			attrData: &types.AttributeValueMemberM{Value: table.Item{"jobId": s("JOB-1"), "startTime": s("yesterday")}}},
		"not a journey's partition": {attrPK: s("USER#1"), attrSK: s("JOB#x"), attrEntityType: s(EntityJob)},
	} {
		ch := changes.Change[table.Item]{EventID: name, Keys: keys(stringAttr(item, attrPK), stringAttr(item, attrSK)), New: &item}
		j, ok, err := JobFromChange(ch)
		assert.ErrorIs(t, err, changes.ErrDecode, name)
		assert.False(t, ok, name)
		assert.Nil(t, j, name)
	}
	for name, item := range map[string]table.Item{
		"journey without an id": {attrPK: s("JOURNEY#J"), attrSK: s(metadataSK), attrEntityType: s(EntityJourney),
			attrData: &types.AttributeValueMemberM{Value: table.Item{}}, attrCreatedAt: s("2025-11-01T20:30:00.000000Z")},
		"journey created not a time": {attrPK: s("JOURNEY#J"), attrSK: s(metadataSK), attrEntityType: s(EntityJourney),
			attrData: &types.AttributeValueMemberM{Value: table.Item{"journeyId": s("J")}}, attrCreatedAt: s("soon")},
	} {
		ch := changes.Change[table.Item]{EventID: name, Keys: keys(stringAttr(item, attrPK), stringAttr(item, attrSK)), New: &item}
		j, ok, err := JourneyFromChange(ch)
		assert.ErrorIs(t, err, changes.ErrDecode, name)
		assert.False(t, ok, name)
		assert.Nil(t, j, name)
	}
	// No new image, another entity: nothing, no error.
	stage := table.Item{attrPK: s("JOURNEY#J"), attrSK: s("STAGE#01#raw"), attrEntityType: s(EntityStage)}
	for _, ch := range []changes.Change[table.Item]{{Keys: keys("JOURNEY#J", "JOB#x")}, {Keys: keys("JOURNEY#J", "STAGE#01#raw"), New: &stage}} {
		_, ok, err := JobFromChange(ch)
		assert.NoError(t, err)
		assert.False(t, ok)
		_, ok, err = JourneyFromChange(ch)
		assert.NoError(t, err)
		assert.False(t, ok)
	}
}

// TestProgressEventsReportTimeoutsAndDeletes: a job failed past its
// timeout is a jobFailed event with TimedOut; Delete reports one
// journeyDeleted, and nothing for its mark or the other items it removes.
func TestProgressEventsReportTimeoutsAndDeletes(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	c := progressConsumer(t, e)
	job := timedJourney(t, e.store)
	e.db.Advance(2 * time.Minute)
	_, err := e.store.Jobs().Recover(ctx)
	require.NoError(t, err)
	_, err = e.store.Journeys().Delete(ctx, "JRN-T")
	require.NoError(t, err)
	events := followEvents(t, c)
	var kinds []ProgressKind
	for _, ev := range events {
		kinds = append(kinds, ev.Kind)
		if ev.Kind == ProgressJobFailed {
			assert.True(t, ev.TimedOut)
			assert.Equal(t, job.JobID, ev.JobID)
			assert.Contains(t, ev.ErrorMessage, "timed out")
		}
		if ev.Kind == ProgressJourneyDeleted {
			assert.Equal(t, "JRN-T", ev.JourneyID)
		}
	}
	assert.Equal(t, []ProgressKind{ProgressJobStarted, ProgressJobFailed, ProgressJourneyDeleted}, kinds)
}

// TestAJobItemWhoseDataLacksItsKeyPartsReadsThemFromTheKey: a job item
// written by other tools with only jobId in Data reads its journey, stage,
// order, execution number and start from its keys, as Jobs.Get does.
func TestAJobItemWhoseDataLacksItsKeyPartsReadsThemFromTheKey(t *testing.T) {
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	item := table.Item{attrPK: s("JOURNEY#J"), attrSK: s("JOB#02#raw#003#2025-11-01T20:30:00.000000Z"), attrEntityType: s(EntityJob),
		attrData: &types.AttributeValueMemberM{Value: table.Item{"jobId": s("JOB-1")}}}
	j, ok, err := JobFromChange(changes.Change[table.Item]{Keys: table.Item{attrPK: item[attrPK], attrSK: item[attrSK]}, New: &item})
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, JobRef{JourneyID: "J", StageID: "raw", Order: 2, Execution: 3,
		StartedAt: time.Date(2025, 11, 1, 20, 30, 0, 0, time.UTC), JobID: "JOB-1"}, j.Ref())
}

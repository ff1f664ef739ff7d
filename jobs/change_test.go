package jobs_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/internal/testkit"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/table"
)

// follower follows the jobs table's stream from here on.
func (f *fixture) follower(t *testing.T) func() []changes.Change[table.Item] {
	return testkit.Follow(t, f.db, f.db, f.store.Schema().Name, f.db.Now)
}

func TestJobFromChangeReadsEveryMoveAsGetReadsTheJob(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	follow := f.follower(t)
	job := f.create(t, "u1")
	started := moved(t)(f.store.StartProcessing(ctx, job.ID))
	editing := moved(t)(f.store.StartEditing(ctx, started.Lease(), analysis))
	done := moved(t)(f.store.Complete(ctx, editing.Lease(), edit))
	require.NoError(t, f.store.Delete(ctx, job.ID))

	var seen []*jobs.Job
	removals := 0
	for _, ch := range follow() {
		got, ok, err := jobs.JobFromChange(ch)
		require.NoError(t, err)
		if !ok {
			assert.Equal(t, changes.Remove, ch.Event, "only the removal leaves no job")
			assert.Nil(t, got)
			removals++
			continue
		}
		seen = append(seen, got)
	}
	assert.Equal(t, 1, removals)
	assert.Equal(t, []*jobs.Job{job, started, editing, done}, seen,
		"each change decodes to the job the move returned: id, times in milliseconds, ttl in seconds")
	require.Len(t, seen, 4)
	assert.Equal(t, epoch.Year(), seen[0].CreatedAt.Year(), "createdAt is Unix milliseconds, not seconds")
	assert.False(t, seen[0].ExpiresAt.IsZero(), "the ttl is read")
}

func TestJobFromChangeRefusesARecordOfAnotherTable(t *testing.T) {
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	task := table.Item{"PK": s("TASK#t-1"), "SK": s("META"), "type": s("TASK")}
	for name, ch := range map[string]changes.Change[table.Item]{
		"keys of a tasks item":                {Event: changes.Insert, Keys: table.Item{"PK": s("TASK#t-1"), "SK": s("META")}, New: &task},
		"a tasks item without keys":           {Event: changes.Insert, New: &task},
		"a removal of another table's item":   {Event: changes.Remove, Keys: table.Item{"PK": s("TASK#t-1"), "SK": s("META")}},
		"jobId beside another key":            {Event: changes.Modify, Keys: table.Item{"jobId": s("j1"), "SK": s("x")}},
		"a record keyed by another attribute": {Event: changes.Insert, Keys: table.Item{"userId": s("u1")}},
	} {
		got, ok, err := jobs.JobFromChange(ch)
		wantInputError(t, err, "change")
		assert.Falsef(t, ok || got != nil, "%s: ok %v, job %v", name, ok, got)
	}
}

func TestJobFromChangeFailsAJobItemItCannotRead(t *testing.T) {
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	n := func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
	keys := table.Item{"jobId": s("j1")}
	for name, item := range map[string]table.Item{
		"jobId a number":      {"jobId": n("12"), "status": s("QUEUED")},
		"jobId empty":         {"jobId": s(""), "status": s("QUEUED")},
		"createdAt as text":   {"jobId": s("j1"), "createdAt": s("yesterday")},
		"fileSize a fraction": {"jobId": s("j1"), "fileSize": n("1.5")},
		"status a boolean":    {"jobId": s("j1"), "status": &types.AttributeValueMemberBOOL{Value: true}},
	} {
		got, ok, err := jobs.JobFromChange(changes.Change[table.Item]{Event: changes.Insert, Keys: keys, New: &item})
		assert.ErrorIsf(t, err, changes.ErrDecode, "%s", name)
		assert.Falsef(t, ok || got != nil, "%s: ok %v, job %+v: an unreadable job is an error, never zero values", name, ok, got)
	}
	_, ok, err := jobs.JobFromChange(changes.Change[table.Item]{Event: changes.Remove, Keys: keys})
	require.NoError(t, err)
	assert.False(t, ok, "a removal leaves no job")
	_, ok, err = jobs.JobFromChange(changes.Change[table.Item]{})
	require.NoError(t, err)
	assert.False(t, ok, "a change without images or keys is none")
}

func TestJobFromChangeOfAnOffloadedResultNeedsTheStore(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	follow := f.follower(t)
	job := f.create(t, "u1")
	moved(t)(f.store.StartProcessing(ctx, job.ID))
	big := bigAnalysis(150 * 1024)
	moved(t)(f.store.StartEditing(ctx, leaseOf(t, f.store, job.ID), big))
	all := follow()
	require.Len(t, all, 3)
	last := all[2]

	_, ok, err := jobs.JobFromChange(last)
	require.ErrorIs(t, err, jobs.ErrNoBlobStore, "the pointer is not read as an empty analysis")
	assert.False(t, ok)

	got, ok, err := f.store.JobFromChange(ctx, last)
	require.NoError(t, err)
	require.True(t, ok)
	require.NotNil(t, got.AnalysisResult)
	assert.Equal(t, big.Description, got.AnalysisResult.Description)
	assert.Len(t, got.AnalysisResult.Labels, len(big.Labels))

	_, _, err = (*jobs.Store)(nil).JobFromChange(ctx, last)
	assert.ErrorIs(t, err, jobs.ErrNoStore)
}

func TestJobFromChangeKeepsAttributesItDoesNotKnowInExtraAndReadsAnExpiredJob(t *testing.T) {
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	n := func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
	item := table.Item{"jobId": s("j1"), "userId": s("u1"), "status": s("QUEUED"), "createdAt": n("1700000000000"),
		"ttl": n("1"), "newerWritersField": s("kept")}
	got, ok, err := jobs.JobFromChange(changes.Change[table.Item]{Event: changes.Insert, Keys: table.Item{"jobId": s("j1")}, New: &item})
	require.NoError(t, err)
	require.True(t, ok, "a record of a job past its ttl is still the job the change left (reads leave it out, a change does not)")
	assert.Equal(t, "j1", got.ID)
	assert.Equal(t, "u1", got.UserID)
	assert.Equal(t, map[string]types.AttributeValue{"newerWritersField": s("kept")}, got.Extra)
}

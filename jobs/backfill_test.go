package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/jobs"
)

func asTransition(err error, te **jobs.TransitionError) bool { return errors.As(err, te) }

func (f *fixture) getRaw(t testing.TB, id string) map[string]types.AttributeValue {
	t.Helper()
	out, err := f.db.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: aws.String(f.store.Table().Name()), Key: map[string]types.AttributeValue{"jobId": s(id)}, ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	return out.Item
}

func TestBackfillAddsAFieldWithProgress(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	for i := range 40 {
		in := upload(fmt.Sprint("u", i%4))
		if i%3 == 0 {
			in.CorrelationID = "" // written before the field existed
		}
		_, _, err := f.store.Create(ctx, in)
		require.NoError(t, err)
	}
	var calls atomic.Int64
	var last jobs.BackfillProgress
	prog, err := f.store.Maintenance().Backfill(ctx, func(j *jobs.Job) (bool, error) {
		if j.CorrelationID != "" {
			return false, nil
		}
		j.CorrelationID = "migrated"
		return true, nil
	}, jobs.Segments(4), jobs.Progress(func(p jobs.BackfillProgress) {
		calls.Add(1)
		assert.Falsef(t, p.Scanned < last.Scanned, "progress went backwards: %d after %d", p.Scanned, last.Scanned)
		last = p
	}))
	require.NoError(t, err)
	require.Falsef(t, prog.Scanned != 40 || prog.Changed != 14 || prog.Unchanged != 26 || calls.Load() != 40 || last != prog, "progress %+v after %d callbacks (last %+v); want 40 scanned, 14 changed", prog, calls.Load(), last)
	for j, err := range f.store.Maintenance().ByStatus(jobs.StatusQueued).All(ctx) {
		require.NoError(t, err)
		require.NotEmpty(t, j.CorrelationID, "job")
	}
}

func TestBackfillNeverOverwritesAConcurrentStatusMove(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	job := f.create(t, "u1")
	var calls atomic.Int64
	prog, err := f.store.Maintenance().Backfill(ctx, func(j *jobs.Job) (bool, error) {
		if calls.Add(1) == 1 {
			// A worker moves the job between the scan and the backfill's write.
			if _, err := f.store.StartProcessing(ctx, j.ID); err != nil {
				return false, err
			}
		}
		j.TraceID = "backfilled"
		return true, nil
	})
	require.NoError(t, err)
	require.Falsef(t, prog.Conflicts != 1 || prog.Changed != 1 || calls.Load() != 2, "progress %+v after %d calls; want one conflict, then the job re-run and written", prog, calls.Load())
	got, err := f.store.Get(ctx, job.ID, jobs.Consistent())
	require.NoError(t, err)
	require.Falsef(t, got.Status != jobs.StatusProcessing || got.ProcessingStartedAt.IsZero() || got.TraceID != "backfilled", "after backfill and move: status %s, processingStartedAt %v, traceId %q; want both changes kept",
		got.Status, got.ProcessingStartedAt, got.TraceID)
}

func TestBackfillRenamesAndRemovesFields(t *testing.T) {
	f := newFixture(t)
	f.putRaw(t, map[string]types.AttributeValue{
		"jobId": s("old-1"), "userId": s("u1"), "status": s("COMPLETED"), "createdAt": n("1795316400000"),
		"updatedAt": n("1795316400000"), "fileType": s("image/png"), "provider": s("stub"), "fileSize": n("10"),
		"fileName": s("cat.png"), "legacyFlag": &types.AttributeValueMemberBOOL{Value: true},
		"analysisResult": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"labels": &types.AttributeValueMemberL{}, "model": s("v1"), // a nested field Job does not know
		}},
	})
	_, err := f.store.Maintenance().Backfill(context.Background(), func(j *jobs.Job) (bool, error) {
		name, ok := j.Extra["fileName"].(*types.AttributeValueMemberS)
		if !ok {
			return false, nil
		}
		j.OriginalFileName = name.Value
		delete(j.Extra, "fileName")
		delete(j.Extra, "legacyFlag")
		return true, nil
	})
	require.NoError(t, err)
	raw := f.getRaw(t, "old-1")
	require.Falsef(t, scalar(raw["originalFileName"]) != "S:cat.png" || raw["fileName"] != nil || raw["legacyFlag"] != nil, "after the rename: %v", raw)
	// Only what fn changed was written: the unknown nested field survives.
	m, ok := raw["analysisResult"].(*types.AttributeValueMemberM)
	require.Falsef(t, !ok || scalar(m.Value["model"]) != "S:v1", "analysisResult after backfill: %v; an untouched attribute was rewritten", raw["analysisResult"])
	require.Equal(t, "N:1795316400000", scalar(raw["updatedAt"]), "updatedAt")
}

func TestBackfillErrorsNameTheJobAndStop(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	job := f.create(t, "u1")
	_, err := f.store.Maintenance().Backfill(ctx, func(j *jobs.Job) (bool, error) { return false, errors.New("boom") })
	require.Falsef(t, err == nil || !strings.Contains(err.Error(), job.ID) || !strings.Contains(err.Error(), "boom"), "fn error: %v, want it with the job id", err)
	_, err = f.store.Maintenance().Backfill(ctx, func(j *jobs.Job) (bool, error) { j.Status = jobs.StatusCompleted; return true, nil })
	wantInputError(t, err, "status")
	_, err = f.store.Maintenance().Backfill(ctx, func(j *jobs.Job) (bool, error) { j.ID = "other"; return true, nil })
	wantInputError(t, err, "jobId")
	_, err = f.store.Maintenance().Backfill(ctx, func(j *jobs.Job) (bool, error) {
		j.Extra = map[string]types.AttributeValue{"status": s("X")}
		return true, nil
	})
	wantInputError(t, err, "Extra")
	got, _ := f.store.Get(ctx, job.ID, jobs.Consistent())
	require.Falsef(t, got.Status != jobs.StatusQueued || got.ID != job.ID, "refused backfills changed the job: %+v", got)
}

func TestBackfillRejectsBadOptionsBeforeAnyRequest(t *testing.T) {
	f := newFixture(t)
	ok := func(*jobs.Job) (bool, error) { return false, nil }
	f.noRequests(t, func() {
		_, err := f.store.Maintenance().Backfill(context.Background(), nil)
		wantInputError(t, err, "fn")
		_, err = f.store.Maintenance().Backfill(context.Background(), ok, jobs.Segments(0))
		wantInputError(t, err, "Segments")
		_, err = f.store.Maintenance().Backfill(context.Background(), ok, func(o *jobs.BackfillOptions) { o.Attempts = 0 })
		wantInputError(t, err, "Attempts")
	})
}

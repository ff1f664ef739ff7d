package jobs_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

// renameable are the job attributes a Rename may move: every attribute but
// the keys of the table and indexes, ttl and error.
var renameable = []string{
	"updatedAt", "fileSize", "fileType", "originalFileName", "s3TempKey", "s3FinalKey", "provider",
	"processingStartedAt", "processingCompletedAt", "analysisResult", "editResult", "correlationId",
	"traceId", "attempt", "attemptsAtReplay", "leaseExpiresAt", "idempotencyKey", "taskId", "taskCount",
}

// newName is the new name the tests give attribute a.
func newName(a string) string { return a + "_v2" }

// renameAll renames every renameable attribute: a write path that misses
// one leaves an item whose two names disagree.
func renameAll() func(*jobs.Options) {
	return func(o *jobs.Options) {
		for _, a := range renameable {
			jobs.RenameAttribute(a, newName(a))(o)
		}
	}
}

// dualCheck checks the dual write of every item of a jobs table after each
// step: each renamed attribute present under both names with one value,
// or under neither. It records which new names it has seen written, so a
// test can require that every one was.
type dualCheck struct {
	t     *testing.T
	store *jobs.Store
	seen  map[string]bool
}

func newDualCheck(t *testing.T, store *jobs.Store) *dualCheck {
	return &dualCheck{t: t, store: store, seen: map[string]bool{}}
}

func (d *dualCheck) check(step string) {
	d.t.Helper()
	n := 0
	for item, err := range table.ScanAll[table.Item](context.Background(), d.store.Table(), table.Scan{Consistent: true}) {
		require.NoError(d.t, err, step)
		n++
		id := item["jobId"].(*types.AttributeValueMemberS).Value
		for _, a := range renameable {
			old, hasOld := item[a]
			nw, hasNew := item[newName(a)]
			if !assert.Equal(d.t, hasOld, hasNew, "after %s, job %s: %s present %v, %s present %v", step, id, a, hasOld, newName(a), hasNew) {
				continue
			}
			assert.True(d.t, reflect.DeepEqual(old, nw), "after %s, job %s: %s and %s differ: %#v, %#v", step, id, a, newName(a), old, nw)
			if hasNew {
				d.seen[a] = true
			}
		}
	}
	require.NotZero(d.t, n, "after %s the table holds jobs", step)
}

// requireAllSeen requires that the steps wrote every new name at least
// once, so that no rename went unexercised.
func (d *dualCheck) requireAllSeen(names ...string) {
	d.t.Helper()
	for _, a := range names {
		assert.True(d.t, d.seen[a], "no step wrote %s", newName(a))
	}
}

// renamedLifecycles runs a store without a work queue through every write
// path it has, checking the dual write after each: Create (plain and
// keyed), StartProcessing, Heartbeat, StartEditing (inline and offloaded),
// Complete, Fail (first and after a replay), Replay, Recover (back to
// QUEUED, then FAILED), Backfill.
func renamedLifecycles(t *testing.T, store *jobs.Store, advance func(time.Duration)) {
	ctx := context.Background()
	d := newDualCheck(t, store)
	j1, _, err := store.Create(ctx, upload("u1"))
	require.NoError(t, err)
	d.check("Create")
	keyed := upload("u1")
	keyed.IdempotencyKey = "upload-7"
	_, _, err = store.Create(ctx, keyed)
	require.NoError(t, err)
	d.check("Create with an idempotency key")
	j, err := store.StartProcessing(ctx, j1.ID)
	require.NoError(t, err)
	d.check("StartProcessing")
	l, err := store.Heartbeat(ctx, j.Lease())
	require.NoError(t, err)
	d.check("Heartbeat")
	_, err = store.StartEditing(ctx, l, analysis)
	require.NoError(t, err)
	d.check("StartEditing")
	done, err := store.Complete(ctx, l, edit)
	require.NoError(t, err)
	d.check("Complete")
	assert.Equal(t, edit.S3Key, done.S3FinalKey)

	j2, _, err := store.Create(ctx, upload("u2"))
	require.NoError(t, err)
	for round := range 2 { // the second Fail updates the error map in place
		j, err := store.StartProcessing(ctx, j2.ID)
		require.NoError(t, err)
		_, err = store.Fail(ctx, j.Lease(), jobs.JobError{Code: "PROVIDER_TIMEOUT", Message: "504"})
		require.NoError(t, err)
		d.check("Fail")
		replayed, err := store.Maintenance().Replay(ctx, j2.ID)
		require.NoError(t, err)
		d.check("Replay")
		assert.Equal(t, round+1, replayed.Error.RetryCount)
	}

	j3, _, err := store.Create(ctx, upload("u3"))
	require.NoError(t, err)
	for range 2 { // MaxAttempts 2: requeued, then failed
		_, err := store.StartProcessing(ctx, j3.ID)
		require.NoError(t, err)
		advance(2 * lease)
		_, err = store.Maintenance().Recover(ctx)
		require.NoError(t, err)
		d.check("Recover")
	}
	got, err := store.Get(ctx, j3.ID, jobs.Consistent())
	require.NoError(t, err)
	assert.Equal(t, jobs.StatusFailed, got.Status)

	j4, _, err := store.Create(ctx, upload("u4"))
	require.NoError(t, err)
	j, err = store.StartProcessing(ctx, j4.ID)
	require.NoError(t, err)
	big := bigAnalysis(120 * 1024) // over any store's inline budget
	_, err = store.StartEditing(ctx, j.Lease(), big)
	require.NoError(t, err)
	d.check("StartEditing with an offloaded analysis")
	got, err = store.Get(ctx, j4.ID)
	require.NoError(t, err)
	assert.Equal(t, big.Description, got.AnalysisResult.Description, "read back through the new name's pointer")

	_, err = store.Maintenance().Backfill(ctx, func(j *jobs.Job) (bool, error) {
		j.CorrelationID = "migrated"
		return true, nil
	})
	require.NoError(t, err)
	d.check("Backfill")
	d.requireAllSeen(slicesWithout(renameable, "taskId", "taskCount")...)
}

func slicesWithout(all []string, drop ...string) []string {
	var out []string
	for _, a := range all {
		keep := true
		for _, d := range drop {
			keep = keep && a != d
		}
		if keep {
			out = append(out, a)
		}
	}
	return out
}

// The seed's migration playbook, "dual-write to both fields": with a
// Rename, every write path of a store writes the attribute under both
// names. Every renameable attribute is renamed at once, so a write path
// that sets or removes any attribute under its old name only fails here.
func TestRenamedAttributesAreWrittenUnderBothNamesOnEveryWritePath(t *testing.T) {
	f := newFixture(t, renameAll(), jobs.LeaseDuration(lease), jobs.MaxAttempts(2))
	renamedLifecycles(t, f.store, f.db.Advance)
}

func TestIntegrationRenamedAttributesAreWrittenUnderBothNamesOnEveryWritePath(t *testing.T) {
	store, clock := localStore(t, renameAll(), jobs.LeaseDuration(lease), jobs.MaxAttempts(2))
	renamedLifecycles(t, store, clock.Advance)
}

// The work queue's and the job worker's write paths: Create and Replay in
// a transaction with the task, the worker's start, edit and completion,
// its requeue after a failed attempt and its failure after the last, the
// takeover of a dead worker's job on its last attempt, and Sweep queuing a
// job without work and failing one whose task is gone.
func TestRenamedAttributesAreWrittenUnderBothNamesByTheWorkQueueAndTheJobWorker(t *testing.T) {
	w := newJobWorld(t, renameAll(), jobs.MaxAttempts(2))
	ctx := context.Background()
	d := newDualCheck(t, w.jobs)
	ok, _, err := w.jobs.Create(ctx, upload("u-ok"))
	require.NoError(t, err)
	d.check("Create with work")
	p := w.start(t, "w1", editor)
	w.waitStatus(t, ok.ID, jobs.StatusCompleted)
	d.check("a job worker's run")
	p.stop()

	failing, _, err := w.jobs.Create(ctx, upload("u-failing"))
	require.NoError(t, err)
	p = w.start(t, "w2", func(context.Context, *jobs.Attempt) (jobs.EditResult, error) {
		return jobs.EditResult{}, errors.New("provider down")
	})
	waitFor(t, "the first attempt's failure", func() bool {
		task, err := w.tasks.Get(ctx, failing.TaskID)
		require.NoError(t, err)
		return task.Status == tasks.StatusPending && task.Attempt == 1
	})
	d.check("a job worker's failed attempt")
	w.fake.Advance(time.Minute) // the task's retry backoff
	w.waitStatus(t, failing.ID, jobs.StatusFailed)
	p.stop()
	d.check("a job worker's failure after the last attempt")
	_, err = w.jobs.Maintenance().Replay(ctx, failing.ID)
	require.NoError(t, err)
	d.check("Replay with work")
	drain(t, w.workEnv)

	// A worker stopped while it holds a job gives it back.
	cut, _, err := w.jobs.Create(ctx, upload("u-cut"))
	require.NoError(t, err)
	started := make(chan struct{})
	p = w.start(t, "w4", func(ctx context.Context, a *jobs.Attempt) (jobs.EditResult, error) {
		close(started)
		<-ctx.Done()
		return jobs.EditResult{}, ctx.Err()
	})
	<-started
	p.stop()
	require.Equal(t, 1, w.job(t, cut.ID).AttemptsAtReplay, "given back")
	d.check("a worker's graceful stop")
	drain(t, w.workEnv)

	// A store without a work queue left a job QUEUED with no task.
	bare := newStore(t, w.db, nil, jobs.TableName(jobsTable), jobs.Clock(w.now), renameAll())
	orphan, _, err := bare.Create(ctx, upload("u-orphan"))
	require.NoError(t, err)
	_, err = w.jobs.Maintenance().Sweep(ctx, jobs.MinAge(0))
	require.NoError(t, err)
	d.check("Sweep queuing a job's work")
	drain(t, w.workEnv)
	require.NoError(t, w.jobs.Delete(ctx, orphan.ID))

	// A worker dies on the job's last attempt: the next worker fails it.
	last := newJobWorld(t, renameAll(), jobs.MaxAttempts(1))
	dl := newDualCheck(t, last.jobs)
	dead, _, err := last.jobs.Create(ctx, upload("u-dead"))
	require.NoError(t, err)
	dying := last.startCrashing(t, "dies", func(c call) string { return when(c.op == "UpdateItem" && c.table == jobsTable, "after") }, editor)
	waitFor(t, "the crash", dying.conn.dead.Load)
	dying.stop()
	last.fake.Advance(2 * testLease)
	p = last.start(t, "w3", editor)
	last.waitStatus(t, dead.ID, jobs.StatusFailed)
	p.stop()
	dl.check("a takeover failing the job")

	// A worker dies and its task is finished by hand: Sweep fails the job.
	gone := newJobWorld(t, renameAll(), jobs.MaxAttempts(1))
	dg := newDualCheck(t, gone.jobs)
	held, _, err := gone.jobs.Create(ctx, upload("u-gone"))
	require.NoError(t, err)
	dying = gone.startCrashing(t, "dies", func(c call) string { return when(c.op == "UpdateItem" && c.table == jobsTable, "after") }, editor)
	waitFor(t, "the crash", dying.conn.dead.Load)
	dying.stop()
	gone.fake.Advance(2 * testLease)
	drain(t, gone.workEnv)
	res, err := gone.jobs.Maintenance().Sweep(ctx, jobs.MinAge(0))
	require.NoError(t, err)
	assert.Equal(t, 1, res.Failed)
	assert.Equal(t, jobs.StatusFailed, gone.job(t, held.ID).Status)
	dg.check("Sweep failing a job whose task is gone")

	for _, dc := range []*dualCheck{dl, dg} {
		for a := range dc.seen {
			d.seen[a] = true
		}
	}
	d.requireAllSeen("taskId", "taskCount", "attempt", "attemptsAtReplay", "processingStartedAt", "processingCompletedAt", "analysisResult", "editResult")
}

// "Migrate read path to new field": a job another writer wrote under the
// new name only (a newer service that no longer writes the old one), and
// one that disagrees, read through every read path from the new name; a
// job written before the rename (old name only) reads from the old one.
func TestRenamedAttributesAreReadFromTheNewNameFirst(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, jobs.RenameAttribute("originalFileName", "fileName"), jobs.RenameAttribute("s3TempKey", "uploadKey"))
	// The same table, written before the rename: old names only.
	before, _, err := f.store.Create(ctx, upload("u1"))
	require.NoError(t, err)
	for _, name := range []string{"fileName", "uploadKey"} {
		_, err := f.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(f.store.Table().Name()),
			Key: map[string]types.AttributeValue{"jobId": s(before.ID)}, UpdateExpression: aws.String("REMOVE #n"),
			ExpressionAttributeNames: map[string]string{"#n": name}})
		require.NoError(t, err)
	}
	// A job written under the new names with other values than the old.
	job, _, err := f.store.Create(ctx, upload("u-new"))
	require.NoError(t, err)
	for name, v := range map[string]string{"fileName": "renamed.jpg", "uploadKey": "uploads/new/renamed.jpg"} {
		_, err := f.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(f.store.Table().Name()),
			Key:                       map[string]types.AttributeValue{"jobId": s(job.ID)},
			UpdateExpression:          aws.String("SET #n = :v"),
			ExpressionAttributeNames:  map[string]string{"#n": name},
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": s(v)}})
		require.NoError(t, err)
	}
	want := func(what string, got *jobs.Job) {
		t.Helper()
		assert.Equal(t, "renamed.jpg", got.OriginalFileName, what)
		assert.Equal(t, "uploads/new/renamed.jpg", got.S3TempKey, what)
		assert.NotContains(t, got.Extra, "fileName", "%s: the new name is the field, not an extra", what)
		assert.NotContains(t, got.Extra, "uploadKey", what)
	}
	got, err := f.store.Get(ctx, job.ID)
	require.NoError(t, err)
	want("Get", got)
	for j, err := range f.store.ByUser("u-new").All(ctx) {
		require.NoError(t, err)
		want("ByUser", &j)
	}
	for j, err := range f.store.Maintenance().ByStatus(jobs.StatusQueued).All(ctx) {
		require.NoError(t, err)
		if j.ID == job.ID {
			want("ByStatus", &j)
		}
	}
	started, err := f.store.StartProcessing(ctx, job.ID)
	require.NoError(t, err)
	want("a move's returned job", started)
	_, err = f.store.StartProcessing(ctx, job.ID)
	var te *jobs.TransitionError
	require.ErrorAs(t, err, &te)
	want("a refused move's job", te.Job)
	raw := f.getRaw(t, job.ID)
	change := changes.Change[table.Item]{Event: changes.Modify, Keys: map[string]types.AttributeValue{"jobId": s(job.ID)}, New: &raw}
	fromChange, ok, err := f.store.JobFromChange(ctx, change)
	require.NoError(t, err)
	require.True(t, ok)
	want("JobFromChange", fromChange)

	// The job written before the rename reads from the old names.
	got, err = f.store.Get(ctx, before.ID)
	require.NoError(t, err)
	assert.Equal(t, "beach.jpg", got.OriginalFileName)
	assert.Equal(t, "uploads/u1/beach.jpg", got.S3TempKey)
}

// "Backfill old items": a Backfill whose function changes nothing writes
// the new name on every job that lacks it (and, where a newer writer left
// the names disagreeing, the old name to the new one's value); a second
// Backfill writes nothing.
func TestBackfillWritesTheNewNameOfJobsWrittenBeforeTheRename(t *testing.T) {
	ctx := context.Background()
	old := newFixture(t)
	a := old.create(t, "u1")
	b := old.create(t, "u2")
	f := &fixture{db: old.db, blobs: old.blobs, store: newStore(t, old.db, old.blobs, jobs.TableName(jobs.TableNameForEnv("test")),
		jobs.Clock(old.db.Now), jobs.RenameAttribute("originalFileName", "fileName"))}
	_, err := f.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(f.store.Table().Name()),
		Key: map[string]types.AttributeValue{"jobId": s(b.ID)}, UpdateExpression: aws.String("SET fileName = :v"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": s("newer.jpg")}})
	require.NoError(t, err)
	assert.NotContains(t, f.getRaw(t, a.ID), "fileName")

	prog, err := f.store.Maintenance().Backfill(ctx, func(*jobs.Job) (bool, error) { return false, nil })
	require.NoError(t, err)
	assert.EqualValues(t, 2, prog.Changed)
	for id, want := range map[string]string{a.ID: "beach.jpg", b.ID: "newer.jpg"} {
		raw := f.getRaw(t, id)
		assert.Equal(t, s(want), raw["fileName"], id)
		assert.Equal(t, s(want), raw["originalFileName"], id)
	}
	again, err := f.store.Maintenance().Backfill(ctx, func(*jobs.Job) (bool, error) { return false, nil })
	require.NoError(t, err)
	assert.Zero(t, again.Changed, "a completed migration writes nothing")
	assert.EqualValues(t, 2, again.Unchanged)
}

// A Rename that cannot be dual-written fails NewStore with a typed error,
// before any request; so does an Extra entry under a rename's new name.
func TestRenameRefusesWhatCannotBeDualWritten(t *testing.T) {
	cases := map[string]jobs.Rename{
		"table key":        {From: "jobId", To: "id"},
		"index key":        {From: "userId", To: "user"},
		"index sort key":   {From: "createdAt", To: "created"},
		"status":           {From: "status", To: "state"},
		"ttl":              {From: "ttl", To: "expiresAt"},
		"error":            {From: "error", To: "failure"},
		"unknown":          {From: "colour", To: "color"},
		"empty new name":   {From: "provider", To: ""},
		"a known name":     {From: "provider", To: "fileType"},
		"new name too big": {From: "provider", To: strings.Repeat("p", 256)},
	}
	for name, r := range cases {
		f := newFixture(t)
		f.noRequests(t, func() {
			_, err := jobs.NewStore(f.db, nil, jobs.RenameAttribute(r.From, r.To))
			assert.ErrorIs(t, err, table.ErrInvalidInput, name)
		})
	}
	_, err := jobs.NewStore(dynamotest.New(), nil, jobs.RenameAttribute("provider", "vendor"), jobs.RenameAttribute("fileType", "vendor"))
	assert.ErrorIs(t, err, table.ErrInvalidInput, "two renames to one name")
	_, err = jobs.NewStore(dynamotest.New(), nil, jobs.RenameAttribute("provider", "vendor"), jobs.RenameAttribute("provider", "supplier"))
	assert.ErrorIs(t, err, table.ErrInvalidInput, "one attribute renamed twice")

	f := newFixture(t, jobs.RenameAttribute("provider", "vendor"))
	job := f.create(t, "u1")
	_, err = f.store.Maintenance().Backfill(context.Background(), func(j *jobs.Job) (bool, error) {
		j.Extra = map[string]types.AttributeValue{"vendor": s("x")}
		return true, nil
	})
	wantInputError(t, err, "Extra")
	assert.Equal(t, s("gemini"), f.getRaw(t, job.ID)["vendor"], "nothing written: the new name keeps the field's value")
}

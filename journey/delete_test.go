package journey

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/blobstore/s3blob"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/table"
)

// deleteRig is a journey with everything a journey holds (rules, finished
// jobs, log files and summaries, reports, an export) and a neighbour whose
// id extends it, which no delete may touch.
type deleteRig struct {
	s     *Store
	id    string
	items int // in the partition, metadata included
	files int // log and report files
}

const deleteLogs = 60

func newDeleteRig(t *testing.T, s *Store, advance func(time.Duration)) *deleteRig {
	t.Helper()
	ctx := context.Background()
	build := func(id string) int {
		_, err := s.Journeys().Create(ctx, NewJourney{ID: id, Name: id, Configuration: Configuration{RetryAttempts: 1}})
		require.NoError(t, err)
		_, err = s.Rules().Add(ctx, NewRule{JourneyID: id, StageID: "raw_analysis", Title: "r", Type: RuleValidation})
		require.NoError(t, err)
		for i, status := range []JobStatus{JobFailed, JobCompleted} {
			advance(time.Second)
			job, err := s.Jobs().Start(ctx, NewJob{JourneyID: id, StageID: "raw_analysis"})
			require.NoError(t, err)
			for _, step := range []string{"schema_extraction", "data_profiling"} {
				l, err := s.Logs().Logger(job.Ref(), step)
				require.NoError(t, err)
				for k := range deleteLogs / 4 {
					l.Info("entry", map[string]any{"i": k, "job": i})
				}
				require.NoError(t, l.Close(ctx))
			}
			_, err = s.Reports().Write(ctx, job.Ref(), "schema_extraction", Report{ReportType: ReportSummary, Title: "s"})
			require.NoError(t, err)
			_, err = s.Jobs().Finish(ctx, job.Ref(), Finish{Status: status})
			require.NoError(t, err)
		}
		_, err = s.Backups().Export(ctx, id)
		require.NoError(t, err)
		return 1 + 6 + 1 + 2 + deleteLogs + 2 // metadata, stages, rule, jobs, summaries, catalog entries
	}
	r := &deleteRig{s: s, id: "JRN-D"}
	r.items = build(r.id)
	build(r.id + "2")
	r.files = 2*2 + 2 // two log files and a report per job
	return r
}

// partition counts the raw items of a journey's partition.
func partitionItems(t *testing.T, s *Store, id string) int {
	t.Helper()
	pk, _ := journeyPK.Build(id)
	n := 0
	for _, err := range table.QueryAll[table.Item](context.Background(), s.t, table.Query{Partition: pk, Consistent: true}) {
		require.NoError(t, err)
		n++
	}
	return n
}

// files counts a journey's log and report files.
func (r *deleteRig) fileCount(t *testing.T, id string) int {
	t.Helper()
	prefix, err := logObjects.Prefix(id)
	require.NoError(t, err)
	n := 0
	stores := []blobstore.Store{r.s.logs}
	if r.s.reports != r.s.logs {
		stores = append(stores, r.s.reports)
	}
	for _, store := range stores {
		for _, err := range store.List(context.Background(), prefix) {
			require.NoError(t, err)
			n++
		}
	}
	return n
}

// assertGone: nothing of the journey's items is left; its export stays,
// and so do filesLeft of its files (0 when they were purged, all of them
// when kept); its neighbour is whole.
func (r *deleteRig) assertGone(t *testing.T, filesLeft int) {
	t.Helper()
	ctx := context.Background()
	assert.Zero(t, partitionItems(t, r.s, r.id), "items left")
	assert.Equal(t, filesLeft, r.fileCount(t, r.id), "files left (kept: the audit trail; purged: none)")
	_, err := r.s.Journeys().Get(ctx, r.id, Consistent())
	assert.ErrorIs(t, err, ErrJourneyNotFound)
	assert.NotErrorIs(t, err, ErrDeleteInProgress)
	key, err := objectKey(backupObjects, r.id)
	require.NoError(t, err)
	_, err = r.s.backups.Head(ctx, key)
	assert.NoError(t, err, "the export stays")
	assert.Equal(t, r.items, partitionItems(t, r.s, r.id+"2"), "the neighbour's items")
	assert.Equal(t, r.files, r.fileCount(t, r.id+"2"), "the neighbour's files")
}

// deleteWhole: Delete removes every item of the journey, and only those,
// and its files when s purges them (Options.PurgeFilesOnDelete), else
// leaves them readable; a second Delete finds nothing; the id can be
// used again.
func deleteWhole(t *testing.T, s *Store, advance func(time.Duration)) {
	ctx := context.Background()
	purge := s.opts.PurgeFilesOnDelete
	r := newDeleteRig(t, s, advance)
	require.Equal(t, r.items, partitionItems(t, s, r.id))
	require.Equal(t, r.files, r.fileCount(t, r.id))
	c, err := s.Journeys().Load(ctx, r.id, Consistent())
	require.NoError(t, err)
	want := DeleteResult{JourneyID: r.id, Items: r.items, Files: r.files}
	if !purge {
		want.Files, want.FilesKept = 0, true
	}

	dry, err := s.Journeys().Delete(ctx, r.id, DryRun())
	require.NoError(t, err)
	wantDry := want
	wantDry.DryRun = true
	assert.Equal(t, wantDry, dry)
	assert.Equal(t, r.items, partitionItems(t, s, r.id), "a dry run deletes nothing")
	assert.Equal(t, r.files, r.fileCount(t, r.id), "a dry run deletes no file")
	_, err = s.Journeys().Get(ctx, r.id, Consistent())
	require.NoError(t, err, "a dry run marks nothing")

	res, err := s.Journeys().Delete(ctx, r.id)
	require.NoError(t, err)
	assert.Equal(t, want, res)
	filesLeft := r.files
	if purge {
		filesLeft = 0
	}
	r.assertGone(t, filesLeft)
	for j, err := range s.Journeys().All(ctx) {
		require.NoError(t, err)
		assert.NotEqual(t, r.id, j.ID)
	}
	entries, err := s.Logs().Read(ctx, c.Jobs[0].Ref())
	if purge {
		require.NoError(t, err)
		assert.Empty(t, entries, "purged")
	} else {
		require.NoError(t, err, "a deleted journey's full logs are still read")
		assert.Len(t, entries, deleteLogs/2, "the first job's two step logs")
	}

	_, err = s.Journeys().Delete(ctx, r.id)
	assert.ErrorIs(t, err, ErrJourneyNotFound)
	_, err = s.Journeys().Create(ctx, NewJourney{ID: r.id, Name: "again"})
	require.NoError(t, err, "a deleted journey's id is free")
}

// TestDeleteRemovesTheJourneysItemsAndKeepsItsFiles: by default a deleted
// journey's full logs and reports stay in S3 (the seed's audit trail,
// "never deleted"); its items go.
func TestDeleteRemovesTheJourneysItemsAndKeepsItsFiles(t *testing.T) {
	e := newEnv(t)
	deleteWhole(t, e.store, e.db.Advance)
}

// TestDeletePurgesTheFilesWithPurgeFilesOnDelete: a store with
// PurgeFilesOnDelete deletes the journey's files too.
func TestDeletePurgesTheFilesWithPurgeFilesOnDelete(t *testing.T) {
	e := newEnv(t, PurgeFilesOnDelete())
	deleteWhole(t, e.store, e.db.Advance)
}

// TestIntegrationDeleteKeepsOrPurgesTheFiles: both on DynamoDB Local and
// s3rver.
func TestIntegrationDeleteKeepsOrPurgesTheFiles(t *testing.T) {
	for _, purge := range []bool{false, true} {
		t.Run(fmt.Sprintf("purge=%v", purge), func(t *testing.T) {
			client := testenv.S3(t)
			bucket := func(base string) blobstore.Store {
				b, err := s3blob.New(client, testenv.Bucket(t, base), func(o *s3blob.Options) { o.PathStyle = true })
				require.NoError(t, err)
				return b
			}
			logs, reports, backups := bucket("journey-logs"), bucket("journey-reports"), bucket("journey-backups")
			clock := localClock()
			s := localStore(t, Clock(clock.Now), WithReports(reports), WithBackups(backups), func(o *Options) { o.PurgeFilesOnDelete = purge })
			s.logs = logs
			deleteWhole(t, s, clock.Advance)
		})
	}
}

// TestDeleteIsRefusedWhileAJobRuns: nothing is deleted or marked.
func TestDeleteIsRefusedWhileAJobRuns(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	r := newDeleteRig(t, e.store, e.db.Advance)
	_, err := e.store.Jobs().Start(ctx, NewJob{JourneyID: r.id, StageID: "stripped_schema"})
	require.NoError(t, err)
	for _, opts := range [][]func(*DeleteOptions){nil, {DryRun()}} {
		_, err = e.store.Journeys().Delete(ctx, r.id, opts...)
		assert.ErrorIs(t, err, ErrJobRunning)
	}
	assert.Equal(t, r.items+1, partitionItems(t, e.store, r.id))
	assert.Equal(t, r.files, r.fileCount(t, r.id))
	_, err = e.store.Journeys().Get(ctx, r.id, Consistent())
	assert.NoError(t, err)
}

// TestDeleteIsRefusedWhenAJobStartsBeforeTheMark: a Jobs.Start lands
// between Delete's read of the stages and its mark; the mark's check on
// the stages refuses, and nothing is deleted.
func TestDeleteIsRefusedWhenAJobStartsBeforeTheMark(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	r := newDeleteRig(t, e.store, e.db.Advance)
	hooked := &hookedAPI{API: e.db}
	s := mustStore(t, hooked, e.logs, WithReports(e.reports), WithBackups(e.backups), Clock(e.db.Now))
	var startErr error
	hooked.hook(func(n int) error {
		if n == 1 { // Delete read the stages and is about to mark
			_, startErr = e.store.Jobs().Start(ctx, NewJob{JourneyID: r.id, StageID: "stripped_schema"})
		}
		return nil
	})
	_, err := s.Journeys().Delete(ctx, r.id)
	require.NoError(t, startErr)
	assert.ErrorIs(t, err, ErrJobRunning)
	assert.Equal(t, r.items+1, partitionItems(t, e.store, r.id), "nothing deleted")
	assert.Equal(t, r.files, r.fileCount(t, r.id))
	j, err := e.store.Journeys().Get(ctx, r.id, Consistent())
	require.NoError(t, err, "not marked")
	assert.Equal(t, StatusRunning, j.Status)
}

// failingDeletes fails every Delete of a blob store after the first n.
type failingDeletes struct {
	blobstore.Store
	left atomic.Int64
}

var errInjected = errors.New("injected crash")

func (f *failingDeletes) Delete(ctx context.Context, key string) error {
	if f.left.Add(-1) < 0 {
		return errInjected
	}
	return f.Store.Delete(ctx, key)
}

// TestInterruptedDeleteIsFinishedByTheNextDelete: a delete that stops
// after its mark, among the items, among the files, or before the
// metadata, leaves a journey that reads as gone and takes no writes; the
// next Delete finishes it.
func TestInterruptedDeleteIsFinishedByTheNextDelete(t *testing.T) {
	for _, tc := range []struct {
		name       string
		crashWrite int // the DynamoDB write that fails (0: none)
		fileLeft   int // files deleted before the blob store fails (-1: none fail)
	}{
		// The 71 items go in three BatchWriteItems of at most 25, sent
		// concurrently (table.Options.BatchWriteConcurrency): which of
		// them is the store's 2nd or 3rd write varies, and the others may
		// have applied.
		{"AfterTheMark", 2, -1},      // one of the item batches
		{"AmongTheItems", 3, -1},     // another
		{"AmongTheFiles", 0, 3},      // the fourth file
		{"BeforeTheMetadata", 5, -1}, // after the three item batches
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			ctx := context.Background()
			r := newDeleteRig(t, e.store, e.db.Advance)
			hooked := &hookedAPI{API: e.db}
			logs := &failingDeletes{Store: e.logs}
			logs.left.Store(1 << 30)
			if tc.fileLeft >= 0 {
				logs.left.Store(int64(tc.fileLeft))
			}
			s := mustStore(t, hooked, logs, WithReports(e.reports), WithBackups(e.backups), Clock(e.db.Now), PurgeFilesOnDelete())
			hooked.hook(func(n int) error {
				if n == tc.crashWrite {
					return errInjected
				}
				return nil
			})
			_, err := s.Journeys().Delete(ctx, r.id)
			require.ErrorIs(t, err, errInjected)

			// Half deleted: gone to readers, closed to writers.
			_, err = e.store.Journeys().Get(ctx, r.id)
			assert.ErrorIs(t, err, ErrJourneyNotFound)
			assert.ErrorIs(t, err, ErrDeleteInProgress)
			_, err = e.store.Journeys().Load(ctx, r.id, Consistent())
			assert.ErrorIs(t, err, ErrDeleteInProgress)
			_, err = e.store.Jobs().Start(ctx, NewJob{JourneyID: r.id, StageID: "stripped_schema"})
			assert.ErrorIs(t, err, ErrDeleteInProgress)
			_, err = e.store.Journeys().Create(ctx, NewJourney{ID: r.id, Name: "again"})
			assert.ErrorIs(t, err, ErrJourneyExists)
			_, err = e.store.Backups().Import(ctx, r.id, Overwrite())
			assert.ErrorIs(t, err, ErrDeleteInProgress)
			_, err = e.store.Rules().Add(ctx, NewRule{JourneyID: r.id, StageID: "tmf_mapping", Title: "late", Type: RuleValidation})
			assert.ErrorIs(t, err, ErrDeleteInProgress)
			for j, err := range e.store.Journeys().All(ctx) {
				require.NoError(t, err)
				assert.NotEqual(t, r.id, j.ID, "Journeys.List shows a journey being deleted")
			}

			hooked.hook(nil)
			logs.left.Store(1 << 30)
			_, err = s.Journeys().Delete(ctx, r.id)
			require.NoError(t, err)
			r.assertGone(t, 0)
		})
	}
}

// TestStartRefusedWhenTheDeleteMarkLandsFirst: the mark lands between
// Jobs.Start's read and its transaction; the transaction's condition on
// the metadata refuses, and no job exists in the journey being deleted.
func TestStartRefusedWhenTheDeleteMarkLandsFirst(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	r := newDeleteRig(t, e.store, e.db.Advance)
	deleter := &hookedAPI{API: e.db}
	d := mustStore(t, deleter, e.logs, WithReports(e.reports), WithBackups(e.backups), Clock(e.db.Now))
	deleter.hook(func(n int) error {
		if n >= 2 { // marked; stop before deleting anything (the item
			// batches go out concurrently: every one of them fails)
			return errInjected
		}
		return nil
	})
	starter := &hookedAPI{API: e.db}
	s := mustStore(t, starter, e.logs, Clock(e.db.Now))
	var deleteErr error
	starter.hook(func(n int) error {
		if n == 1 { // Start read the journey and is about to write
			_, deleteErr = d.Journeys().Delete(ctx, r.id)
		}
		return nil
	})
	_, err := s.Jobs().Start(ctx, NewJob{JourneyID: r.id, StageID: "stripped_schema"})
	require.ErrorIs(t, deleteErr, errInjected)
	assert.ErrorIs(t, err, ErrDeleteInProgress)
	assert.Equal(t, r.items, partitionItems(t, e.store, r.id), "no job was added")
}

// TestDeleteRefusesBadInput: a bad or reserved id is a *table.InputError
// before any request.
func TestDeleteRefusesBadInput(t *testing.T) {
	e := newEnv(t)
	for _, id := range []string{"", "bad id", GlobalRules} {
		_, err := e.store.Journeys().Delete(context.Background(), id)
		assert.ErrorIs(t, err, table.ErrInvalidInput, id)
	}
	assert.Zero(t, e.calls())
}

// TestDeleteCleansWhatALateWriterLeft: a report written for a finished job
// after the journey was deleted is removed by the next Delete.
func TestDeleteCleansWhatALateWriterLeft(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	r := newDeleteRig(t, e.store, e.db.Advance)
	c, err := e.store.Journeys().Load(ctx, r.id, Consistent())
	require.NoError(t, err)
	_, err = e.store.Journeys().Delete(ctx, r.id)
	require.NoError(t, err)
	_, err = e.store.Reports().Write(ctx, c.Jobs[0].Ref(), "late", Report{ReportType: ReportSummary, Title: "late"})
	require.NoError(t, err)
	res, err := e.store.Journeys().Delete(ctx, r.id)
	require.NoError(t, err)
	assert.Equal(t, DeleteResult{JourneyID: r.id, Items: 1, FilesKept: true}, res)
	r.assertGone(t, r.files+1) // the late report's file stays with the others
}

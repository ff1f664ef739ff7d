package jobs_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/table"
)

// get reads a job, strongly consistent.
func (f *fixture) get(t *testing.T, id string) *jobs.Job {
	t.Helper()
	job, err := f.store.Get(context.Background(), id, jobs.Consistent())
	require.NoError(t, err)
	return job
}

// wantUnknownProvider asserts err is the typed refusal of a provider the
// store does not know.
func wantUnknownProvider(t *testing.T, err error) {
	t.Helper()
	wantInputError(t, err, "provider")
	assert.ErrorIs(t, err, jobs.ErrUnknownProvider)
}

// tableItems counts the items of the store's table.
func tableItems(t *testing.T, store *jobs.Store) int {
	t.Helper()
	n := 0
	for _, err := range table.ScanAll[table.Item](context.Background(), store.Table(), table.Scan{Consistent: true}) {
		require.NoError(t, err)
		n++
	}
	return n
}

// The seed's provider is "gemini | seedream | stub": Create accepts those
// and the ones jobs.Providers adds, and refuses any other before it sends
// anything, on a store with or without a work queue.
func TestCreateTakesTheSeedsProvidersAndRefusesOthersWritingNothing(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, jobs.Providers("openai"))
	for _, p := range append(jobs.SeedProviders(), "openai") {
		in := upload("u-" + p)
		in.Provider = p
		job, created, err := f.store.Create(ctx, in)
		require.NoError(t, err, p)
		assert.True(t, created)
		assert.Equal(t, p, f.get(t, job.ID).Provider)
	}
	for _, p := range []string{"dall-e", "Gemini", "gemini ", "stub\x00"} {
		in := upload("u1")
		in.Provider = p
		f.noRequests(t, func() {
			_, _, err := f.store.Create(ctx, in)
			wantUnknownProvider(t, err)
		})
		keyed := in
		keyed.IdempotencyKey = "k-" + p
		f.noRequests(t, func() {
			_, _, err := f.store.Create(ctx, keyed)
			wantUnknownProvider(t, err)
		})
	}
	plain := newFixture(t)
	in := upload("u1")
	in.Provider = "openai"
	plain.noRequests(t, func() {
		_, _, err := plain.store.Create(ctx, in)
		wantUnknownProvider(t, err)
	})
	assert.Contains(t, func() string { _, _, err := plain.store.Create(ctx, in); return err.Error() }(), "gemini, seedream, stub",
		"the refusal names the providers the store knows")

	e, db := fakeWorkEnv(t)
	before := db.Calls("TransactWriteItems") + db.Calls("PutItem")
	_, _, err := e.jobs.Create(ctx, in)
	wantUnknownProvider(t, err)
	assert.Equal(t, before, db.Calls("TransactWriteItems")+db.Calls("PutItem"), "no job and no task")
	assert.Empty(t, e.queued(t))
}

func TestNewStoreRefusesAnEmptyOrOversizedProviderName(t *testing.T) {
	for _, names := range [][]string{{""}, {"ok", strings.Repeat("p", 1025)}, {"\xff"}} {
		_, err := jobs.NewStore(newFixture(t).db, nil, jobs.Providers(names...))
		var ie *table.InputError
		require.ErrorAs(t, err, &ie, "%q", names)
		assert.True(t, strings.HasPrefix(ie.Field, "Options.Providers["), ie.Field)
	}
}

// Backfill is the other path that sets a provider: a migration may move
// jobs to another provider the store knows, and one that names an unknown
// provider stops with ErrUnknownProvider before writing that job. A job
// stored with a provider the store no longer knows (an older service's) is
// read and backfilled as it is.
func TestBackfillSetsOnlyAKnownProviderAndLeavesAStoredOneAlone(t *testing.T) {
	ctx := context.Background()
	old := newFixture(t, jobs.Providers("legacy-ai"))
	legacy := upload("u-legacy")
	legacy.Provider = "legacy-ai"
	kept, _, err := old.store.Create(ctx, legacy)
	require.NoError(t, err)
	moved := old.create(t, "u-moved")

	f := &fixture{db: old.db, blobs: old.blobs, store: newStore(t, old.db, old.blobs, jobs.TableName(jobs.TableNameForEnv("test")), jobs.Clock(old.db.Now))}
	_, err = f.store.Maintenance().Backfill(ctx, func(j *jobs.Job) (bool, error) {
		if j.ID != moved.ID {
			return false, nil
		}
		j.Provider = "dall-e"
		return true, nil
	}, jobs.Segments(1))
	wantUnknownProvider(t, err)
	assert.Equal(t, "gemini", f.get(t, moved.ID).Provider, "nothing written")

	prog, err := f.store.Maintenance().Backfill(ctx, func(j *jobs.Job) (bool, error) {
		j.CorrelationID = "migrated"
		if j.ID == moved.ID {
			j.Provider = jobs.ProviderSeedream
		}
		return true, nil
	})
	require.NoError(t, err)
	assert.EqualValues(t, 2, prog.Changed)
	assert.Equal(t, jobs.ProviderSeedream, f.get(t, moved.ID).Provider)
	got := f.get(t, kept.ID)
	assert.Equal(t, "legacy-ai", got.Provider, "a stored provider the store does not know is kept")
	assert.Equal(t, "migrated", got.CorrelationID)
}

// On DynamoDB Local: an added provider is stored and read back; an
// unknown one leaves the table empty.
func TestIntegrationCreateStoresAnAddedProviderAndRefusesAnUnknownOne(t *testing.T) {
	store, _ := localStore(t, jobs.Providers("openai"))
	ctx := context.Background()
	in := upload("u1")
	in.Provider = "dall-e"
	_, _, err := store.Create(ctx, in)
	wantUnknownProvider(t, err)
	assert.Zero(t, tableItems(t, store))
	in.Provider = "openai"
	job, _, err := store.Create(ctx, in)
	require.NoError(t, err)
	got, err := store.Get(ctx, job.ID, jobs.Consistent())
	require.NoError(t, err)
	assert.Equal(t, "openai", got.Provider)
}

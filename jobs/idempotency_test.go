package jobs_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/table"
)

func keyed(user, key string) jobs.CreateInput {
	in := upload(user)
	in.IdempotencyKey = key
	return in
}

func TestCreateWithTheSameKeyAndInputReturnsTheSameJob(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	first, created, err := f.store.Create(ctx, keyed("u1", "req-1"))
	require.NoError(t, err)
	assert.True(t, created)
	assert.Equal(t, "req-1", first.IdempotencyKey)

	f.db.Advance(time.Second)
	f.db.ResetCalls()
	// A retried request carries its own trace: still the same job.
	retry := keyed("u1", "req-1")
	retry.TraceID, retry.CorrelationID = "1-other-trace", "corr-2"
	again, created, err := f.store.Create(ctx, retry)
	require.NoError(t, err)
	assert.False(t, created)
	assert.Equal(t, *first, *again)
	assert.Equal(t, 1, f.db.Calls("PutItem"))
	assert.Zero(t, f.db.Calls("GetItem"), "the stored job comes back with the refused put")

	// Other users' keys are their own.
	other, created, err := f.store.Create(ctx, keyed("u2", "req-1"))
	require.NoError(t, err)
	assert.True(t, created)
	assert.NotEqual(t, first.ID, other.ID)
}

func TestCreateWithTheSameKeyAndOtherInputIsTypedAndChangesNothing(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	first, _, err := f.store.Create(ctx, keyed("u1", "req-1"))
	require.NoError(t, err)
	for field, change := range map[string]func(*jobs.CreateInput){
		"fileSize":         func(in *jobs.CreateInput) { in.FileSize++ },
		"fileType":         func(in *jobs.CreateInput) { in.FileType = "image/png" },
		"originalFileName": func(in *jobs.CreateInput) { in.OriginalFileName = "other.jpg" },
		"s3TempKey":        func(in *jobs.CreateInput) { in.S3TempKey = "uploads/u1/other.jpg" },
		"provider":         func(in *jobs.CreateInput) { in.Provider = "seedream" },
	} {
		in := keyed("u1", "req-1")
		change(&in)
		_, _, err := f.store.Create(ctx, in)
		var ie *jobs.IdempotencyError
		require.ErrorAs(t, err, &ie, field)
		assert.ErrorIs(t, err, jobs.ErrIdempotencyMismatch)
		assert.Equal(t, field, ie.Field)
		assert.Equal(t, first.ID, ie.JobID)
		require.NotNil(t, ie.Job)
		assert.Equal(t, *first, *ie.Job)
	}
	got, err := f.store.Get(ctx, first.ID, jobs.Consistent())
	require.NoError(t, err)
	assert.Equal(t, *first, *got)
}

func TestCreateFiftyConcurrentRequestsWithOneKeyMakeOneJob(t *testing.T) {
	concurrentCreates(t, fakeLeaseEnv(t))
}

func TestIntegrationCreateFiftyConcurrentRequestsWithOneKeyMakeOneJob(t *testing.T) {
	concurrentCreates(t, localLeaseEnv(t))
}

func concurrentCreates(t *testing.T, e leaseEnv) {
	ctx := context.Background()
	store := e.store(t)
	user := "u-" + strings.ReplaceAll(t.Name(), "/", "-")
	const n = 50
	var (
		wg      sync.WaitGroup
		start   = make(chan struct{})
		results = make([]*jobs.Job, n)
		created = make([]bool, n)
		errs    = make([]error, n)
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			results[i], created[i], errs[i] = store.Create(ctx, keyed(user, "one-key"))
		}()
	}
	close(start)
	wg.Wait()
	wins := 0
	for i := range n {
		require.NoError(t, errs[i])
		if created[i] {
			wins++
		}
		assert.Equal(t, results[0].ID, results[i].ID)
	}
	assert.Equal(t, 1, wins)
	page, err := store.ByUser(user).Page(ctx, "")
	require.NoError(t, err)
	assert.Len(t, page.Items, 1)
}

// lostResponseDB writes, then fails the call as a dropped connection
// would: the job exists, the caller saw an error.
type lostResponseDB struct {
	table.API
	once sync.Once
}

func (d *lostResponseDB) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	out, err := d.API.PutItem(ctx, in, opts...)
	lost := false
	d.once.Do(func() { lost = true })
	if lost && err == nil {
		return nil, errors.New("connection reset after the write")
	}
	return out, err
}

func TestCreateRetriedAfterALostResponseReturnsTheJobItWrote(t *testing.T) {
	ctx := context.Background()
	e := fakeLeaseEnv(t)
	store := e.store(t)
	lossy := newStore(t, &lostResponseDB{API: e.db}, nil, func(o *jobs.Options) {
		o.TableName = e.name
		o.Clock = e.clock.Now
	})
	_, _, err := lossy.Create(ctx, keyed("u1", "req-1"))
	require.Error(t, err)
	job, created, err := lossy.Create(ctx, keyed("u1", "req-1"))
	require.NoError(t, err)
	assert.False(t, created, "the first call wrote the job; the retry finds it")
	page, err := store.ByUser("u1").Page(ctx, "")
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	assert.Equal(t, job.ID, page.Items[0].ID)
}

func TestCreateWithAKeyWhoseJobExpiredMakesANewJob(t *testing.T) {
	ctx := context.Background()
	e := fakeLeaseEnv(t)
	store := e.store(t, func(o *jobs.Options) { o.Retention = time.Hour })
	first, _, err := store.Create(ctx, keyed("u1", "req-1"))
	require.NoError(t, err)
	// The fake's sweeper would delete the item on Advance; DynamoDB may keep
	// it for days. Move the store's clock alone, as DynamoDB's lag would.
	later := func() time.Time { return e.clock.Now().Add(time.Hour) }
	lagging := newStore(t, e.db, nil, func(o *jobs.Options) {
		o.TableName = e.name
		o.Clock = later
		o.Retention = time.Hour
	})
	again, created, err := lagging.Create(ctx, keyed("u1", "req-1"))
	require.NoError(t, err)
	assert.True(t, created)
	assert.Equal(t, first.ID, again.ID)
	assert.True(t, again.CreatedAt.After(first.CreatedAt))
}

func TestCreateRejectsABadIdempotencyKeyBeforeAnyRequest(t *testing.T) {
	f := newFixture(t)
	for name, key := range map[string]string{
		"too long":      strings.Repeat("k", 257),
		"invalid UTF-8": "\xff",
	} {
		t.Run(name, func(t *testing.T) {
			f.noRequests(t, func() {
				_, _, err := f.store.Create(context.Background(), keyed("u1", key))
				wantInputError(t, err, "IdempotencyKey")
			})
		})
	}
}

package jobs_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/table"
)

// epoch is the fake's start time in every test.
var epoch = time.Date(2026, 11, 22, 4, 0, 0, 0, time.UTC)

type fixture struct {
	db    *dynamotest.DB
	blobs *blobstore.Memory
	store *jobs.Store
}

// newFixture is a store on a fresh fake whose clock is the store's clock
// (the store's default on the fake: table.ClockOf), so "expired" means the
// same thing to both.
func newFixture(t testing.TB, opts ...func(*jobs.Options)) *fixture {
	t.Helper()
	db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return epoch } })
	blobs := blobstore.NewMemory(func(o *blobstore.MemoryOptions) { o.Clock = db.Now })
	all := append([]func(*jobs.Options){func(o *jobs.Options) {
		o.TableName = jobs.TableNameForEnv("test")
	}}, opts...)
	store := newStore(t, db, blobs, all...)
	require.NoError(t, store.Table().Schema().Create(context.Background(), db), "create table")
	return &fixture{db: db, blobs: blobs, store: store}
}

func upload(user string) jobs.CreateInput {
	return jobs.CreateInput{
		UserID:           user,
		FileSize:         2_500_000,
		FileType:         "image/jpeg",
		OriginalFileName: "beach.jpg",
		S3TempKey:        "uploads/" + user + "/beach.jpg",
		Provider:         "gemini",
		CorrelationID:    "corr-1",
		TraceID:          "1-5f84c7a5-0a1b2c3d4e5f",
	}
}

func (f *fixture) create(t testing.TB, user string) *jobs.Job {
	t.Helper()
	j, _, err := f.store.Create(context.Background(), upload(user))
	require.NoError(t, err, "Create")
	return j
}

// wantInputError asserts err is the typed bad-input error naming field.
func wantInputError(t testing.TB, err error, field string) {
	t.Helper()
	var ie *table.InputError
	require.Falsef(t, !errors.As(err, &ie) || !errors.Is(err, table.ErrInvalidInput), "got %v (%T), want *table.InputError for %s", err, err, field)
	require.Equal(t, field, ie.Field, "InputError.Field =")
}

// noRequests runs fn and fails if it sent anything to DynamoDB.
func (f *fixture) noRequests(t testing.TB, fn func()) {
	t.Helper()
	before := f.totalCalls()
	fn()
	after := f.totalCalls()
	require.Equal(t, before, after, "bad input sent")
}

func (f *fixture) totalCalls() int {
	n := 0
	for _, op := range []string{"GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query", "Scan"} {
		n += f.db.Calls(op)
	}
	return n
}

func TestNewStoreRejectsANilDBAndBadOptionsBeforeAnyRequest(t *testing.T) {
	db := dynamotest.New()
	for name, c := range map[string]struct {
		db  table.API
		opt func(*jobs.Options)
	}{
		"nil db":                {nil, nil},
		"table name with space": {db, jobs.TableName("my jobs")},
		"negative Retention":    {db, func(o *jobs.Options) { o.Retention = -time.Hour }},
		"negative lease":        {db, jobs.LeaseDuration(-time.Second)},
		"negative max attempts": {db, jobs.MaxAttempts(-1)},
		"threshold too small":   {db, func(o *jobs.Options) { o.OffloadThreshold = 1024 }},
		"threshold too large":   {db, func(o *jobs.Options) { o.OffloadThreshold = 500 * 1024 }},
	} {
		t.Run(name, func(t *testing.T) {
			s, err := jobs.NewStore(c.db, nil, c.opt)
			assert.ErrorIs(t, err, table.ErrInvalidInput)
			assert.Nil(t, s)
		})
	}
	assert.Zero(t, db.Calls("CreateTable")+db.Calls("DescribeTable"), "NewStore sends no request")
}

func TestNewStoreDefaultsToTheSeedsDevTableAndTakesOneName(t *testing.T) {
	db := dynamotest.New()
	s := newStore(t, db, nil)
	assert.Equal(t, "photoeditor-dev-jobs", s.Schema().Name)
	assert.Equal(t, jobs.DefaultTableName, s.Table().Name())
	s = newStore(t, db, nil, jobs.TableName(jobs.TableNameForEnv("prod")))
	assert.Equal(t, "photoeditor-prod-jobs", s.Schema().Name)
	assert.Equal(t, jobs.Schema("photoeditor-prod-jobs"), s.Schema())
}

func TestEnsureTableCreatesTheTableTheStoreUses(t *testing.T) {
	ctx := context.Background()
	db := dynamotest.New()
	s := newStore(t, db, nil, jobs.TableName("jobs-ensure"))
	require.NoError(t, s.EnsureTable(ctx))
	require.NoError(t, s.EnsureTable(ctx), "a second call finds the table")
	out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("jobs-ensure")})
	require.NoError(t, err)
	assert.Len(t, out.Table.GlobalSecondaryIndexes, 2)
	_, _, err = s.Create(ctx, upload("u1"))
	assert.NoError(t, err)
}

func TestAZeroStoreFailsCleanly(t *testing.T) {
	ctx := context.Background()
	var zero jobs.Store
	var nilStore *jobs.Store
	_, err := zero.Get(ctx, "j1")
	assert.ErrorIs(t, err, jobs.ErrNoStore)
	_, _, err = nilStore.Create(ctx, upload("u1"))
	assert.ErrorIs(t, err, jobs.ErrNoStore)
	assert.ErrorIs(t, nilStore.EnsureTable(ctx), jobs.ErrNoStore)
	_, err = nilStore.Maintenance().Recover(ctx)
	assert.ErrorIs(t, err, jobs.ErrNoStore)
	assert.Zero(t, nilStore.Schema().Name)
}

func TestJobJSONUsesTheSeedsFieldNames(t *testing.T) {
	f := newFixture(t)
	job := f.create(t, "u1")
	data, err := json.Marshal(job)
	require.NoError(t, err)
	var fields map[string]any
	require.NoError(t, json.Unmarshal(data, &fields))
	for _, name := range []string{"jobId", "userId", "status", "createdAt", "updatedAt", "fileSize", "fileType",
		"originalFileName", "s3TempKey", "provider", "correlationId", "traceId", "ttl"} {
		assert.Contains(t, fields, name)
	}
	for _, name := range []string{"ID", "Extra", "extra", "error", "editResult", "processingStartedAt", "leaseExpiresAt"} {
		assert.NotContains(t, fields, name, "absent or internal fields stay out")
	}
	data, err = json.Marshal(jobs.EditResult{S3Key: "k", Width: 1, Height: 2, Format: jobs.FormatPNG, Size: 3})
	require.NoError(t, err)
	assert.JSONEq(t, `{"s3Key":"k","width":1,"height":2,"format":"png","size":3}`, string(data))
}

func ExampleNewStore() {
	ctx := context.Background()
	db := dynamotest.New() // or a *dynamodb.Client
	store, err := jobs.NewStore(db, blobstore.NewMemory(), jobs.TableName(jobs.TableNameForEnv("staging")))
	if err != nil {
		panic(err)
	}
	if err := store.EnsureTable(ctx); err != nil {
		panic(err)
	}
	job, _, err := store.Create(ctx, jobs.CreateInput{UserID: "user-12345", FileSize: 1 << 20, FileType: "image/png", Provider: "stub"})
	if err != nil {
		panic(err)
	}
	fmt.Println(store.Schema().Name, job.Status, len(job.ID))
	// Output: photoeditor-staging-jobs QUEUED 26
}

// leaseOf reads the lease of an in-flight job, as the worker that started
// it holds it.
func leaseOf(t testing.TB, store *jobs.Store, id string) jobs.Lease {
	t.Helper()
	j, err := store.Get(context.Background(), id, jobs.Consistent())
	require.NoError(t, err, "Get")
	return j.Lease()
}

// newStore is jobs.NewStore for a test: a configuration error fails it.
func newStore(t testing.TB, db table.API, blobs blobstore.Store, opts ...func(*jobs.Options)) *jobs.Store {
	t.Helper()
	store, err := jobs.NewStore(db, blobs, opts...)
	require.NoError(t, err, "NewStore")
	return store
}

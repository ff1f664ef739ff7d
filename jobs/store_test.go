package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

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

// newFixture is a store on a fresh fake whose clock is the store's clock,
// so "expired" means the same thing to both.
func newFixture(t testing.TB, opts ...func(*jobs.Options)) *fixture {
	t.Helper()
	db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return epoch } })
	blobs := blobstore.NewMemory(func(o *blobstore.MemoryOptions) { o.Clock = db.Now })
	all := append([]func(*jobs.Options){func(o *jobs.Options) {
		o.Env = "test"
		o.Clock = db.Now
	}}, opts...)
	store := jobs.NewStore(db, blobs, all...)
	if err := store.Table().Schema().Create(context.Background(), db); err != nil {
		t.Fatalf("create table: %v", err)
	}
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
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	return j
}

// wantInputError asserts err is the typed bad-input error naming field.
func wantInputError(t testing.TB, err error, field string) {
	t.Helper()
	var ie *table.InputError
	if !errors.As(err, &ie) || !errors.Is(err, table.ErrInvalidInput) {
		t.Fatalf("got %v (%T), want *table.InputError for %s", err, err, field)
	}
	if ie.Field != field {
		t.Fatalf("InputError.Field = %q, want %q (%v)", ie.Field, field, err)
	}
}

// noRequests runs fn and fails if it sent anything to DynamoDB.
func (f *fixture) noRequests(t testing.TB, fn func()) {
	t.Helper()
	before := f.totalCalls()
	fn()
	if after := f.totalCalls(); after != before {
		t.Fatalf("bad input sent %d requests to DynamoDB", after-before)
	}
}

func (f *fixture) totalCalls() int {
	n := 0
	for _, op := range []string{"GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query", "Scan"} {
		n += f.db.Calls(op)
	}
	return n
}

func TestNewStoreBadOptionsFailEveryCall(t *testing.T) {
	db := dynamotest.New()
	for name, opt := range map[string]func(*jobs.Options){
		"env with a space":    func(o *jobs.Options) { o.Env = "my env" },
		"negative TTL":        func(o *jobs.Options) { o.TTL = -time.Hour },
		"threshold too small": func(o *jobs.Options) { o.OffloadThreshold = 1024 },
		"threshold too large": func(o *jobs.Options) { o.OffloadThreshold = 500 * 1024 },
	} {
		t.Run(name, func(t *testing.T) {
			s := jobs.NewStore(db, nil, opt)
			_, _, err := s.Create(context.Background(), upload("u1"))
			if !errors.Is(err, table.ErrInvalidInput) {
				t.Fatalf("Create with %s: got %v, want ErrInvalidInput", name, err)
			}
			if _, err := s.Get(context.Background(), "j1"); !errors.Is(err, table.ErrInvalidInput) {
				t.Fatalf("Get with %s: got %v, want ErrInvalidInput", name, err)
			}
		})
	}
	if db.Calls("PutItem")+db.Calls("GetItem") != 0 {
		t.Fatal("a store with bad options sent requests")
	}
}

func TestNewStoreNamesTableByEnv(t *testing.T) {
	s := jobs.NewStore(dynamotest.New(), nil, func(o *jobs.Options) { o.Env = "prod" })
	if got := s.Table().Name(); got != "photoeditor-prod-jobs" {
		t.Fatalf("table name %q, want photoeditor-prod-jobs", got)
	}
	s = jobs.NewStore(dynamotest.New(), nil, func(o *jobs.Options) { o.Env = "prod"; o.TableName = "jobs-test-1" })
	if got := s.Table().Name(); got != "jobs-test-1" {
		t.Fatalf("table name %q, want the TableName option", got)
	}
}

func ExampleNewStore() {
	ctx := context.Background()
	db := dynamotest.New() // or a *dynamodb.Client
	store := jobs.NewStore(db, blobstore.NewMemory(), func(o *jobs.Options) { o.Env = "staging" })
	if err := jobs.Schema("staging").EnsureTable(ctx, db); err != nil {
		panic(err)
	}
	job, _, err := store.Create(ctx, jobs.CreateInput{UserID: "user-12345", FileSize: 1 << 20, FileType: "image/png", Provider: "stub"})
	if err != nil {
		panic(err)
	}
	fmt.Println(store.Table().Name(), job.Status, len(job.ID))
	// Output: photoeditor-staging-jobs QUEUED 26
}

// leaseOf reads the lease of an in-flight job, as the worker that started
// it holds it.
func leaseOf(t testing.TB, store *jobs.Store, id string) jobs.Lease {
	t.Helper()
	j, err := store.Get(context.Background(), id, jobs.Consistent())
	if err != nil {
		t.Fatalf("Get %s: %v", id, err)
	}
	return j.Lease()
}

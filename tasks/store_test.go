package tasks_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

func TestNewStoreBadOptionsFailEveryCall(t *testing.T) {
	db := dynamotest.New()
	ctx := context.Background()
	for name, opt := range map[string]func(*tasks.Options){
		"table name with a space": func(o *tasks.Options) { o.TableName = "my tasks" },
		"negative lease":          func(o *tasks.Options) { o.LeaseDuration = -time.Second },
		"negative attempts":       func(o *tasks.Options) { o.MaxAttempts = -1 },
		"attempts past a history": func(o *tasks.Options) { o.MaxAttempts = tasks.MaxAttempts + 1 },
		"too many shards":         func(o *tasks.Options) { o.Shards = tasks.MaxShards + 1 },
		"negative shards":         func(o *tasks.Options) { o.Shards = -2 },
		"claim batch over 100":    func(o *tasks.Options) { o.ClaimBatch = 101 },
	} {
		t.Run(name, func(t *testing.T) {
			s := tasks.NewStore(db, opt)
			calls := []func() error{
				func() error { _, _, err := s.Submit(ctx, tasks.SubmitInput{}); return err },
				func() error { _, err := s.Claim(ctx, "w1"); return err },
				func() error { _, err := s.Get(ctx, "t1"); return err },
				func() error { _, err := s.History(ctx, "t1"); return err },
				func() error { _, err := s.ListPending(ctx, ""); return err },
				func() error { _, err := s.ReclaimExpired(ctx); return err },
				func() error { return s.Cancel(ctx, "t1", "") },
			}
			for i, call := range calls {
				if err := call(); !errors.Is(err, table.ErrInvalidInput) {
					t.Fatalf("call %d with %s: got %v, want ErrInvalidInput", i, name, err)
				}
			}
		})
	}
	if n := db.Calls("TransactWriteItems") + db.Calls("GetItem") + db.Calls("Query"); n != 0 {
		t.Fatalf("a store with bad options sent %d requests", n)
	}
	if _, err := tasks.NewStore(nil).Get(ctx, "t1"); !errors.Is(err, table.ErrInvalidInput) {
		t.Fatalf("nil db: %v", err)
	}
}

func TestSchemaIsValidAndDeclaresTheSeedsPatterns(t *testing.T) {
	s := tasks.Schema("tasks-prod")
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, ap := range s.AccessPatterns {
		names[ap.Name] = true
		if ap.RatePerSecond <= 0 || ap.ItemSize <= 0 {
			t.Errorf("access pattern %q has no rate or size", ap.Name)
		}
	}
	for _, want := range []string{"Get task metadata", "Get task history", "List pending tasks", "Check idempotency", "Claim task (atomic)"} {
		if !names[want] {
			t.Errorf("the seed's access pattern %q is not declared", want)
		}
	}
	if ix, ok := s.Index(tasks.IndexGSI1); !ok || ix.PartitionKey.Name != "GSI1PK" || ix.SortKey.Name != "GSI1SK" {
		t.Fatalf("GSI1 = %+v", ix)
	}
}

func ExampleNewStore() {
	ctx := context.Background()
	db := dynamotest.New() // or a *dynamodb.Client
	if err := tasks.Schema("tasks").EnsureTable(ctx, db); err != nil {
		panic(err)
	}
	store := tasks.NewStore(db, func(o *tasks.Options) { o.LeaseDuration = time.Minute })
	task, created, err := store.Submit(ctx, tasks.SubmitInput{IdempotencyKey: "client-uuid", Payload: []byte("resize photo.jpg")})
	if err != nil {
		panic(err)
	}
	fmt.Println(task.ID, task.Status, created)
	// Output: k-3lhht5wthh2eh4ooo5v5hlobkk PENDING true
}

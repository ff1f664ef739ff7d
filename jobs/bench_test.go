package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/tablekit/tablekit/jobs"
)

func BenchmarkCreate(b *testing.B) {
	f := newFixture(b)
	ctx := context.Background()
	in := upload("u1")
	for b.Loop() {
		if _, _, err := f.store.Create(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLifecycle is one job through create and the three moves of a
// successful edit.
func BenchmarkLifecycle(b *testing.B) {
	f := newFixture(b)
	ctx := context.Background()
	in := upload("u1")
	for b.Loop() {
		j, _, err := f.store.Create(ctx, in)
		if err != nil {
			b.Fatal(err)
		}
		started, err := f.store.StartProcessing(ctx, j.ID)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := f.store.StartEditing(ctx, started.Lease(), analysis); err != nil {
			b.Fatal(err)
		}
		if _, err := f.store.Complete(ctx, started.Lease(), edit); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkListByUserPage reads one 25-job page of a 1,000-job history.
func BenchmarkListByUserPage(b *testing.B) {
	f := newFixture(b)
	ctx := context.Background()
	for range 1000 {
		f.create(b, "u1")
		f.db.Advance(time.Millisecond)
	}
	for b.Loop() {
		p, err := f.store.ByUser("u1", jobs.Limit(25)).Page(ctx, "")
		if err != nil || len(p.Items) != 25 {
			b.Fatal(err, len(p.Items))
		}
	}
}

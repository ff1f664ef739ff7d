package tasks_test

import (
	"context"
	"testing"
	"time"

	"github.com/tablekit/tablekit/tasks"
)

// TestWriteUnitsPerTaskBesideSeedPlan measures, with the fake's capacity
// meter, what one small task costs through submit, claim and complete, and
// pins it: a change to the layout that makes every task dearer should be a
// decision, not an accident. Seed 003 plans 3 WCU for submission and 3 for
// processing; it counts neither the transaction's doubling nor the GSI1
// writes, nor the WORKER item.
func TestWriteUnitsPerTaskBesideSeedPlan(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	name := f.store.Table().Name()
	phase := func(run func()) float64 {
		f.db.ResetConsumed()
		run()
		return f.db.Consumed(name).WriteUnits
	}
	var c *tasks.Claim
	submit := phase(func() {
		if _, _, err := f.store.Submit(ctx, tasks.SubmitInput{IdempotencyKey: "client-uuid", Payload: []byte(`{"resize":"photo.jpg"}`)}); err != nil {
			t.Fatal(err)
		}
	})
	claim := phase(func() { c = f.claim(t, "w-abc") })
	f.db.Advance(10 * time.Second)
	heartbeat := phase(func() {
		if _, err := f.store.Heartbeat(ctx, c.Lease); err != nil {
			t.Fatal(err)
		}
	})
	complete := phase(func() {
		if err := f.store.Complete(ctx, c.Lease, nil); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("WCU per task: submit %.0f (seed plans 3), claim %.0f + complete %.0f (seed plans 3), heartbeat %.0f each",
		submit, claim, complete, heartbeat)
	// Submit: 3 items of 1 KB or less, doubled by the transaction, and
	// META's GSI1 entry. Claim: META, event and WORKER item doubled, and
	// the GSI1 entry moving from STATUS#PENDING to STATUS#PROCESSING (a
	// delete and a put). Complete: the same three, and the entry leaving
	// GSI1. Heartbeat: META and the entry moving within the partition.
	want := map[string][2]float64{"submit": {submit, 8}, "claim": {claim, 10}, "complete": {complete, 8}, "heartbeat": {heartbeat, 3}}
	for name, w := range want {
		if w[0] != w[1] {
			t.Errorf("%s costs %.1f WCU, want %.0f", name, w[0], w[1])
		}
	}
}

package tasks_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/tasks"
)

// TestWriteUnitsPerTaskBesideSeedPlan measures, with the fake's capacity
// meter, what one small task costs through submit, claim and complete, and
// pins it: a change to the layout that makes every task dearer should be a
// decision, not an accident. The seed plans 3 WCU for submission and 3 for
// processing; it counts neither the GSI1 writes nor the WORKER item.
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
		_, _, err := f.store.Submit(ctx, tasks.SubmitInput{IdempotencyKey: "client-uuid", Payload: []byte(`{"resize":"photo.jpg"}`)})
		require.NoError(t, err)
	})
	claim := phase(func() { c = f.claim(t, "w-abc") })
	f.db.Advance(10 * time.Second)
	heartbeat := phase(func() {
		_, err := f.store.Heartbeat(ctx, c.Lease)
		require.NoError(t, err)
	})
	complete := phase(func() { require.NoError(t, f.store.Complete(ctx, c.Lease, nil)) })
	t.Logf("WCU per task: submit %.0f (seed plans 3), claim %.0f + complete %.0f (seed plans 3), heartbeat %.0f each",
		submit, claim, complete, heartbeat)
	// Submit: the IDEM item, EVENT#0001 and META, one single-item write
	// each, and META's GSI1 entry. Claim: META, and the GSI1 entry moving
	// from STATUS#PENDING to STATUS#PROCESSING (a delete and a put), then
	// the event and the WORKER item. Complete: the event, META, the
	// entry leaving GSI1 and the WORKER item's delete. Heartbeat: META and the entry moving within
	// its partition.
	assert.Equal(t, 4.0, submit, "submit WCU")
	assert.Equal(t, 5.0, claim, "claim WCU")
	assert.Equal(t, 4.0, complete, "complete WCU")
	assert.Equal(t, 3.0, heartbeat, "heartbeat WCU")
	// Issue 13 aimed at 12; the 13th write, the claim item's delete, keeps
	// a worker's claims from growing with every task it finishes.
	assert.Equal(t, 13.0, submit+claim+complete, "WCU per task lifecycle (26 when every change was a transaction)")
}

package changes_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/dynamotest"
)

// perItem records, per item, the counter values handled, in the order
// they were handled.
type perItem struct {
	versions map[string][]int
	shards   map[string]bool // the shards changes came from
}

func newPerItem() *perItem { return &perItem{versions: map[string][]int{}, shards: map[string]bool{}} }

func (p *perItem) handler(_ context.Context, batch []changes.Change[counter]) error {
	for _, ch := range batch {
		p.shards[ch.ShardID] = true
		if ch.New != nil {
			id := ch.New.PK + "/" + ch.New.SK
			p.versions[id] = append(p.versions[id], ch.New.N)
		}
	}
	return nil
}

// writeVersions writes version v of each of the items.
func writeVersions(t *testing.T, db *dynamotest.DB, items, v int) {
	t.Helper()
	for i := range items {
		g := fmt.Sprintf("g%d", i%2)
		putCounter(t, db, counter{PK: g, SK: fmt.Sprintf("c%d", i), Group: g, N: v})
	}
}

// TestChangesAcrossShardRolloversAreNeverSkippedNorReorderedPerItem: the
// fake's shards roll over every four hours of its clock, written to or
// not. Two consumers take turns (their leases run out as the clock moves),
// some rollovers happen while a parent still has unread records and some
// children hold records before anyone reads them; every item's versions
// must arrive each exactly once and in the order they were written, which
// holds only if every parent is read to its end before its child, and a
// child starts at its first record whatever StartAt says.
func TestChangesAcrossShardRolloversAreNeverSkippedNorReorderedPerItem(t *testing.T) {
	for _, start := range []changes.StartPosition{changes.TrimHorizon, changes.Latest} {
		t.Run(string(start), func(t *testing.T) {
			db := setup(t)
			got := newPerItem()
			a := consumer(t, db, changes.StartAt(start), changes.Owner("a"), changes.BatchSize(1000))
			b := consumer(t, db, changes.StartAt(start), changes.Owner("b"), changes.BatchSize(1000))
			// Both consumers see the stream before the first write, so
			// Latest loses nothing either.
			for _, c := range []*changes.Consumer[counter]{a, b} {
				_, err := c.Step(context.Background(), got.handler)
				require.NoError(t, err)
			}
			const items, versions = 6, 40
			// Version 1 is read and checkpointed at once: a shard read from
			// LATEST has no position to come back to until it has a
			// checkpoint (an iterator lasts 15 minutes; see StartAt).
			writeVersions(t, db, items, 1)
			_, err := a.Step(context.Background(), got.handler)
			require.NoError(t, err)
			for v := 2; v <= versions; v++ {
				writeVersions(t, db, items, v)
				// 1h35m: a rollover every two or three versions, at
				// varying points between the reads.
				db.Advance(95 * time.Minute)
				switch v % 4 {
				case 0: // nobody reads: the next shard fills unread
				case 1, 2:
					_, err := a.Step(context.Background(), got.handler)
					require.NoError(t, err)
				case 3:
					_, err := b.Step(context.Background(), got.handler)
					require.NoError(t, err)
				}
			}
			drain(t, a, got.handler)
			drain(t, b, got.handler)
			drain(t, a, got.handler)

			want := make([]int, versions)
			for v := range want {
				want[v] = v + 1
			}
			require.Len(t, got.versions, items)
			for id, seen := range got.versions {
				assert.Equal(t, want, seen, "item %s: every version once, in write order", id)
			}
			assert.GreaterOrEqual(t, len(got.shards), 15, "the changes came from many shards, each the child of the last")
		})
	}
}

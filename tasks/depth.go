package tasks

import (
	"context"
	"fmt"

	"github.com/tablekit/tablekit/entity"
)

// QueueDepth is how many tasks the queue holds, by where they stand.
type QueueDepth struct {
	// Claimable are PENDING tasks a claim would hand out now.
	Claimable int64 `json:"claimable"`
	// Waiting are PENDING tasks claimable only later: in a failed
	// attempt's retry backoff, or submitted with a delay
	// (SubmitInput.AvailableAt).
	Waiting int64 `json:"waiting"`
	// Processing are held by a worker (their leases may have run out: the
	// next claim or ReclaimExpired moves those).
	Processing int64 `json:"processing"`
	// Dead are the dead letters.
	Dead int64 `json:"dead"`
}

// Pending is Claimable + Waiting: the tasks the seed's STATUS#PENDING
// partition lists.
func (d QueueDepth) Pending() int64 { return d.Claimable + d.Waiting }

// Depth counts the queue: one COUNT query (entity's Count: the task
// items only, expired ones left out, as Pending and Dead list them) per
// GSI1 partition, all sent at once (one round trip): each shard's pending
// partition split at now by its key condition (claimable, GSI1SK <=
// CREATED#<now>, and waiting), each shard's processing partition, and the
// dead letters' one partition: 3N+1 queries, 13 at the default shards.
// Like Maintenance.Pending it follows the table's shard count and records none.
//
// A COUNT query sends no item back, but DynamoDB reads and bills every
// index entry it counts, about 1 KB each with the ALL projection: some
// 1 RCU per 8 tasks, so a backlog of a million tasks costs about 125,000
// read units a call. Call it from one place on a timer (a minute), not per
// claim. GSI1 is eventually consistent: the counts are a recent view, not
// a snapshot.
//
// With MeterProvider each call records the gauge
// tablekit.tasks.queue.depth, by tablekit.tasks.state (claimable,
// waiting, processing, dead), so a dashboard or an alarm on the backlog
// reads it from the meter.
func (h *Maintenance) Depth(ctx context.Context) (_ QueueDepth, err error) {
	s := h.store()
	ctx, span := s.start(ctx, "tasks.Maintenance.Depth")
	defer span.End(&err)
	if err := s.check(nil); err != nil {
		return QueueDepth{}, err
	}
	if _, err := s.tableShards(ctx, false); err != nil {
		return QueueDepth{}, err
	}
	n := s.shardCount()
	now := s.now()
	// Per shard: claimable, waiting, processing; then the dead letters.
	type count struct {
		st    Status
		shard int
		sort  func(*entity.ListOptions)
	}
	_, due := s.queueKeys(StatusPending, "", now)
	counts := make([]count, 0, 3*n+1)
	for shard := range n {
		counts = append(counts,
			count{StatusPending, shard, s.due(StatusPending, now)},
			count{StatusPending, shard, entity.SortGreater(due)},
			count{StatusProcessing, shard, nil})
	}
	counts = append(counts, count{StatusDead, 0, nil})
	got := make([]int64, len(counts))
	err = each(len(counts), func(i int) error {
		c := counts[i]
		var err error
		got[i], err = s.ent.tasks.Count(ctx, metaItem{GSI1PK: s.statusPartition(c.st, c.shard)}, entity.ByIndex(IndexGSI1), c.sort)
		return err
	})
	if err != nil {
		return QueueDepth{}, fmt.Errorf("tasks: queue depth: %w", err)
	}
	var d QueueDepth
	for shard := range n {
		d.Claimable += got[3*shard]
		d.Waiting += got[3*shard+1]
		d.Processing += got[3*shard+2]
	}
	d.Dead = got[3*n]
	s.metrics.queueDepth(ctx, d)
	return d, nil
}

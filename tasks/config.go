package tasks

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

// The queue's configuration, the one item this package adds to the seed's
// layout:
//
//	PK CONFIG   SK QUEUE   shards = 4   (type CONFIG)
//
// The shard count decides where a task's GSI1 entry lives
// (STATUS#PENDING#<n>), so every client of a table must use the same one:
// a service on one shard never sees a task another client wrote under
// four. That is a property of the table, so the table keeps it. The first
// store that needs it records it, with attribute_not_exists so that of two
// stores racing on a new table one decides: EnsureTable, or else the first
// call that places or moves a task. Every store reads it once (a strongly
// consistent GetItem, the first time it needs the count) and keeps it for
// its life. A store opened with Options.Shards set to another count gets a
// *ShardsError from every such call, and writes nothing; a store that
// leaves Options.Shards zero uses the table's count. The item never
// changes and never expires: changing a table's shard count would mean
// moving every queued task's index entry.
//
// "CONFIG" has no "#", so no key built from user input (TASK#<id>,
// IDEM#<key>, WORKER#<id>, where ids cannot contain "#") can be it.
var (
	configPK = keys.MustPartition("CONFIG")
	configSK = keys.MustSort("QUEUE")
)

const (
	typeConfig   = "CONFIG"
	attrShards   = "shards"
	attrActiveAt = "activeAt"
)

// configItem is the CONFIG item; its keys and type are its declaration's
// (entities).
type configItem struct {
	Shards    int    `dynamodbav:"shards"`
	CreatedAt string `dynamodbav:"createdAt"`
	// ActiveAt is the readiness signal (see ready.go): the latest time a
	// store made a task claimable, at most bumpEvery stale per store.
	ActiveAt string `dynamodbav:"activeAt,omitempty"`
}

// tableConfig is what a store has learned of its table: its configuration,
// and what its claims have seen of the queue. The store and the copies its
// workers make share it.
type tableConfig struct {
	mu       sync.Mutex
	shards   atomic.Int32 // the table's shard count; 0 until read or recorded
	mismatch error        // a *ShardsError, once found: the table never changes

	ready readiness
}

// ShardCount returns the number of shards the table's queue is split into
// (see Options.Shards), as the table records it. A table that records none
// yet records the store's own: Options.Shards, or DefaultShards. A store
// opened with another count than the table's gets a *ShardsError.
func (h *Maintenance) ShardCount(ctx context.Context) (_ int, err error) {
	s := h.store()
	ctx, span := s.start(ctx, "tasks.Maintenance.ShardCount")
	defer span.End(&err)
	if err := s.check(nil); err != nil {
		return 0, err
	}
	return s.tableShards(ctx, true)
}

// ownShards is the shard count the store was opened with: Options.Shards,
// or DefaultShards when it leaves it to the table.
func (s *Store) ownShards() int {
	if s.opts.Shards != 0 {
		return s.opts.Shards
	}
	return DefaultShards
}

// shardCount is the shard count to place and find tasks with: the table's
// once known (every call that needs it first calls tableShards), else the
// store's own.
func (s *Store) shardCount() int {
	if n := s.cfg.shards.Load(); n > 0 {
		return int(n)
	}
	return s.ownShards()
}

// tableShards returns the table's shard count, reading the CONFIG item the
// first time. When the table records none, a call that places or moves
// tasks (record) records the store's own count, so that every later
// store follows it; a call that only lists (a dashboard, whose IAM policy
// may allow no writes) uses the store's own count and records nothing, as
// a table without the item holds no task placed by this version.
func (s *Store) tableShards(ctx context.Context, record bool) (int, error) {
	if n := s.cfg.shards.Load(); n > 0 {
		return int(n), nil
	}
	s.cfg.mu.Lock()
	defer s.cfg.mu.Unlock()
	if n := s.cfg.shards.Load(); n > 0 {
		return int(n), nil
	}
	if s.cfg.mismatch != nil {
		return 0, s.cfg.mismatch
	}
	for range 2 { // read; if missing, record; if another store recorded first, read again
		it, err := s.ent.config.Get(ctx, configItem{}, entity.Consistent())
		switch {
		case err == nil:
			return s.adopt(it.Shards)
		case !errors.Is(err, table.ErrNotFound):
			return 0, fmt.Errorf("tasks: table %q: reading its shard count: %w", s.t.Name(), err)
		case !record:
			return s.ownShards(), nil
		}
		n := s.ownShards()
		_, err = s.ent.config.Create(ctx, configItem{Shards: n, CreatedAt: keys.FormatTime(s.now())})
		switch {
		case err == nil:
			s.log.InfoContext(ctx, "tasks: recorded the table's shard count", "operation", "config", "shards", n)
			s.cfg.shards.Store(int32(n))
			return n, nil
		case !errors.Is(err, table.ErrAlreadyExists):
			return 0, fmt.Errorf("tasks: table %q: recording its shard count: %w", s.t.Name(), err)
		}
	}
	return 0, fmt.Errorf("tasks: table %q: its shard count was recorded but reads as missing", s.t.Name())
}

// adopt takes the shard count the table records, or refuses it when the
// store was opened with another. The caller holds s.cfg.mu.
func (s *Store) adopt(n int) (int, error) {
	if n < 1 || n > MaxShards {
		return 0, fmt.Errorf("tasks: table %q records shard count %d, outside 1..%d", s.t.Name(), n, MaxShards)
	}
	if s.opts.Shards != 0 && s.opts.Shards != n {
		s.cfg.mismatch = &ShardsError{Table: s.t.Name(), TableShards: n, StoreShards: s.opts.Shards}
		return 0, s.cfg.mismatch
	}
	s.cfg.shards.Store(int32(n))
	return n, nil
}

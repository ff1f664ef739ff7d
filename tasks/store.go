package tasks

import (
	"fmt"
	"time"

	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

// Defaults of Options.
const (
	DefaultTableName     = "tasks"
	DefaultLeaseDuration = 30 * time.Second
	DefaultMaxAttempts   = 3
	DefaultClaimBatch    = 25
	// MaxAttempts bounds Options.MaxAttempts so a history never fills up:
	// SUBMITTED, then two events per attempt (PROCESSING, and FAILED,
	// LEASE_EXPIRED, COMPLETED or DEAD) stay within MaxEvents.
	MaxAttempts = (MaxEvents - 1) / 2
	// MaxShards bounds Options.Shards: ListPending and ReclaimExpired send
	// one query per shard.
	MaxShards = 100
	// MaxPayloadSize is the largest payload Submit accepts. The META item
	// holds the payload, and GSI1 projects it (so Claim needs no second
	// read): at this size the item stays well under DynamoDB's 400 KB with
	// room for the result.
	MaxPayloadSize = 128 * 1024
	// MaxResultSize is the largest result Complete stores.
	MaxResultSize = 128 * 1024
)

// Options configure a Store.
type Options struct {
	// TableName is the table's name. Default DefaultTableName.
	TableName string
	// Clock gives the time for createdAt, events and leases. Default
	// time.Now. Every worker compares lease expiries with its own clock, so
	// clocks must roughly agree; a lease should be much longer than their
	// skew.
	Clock func() time.Time
	// LeaseDuration is how long a claim lasts without a heartbeat. Default
	// DefaultLeaseDuration.
	LeaseDuration time.Duration
	// MaxAttempts is how many claims a task gets: a Fail or an expired
	// lease on the last one makes it DEAD. Default DefaultMaxAttempts.
	MaxAttempts int
	// Shards splits the PENDING and PROCESSING partitions of GSI1 into
	// STATUS#PENDING#0 .. STATUS#PENDING#<Shards-1> (seed 002's write
	// sharding). Default 1: the seed's exact layout, STATUS#PENDING. See
	// the package documentation for when to raise it and what it costs.
	// Every store on a table must use the same value.
	Shards int
	// ClaimBatch is how many of the oldest candidates Claim reads per
	// partition before trying them, in random order. Default
	// DefaultClaimBatch; about the number of concurrent workers per shard
	// keeps lost races (canceled transactions) rare. At most 100.
	ClaimBatch int
	// NewID returns the id of a task submitted without an idempotency key.
	// Default: a ULID (time-ordered, random). Tasks with a key get an id
	// derived from it; see Submit.
	NewID func(t time.Time) string
	// Table configures the underlying table.Table (backoff, cursor key).
	Table []func(*table.Options)
}

// Store is the task queue on one table. It is safe for concurrent use.
type Store struct {
	t    *table.Table
	opts Options
	// err is a configuration error reported by every call, so a bad option
	// fails before any request rather than panicking in NewStore.
	err error
}

// NewStore returns the task queue on db. It does not call DynamoDB; create
// the table with Schema(name).EnsureTable or the store's Table().Schema().
func NewStore(db table.API, opts ...func(*Options)) *Store {
	o := Options{}
	for _, f := range opts {
		f(&o)
	}
	if o.TableName == "" {
		o.TableName = DefaultTableName
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.LeaseDuration == 0 {
		o.LeaseDuration = DefaultLeaseDuration
	}
	if o.MaxAttempts == 0 {
		o.MaxAttempts = DefaultMaxAttempts
	}
	if o.Shards == 0 {
		o.Shards = 1
	}
	if o.ClaimBatch == 0 {
		o.ClaimBatch = DefaultClaimBatch
	}
	s := &Store{}
	if o.NewID == nil {
		o.NewID = keys.ULIDs()
	}
	s.opts = o
	schema := Schema(o.TableName)
	s.t = table.New(db, schema, o.Table...)
	switch {
	case db == nil:
		s.err = inputError("db", "nil", "NewStore needs a table.API")
	case o.LeaseDuration < time.Millisecond:
		s.err = inputError("Options.LeaseDuration", o.LeaseDuration, "must be at least 1ms")
	case o.MaxAttempts < 1 || o.MaxAttempts > MaxAttempts:
		s.err = inputError("Options.MaxAttempts", o.MaxAttempts, fmt.Sprintf("must be between 1 and %d", MaxAttempts))
	case o.Shards < 1 || o.Shards > MaxShards:
		s.err = inputError("Options.Shards", o.Shards, fmt.Sprintf("must be between 1 and %d", MaxShards))
	case o.ClaimBatch < 1 || o.ClaimBatch > 100:
		s.err = inputError("Options.ClaimBatch", o.ClaimBatch, "must be between 1 and 100")
	default:
		s.err = schema.Validate()
	}
	return s
}

// Table is the underlying table, for calls this package does not wrap.
func (s *Store) Table() *table.Table { return s.t }

// Options returns the store's options with defaults filled in.
func (s *Store) Options() Options { return s.opts }

func (s *Store) now() time.Time { return s.opts.Clock().UTC() }

// check returns the store's configuration error, else err.
func (s *Store) check(err error) error {
	if s.err != nil {
		return s.err
	}
	return err
}

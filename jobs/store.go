package jobs

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

// DefaultTTL is how long a job lives: the seed sets ttl to 90 days from
// creation.
const DefaultTTL = 90 * 24 * time.Hour

// DefaultOffloadThreshold is the size a job item is kept under by moving
// large results to the blob store. It matches blobstore's default threshold,
// a quarter of DynamoDB's 400 KB limit: reads and writes of a job cost at
// most 25 write units / 13 read units even with a large analysis.
const DefaultOffloadThreshold = 100 * 1024

// DefaultLeaseDuration is how long a worker holds an in-flight job without
// a heartbeat. The seed's workers are Lambda functions (at most 15 minutes
// per invocation) renewing as they go; five minutes lets a dead worker's
// job be retried soon without taking one from a slow, living one.
const DefaultLeaseDuration = 5 * time.Minute

// DefaultMaxAttempts is how many processing attempts a job gets before
// Recover fails it.
const DefaultMaxAttempts = 3

// Options configure a Store.
type Options struct {
	// Env names the table: photoeditor-{Env}-jobs. Default "dev".
	Env string
	// TableName, when set, replaces the name derived from Env (tests give
	// every run its own table).
	TableName string
	// TTL is how long after creation a job expires. Default DefaultTTL.
	TTL time.Duration
	// Clock gives the time for createdAt, updatedAt, the processing times,
	// ttl and the expiry check on reads. Default time.Now. Tests set it to
	// the fake's clock so "expired" means the same thing to both.
	Clock func() time.Time
	// NewID returns the id of a job created at t. Default: a ULID with t as
	// its timestamp and monotonic entropy, so ids created by one Store sort
	// by creation time, as the seed's ULID ids do.
	NewID func(t time.Time) string
	// OffloadThreshold is the size in bytes a job item is kept under:
	// results that could push it past go to the blob store through
	// blobstore's Offloader. Default DefaultOffloadThreshold; at most
	// table.MaxItemSize.
	OffloadThreshold int
	// OffloadPrefix is the key prefix of offloaded results in the blob
	// store. Default "jobs/{table name}/".
	OffloadPrefix string
	// LeaseDuration is how long an in-flight job is held for its worker
	// without a heartbeat before Recover may take it back. Default
	// DefaultLeaseDuration.
	LeaseDuration time.Duration
	// MaxAttempts is how many processing attempts a job gets (since its
	// creation or last Replay) before Recover fails it instead of
	// re-queuing it. Default DefaultMaxAttempts.
	MaxAttempts int
	// Logger receives the store's structured logs (recoveries, lost
	// races); nil is silent.
	Logger *slog.Logger
	// Table configures the underlying table.Table (backoff, cursor key).
	Table []func(*table.Options)
}

// Store reads and writes jobs in one table. It is safe for concurrent use.
type Store struct {
	t       *table.Table
	blobs   blobstore.Store
	offload *blobstore.Offloader // per-attribute budget, for status moves
	full    *blobstore.Offloader // whole-item threshold, for Backfill
	opts    Options
	// budget is the most one offloadable attribute may take inline; see
	// offload.go.
	budget int
	// err is a configuration error reported by every call, so a bad option
	// fails before any request rather than panicking in NewStore.
	err error
}

// NewStore returns a Store for the jobs table on db, offloading large
// results to blobs. blobs may be nil: a result that would need offloading
// is then refused with an error wrapping table.ErrItemTooLarge before any
// request, and reading a job whose results another store offloaded fails
// with ErrNoBlobStore.
//
// NewStore does not call DynamoDB; create the table with
// Schema(env).EnsureTable or the store's Table().Schema().
func NewStore(db table.API, blobs blobstore.Store, opts ...func(*Options)) *Store {
	o := Options{}
	for _, f := range opts {
		f(&o)
	}
	s := &Store{blobs: blobs}
	if o.Env == "" {
		o.Env = "dev"
	}
	if o.TTL == 0 {
		o.TTL = DefaultTTL
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
	if o.OffloadThreshold == 0 {
		o.OffloadThreshold = DefaultOffloadThreshold
	}
	schema := Schema(o.Env)
	if o.TableName != "" {
		schema = schema.WithName(o.TableName)
	}
	if o.OffloadPrefix == "" {
		o.OffloadPrefix = "jobs/" + schema.Name + "/"
	}
	if o.NewID == nil {
		o.NewID = keys.ULIDs()
	}
	s.opts = o
	s.t = table.New(db, schema, o.Table...)
	s.budget = attributeBudget(o.OffloadThreshold)
	switch {
	case db == nil:
		s.err = inputError("db", "nil", "NewStore needs a table.API")
	case o.TTL < 0:
		s.err = inputError("Options.TTL", o.TTL, "must not be negative")
	case o.LeaseDuration < 0:
		s.err = inputError("Options.LeaseDuration", o.LeaseDuration, "must not be negative")
	case o.MaxAttempts < 0:
		s.err = inputError("Options.MaxAttempts", o.MaxAttempts, "must not be negative")
	case o.OffloadThreshold < minOffloadThreshold || o.OffloadThreshold > table.MaxItemSize:
		s.err = inputError("Options.OffloadThreshold", o.OffloadThreshold,
			fmt.Sprintf("must be between %d and %d bytes", minOffloadThreshold, table.MaxItemSize))
	default:
		s.err = schema.Validate()
	}
	if s.err == nil && blobs != nil {
		// Keys of the table and both indexes, and ttl, must stay in the
		// item: DynamoDB indexes and expires by them, and reads filter on
		// ttl.
		keep := []string{attrJobID, attrUserID, attrStatus, attrCreatedAt, attrTTL}
		offloader := func(threshold int) *blobstore.Offloader {
			return blobstore.NewOffloader(blobs, func(oo *blobstore.OffloadOptions) {
				oo.Threshold = threshold
				oo.Prefix = o.OffloadPrefix
				oo.Keep = keep
				oo.Clock = o.Clock
			})
		}
		s.offload = offloader(s.budget)
		s.full = offloader(o.OffloadThreshold)
	}
	return s
}

// Table is the underlying table, for calls this package does not wrap.
func (s *Store) Table() *table.Table { return s.t }

// now is the store's clock.
func (s *Store) now() time.Time { return s.opts.Clock() }

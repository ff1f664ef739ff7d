package tasks

import (
	"context"
	"fmt"
	"log/slog"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
	"time"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

// Defaults of Options.
const (
	// DefaultTableName is the table's name unless Options.TableName says
	// otherwise. The seed names none; "tasks" is the name its diagrams use.
	DefaultTableName     = "tasks"
	DefaultLeaseDuration = 30 * time.Second
	DefaultMaxAttempts   = 3
	DefaultClaimBatch    = 25
	// DefaultShards is Options.Shards unless set: enough that at the
	// seed's 500 tasks per second no GSI1 partition passes DynamoDB's
	// per-partition limits (docs/tasks); see the package documentation.
	DefaultShards = 4
	// MaxAttemptsLimit bounds Options.MaxAttempts so a history never fills
	// up: SUBMITTED, then two events per attempt (PROCESSING, and FAILED,
	// LEASE_EXPIRED, COMPLETED or DEAD) stay within MaxEvents.
	MaxAttemptsLimit = (MaxEvents - 1) / 2
	// MaxShards bounds Options.Shards: Maintenance.Pending and ReclaimExpired send
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

// DefaultRetryBackoff is Options.RetryBackoff unless set: a first retry
// within a second, the eighth and later within five minutes.
var DefaultRetryBackoff = table.Backoff{Initial: time.Second, Max: 5 * time.Minute}

// Options configure a Store.
type Options struct {
	// TableName is the table's name. Default DefaultTableName.
	TableName string
	// Clock gives the time for createdAt, events and leases. Default
	// table.ClockOf(db): the fake's time on dynamotest, time.Now on AWS.
	// Every worker compares lease expiries with its own clock, so
	// clocks must roughly agree; a lease should be much longer than their
	// skew.
	Clock func() time.Time
	// Logger receives lost races, takeovers of expired leases and retries,
	// as structured records (table, operation, key, attempt). Nil: silent.
	Logger *slog.Logger
	// LeaseDuration is how long a claim lasts without a heartbeat. Default
	// DefaultLeaseDuration.
	LeaseDuration time.Duration
	// MaxAttempts is how many claims a task this store submits gets: a
	// Fail or an expired lease on the last one makes it DEAD. The task
	// records it, so every store and the CLI count its attempts alike,
	// whatever their own MaxAttempts. Default DefaultMaxAttempts, at most
	// MaxAttemptsLimit.
	MaxAttempts int
	// Shards splits the PENDING and PROCESSING partitions of GSI1 into
	// STATUS#PENDING#0 .. STATUS#PENDING#<Shards-1> (the data-modelling design's write
	// sharding); 1 is the seed's exact layout, STATUS#PENDING. See the
	// package documentation for what it costs. The count is the table's:
	// the table records it (the CONFIG item, written by the first store
	// that needs it), and 0, the default, follows what it records
	// (DefaultShards on a table that records none yet). A store that sets
	// another count than its table's gets a *ShardsError
	// (ErrShardsMismatch) from every call that places or finds tasks, and
	// writes nothing.
	Shards int
	// RetryBackoff paces retries of failed attempts: a task that failed
	// its n-th attempt (Fail, or a lease ReclaimExpired found expired) is
	// claimable again only after RetryBackoff.Delay(n-1), full jitter over
	// a window that doubles with every attempt up to Max. Default
	// DefaultRetryBackoff.
	RetryBackoff table.Backoff
	// ClaimBatch is how many of the oldest candidates Claim reads per
	// partition before trying them, in random order. Default
	// DefaultClaimBatch; about the number of concurrent workers per shard
	// keeps lost races (canceled transactions) rare. At most 100.
	ClaimBatch int
	// Retention is how long a finished task is kept: a COMPLETED or
	// CANCELLED task's META, events, idempotency item and any claim item
	// left behind expire by DynamoDB TTL (attribute ttl) about Retention
	// after it finished, and read as gone from then on. PENDING,
	// PROCESSING and DEAD tasks never expire. Default DefaultRetention, at
	// least MinRetention. Every store on a table should use the same
	// value. See "Retention" in the package documentation.
	Retention time.Duration
	// CompactHistory chooses the cheaper of the two history layouts. By
	// default (false) every status change writes its event item,
	// EVENT#<seq>: a task submitted, claimed and completed has the seed's
	// EVENT#0001 SUBMITTED, EVENT#0002 PROCESSING and EVENT#0003
	// COMPLETED, so any reader of the table (the console, an export, a
	// consumer of the stream's event items) sees every history. With
	// CompactHistory, META tells those three events of a plain life (its
	// creation, its current claim, its completion) and they are not
	// written; every other change still writes its events. It saves 3 WCU
	// a task (15 → 12 at the default shards, 1,500 WCU/s at the seed's 500
	// tasks a second: see docs/costs.md), and the same number of stored
	// items; History and EventFromChange return the same events either
	// way. Every store on a table should use the same layout.
	CompactHistory bool
	// NewID returns the id of a task submitted without an idempotency key.
	// Default: a ULID (time-ordered, random). Tasks with a key get an id
	// derived from it; see Submit.
	NewID func(t time.Time) string
	// TracerProvider gives every store call a span and the worker runtime
	// a span per task it runs (see TracerProvider). Nil: no spans.
	TracerProvider trace.TracerProvider
	// MeterProvider gives the store its instruments (see MeterProvider).
	// Nil: nothing is recorded.
	MeterProvider metric.MeterProvider
	// Table configures the underlying table.Table (backoff, cursor key).
	Table []func(*table.Options)
	// Provisioning, when set, is the table's production settings
	// (Schema's Provisioning: EnsureTable creates the table so and reports
	// drift from them). Nil: on-demand, the task queue design's billing
	// "during development"; ProductionProvisioning is its provisioned plan.
	Provisioning *table.Provisioning
}

// TableName sets Options.TableName.
func TableName(name string) func(*Options) { return func(o *Options) { o.TableName = name } }

// Clock sets Options.Clock.
func Clock(now func() time.Time) func(*Options) { return func(o *Options) { o.Clock = now } }

// Logger sets Options.Logger.
func Logger(l *slog.Logger) func(*Options) { return func(o *Options) { o.Logger = l } }

// LeaseDuration sets Options.LeaseDuration.
func LeaseDuration(d time.Duration) func(*Options) { return func(o *Options) { o.LeaseDuration = d } }

// MaxAttempts sets Options.MaxAttempts, as jobs.MaxAttempts does the jobs
// store's.
func MaxAttempts(n int) func(*Options) { return func(o *Options) { o.MaxAttempts = n } }

// Shards sets Options.Shards.
func Shards(n int) func(*Options) { return func(o *Options) { o.Shards = n } }

// CompactHistory sets Options.CompactHistory: the events of a plain life
// are told by META, not written (3 WCU a task less).
func CompactHistory() func(*Options) { return func(o *Options) { o.CompactHistory = true } }

// Store is the task queue on one table. It is safe for concurrent use.
type Store struct {
	t       *table.Table
	ent     *entities
	opts    Options
	log     *slog.Logger
	cfg     *tableConfig // shared with the copies workers make
	metrics *storeMetrics
}

// NewStore returns the task queue on db. A nil db or a bad option is a
// *table.InputError (table.ErrInvalidInput). It does not call DynamoDB;
// create the table with EnsureTable.
//
// tasks needs no blob store, and blobs may be nil: a payload lives on the
// task's META item (at most MaxPayloadSize), because GSI1 projects it and
// a claim then takes its work from the index entry it found, with no
// second read. Keep large inputs in a blob store yourself and submit their
// key. The parameter keeps every store's constructor one shape.
func NewStore(db table.API, blobs blobstore.Store, opts ...func(*Options)) (*Store, error) {
	_ = blobs // see above: tasks keeps payloads in the table
	o := Options{}
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	if o.TableName == "" {
		o.TableName = DefaultTableName
	}
	if o.Clock == nil {
		o.Clock = table.ClockOf(db)
	}
	if o.LeaseDuration == 0 {
		o.LeaseDuration = DefaultLeaseDuration
	}
	if o.MaxAttempts == 0 {
		o.MaxAttempts = DefaultMaxAttempts
	}
	if o.ClaimBatch == 0 {
		o.ClaimBatch = DefaultClaimBatch
	}
	if o.RetryBackoff == (table.Backoff{}) {
		o.RetryBackoff = DefaultRetryBackoff
	}
	if o.Retention == 0 {
		o.Retention = DefaultRetention
	}
	if o.NewID == nil {
		o.NewID = keys.ULIDs()
	}
	schema := Schema(o.TableName)
	if o.Provisioning != nil {
		schema.Provisioning = *o.Provisioning
	}
	switch {
	case db == nil:
		return nil, inputError("db", "nil", "NewStore needs a table.API")
	case o.LeaseDuration < time.Millisecond:
		return nil, inputError("Options.LeaseDuration", o.LeaseDuration, "must be at least 1ms")
	case o.MaxAttempts < 1 || o.MaxAttempts > MaxAttemptsLimit:
		return nil, inputError("Options.MaxAttempts", o.MaxAttempts, fmt.Sprintf("must be between 1 and MaxAttemptsLimit (%d)", MaxAttemptsLimit))
	case o.Shards < 0 || o.Shards > MaxShards:
		return nil, inputError("Options.Shards", o.Shards, fmt.Sprintf("must be between 1 and %d (0: the table's)", MaxShards))
	case o.ClaimBatch < 1 || o.ClaimBatch > 100:
		return nil, inputError("Options.ClaimBatch", o.ClaimBatch, "must be between 1 and 100")
	case o.Retention < MinRetention:
		return nil, inputError("Options.Retention", o.Retention, fmt.Sprintf("must be at least MinRetention (%v)", MinRetention))
	case o.RetryBackoff.Initial < 0 || o.RetryBackoff.Max < o.RetryBackoff.Initial:
		return nil, inputError("Options.RetryBackoff", fmt.Sprintf("%+v", o.RetryBackoff), "needs 0 <= Initial <= Max")
	}
	if err := schema.Validate(); err != nil {
		return nil, err
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("table", o.TableName)
	topts := o.Table
	if o.TracerProvider != nil {
		topts = append([]func(*table.Options){table.TracerProvider(o.TracerProvider)}, topts...)
	}
	t := table.New(db, schema, topts...)
	ent, err := newEntities(t, o.Clock)
	if err != nil {
		return nil, err
	}
	return &Store{t: t, ent: ent, opts: o, log: log, cfg: &tableConfig{},
		metrics: newStoreMetrics(o.MeterProvider, o.TableName)}, nil
}

// lastAttempt reports whether attempt is a task's last: its MaxAttempts
// claims since it was last re-driven (at attempt base). A task carries the
// bound of the store that submitted it (taskMax); one from before tasks
// carried it (0) gets the store's.
func (s *Store) lastAttempt(attempt, base, taskMax int) bool {
	bound := taskMax
	if bound < 1 {
		bound = s.opts.MaxAttempts
	}
	return attempt-base >= bound
}

// retryAt is when a task whose attempt-th attempt failed at now may be
// claimed again.
func (s *Store) retryAt(now time.Time, attempt int) time.Time {
	return now.Add(s.opts.RetryBackoff.Delay(max(attempt-1, 0))).Truncate(time.Microsecond)
}

// Table is the underlying table, for calls this package does not wrap
// (nil for a nil Store).
func (s *Store) Table() *table.Table {
	if s == nil {
		return nil
	}
	return s.t
}

// Schema is the schema of the table the store uses:
// Schema(Options.TableName). A nil Store has the zero Schema.
func (s *Store) Schema() table.Schema {
	if s.check(nil) != nil {
		return table.Schema{}
	}
	return s.t.Schema()
}

// EnsureTable creates the store's table unless it exists with that shape
// (table.Schema.EnsureTable), and records the store's shard count in it
// unless the table records one already; a store opened with another count
// than the one recorded gets a *ShardsError.
func (s *Store) EnsureTable(ctx context.Context) (err error) {
	ctx, span := s.start(ctx, "tasks.EnsureTable")
	defer span.End(&err)
	if err := s.check(nil); err != nil {
		return err
	}
	if err := s.t.EnsureTable(ctx); err != nil {
		return err
	}
	_, err = s.tableShards(ctx, true)
	return err
}

// Options returns the store's options with defaults filled in (the zero
// Options for a nil Store). Shards is the table's count once the store has
// read it, else the store's own.
func (s *Store) Options() Options {
	if s == nil || s.cfg == nil {
		return Options{}
	}
	o := s.opts
	o.Shards = s.shardCount()
	return o
}

// now is the store's clock at the precision times are stored with
// (keys.TimeLayout, microseconds), so what a call returns equals what a
// later read gives back.
func (s *Store) now() time.Time { return s.opts.Clock().UTC().Truncate(time.Microsecond) }

// errNoStore: a method was called on a nil or zero Store, which NewStore
// never returns.
var errNoStore = inputError("Store", "nil", "use NewStore")

// check returns an error for a nil or zero store, else err.
func (s *Store) check(err error) error {
	if s == nil || s.t == nil || s.ent == nil || s.cfg == nil {
		return errNoStore
	}
	return err
}

// start begins the span of one store call (table.Table.Start), safe on a
// nil or zero Store so that the call's own check reports it.
func (s *Store) start(ctx context.Context, operation string) (context.Context, table.Span) {
	if s == nil {
		return ctx, table.Span{}
	}
	return s.t.Start(ctx, operation)
}

// TracerProvider gives every store call a span ("tasks.Claim"), under
// which an observe.DynamoDB client's request spans nest (table.TracerProvider),
// and the worker runtime a span per task it runs ("tasks.Process", linked
// to the span that submitted the task; see Worker).
func TracerProvider(tp trace.TracerProvider) func(*Options) {
	return func(o *Options) { o.TracerProvider = tp }
}

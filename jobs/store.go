package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"strings"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

// DefaultRetention is how long a job lives: the seed sets ttl to 90 days from
// creation.
const DefaultRetention = 90 * 24 * time.Hour

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
	// TableName is the table's name. Default DefaultTableName
	// (photoeditor-dev-jobs); TableNameForEnv builds the seed's name for
	// another environment.
	TableName string
	// Retention is how long after creation a job expires (its ttl).
	// Default DefaultRetention; tasks.Options.Retention and
	// journey.Options.LogSummaryRetention are the same setting of the other
	// stores.
	Retention time.Duration
	// Clock gives the time for createdAt, updatedAt, the processing times,
	// ttl and the expiry check on reads. Default table.ClockOf(db): the
	// fake's time on dynamotest (so "expired" means the same thing to the
	// store and the fake without a test passing a clock), time.Now on AWS.
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
	// Work is the task queue that carries each job's work, when set (see
	// Work and "Work" in the package documentation): Create, Replay and
	// Recover queue a job's task in the transaction that makes it QUEUED,
	// Sweep queues what is missing, and NewWorker runs the tasks. Nil: the
	// store queues nothing, and moves jobs only when its caller does.
	Work *WorkOptions
	// Environment is the deployment the store serves ("dev", "staging",
	// "prod", ...): the seed keeps a failure's stack trace "dev/staging
	// only", so in every other environment Fail (and the job worker)
	// store error.stack as absent. Default: the {env} of a table named
	// photoeditor-{env}-jobs (TableNameForEnv), so the default table keeps
	// stacks (dev) and photoeditor-prod-jobs does not; for a table named
	// otherwise, "", which keeps none.
	Environment string
	// Renames are the job attributes being renamed, the seed's migration
	// playbook (see Rename): each written under its old and new name on
	// every write path, and read from the new name first.
	Renames []Rename
	// Providers are the providers a job may name beyond the seed's
	// gemini, seedream and stub (SeedProviders): a service that calls
	// another AI service adds its name here. Create, and a Backfill that
	// changes a job's provider, refuse any other with ErrUnknownProvider.
	// Names are matched exactly; each is 1 to 1024 bytes of UTF-8.
	Providers []string
	// Logger receives the store's structured logs (recoveries, lost
	// races); nil is silent.
	Logger *slog.Logger
	// Table configures the underlying table.Table (backoff, cursor key).
	Table []func(*table.Options)
	// Provisioning, when set, replaces the table's production settings,
	// which are otherwise the seed's point-in-time recovery and AWS
	// managed KMS encryption (table.RecoveryAndKMS): what EnsureTable
	// creates a missing table with and checks an existing one against.
	Provisioning *table.Provisioning
	// Tags, when not nil, replaces the table's tags, which are otherwise
	// the seed's Name = the table's name (DefaultTags): what EnsureTable
	// creates a missing table with and checks an existing one against
	// (a tag missing or different is drift; EnsureTable tags nothing).
	// An empty map asks for no tags.
	Tags map[string]string

	// tracerProvider and meterProvider are what TracerProvider and
	// MeterProvider set, kept for the work queue and the job worker.
	tracerProvider trace.TracerProvider
	meterProvider  metric.MeterProvider
}

// Store reads and writes jobs in one table. It is safe for concurrent use.
type Store struct {
	t       *table.Table
	blobs   blobstore.Store
	offload *blobstore.Offloader // per-attribute budget, for status moves
	full    *blobstore.Offloader // whole-item threshold, for Backfill
	opts    Options
	work    *tasks.Store // Options.Work's queue; nil without one
	jobs    *entity.Entity[record]
	// budget is the most one offloadable attribute may take inline; see
	// offload.go.
	budget int
	// providers is the set a job's provider must be in: the seed's and
	// Options.Providers.
	providers map[string]bool
	// renames are Options.Renames, validated.
	renames renames
}

// NewStore returns a Store for the jobs table on db, offloading large
// results to blobs. A nil db or a bad option fails here, with a
// *table.InputError, before any request.
//
// blobs may be nil: a result that would need offloading is then refused
// with an error wrapping table.ErrItemTooLarge before any request, and
// reading a job whose results another store offloaded fails with
// ErrNoBlobStore.
//
// NewStore does not call DynamoDB; create the table with
// [Store.EnsureTable].
func NewStore(db table.API, blobs blobstore.Store, opts ...func(*Options)) (*Store, error) {
	o := Options{}
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	if o.TableName == "" {
		o.TableName = DefaultTableName
	}
	if o.Retention == 0 {
		o.Retention = DefaultRetention
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
	if o.OffloadThreshold == 0 {
		o.OffloadThreshold = DefaultOffloadThreshold
	}
	if o.Environment == "" {
		o.Environment = environmentOf(o.TableName)
	}
	schema := Schema(o.TableName)
	if o.Provisioning != nil {
		schema.Provisioning = *o.Provisioning
	}
	if o.Tags != nil {
		schema.Tags = maps.Clone(o.Tags)
	}
	if o.OffloadPrefix == "" {
		o.OffloadPrefix = "jobs/" + schema.Name + "/"
	}
	if o.NewID == nil {
		o.NewID = keys.ULIDs()
	}
	var err error
	switch {
	case db == nil:
		err = inputError("db", "nil", "NewStore needs a table.API")
	case o.Retention < 0:
		err = inputError("Options.Retention", o.Retention, "must not be negative")
	case o.LeaseDuration < 0:
		err = inputError("Options.LeaseDuration", o.LeaseDuration, "must not be negative")
	case o.MaxAttempts < 0:
		err = inputError("Options.MaxAttempts", o.MaxAttempts, "must not be negative")
	case o.OffloadThreshold < minOffloadThreshold || o.OffloadThreshold > table.MaxItemSize:
		err = inputError("Options.OffloadThreshold", o.OffloadThreshold,
			fmt.Sprintf("must be between %d and %d bytes", minOffloadThreshold, table.MaxItemSize))
	default:
		err = schema.Validate()
	}
	if err != nil {
		return nil, err
	}
	providers, err := providerSet(o.Providers)
	if err != nil {
		return nil, err
	}
	rs, err := checkRenames(o.Renames)
	if err != nil {
		return nil, err
	}
	budget, err := attributeBudget(o.OffloadThreshold, rs)
	if err != nil {
		return nil, err
	}
	s := &Store{blobs: blobs, opts: o, t: table.New(db, schema, o.Table...), budget: budget, providers: providers, renames: rs}
	if o.Work != nil {
		if s.work, err = newWorkQueue(db, o); err != nil {
			return nil, err
		}
	}
	if blobs != nil {
		// Keys of the table and both indexes, and ttl, must stay in the
		// item: DynamoDB indexes and expires by them, and reads filter on
		// ttl.
		keep := []string{attrJobID, attrUserID, attrStatus, attrCreatedAt, attrTTL}
		offloader := func(threshold int) (*blobstore.Offloader, error) {
			return blobstore.NewOffloader(blobs, func(oo *blobstore.OffloadOptions) {
				oo.Threshold = threshold
				oo.Prefix = o.OffloadPrefix
				oo.Keep = keep
				oo.Clock = o.Clock
			})
		}
		if s.offload, err = offloader(s.budget); err != nil {
			return nil, err
		}
		if s.full, err = offloader(o.OffloadThreshold); err != nil {
			return nil, err
		}
	}
	reg, err := entity.NewRegistry(s.t, registryOptions(o.Clock)...)
	if err != nil {
		return nil, err
	}
	if s.jobs, err = declareJobs(reg, s.offload, rs); err != nil {
		return nil, err
	}
	return s, nil
}

// TableName sets Options.TableName.
func TableName(name string) func(*Options) { return func(o *Options) { o.TableName = name } }

// Provisioning sets Options.Provisioning: the table's production settings
// instead of the seed's recovery and KMS encryption. A development table
// that needs neither (recovery is billed per GB-month) passes
// Provisioning(table.Provisioning{}); production may add deletion
// protection or a customer managed key to table.RecoveryAndKMS().
func Provisioning(p table.Provisioning) func(*Options) {
	return func(o *Options) { o.Provisioning = &p }
}

// Providers adds names to Options.Providers: providers a job may name
// beyond the seed's gemini, seedream and stub.
func Providers(names ...string) func(*Options) {
	return func(o *Options) { o.Providers = append(o.Providers, names...) }
}

// Tags sets Options.Tags: the table's tags instead of the seed's Name =
// the table's name. Tags(nil) asks for none (a table an older setup made
// without tags, kept as it is).
func Tags(tags map[string]string) func(*Options) {
	return func(o *Options) {
		o.Tags = maps.Clone(tags)
		if o.Tags == nil {
			o.Tags = map[string]string{}
		}
	}
}

// Clock sets Options.Clock.
func Clock(now func() time.Time) func(*Options) { return func(o *Options) { o.Clock = now } }

// Environment sets Options.Environment.
func Environment(env string) func(*Options) { return func(o *Options) { o.Environment = env } }

// environmentOf is the {env} of a table named photoeditor-{env}-jobs, or "".
func environmentOf(tableName string) string {
	env, ok := strings.CutPrefix(tableName, "photoeditor-")
	if !ok {
		return ""
	}
	env, ok = strings.CutSuffix(env, "-jobs")
	if !ok {
		return ""
	}
	return env
}

// keepsStacks reports whether the store's environment keeps stack traces:
// the seed's "dev/staging only".
func (s *Store) keepsStacks() bool {
	return s != nil && (s.opts.Environment == "dev" || s.opts.Environment == "staging")
}

// Logger sets Options.Logger.
func Logger(l *slog.Logger) func(*Options) { return func(o *Options) { o.Logger = l } }

// LeaseDuration sets Options.LeaseDuration.
func LeaseDuration(d time.Duration) func(*Options) { return func(o *Options) { o.LeaseDuration = d } }

// Retention sets Options.Retention.
func Retention(d time.Duration) func(*Options) { return func(o *Options) { o.Retention = d } }

// MaxAttempts sets Options.MaxAttempts.
func MaxAttempts(n int) func(*Options) { return func(o *Options) { o.MaxAttempts = n } }

// Schema is the schema of the table the store uses, for tooling
// (datamodel, cmd/tablekit).
func (s *Store) Schema() table.Schema {
	if s.check() != nil {
		return table.Schema{}
	}
	return s.t.Schema()
}

// EnsureTable creates the store's table, with its indexes and TTL, unless
// it exists; with Options.Work, the work queue's tasks table too
// (tasks.Store.EnsureTable).
func (s *Store) EnsureTable(ctx context.Context) (err error) {
	ctx, span := s.start(ctx, "jobs.EnsureTable")
	defer span.End(&err)
	if err := s.check(); err != nil {
		return err
	}
	if err := s.t.EnsureTable(ctx); err != nil {
		return err
	}
	if s.work != nil {
		return s.work.EnsureTable(ctx)
	}
	return nil
}

// ErrNoStore: a method was called on a nil or zero Store, not one from
// NewStore.
var ErrNoStore = errors.New("jobs: Store not made by NewStore")

// check fails calls on a Store NewStore did not make, rather than
// panicking.
func (s *Store) check() error {
	if s == nil || s.t == nil {
		return ErrNoStore
	}
	return nil
}

// Table is the underlying table, for calls this package does not wrap.
func (s *Store) Table() *table.Table {
	if s == nil {
		return nil
	}
	return s.t
}

// now is the store's clock.
func (s *Store) now() time.Time { return s.opts.Clock() }

// start begins the span of one store call (table.Table.Start), also on a
// nil Store, whose methods then fail with ErrNoStore.
func (s *Store) start(ctx context.Context, operation string) (context.Context, table.Span) {
	if s == nil {
		return ctx, table.Span{}
	}
	return s.t.Start(ctx, operation)
}

// TracerProvider makes the store start one span per call ("jobs.Create",
// ...), under which the requests' spans nest (observe.DynamoDB). Nil, the
// default, starts none and costs nothing.
func TracerProvider(tp trace.TracerProvider) func(*Options) {
	return func(o *Options) {
		o.Table = append(o.Table, table.TracerProvider(tp))
		o.tracerProvider = tp
	}
}

package journey

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"reflect"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

// The design's buckets, named in the s3Location of log and report entries
// when the stores do not say which bucket they are on.
const (
	DefaultLogsBucket    = "transformation-journey-logs"
	DefaultReportsBucket = "transformation-journey-reports"
	// DefaultBackupsBucket is the seed's bucket of journey exports
	// (s3://transformation-backups/journeys/{id}/backup.json).
	DefaultBackupsBucket = "transformation-backups"
)

// DefaultTxAttempts is how often the store sends a transaction that other
// transactions on the same journey item kept canceling. Every job start
// and finish of a journey updates its METADATA item, so under a burst of
// concurrent finishes conflicts are the norm, not the exception.
const DefaultTxAttempts = 40

// DefaultLogSummaryRetention is Options.LogSummaryRetention's default: a
// week of recent activity in DynamoDB; the log files in S3 keep
// everything.
const DefaultLogSummaryRetention = 7 * 24 * time.Hour

// KeepLogSummaries, as Options.LogSummaryRetention, keeps log summaries
// until their journey is deleted.
const KeepLogSummaries time.Duration = -1

// DefaultJobTimeout is Options.JobTimeout's default: the seed's
// configuration.timeout of 1800 seconds, for journeys and jobs created
// without one.
const DefaultJobTimeout = 1800 * time.Second

// NoJobTimeout, as Options.JobTimeout, leaves a journey or job created
// without a timeout without one: its job holds its stage until its worker
// finishes it, however long that takes.
const NoJobTimeout time.Duration = -1

// DefaultArchiveLogsAfterDays is Options.ArchiveLogsAfterDays's default:
// the seed's "archival to Glacier after 90 days" of the full logs.
const DefaultArchiveLogsAfterDays = 90

// NoLogArchive, as Options.ArchiveLogsAfterDays, declares no lifecycle
// rule: Store.Setup leaves the logs bucket's lifecycle configuration as
// it is.
const NoLogArchive = -1

// DefaultBatchWriteConcurrency is how many BatchWriteItem requests a step
// logger's summaries (and Journeys.Delete's deletes) keep in flight: a
// step of the seed's 10,000 entries is 400 requests of 25, which take 50
// round trips instead of 400 (table.Options.BatchWriteConcurrency; set it
// through Options.Table).
const DefaultBatchWriteConcurrency = 8

// Options configure a Store.
type Options struct {
	// TableName is the table (DefaultTableName when "").
	TableName string
	// Reports is the store for report files; the logs store passed to
	// NewStore when nil. The seed keeps them in a bucket of their own.
	Reports blobstore.Store
	// Backups is the store Export writes to and Import reads from: a
	// store on the seed's backups bucket, DefaultBackupsBucket
	// (transformation-backups). Export and Import fail with
	// table.ErrInvalidInput while it is nil; backups no longer go to the
	// logs bucket by default.
	Backups blobstore.Store
	// LogsBucket and ReportsBucket name the buckets in the s3Location
	// pointers of log and report entries and in a job's s3Config: a
	// pointer names the bucket that holds the object. By default they are
	// the buckets the stores say they are on (an S3 store, s3blob, does),
	// else DefaultLogsBucket and DefaultReportsBucket; without a Reports
	// store, report files go to the logs store, and ReportsBucket is the
	// logs bucket. A name that differs from the bucket its store is on
	// (or, without Reports, a ReportsBucket other than the logs bucket) is
	// refused by NewStore.
	LogsBucket, ReportsBucket string
	// Clock stamps CreatedAt, UpdatedAt, job and log times. Default
	// table.ClockOf(db): the fake's time on dynamotest, time.Now on AWS.
	Clock func() time.Time
	// Logger receives structured records of lost races, retries and
	// imports (table, operation, key, attempt); nil is silent.
	Logger *slog.Logger
	// NewID returns a new unique id starting with prefix ("JRN", "JOB",
	// "LOG", "RPT", "rule-raw_analysis-field_mapping"); it must return
	// letters, digits, '_' and '-' only. Default: prefix, "-", a ULID.
	NewID func(prefix string) string
	// DisableLogSummaries stops step loggers from writing the seed's
	// optional LOG# items (two write units per entry, the item and its
	// GSI1 entry); the S3 files and the per-level counts are written
	// either way.
	DisableLogSummaries bool
	// LogSummaryRetention is how long a log summary is kept after its
	// entry's time: DynamoDB deletes it by TTL (attribute ttl) at no
	// write cost, usually within a few days of that. Summaries are
	// copies of what the step's log file in S3 keeps, for recent
	// activity; kept for ever, a year of the seed's 100 jobs a day is
	// about 570 GB of them. 0 means DefaultLogSummaryRetention;
	// KeepLogSummaries (negative) writes no ttl.
	LogSummaryRetention time.Duration
	// ArchiveLogsAfterDays is the logs bucket's lifecycle rule, which
	// Store.Setup applies: objects under journeys/ move to S3 Glacier
	// Flexible Retrieval this many days after they were written. 0 means
	// DefaultArchiveLogsAfterDays (the seed's 90); NoLogArchive (negative)
	// declares no rule. A store without Options.Reports keeps its report
	// files in the logs bucket, where the rule archives them too. An
	// archived file is not read back (Logs.Read, Reports.Read) until it is
	// restored from Glacier.
	ArchiveLogsAfterDays int
	// PurgeFilesOnDelete makes Journeys.Delete also delete the journey's
	// log and report files (everything under journeys/{journeyId}/ in the
	// logs and reports stores). By default they stay: the seed's full logs
	// are the audit trail, "never deleted", and the logs bucket's lifecycle
	// rule archives them (ArchiveLogsAfterDays, Store.Setup). A store with
	// it needs s3:DeleteObject on those buckets (policies.Journey grants
	// it only to a service that sets it).
	PurgeFilesOnDelete bool
	// JobTimeout is the configuration.timeout of a journey created without
	// one (Configuration.Timeout 0), and of a job started without one
	// whose journey has none either: past it, a job whose worker died
	// no longer blocks its stage, and Jobs.Recover fails it. 0 means
	// DefaultJobTimeout (the seed's 1800 s); NoJobTimeout (negative)
	// leaves them without a timeout (a stored timeout of 0 is none). It is
	// a whole number of seconds, as the seed stores it; NewStore refuses
	// another. Journeys and jobs keep the timeout they were created with.
	JobTimeout time.Duration
	// StagesInAnyOrder lets Jobs.Start start a stage whatever the status
	// of the stages before it. By default a stage starts only once every
	// earlier stage is completed or skipped, as the seed's stages "run in
	// order 1, 2, 3"; a service whose stages are independent of one
	// another sets it and runs them side by side.
	StagesInAnyOrder bool
	// Table configures the underlying table.Table (backoff, cursor key,
	// transaction attempts: DefaultTxAttempts unless set, batch write
	// concurrency: DefaultBatchWriteConcurrency unless set).
	Table []func(*table.Options)
	// Provisioning, when set, replaces the table's production settings,
	// which are otherwise the seed's point-in-time recovery and AWS KMS
	// encryption (table.RecoveryAndKMS): what EnsureTable creates a
	// missing table with and checks an existing one against.
	Provisioning *table.Provisioning
}

// Store reads and writes journeys in the TransformationSystem table and
// their log and report files in blob stores. It is safe for concurrent use.
//
// Its calls are grouped in handles, as database/sql hands out Tx and Rows:
// [Store.Journeys], [Store.Stages], [Store.Jobs], [Store.Rules],
// [Store.Logs], [Store.Reports] and [Store.Backups]. A handle is a view of
// the store: every handle shares its table, clock, logger and blob stores,
// costs nothing to get, and may be kept or fetched again per call.
type Store struct {
	t       *table.Table
	ents    entities
	logs    blobstore.Store
	reports blobstore.Store
	backups blobstore.Store
	opts    Options
}

// NewStore returns a Store on db keeping log files in logs (the seed's
// transformation-journey-logs bucket), and report files there too unless
// Options.Reports names another store. A nil db, a nil logs store or a bad
// option fails here with a *table.InputError (table.ErrInvalidInput), as
// sql.Open does. It sends no request; create the table with
// [Store.EnsureTable].
func NewStore(db table.API, logs blobstore.Store, opts ...func(*Options)) (*Store, error) {
	o := Options{}
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	if o.TableName == "" {
		o.TableName = DefaultTableName
	}
	reportsInLogs := o.Reports == nil || sameStore(o.Reports, logs)
	if o.Reports == nil {
		o.Reports = logs
	}
	if o.Clock == nil {
		o.Clock = table.ClockOf(db)
	}
	if o.LogSummaryRetention == 0 {
		o.LogSummaryRetention = DefaultLogSummaryRetention
	}
	if o.JobTimeout == 0 {
		o.JobTimeout = DefaultJobTimeout
	}
	if o.ArchiveLogsAfterDays == 0 {
		o.ArchiveLogsAfterDays = DefaultArchiveLogsAfterDays
	}
	if o.NewID == nil {
		o.NewID = defaultNewID(o.Clock)
	}
	switch {
	case db == nil:
		return nil, inputError("db", "nil", "NewStore needs a table.API")
	case logs == nil:
		return nil, inputError("logs", "nil", "NewStore needs a blob store for log files")
	}
	if o.JobTimeout > 0 && o.JobTimeout%time.Second != 0 {
		return nil, inputError("Options.JobTimeout", o.JobTimeout, "configuration.timeout is whole seconds")
	}
	if o.ArchiveLogsAfterDays > math.MaxInt32 {
		return nil, inputError("Options.ArchiveLogsAfterDays", o.ArchiveLogsAfterDays, "S3 counts lifecycle days in 32 bits")
	}
	if err := o.buckets(logs, reportsInLogs); err != nil {
		return nil, err
	}
	schema := Schema(o.TableName)
	if o.Provisioning != nil {
		schema.Provisioning = *o.Provisioning
	}
	if err := schema.Validate(); err != nil {
		return nil, err
	}
	tableOpts := append([]func(*table.Options){func(to *table.Options) {
		to.TxAttempts, to.BatchWriteConcurrency = DefaultTxAttempts, DefaultBatchWriteConcurrency
	}}, o.Table...)
	t := table.New(db, schema, tableOpts...)
	reg, err := entity.NewRegistry(t, registryOptions(o.Clock)...)
	if err != nil {
		return nil, err
	}
	ents, err := declare(reg)
	if err != nil {
		return nil, err
	}
	return &Store{t: t, ents: ents, logs: logs, reports: o.Reports, backups: o.Backups, opts: o}, nil
}

// sameStore reports whether a and b are one store (false for values
// that cannot be compared).
func sameStore(a, b blobstore.Store) bool {
	ta := reflect.TypeOf(a)
	return ta != nil && ta == reflect.TypeOf(b) && ta.Comparable() && a == b
}

// bucketOf is the bucket a blob store is on, when it says (an S3 store
// does); "" otherwise.
func bucketOf(store blobstore.Store) string {
	if b, ok := store.(interface{ Bucket() string }); ok {
		return b.Bucket()
	}
	return ""
}

// buckets fills LogsBucket and ReportsBucket from the stores (or the
// defaults), and refuses names that are not where the files go: every
// s3Location must name the bucket that holds its object.
func (o *Options) buckets(logs blobstore.Store, reportsInLogs bool) error {
	pick := func(field, given, store, fallback string) (string, error) {
		switch {
		case given == "" && store != "":
			return store, nil
		case given == "":
			return fallback, nil
		case store != "" && given != store:
			return "", inputError(field, given, "its store is on bucket "+store+": a pointer must name the bucket that holds the object")
		}
		return given, nil
	}
	var err error
	if o.LogsBucket, err = pick("Options.LogsBucket", o.LogsBucket, bucketOf(logs), DefaultLogsBucket); err != nil {
		return err
	}
	if reportsInLogs {
		if o.ReportsBucket != "" && o.ReportsBucket != o.LogsBucket {
			return inputError("Options.ReportsBucket", o.ReportsBucket,
				"report files go to the logs store (no Options.Reports), on bucket "+o.LogsBucket+": a pointer must name the bucket that holds the object")
		}
		o.ReportsBucket = o.LogsBucket
		return nil
	}
	o.ReportsBucket, err = pick("Options.ReportsBucket", o.ReportsBucket, bucketOf(o.Reports), DefaultReportsBucket)
	return err
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

// PurgeFilesOnDelete sets Options.PurgeFilesOnDelete: Journeys.Delete
// also deletes the journey's log and report files.
func PurgeFilesOnDelete() func(*Options) { return func(o *Options) { o.PurgeFilesOnDelete = true } }

// JobTimeout sets Options.JobTimeout: the timeout of journeys and jobs
// created without one (NoJobTimeout: none).
func JobTimeout(d time.Duration) func(*Options) { return func(o *Options) { o.JobTimeout = d } }

// Clock sets Options.Clock.
func Clock(now func() time.Time) func(*Options) { return func(o *Options) { o.Clock = now } }

// WithReports sets Options.Reports, the store of report files (the logs
// store when unset). The bare name is the Reports handle's.
func WithReports(reports blobstore.Store) func(*Options) {
	return func(o *Options) { o.Reports = reports }
}

// WithBackups sets Options.Backups, the store on the backups bucket that
// Export writes to and Import reads from. The bare name is the Backups
// handle's.
func WithBackups(backups blobstore.Store) func(*Options) {
	return func(o *Options) { o.Backups = backups }
}

// Logger sets Options.Logger.
func Logger(l *slog.Logger) func(*Options) { return func(o *Options) { o.Logger = l } }

// TracerProvider makes every call of the store and its handles that sends
// requests start one span ("journey.Jobs.Start", "journey.StepLogger.Close",
// ...) through its table (table.TracerProvider). Unset, tracing costs
// nothing.
func TracerProvider(tp trace.TracerProvider) func(*Options) {
	return func(o *Options) { o.Table = append(o.Table, table.TracerProvider(tp)) }
}

// Schema is the schema of the table the store uses: Schema(Options.TableName).
// A nil Store has the zero Schema.
func (s *Store) Schema() table.Schema {
	if s.check() != nil {
		return table.Schema{}
	}
	return s.t.Schema()
}

// EnsureTable creates the store's table, with GSI1, unless it exists with
// that shape (table.Schema.EnsureTable).
func (s *Store) EnsureTable(ctx context.Context) (err error) {
	if err := s.ready(ctx); err != nil {
		return err
	}
	ctx, span := s.t.Start(ctx, "journey.EnsureTable")
	defer span.End(&err)
	return s.t.EnsureTable(ctx)
}

// Setup readies what the store runs on: the table (EnsureTable) and the
// logs bucket's lifecycle rule (ApplyLifecycle), the seed's archival of
// full logs to Glacier. A service calls it at start-up, or its deployment
// does with the admin policy (which grants s3:PutLifecycleConfiguration on
// the logs bucket); `tablekit tables ensure -store journey` does the same.
func (s *Store) Setup(ctx context.Context) (err error) {
	if err := s.ready(ctx); err != nil {
		return err
	}
	ctx, span := s.t.Start(ctx, "journey.Setup")
	defer span.End(&err)
	if err := s.t.EnsureTable(ctx); err != nil {
		return err
	}
	return s.applyLifecycle(ctx)
}

// ApplyLifecycle applies the logs bucket's lifecycle rule
// (Options.ArchiveLogsAfterDays: objects under journeys/ to Glacier after
// 90 days by default), replacing the bucket's lifecycle configuration: the
// logs bucket is the service's own. With NoLogArchive it does nothing. A
// logs store that keeps no lifecycle rules (blobstore.Dir, an S3-compatible
// server without them such as s3rver) is an error wrapping
// blobstore.ErrUnsupported.
func (s *Store) ApplyLifecycle(ctx context.Context) (err error) {
	if err := s.ready(ctx); err != nil {
		return err
	}
	ctx, span := s.t.Start(ctx, "journey.ApplyLifecycle")
	defer span.End(&err)
	return s.applyLifecycle(ctx)
}

// lifecycle is the logs bucket's declared lifecycle: the seed's Glacier
// rule under journeys/, or none with NoLogArchive.
func (s *Store) lifecycle() []blobstore.LifecycleRule {
	if s.opts.ArchiveLogsAfterDays < 0 {
		return nil
	}
	// "journeys/": every log file (and, in the logs bucket, every report
	// file); S3 filters lifecycle rules by prefix only.
	prefix, _ := logObjects.Prefix()
	return []blobstore.LifecycleRule{blobstore.GlacierAfter(prefix, int32(s.opts.ArchiveLogsAfterDays))}
}

func (s *Store) applyLifecycle(ctx context.Context) error {
	rules := s.lifecycle()
	if len(rules) == 0 {
		return nil
	}
	if err := blobstore.ApplyLifecycle(ctx, s.logs, rules...); err != nil {
		return fmt.Errorf("journey: lifecycle of the logs bucket %s: %w", s.opts.LogsBucket, err)
	}
	return nil
}

// ErrNoStore: a method was called on a nil or zero Store, not one from
// NewStore.
var ErrNoStore = errors.New("journey: Store not made by NewStore")

// check fails calls on a Store NewStore did not make, rather than
// panicking.
func (s *Store) check() error {
	if s == nil || s.t == nil {
		return ErrNoStore
	}
	return nil
}

// ready is check, and refuses a nil context before any request.
func (s *Store) ready(ctx context.Context) error {
	if err := s.check(); err != nil {
		return err
	}
	if ctx == nil {
		return inputError("ctx", "nil", "needs a context")
	}
	return nil
}

// defaultNewID is the default NewID: prefix-ULID, and ULIDs from one store
// sort by creation time.
func defaultNewID(clock func() time.Time) func(prefix string) string {
	next := keys.ULIDs()
	return func(prefix string) string { return prefix + "-" + next(clock()) }
}

// newID returns a checked id from Options.NewID.
func (s *Store) newID(prefix string) (string, error) {
	id := s.opts.NewID(prefix)
	if err := checkID("Options.NewID("+prefix+")", id); err != nil {
		return "", err
	}
	return id, nil
}

// log writes an info record when a logger is set.
func (s *Store) log(ctx context.Context, msg string, args ...any) {
	if s.opts.Logger != nil {
		s.opts.Logger.InfoContext(ctx, "journey: "+msg, append([]any{"table", s.opts.TableName}, args...)...)
	}
}

// backupStore is the backups store, or a typed error when none was given.
func (s *Store) backupStore() (blobstore.Store, error) {
	if s.backups == nil {
		return nil, inputError("Options.Backups", "nil", "Export and Import need a store on the backups bucket ("+DefaultBackupsBucket+")")
	}
	return s.backups, nil
}

// Table is the underlying table, for calls this package does not wrap
// (nil for a nil Store).
func (s *Store) Table() *table.Table {
	if s == nil {
		return nil
	}
	return s.t
}

// timeout is the configuration.timeout (seconds) of a journey or job
// created with the given ones, the first that is set (positive): the job's,
// then its journey's, then the store's Options.JobTimeout; 0 (none) only
// with NoJobTimeout. The one place where "created without a timeout" is
// decided.
func (s *Store) timeout(given ...int) int {
	for _, t := range given {
		if t > 0 {
			return t
		}
	}
	if s.opts.JobTimeout < 0 {
		return 0 // NoJobTimeout
	}
	return int(s.opts.JobTimeout / time.Second)
}

// now is the store's clock, at the precision items keep.
func (s *Store) now() time.Time { return At(s.opts.Clock()).Time }

func stamp(t time.Time) string { return At(t).String() }

func s3Location(bucket, key string) string { return "s3://" + bucket + "/" + key }

// raceAttempts bounds how often AddRule and StartJob take the next number
// after losing the race for one to another caller.
const raceAttempts = 50

// raceBackoff spaces the retries of a lost race: full jitter over a window
// doubling from 2 ms to 250 ms, so that many callers racing for the same
// journey spread out instead of colliding again.
var raceBackoff = table.Backoff{Initial: 2 * time.Millisecond, Max: 250 * time.Millisecond}

// lostRace waits before retry n (from 0) of a lost race, logging it; it
// returns ctx.Err() if ctx ends first.
func (s *Store) lostRace(ctx context.Context, op, key string, n int) error {
	if s.opts.Logger != nil {
		s.opts.Logger.DebugContext(ctx, "journey: lost a race, retrying", "table", s.opts.TableName,
			"operation", op, "key", key, "attempt", n+1)
	}
	return raceBackoff.Sleep(ctx, n)
}

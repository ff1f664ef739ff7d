package journey

import (
	"context"
	"log/slog"
	"time"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

// The seed's buckets, named in the s3Location of log and report entries.
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
	// strings of log and report entries (the stores themselves are
	// already bound to their buckets). Defaults: the seed's
	// DefaultLogsBucket and DefaultReportsBucket.
	LogsBucket, ReportsBucket string
	// Clock stamps CreatedAt, UpdatedAt, job and log times. Default time.Now.
	Clock func() time.Time
	// Logger receives structured records of lost races, retries and
	// imports (table, operation, key, attempt); nil is silent.
	Logger *slog.Logger
	// NewID returns a new unique id starting with prefix ("JRN", "JOB",
	// "LOG", "RPT", "rule-raw_analysis-field_mapping"); it must return
	// letters, digits, '_' and '-' only. Default: prefix, "-", a ULID.
	NewID func(prefix string) string
	// DisableLogSummaries stops step loggers from writing the seed's
	// optional LOG# items (one write unit per entry); the S3 files and
	// the per-level counts are written either way.
	DisableLogSummaries bool
	// Table configures the underlying table.Table (backoff, cursor key,
	// transaction attempts: DefaultTxAttempts unless set).
	Table []func(*table.Options)
}

// Store reads and writes journeys in the TransformationSystem table and
// their log and report files in blob stores. It is safe for concurrent use.
type Store struct {
	t       *table.Table
	logs    blobstore.Store
	reports blobstore.Store
	backups blobstore.Store
	opts    Options
	// err is a configuration error every call returns before any request.
	err error
}

// NewStore returns a Store on db keeping log files in logs. It sends no
// request; create the table with Schema(name).EnsureTable.
func NewStore(db table.API, logs blobstore.Store, opts ...func(*Options)) *Store {
	o := Options{}
	for _, f := range opts {
		f(&o)
	}
	if o.TableName == "" {
		o.TableName = DefaultTableName
	}
	if o.Reports == nil {
		o.Reports = logs
	}
	if o.LogsBucket == "" {
		o.LogsBucket = DefaultLogsBucket
	}
	if o.ReportsBucket == "" {
		o.ReportsBucket = DefaultReportsBucket
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	s := &Store{logs: logs, reports: o.Reports, backups: o.Backups}
	if o.NewID == nil {
		o.NewID = defaultNewID(o.Clock)
	}
	s.opts = o
	tableOpts := append([]func(*table.Options){func(to *table.Options) { to.TxAttempts = DefaultTxAttempts }}, o.Table...)
	schema := Schema(o.TableName)
	s.t = table.New(db, schema, tableOpts...)
	switch {
	case db == nil:
		s.err = inputError("db", "nil", "NewStore needs a table.API")
	case logs == nil:
		s.err = inputError("logs", "nil", "NewStore needs a blob store for log files")
	default:
		s.err = schema.Validate()
	}
	return s
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

// Table is the underlying table, for calls this package does not wrap.
func (s *Store) Table() *table.Table { return s.t }

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

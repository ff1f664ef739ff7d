package pipeline

import (
	"context"
	"crypto/sha256"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

// Defaults of Options.
const (
	DefaultPresignExpiry  = 15 * time.Minute
	DefaultMaxConcurrency = 8
	DefaultTagQueryLimit  = 100
)

// Options configure a Store.
type Options struct {
	// TableName defaults to DefaultTableName.
	TableName string
	// Clock gives createdAt, updatedAt and the timestamp of input file
	// names. Default table.ClockOf(db): the fake's time on dynamotest,
	// time.Now on AWS.
	Clock func() time.Time
	// Logger receives structured records (table, operation, key) of lost
	// races, recoveries, execution moves and the steps of Delete. Nil:
	// silent.
	Logger *slog.Logger
	// NewID returns the id of a pipeline or execution created at t.
	// Default: a ULID, so ids sort by creation time and "list pipelines"
	// and "list executions" come back oldest first. An id must not contain
	// ':' (the key delimiter).
	NewID func(t time.Time) string
	// PresignExpiry is how long presigned upload and download URLs live.
	// Default DefaultPresignExpiry; at most blobstore.MaxPresignExpiry.
	PresignExpiry time.Duration
	// MaxConcurrency bounds the tag queries Pipelines.ByTags runs at once.
	// Default DefaultMaxConcurrency.
	MaxConcurrency int
	// TagQueryLimit is how many tag items one query of Pipelines.ByTags reads.
	// Default DefaultTagQueryLimit.
	TagQueryLimit int
	// CursorKey authenticates Pipelines.ByTags cursors (HMAC-SHA256). Default: a
	// key derived from the table name, which catches altered cursors but
	// not forged ones; set a secret when cursors reach untrusted clients.
	CursorKey []byte
	// Table configures the underlying table.Table (backoff, cursor key).
	Table []func(*table.Options)
}

// Store reads and writes pipelines, their versions, executions, groups and
// tags in one table, and their files in a blob store. It is safe for
// concurrent use.
type Store struct {
	t     *table.Table
	files blobstore.Store
	opts  Options
	entities
}

// NewStore returns a Store for the pipeline table on db, keeping input and
// output files in files. files may be nil for a store that never touches
// files; the file calls and Delete then fail with blobstore.ErrUnsupported.
// A nil db or a bad option value fails here with a *table.InputError
// (table.ErrInvalidInput), as sql.Open does.
//
// NewStore sends nothing; create the table with store.EnsureTable.
func NewStore(db table.API, files blobstore.Store, opts ...func(*Options)) (*Store, error) {
	o := Options{}
	for _, fn := range opts {
		if fn != nil {
			fn(&o)
		}
	}
	if o.TableName == "" {
		o.TableName = DefaultTableName
	}
	if o.Clock == nil {
		o.Clock = table.ClockOf(db)
	}
	if o.PresignExpiry == 0 {
		o.PresignExpiry = DefaultPresignExpiry
	}
	if o.MaxConcurrency == 0 {
		o.MaxConcurrency = DefaultMaxConcurrency
	}
	if o.TagQueryLimit == 0 {
		o.TagQueryLimit = DefaultTagQueryLimit
	}
	if o.CursorKey == nil {
		sum := sha256.Sum256([]byte("tablekit/pipeline cursor\x00" + o.TableName))
		o.CursorKey = sum[:]
	}
	if o.NewID == nil {
		o.NewID = keys.ULIDs()
	}
	schema := Schema(o.TableName)
	switch {
	case db == nil:
		return nil, inputError("db", "nil", "NewStore needs a table.API")
	case o.PresignExpiry < 0 || o.PresignExpiry > blobstore.MaxPresignExpiry:
		return nil, inputError("Options.PresignExpiry", o.PresignExpiry, "must be between 0 and 7 days (SigV4's limit)")
	case o.MaxConcurrency < 0:
		return nil, inputError("Options.MaxConcurrency", o.MaxConcurrency, "must not be negative")
	case o.TagQueryLimit < 0:
		return nil, inputError("Options.TagQueryLimit", o.TagQueryLimit, "must not be negative")
	}
	if err := schema.Validate(); err != nil {
		return nil, err
	}
	s := &Store{files: files, opts: o, t: table.New(db, schema, o.Table...)}
	var err error
	if s.entities, err = newEntities(s.t, o.Clock); err != nil {
		return nil, err
	}
	return s, nil
}

// TableName sets Options.TableName: the table the store uses (default
// DefaultTableName).
func TableName(name string) func(*Options) { return func(o *Options) { o.TableName = name } }

// Clock sets Options.Clock.
func Clock(now func() time.Time) func(*Options) { return func(o *Options) { o.Clock = now } }

// Logger sets Options.Logger.
func Logger(l *slog.Logger) func(*Options) { return func(o *Options) { o.Logger = l } }

// TracerProvider makes the store start one span per call, named
// "pipeline.<Method>" ("pipeline.Delete"), with the table's name as an
// attribute; the DynamoDB requests of an API wrapped by observe.DynamoDB
// nest under it. It appends table.TracerProvider(tp) to Options.Table.
// Without it (or with nil) no span is started and nothing is paid.
func TracerProvider(tp trace.TracerProvider) func(*Options) {
	return func(o *Options) { o.Table = append(o.Table, table.TracerProvider(tp)) }
}

// Schema is the schema of the table the store uses.
func (s *Store) Schema() table.Schema { return s.Table().Schema() }

// EnsureTable creates the store's table (Schema) if it is missing and
// checks that an existing one matches it.
func (s *Store) EnsureTable(ctx context.Context) (err error) {
	ctx, span := s.start(ctx, "pipeline.EnsureTable")
	defer span.End(&err)
	if err := s.ready(ctx); err != nil {
		return err
	}
	return s.t.EnsureTable(ctx)
}

// Table is the underlying table, for calls this package does not wrap
// (nil for a nil Store).
func (s *Store) Table() *table.Table {
	if s == nil {
		return nil
	}
	return s.t
}

// start begins the span of one store call (table.Table.Start); on a nil
// Store it starts none, and the call's ready check reports the Store.
func (s *Store) start(ctx context.Context, operation string) (context.Context, table.Span) {
	return s.Table().Start(ctx, operation)
}

// ready refuses, before anything is sent, a Store not made by NewStore
// (nil or zero) and a nil context: every call that does I/O starts with
// it, so a miswired service gets an error, never a panic.
func (s *Store) ready(ctx context.Context) error {
	if err := s.made(); err != nil {
		return err
	}
	if ctx == nil {
		return inputError("ctx", "nil", "a store call needs a context")
	}
	return nil
}

// made refuses a Store not made by NewStore (nil or zero): ready's first
// check, and what a listing checks when it is made (it gets its context
// later, from Page or All).
func (s *Store) made() error {
	if s == nil || s.t == nil {
		return &table.InputError{Field: "store", Value: "nil", Reason: "Store not made by NewStore", Err: ErrNoStore}
	}
	return nil
}

func (s *Store) now() time.Time { return s.opts.Clock().UTC() }

// log writes a debug record when a Logger is set; without one it costs a
// nil check.
func (s *Store) log(ctx context.Context, msg string, args ...any) {
	if s.opts.Logger == nil {
		return
	}
	s.opts.Logger.DebugContext(ctx, msg, append([]any{"table", s.t.Name()}, args...)...)
}

// Registry is the store's entities (schema.go), for tools that read the
// table item by item and want to name what each is (tablekit inspect), or
// decode a raw item (Registry.Decode). Nil for a nil Store.
func (s *Store) Registry() *entity.Registry {
	if s == nil {
		return nil
	}
	return s.reg
}

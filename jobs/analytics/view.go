package analytics

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"go.opentelemetry.io/otel/trace"

	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

// DefaultTableName is the view's table unless Options.TableName says
// otherwise, named as the seed names the jobs table in the dev
// environment.
const DefaultTableName = "photoeditor-dev-analytics"

// TableNameForEnv names the view's table of an environment beside the jobs
// table jobs.TableNameForEnv(env) names: photoeditor-{env}-analytics.
func TableNameForEnv(env string) string {
	return "photoeditor-" + env + "-analytics"
}

// ConsumerName is the name a View's Consumer checkpoints under.
const ConsumerName = "jobs-analytics"

// Options configure a View.
type Options struct {
	// TableName is the view's table. Default DefaultTableName.
	TableName string
	// Logger receives redeliveries skipped (Debug); nil is silent.
	Logger *slog.Logger
	// Table configures the underlying table.Table (backoff, cursor key).
	Table []func(*table.Options)
	// Provisioning, when set, replaces the table's production settings,
	// which are otherwise the jobs design's point-in-time recovery and AWS
	// managed KMS encryption (table.RecoveryAndKMS), as for the jobs
	// table: what EnsureTable creates a missing table with and checks an
	// existing one against.
	Provisioning *table.Provisioning
}

// TableName sets Options.TableName.
func TableName(name string) func(*Options) { return func(o *Options) { o.TableName = name } }

// Provisioning sets Options.Provisioning: the view table's production
// settings instead of recovery and KMS encryption. A development table
// that needs neither passes Provisioning(table.Provisioning{}).
func Provisioning(p table.Provisioning) func(*Options) {
	return func(o *Options) { o.Provisioning = &p }
}

// Logger sets Options.Logger.
func Logger(l *slog.Logger) func(*Options) { return func(o *Options) { o.Logger = l } }

// TracerProvider makes the view start one span per call
// ("analytics.Apply", ...). Nil, the default, starts none.
func TracerProvider(tp trace.TracerProvider) func(*Options) {
	return func(o *Options) { o.Table = append(o.Table, table.TracerProvider(tp)) }
}

// ErrNoView: a method was called on a nil or zero View, not one from
// NewView.
var ErrNoView = errors.New("analytics: View not made by NewView")

// View is the per-user, per-day statistics table. It is safe for
// concurrent use.
type View struct {
	t    *table.Table
	opts Options
	log  *slog.Logger
}

// The view's keys. User ids are the jobs store's; one the template
// refuses (it would collide with another's key) is an error, never a
// merged row.
var (
	userPK = keys.MustPartition("USER#{userId}")
	daySK  = keys.MustSort("DAY#{day}")
)

// Schema is the view's table named tableName: pk and sk, both strings,
// with point-in-time recovery and AWS managed KMS encryption, as the jobs
// design asks of the jobs table. The view needs recovery more than the
// jobs table does: it keeps counting jobs the jobs table expired after 90
// days, so a lost view cannot be recounted from the jobs (Recount) past
// them.
func Schema(tableName string) table.Schema {
	return table.Schema{Name: tableName,
		PartitionKey: table.Attribute{Name: "pk", Type: types.ScalarAttributeTypeS},
		SortKey:      table.Attribute{Name: "sk", Type: types.ScalarAttributeTypeS},
		Provisioning: table.RecoveryAndKMS()}
}

// NewView returns the view kept in a table on db. A nil db or a bad
// option fails here with a *table.InputError, before any request; create
// the table with EnsureTable.
func NewView(db table.API, opts ...func(*Options)) (*View, error) {
	o := Options{}
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	if o.TableName == "" {
		o.TableName = DefaultTableName
	}
	if db == nil {
		return nil, &table.InputError{Field: "db", Value: "nil", Reason: "NewView needs a table.API"}
	}
	schema := Schema(o.TableName)
	if o.Provisioning != nil {
		schema.Provisioning = *o.Provisioning
	}
	if err := schema.Validate(); err != nil {
		return nil, err
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &View{t: table.New(db, schema, o.Table...), opts: o, log: log.With("table", o.TableName)}, nil
}

// start begins the span of one call, also on a nil View.
func (v *View) start(ctx context.Context, operation string) (context.Context, table.Span) {
	if v == nil {
		return ctx, table.Span{}
	}
	return v.t.Start(ctx, operation)
}

func (v *View) check() error {
	if v == nil || v.t == nil {
		return ErrNoView
	}
	return nil
}

// Schema is the schema of the table the view uses.
func (v *View) Schema() table.Schema {
	if v.check() != nil {
		return table.Schema{}
	}
	return v.t.Schema()
}

// EnsureTable creates the view's table if it does not exist.
func (v *View) EnsureTable(ctx context.Context) (err error) {
	ctx, span := v.start(ctx, "analytics.EnsureTable")
	defer span.End(&err)
	if err := v.check(); err != nil {
		return err
	}
	return v.t.EnsureTable(ctx)
}

// Consumer returns a consumer of jobsTable's stream under the name
// ConsumerName (opts may change it, and set its lease table, owner and
// pacing); run it with v.Apply as its handler. streams reads the stream
// (the fake, or a *dynamodbstreams.Client).
func (v *View) Consumer(streams changes.StreamsAPI, jobsTable string, opts ...func(*changes.Options)) (*changes.Consumer[Job], error) {
	if err := v.check(); err != nil {
		return nil, err
	}
	return changes.New[Job](v.t.DB(), streams, jobsTable, append([]func(*changes.Options){changes.Name(ConsumerName)}, opts...)...)
}

// Job is the part of a stored job the view reads, decoded from the
// stream's images by attribute name as the jobs store stores them (times
// in Unix milliseconds).
type Job struct {
	JobID                 string      `dynamodbav:"jobId"`
	UserID                string      `dynamodbav:"userId"`
	Status                jobs.Status `dynamodbav:"status"`
	CreatedAt             int64       `dynamodbav:"createdAt"`
	ProcessingStartedAt   int64       `dynamodbav:"processingStartedAt"`
	ProcessingCompletedAt int64       `dynamodbav:"processingCompletedAt"`
}

// Day is one row of the view: a user's jobs created on one UTC day.
type Day struct {
	UserID string `json:"userId"`
	// Day is the UTC date of the jobs' creation, YYYY-MM-DD.
	Day string `json:"day"`
	// ByStatus counts the jobs by their current status; statuses with no
	// job are absent.
	ByStatus map[jobs.Status]int64 `json:"byStatus"`
	// Completed counts the COMPLETED jobs whose processing times are
	// known, and ProcessingTime is their total processing time
	// (processingCompletedAt - processingStartedAt), to the millisecond.
	Completed      int64         `json:"completed"`
	ProcessingTime time.Duration `json:"processingTime"`
}

// AverageProcessing is the mean processing time of the day's completed
// jobs, or 0.
func (d Day) AverageProcessing() time.Duration {
	if d.Completed == 0 {
		return 0
	}
	return d.ProcessingTime / time.Duration(d.Completed)
}

func (d Day) String() string {
	s := d.UserID + " " + d.Day
	for _, st := range jobs.Statuses() {
		if n := d.ByStatus[st]; n != 0 {
			s += fmt.Sprintf(" %s=%d", st, n)
		}
	}
	if d.Completed > 0 {
		s += fmt.Sprintf(" avgProcessing=%s", d.AverageProcessing())
	}
	return s
}

package changes

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

// DefaultLeaseTable is the lease table's name unless LeaseTable says
// otherwise. One lease table serves every consumer of every table; each
// consumer group keeps its leases in a partition of its own (LeaseKey), to
// which its IAM policy confines it (iam.StreamConsumer).
const DefaultLeaseTable = "tablekit-changes"

// DefaultName is the consumer group's name unless Name says otherwise.
const DefaultName = "default"

// LeaseKey is the partition key value of the lease items of the consumer
// group name reading tableName's stream: "<tableName>/<name>" (a table
// name holds no '/'). Every lease and checkpoint of the group lives in
// that one partition of the lease table, so a policy that allows the
// lease actions only with dynamodb:LeadingKeys equal to it (what
// iam.StreamConsumer generates) keeps the group from reading or taking
// another group's leases, of this table or another.
func LeaseKey(tableName, name string) string { return tableName + "/" + name }

// StartPosition is where a consumer starts a shard it has no checkpoint
// for.
type StartPosition string

const (
	// TrimHorizon starts at the oldest record the stream keeps: nothing
	// in the last 24 hours is missed. The default.
	TrimHorizon StartPosition = "TRIM_HORIZON"
	// Latest starts after the newest record: only changes made from now on.
	Latest StartPosition = "LATEST"
)

// Options configure a Consumer.
type Options struct {
	// Name names the consumer group: consumers with one Name share the
	// stream's shards (each shard to one of them at a time) and its
	// checkpoints; consumers with different Names each read the whole
	// stream. Default "default".
	Name string
	// LeaseTable is the table holding leases and checkpoints (partition key
	// pk, sort key sk, both strings); see EnsureTable. Default
	// DefaultLeaseTable.
	LeaseTable string
	// Owner identifies this consumer in its leases. Default: a new ULID,
	// so two consumers never share one by accident.
	Owner string
	// LeaseDuration is how long a lease lasts unless renewed; a crashed
	// consumer's shards are taken over this long after its last renewal.
	// Default 30 s.
	LeaseDuration time.Duration
	// PollInterval is how long Run waits after a round that found no
	// records. Default 1 s (DynamoDB allows about 5 GetRecords per second
	// per shard, shared by every reader).
	PollInterval time.Duration
	// BatchSize is the most records one GetRecords returns, and so the
	// largest batch a handler sees: 1 to 1,000. Default 100.
	BatchSize int
	// MaxAttempts bounds the calls of the handler for one batch. Default 5.
	MaxAttempts int
	// Backoff paces handler retries. Default 100 ms doubling to 5 s.
	Backoff table.Backoff
	// StartAt is where a shard without a checkpoint starts. Default
	// TrimHorizon. Latest applies to the shards open when the consumer
	// first meets the stream: a child of a shard read to its end always
	// starts at its first record, so a rollover skips nothing. Until a
	// shard read from Latest has a checkpoint, an expired iterator (15
	// minutes) starts it at its newest record again, as the Kinesis Client
	// Library does.
	StartAt StartPosition
	// Select keeps the records whose keys it accepts (the store's items in
	// a table shared by several kinds); nil keeps all. A skipped record is
	// still checkpointed.
	Select func(keys map[string]types.AttributeValue) bool
	// Decode decodes an image into out, a *T. Default
	// attributevalue.UnmarshalMap, or DecodeItem when T is table.Item (the
	// SDK's decoder cannot fill a map of AttributeValues: it panics on the
	// first number).
	Decode func(item map[string]types.AttributeValue, out any) error
	// Clock is the time leases are measured by. Default table.ClockOf(db):
	// the fake's time on dynamotest, time.Now on AWS.
	Clock func() time.Time
	// Logger receives retries, lost and taken-over leases and trimmed
	// checkpoints; nil is silent.
	Logger *slog.Logger
}

// Name sets Options.Name.
func Name(name string) func(*Options) { return func(o *Options) { o.Name = name } }

// LeaseTable sets Options.LeaseTable.
func LeaseTable(name string) func(*Options) { return func(o *Options) { o.LeaseTable = name } }

// Owner sets Options.Owner.
func Owner(id string) func(*Options) { return func(o *Options) { o.Owner = id } }

// LeaseDuration sets Options.LeaseDuration.
func LeaseDuration(d time.Duration) func(*Options) { return func(o *Options) { o.LeaseDuration = d } }

// PollInterval sets Options.PollInterval.
func PollInterval(d time.Duration) func(*Options) { return func(o *Options) { o.PollInterval = d } }

// BatchSize sets Options.BatchSize.
func BatchSize(n int) func(*Options) { return func(o *Options) { o.BatchSize = n } }

// MaxAttempts sets Options.MaxAttempts.
func MaxAttempts(n int) func(*Options) { return func(o *Options) { o.MaxAttempts = n } }

// Backoff sets Options.Backoff.
func Backoff(b table.Backoff) func(*Options) { return func(o *Options) { o.Backoff = b } }

// StartAt sets Options.StartAt.
func StartAt(p StartPosition) func(*Options) { return func(o *Options) { o.StartAt = p } }

// Select sets Options.Select.
func Select(fn func(keys map[string]types.AttributeValue) bool) func(*Options) {
	return func(o *Options) { o.Select = fn }
}

// Decode sets Options.Decode.
func Decode(fn func(item map[string]types.AttributeValue, out any) error) func(*Options) {
	return func(o *Options) { o.Decode = fn }
}

// DecodeItem is a Decode that keeps each image as DynamoDB sent it, a
// *table.Item, for the consumers of a single-table design that tell its
// entity kinds apart themselves (journey.ProgressEvents,
// tasks.EventFromChange). It is the default Decode of a Consumer of
// table.Item, so naming it is optional:
//
//	c, err := changes.New[table.Item](db, streams, name)
func DecodeItem(item map[string]types.AttributeValue, out any) error {
	p, ok := out.(*table.Item)
	if !ok {
		return fmt.Errorf("%w: DecodeItem decodes into a *table.Item, not %T", ErrInvalidInput, out)
	}
	*p = item
	return nil
}

// defaultDecode is Options.Decode unless set: images as DynamoDB sent them
// for a consumer of table.Item, attributevalue.UnmarshalMap for any other
// T.
func defaultDecode[T any]() func(map[string]types.AttributeValue, any) error {
	if _, raw := any((*T)(nil)).(*table.Item); raw {
		return DecodeItem
	}
	return attributevalue.UnmarshalMap
}

// Clock sets Options.Clock.
func Clock(now func() time.Time) func(*Options) { return func(o *Options) { o.Clock = now } }

// Logger sets Options.Logger.
func Logger(l *slog.Logger) func(*Options) { return func(o *Options) { o.Logger = l } }

// Event is what happened to an item.
type Event string

// The stream's event names.
const (
	Insert Event = "INSERT" // the item was created
	Modify Event = "MODIFY" // the item was replaced or updated
	Remove Event = "REMOVE" // the item was deleted
)

// Change is one item change, decoded.
type Change[T any] struct {
	Event Event
	// Keys are the item's key attributes.
	Keys map[string]types.AttributeValue
	// Old is the item before the change, New after; nil where the item did
	// not exist or the stream's view does not carry the image (KEYS_ONLY,
	// NEW_IMAGE for Old, OLD_IMAGE for New).
	Old, New *T
	// SequenceNumber orders the changes of one item: a later change has a
	// larger number (compare as decimal numbers; they can differ in length).
	SequenceNumber string
	ShardID        string
	EventID        string
	// At is the time of the change, to the second.
	At time.Time
	// ByService is true for a deletion by DynamoDB itself: a TTL expiry.
	ByService bool
}

// Handler handles a batch of changes, oldest first. It returns nil once
// every change is handled; an error retries the whole batch.
type Handler[T any] func(ctx context.Context, batch []Change[T]) error

// Consumer reads one table's stream. Its methods are not for concurrent
// use: run one Run (or Changes, or Step loop) per Consumer, and more
// Consumers, in this process or others, to share the work.
type Consumer[T any] struct {
	db      table.API
	streams StreamsAPI
	table   string
	opts    Options

	arn       string
	shards    []shardInfo
	refreshed time.Time
	held      map[string]*heldShard
	finished  map[string]bool
	round     uint64 // rounds (steps) run
}

// New returns a Consumer of tableName's stream. db holds the lease table
// (and describes tableName); streams reads the stream. It calls nothing:
// the lease table must exist (EnsureTable) before the first Step.
func New[T any](db table.API, streams StreamsAPI, tableName string, opts ...func(*Options)) (*Consumer[T], error) {
	if db == nil || streams == nil {
		return nil, fmt.Errorf("%w: nil db or streams", ErrInvalidInput)
	}
	if tableName == "" {
		return nil, fmt.Errorf("%w: empty table name", ErrInvalidInput)
	}
	o := Options{Name: DefaultName, LeaseTable: DefaultLeaseTable, LeaseDuration: 30 * time.Second, PollInterval: time.Second,
		BatchSize: 100, MaxAttempts: 5, Backoff: table.Backoff{Initial: 100 * time.Millisecond, Max: 5 * time.Second},
		StartAt: TrimHorizon, Decode: defaultDecode[T](), Clock: table.ClockOf(db)}
	for _, fn := range opts {
		if fn != nil {
			fn(&o)
		}
	}
	switch {
	case o.Name == "" || len(o.Name) > 1024:
		return nil, fmt.Errorf("%w: consumer name %q: 1 to 1024 bytes", ErrInvalidInput, o.Name)
	case o.LeaseTable == "":
		return nil, fmt.Errorf("%w: empty lease table name", ErrInvalidInput)
	case o.LeaseDuration <= 0:
		return nil, fmt.Errorf("%w: lease duration %v", ErrInvalidInput, o.LeaseDuration)
	case o.PollInterval < 0:
		return nil, fmt.Errorf("%w: poll interval %v", ErrInvalidInput, o.PollInterval)
	case o.BatchSize < 1 || o.BatchSize > 1000:
		return nil, fmt.Errorf("%w: batch size %d: 1 to 1000", ErrInvalidInput, o.BatchSize)
	case o.MaxAttempts < 1:
		return nil, fmt.Errorf("%w: max attempts %d", ErrInvalidInput, o.MaxAttempts)
	case o.StartAt != TrimHorizon && o.StartAt != Latest:
		return nil, fmt.Errorf("%w: start position %q", ErrInvalidInput, o.StartAt)
	case o.Decode == nil || o.Clock == nil:
		return nil, fmt.Errorf("%w: nil Decode or Clock", ErrInvalidInput)
	}
	if o.Owner == "" {
		o.Owner = keys.ULIDs()(time.Now())
	}
	return &Consumer[T]{db: db, streams: streams, table: tableName, opts: o,
		held: map[string]*heldShard{}, finished: map[string]bool{}}, nil
}

// LeaseSchema is the schema of a lease table called name.
func LeaseSchema(name string) table.Schema {
	return table.Schema{
		Name:         name,
		PartitionKey: table.Attribute{Name: "pk", Type: types.ScalarAttributeTypeS},
		SortKey:      table.Attribute{Name: "sk", Type: types.ScalarAttributeTypeS},
	}
}

// EnsureTable creates the consumer's lease table if it is missing.
func (c *Consumer[T]) EnsureTable(ctx context.Context) error {
	if err := c.ready(ctx); err != nil {
		return err
	}
	return LeaseSchema(c.opts.LeaseTable).EnsureTable(ctx, c.db)
}

// Owner is the id this consumer holds leases under.
func (c *Consumer[T]) Owner() string {
	if c == nil {
		return ""
	}
	return c.opts.Owner
}

// ready refuses, before anything is sent, a Consumer not made by New (nil
// or zero) and a nil context: a miswired consumer gets an error, never a
// panic.
func (c *Consumer[T]) ready(ctx context.Context) error {
	if c == nil || c.db == nil || c.streams == nil {
		return fmt.Errorf("%w: Consumer not made by New", ErrInvalidInput)
	}
	if ctx == nil {
		return fmt.Errorf("%w: nil context", ErrInvalidInput)
	}
	return nil
}

// Run handles changes until ctx ends (returning nil) or the handler fails
// a batch MaxAttempts times (returning an error that wraps ErrHandler and
// the handler's error). It waits PollInterval after a round without
// records. It releases its leases when it returns, so another consumer can
// take over at once.
func (c *Consumer[T]) Run(ctx context.Context, h Handler[T]) error {
	if err := c.ready(ctx); err != nil {
		return err
	}
	if h == nil {
		return fmt.Errorf("%w: nil handler", ErrInvalidInput)
	}
	defer c.release(context.WithoutCancel(ctx))
	failures := 0
	for {
		n, err := c.step(ctx, whole(h))
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			// A failed call to DynamoDB or Streams (throttling, a network
			// error) is retried like a handler failure: bounded, with
			// backoff, logged. The handler's own failures were retried
			// already.
			failures++
			if !retryable(err) || failures >= c.opts.MaxAttempts {
				return err
			}
			c.log("changes: round failed; retrying", "attempt", failures+1, "error", err)
			if c.opts.Backoff.Sleep(ctx, failures-1) != nil {
				return nil
			}
			continue
		}
		failures = 0
		if n == 0 {
			t := time.NewTimer(c.opts.PollInterval)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil
			case <-t.C:
			}
		}
	}
}

// retryable reports whether a round's error may pass on its own: not a
// handler, decoding or configuration failure.
func retryable(err error) bool {
	for _, e := range []error{ErrHandler, ErrDecode, ErrInvalidInput, ErrNoStream} {
		if errors.Is(err, e) {
			return false
		}
	}
	return true
}

// Step runs one round: it takes the shards it can, reads one batch from
// each shard it holds, hands the batch to h and checkpoints it. It returns
// the number of records read (handled or skipped by Select). Run is Step in
// a loop; tests call Step to move one round at a time on the fake's clock.
func (c *Consumer[T]) Step(ctx context.Context, h Handler[T]) (int, error) {
	if err := c.ready(ctx); err != nil {
		return 0, err
	}
	if h == nil {
		return 0, fmt.Errorf("%w: nil handler", ErrInvalidInput)
	}
	return c.step(ctx, whole(h))
}

// whole is h as the batch handler step takes: a batch h accepts is done
// whole, one it refuses is done not at all (Run, Step and CatchUp hand
// batches over this way; All yields them change by change).
func whole[T any](h Handler[T]) batchHandler[T] {
	return func(ctx context.Context, batch []Change[T]) (int, error) {
		if err := h(ctx, batch); err != nil {
			return 0, err
		}
		return len(batch), nil
	}
}

// CatchUp runs rounds (Step) until the consumer has read every shard of
// the stream up to the records it held when CatchUp was called, handing
// them to h, and returns how many records it read. A Step that reads
// nothing is not the end of the stream (a shard held by nobody yet, a
// child shard waiting for its parent to be finished, an expired iterator
// read again next round); CatchUp is: it returns once each shard is
// finished (closed and read to its end, its children after it) or this
// consumer has read it until a read returned no records, in a round of
// this call. Tests call it to wait for what they wrote; records written
// meanwhile may be read too, and under a steady stream of writes it
// returns when it finds each shard momentarily read out (bound it with
// ctx).
//
// Shards another consumer of the group holds are that consumer's: once
// CatchUp has read everything else, it returns what it read and an error
// wrapping ErrNotCaughtUp naming them. On dynamotest a record is in the
// stream when its write returns, so CatchUp is exact; DynamoDB Streams
// and DynamoDB Local publish a record a moment after the write, so there
// "caught up" is as far as the service has published (a test on them
// calls CatchUp again until it has what it waits for).
func (c *Consumer[T]) CatchUp(ctx context.Context, h Handler[T]) (int, error) {
	if err := c.ready(ctx); err != nil {
		return 0, err
	}
	if h == nil {
		return 0, fmt.Errorf("%w: nil handler", ErrInvalidInput)
	}
	start := c.round
	total := 0
	for {
		finishedBefore := len(c.finished)
		n, err := c.step(ctx, whole(h))
		total += n
		if err != nil {
			return total, err
		}
		if err := ctx.Err(); err != nil {
			return total, err
		}
		pending, waiting := c.behind(start)
		if len(pending) == 0 && len(waiting) == 0 {
			return total, nil
		}
		// Everything this consumer holds is read out (a read that returned
		// records leaves its shard pending), and no shard finished for a
		// child to start: the shards left are another consumer's, or wait
		// on one.
		if len(pending) == 0 && len(c.finished) == finishedBefore {
			return total, fmt.Errorf("%w: %v", ErrNotCaughtUp, waiting)
		}
	}
}

// behind lists the stream's shards not read up to their newest record in
// a round after start: pending ones this consumer holds and reads next
// round, waiting ones it does not hold (another consumer does, or they
// wait for a parent shard to be finished).
func (c *Consumer[T]) behind(start uint64) (pending, waiting []string) {
	for _, s := range c.shards {
		switch hs := c.held[s.id]; {
		case c.finished[s.id]:
		case hs == nil:
			waiting = append(waiting, s.id)
		case hs.drained <= start:
			pending = append(pending, s.id)
		}
	}
	return pending, waiting
}

// Close releases the consumer's leases, so another consumer takes its
// shards at once rather than after LeaseDuration.
func (c *Consumer[T]) Close(ctx context.Context) error {
	if err := c.ready(ctx); err != nil {
		return err
	}
	return c.release(ctx)
}

// errStop ends Changes when its loop body breaks.
var errStop = errors.New("changes: iteration stopped")

// Changes yields the stream's changes one at a time until ctx ends or the
// loop breaks. A change is checkpointed once the loop body has returned for
// it and asked for the next, so the change the loop breaks on is delivered
// again to the next consumer. A failure is yielded as an error, and ends
// the iteration.
func (c *Consumer[T]) Changes(ctx context.Context) iter.Seq2[Change[T], error] {
	return func(yield func(Change[T], error) bool) {
		if err := c.ready(ctx); err != nil {
			yield(Change[T]{}, err)
			return
		}
		defer c.release(context.WithoutCancel(ctx))
		for {
			n, err := c.step(ctx, func(ctx context.Context, batch []Change[T]) (int, error) {
				for i, ch := range batch {
					if !yield(ch, nil) {
						return i, errStop
					}
				}
				return len(batch), nil
			})
			if errors.Is(err, errStop) || ctx.Err() != nil {
				return
			}
			if err != nil {
				yield(Change[T]{}, err)
				return
			}
			if n == 0 {
				t := time.NewTimer(c.opts.PollInterval)
				select {
				case <-ctx.Done():
					t.Stop()
					return
				case <-t.C:
				}
			}
		}
	}
}

func (c *Consumer[T]) log(msg string, args ...any) {
	if c.opts.Logger != nil {
		c.opts.Logger.Warn(msg, append([]any{"table", c.table, "consumer", c.opts.Name, "owner", c.opts.Owner}, args...)...)
	}
}

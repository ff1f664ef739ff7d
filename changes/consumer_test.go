package changes_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamstypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
)

var _ changes.StreamsAPI = (*dynamotest.DB)(nil)

// counter is the test's entity: a named counter in a group.
type counter struct {
	PK    string `dynamodbav:"pk"`
	SK    string `dynamodbav:"sk"`
	Group string `dynamodbav:"group"`
	N     int    `dynamodbav:"n"`
}

const source = "counters"

var epoch = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

// setup is a fake on a fixed clock with the source table streaming
// NEW_AND_OLD_IMAGES (turned on by EnableStream) and the lease table.
func setup(t *testing.T) *dynamotest.DB {
	t.Helper()
	db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return epoch } })
	ctx := context.Background()
	require.NoError(t, table.Schema{Name: source, PartitionKey: table.Attribute{Name: "pk", Type: types.ScalarAttributeTypeS},
		SortKey: table.Attribute{Name: "sk", Type: types.ScalarAttributeTypeS}}.EnsureTable(ctx, db))
	arn, err := changes.EnableStream(ctx, db, source, types.StreamViewTypeNewAndOldImages)
	require.NoError(t, err)
	again, err := changes.EnableStream(ctx, db, source, types.StreamViewTypeNewAndOldImages)
	require.NoError(t, err)
	assert.Equal(t, arn, again, "enabling an enabled stream keeps it")
	require.NoError(t, changes.LeaseSchema(changes.DefaultLeaseTable).EnsureTable(ctx, db))
	return db
}

func consumer(t *testing.T, db *dynamotest.DB, opts ...func(*changes.Options)) *changes.Consumer[counter] {
	t.Helper()
	// No Clock: a consumer of the fake measures leases by the fake's time.
	base := []func(*changes.Options){changes.LeaseDuration(30 * time.Second), changes.BatchSize(7),
		changes.Backoff(table.Backoff{Initial: time.Millisecond, Max: 2 * time.Millisecond}), changes.PollInterval(time.Millisecond)}
	c, err := changes.New[counter](db, db, source, append(base, opts...)...)
	require.NoError(t, err)
	return c
}

func putCounter(t *testing.T, db *dynamotest.DB, c counter) {
	t.Helper()
	item, err := attributevalue.MarshalMap(c)
	require.NoError(t, err)
	_, err = db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(source), Item: item})
	require.NoError(t, err)
}

func deleteCounter(t *testing.T, db *dynamotest.DB, pk, sk string) {
	t.Helper()
	_, err := db.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{TableName: aws.String(source),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}, "sk": &types.AttributeValueMemberS{Value: sk}}})
	require.NoError(t, err)
}

// drain steps c until a round reads nothing.
func drain(t *testing.T, c *changes.Consumer[counter], h changes.Handler[counter]) {
	t.Helper()
	for range 1000 {
		n, err := c.Step(context.Background(), h)
		require.NoError(t, err)
		if n == 0 {
			return
		}
	}
	require.Fail(t, "the stream never ran dry")
}

func TestChangesCarryOldAndNewEntitiesDecoded(t *testing.T) {
	db := setup(t)
	putCounter(t, db, counter{PK: "g", SK: "a", Group: "g", N: 1})
	putCounter(t, db, counter{PK: "g", SK: "a", Group: "g", N: 2})
	deleteCounter(t, db, "g", "a")

	var got []changes.Change[counter]
	drain(t, consumer(t, db), func(_ context.Context, batch []changes.Change[counter]) error {
		got = append(got, batch...)
		return nil
	})
	require.Len(t, got, 3)
	assert.Equal(t, changes.Insert, got[0].Event)
	assert.Nil(t, got[0].Old)
	assert.Equal(t, &counter{PK: "g", SK: "a", Group: "g", N: 1}, got[0].New)
	assert.Equal(t, changes.Modify, got[1].Event)
	assert.Equal(t, 1, got[1].Old.N)
	assert.Equal(t, 2, got[1].New.N)
	assert.Equal(t, changes.Remove, got[2].Event)
	assert.Equal(t, 2, got[2].Old.N)
	assert.Nil(t, got[2].New)
	assert.Equal(t, map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "g"}, "sk": &types.AttributeValueMemberS{Value: "a"}}, got[2].Keys)
	assert.False(t, got[2].ByService)
	assert.Equal(t, epoch, got[0].At)
}

// A consumer of table.Item gets the images as DynamoDB sent them without
// naming a decoder: the SDK's UnmarshalMap cannot fill a map of
// AttributeValues (it panicked on the first number).
func TestAConsumerOfRawItemsDecodesThemWithoutBeingTold(t *testing.T) {
	db := setup(t)
	putCounter(t, db, counter{PK: "g", SK: "a", Group: "g", N: 7})

	c, err := changes.New[table.Item](db, db, source, changes.Clock(db.Now), changes.PollInterval(time.Millisecond))
	require.NoError(t, err)
	var got []changes.Change[table.Item]
	n, err := c.Step(context.Background(), func(_ context.Context, batch []changes.Change[table.Item]) error {
		got = append(got, batch...)
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	require.Len(t, got, 1)
	require.NotNil(t, got[0].New)
	assert.Equal(t, &types.AttributeValueMemberN{Value: "7"}, (*got[0].New)["n"])
	assert.Equal(t, &types.AttributeValueMemberS{Value: "g"}, (*got[0].New)["group"])
}

// A decoder that panics on an image stops the round with ErrDecode and
// hands the handler nothing: the service keeps running, and the change is
// read again once the decoder is fixed.
func TestADecoderThatPanicsIsAnErrDecodeNotACrash(t *testing.T) {
	db := setup(t)
	putCounter(t, db, counter{PK: "g", SK: "a", Group: "g", N: 7})

	c, err := changes.New[counter](db, db, source, changes.Clock(db.Now),
		changes.Decode(func(map[string]types.AttributeValue, any) error { panic("cannot read this") }))
	require.NoError(t, err)
	handled := 0
	_, err = c.Step(context.Background(), func(_ context.Context, batch []changes.Change[counter]) error {
		handled += len(batch)
		return nil
	})
	require.ErrorIs(t, err, changes.ErrDecode)
	assert.Contains(t, err.Error(), "cannot read this")
	assert.Zero(t, handled)
}

// seqLess compares sequence numbers as the decimal numbers they are.
func seqLess(a, b string) bool {
	a, b = strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// view is a derived view kept idempotent the way a real one must be: per
// item, the state of the newest change applied, older or repeated changes
// ignored. Sums per group are derived from it.
type view struct {
	mu      sync.Mutex
	items   map[string]counter // by pk/sk
	applied map[string]string  // sequence number applied, by pk/sk
	handled map[string]int     // times each sequence number was handled
}

func newView() *view {
	return &view{items: map[string]counter{}, applied: map[string]string{}, handled: map[string]int{}}
}

func (v *view) apply(ch changes.Change[counter]) {
	v.mu.Lock()
	defer v.mu.Unlock()
	id := ch.Keys["pk"].(*types.AttributeValueMemberS).Value + "/" + ch.Keys["sk"].(*types.AttributeValueMemberS).Value
	v.handled[ch.SequenceNumber]++
	if last, ok := v.applied[id]; ok && !seqLess(last, ch.SequenceNumber) {
		return
	}
	v.applied[id] = ch.SequenceNumber
	if ch.New == nil {
		delete(v.items, id)
	} else {
		v.items[id] = *ch.New
	}
}

func (v *view) sums() map[string]int {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := map[string]int{}
	for _, c := range v.items {
		out[c.Group] += c.N
	}
	return out
}

// recount sums the table as it is now.
func recount(t *testing.T, db *dynamotest.DB) map[string]int {
	t.Helper()
	out := map[string]int{}
	res, err := db.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(source)})
	require.NoError(t, err)
	for _, item := range res.Items {
		var c counter
		require.NoError(t, attributevalue.UnmarshalMap(item, &c))
		out[c.Group] += c.N
	}
	return out
}

// allSequenceNumbers reads every record of the stream, every shard.
func allSequenceNumbers(t *testing.T, db *dynamotest.DB) []string {
	t.Helper()
	ctx := context.Background()
	desc, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(source)})
	require.NoError(t, err)
	d, err := db.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: desc.Table.LatestStreamArn})
	require.NoError(t, err)
	var seqs []string
	for _, sh := range d.StreamDescription.Shards {
		it, err := db.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: desc.Table.LatestStreamArn, ShardId: sh.ShardId, ShardIteratorType: streamstypes.ShardIteratorTypeTrimHorizon})
		require.NoError(t, err)
		for iter := it.ShardIterator; iter != nil; {
			out, err := db.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: iter})
			require.NoError(t, err)
			for _, r := range out.Records {
				seqs = append(seqs, aws.ToString(r.Dynamodb.SequenceNumber))
			}
			if len(out.Records) == 0 {
				break
			}
			iter = out.NextShardIterator
		}
	}
	return seqs
}

// writeRound changes the counters: puts, updates of some, a delete.
func writeRound(t *testing.T, db *dynamotest.DB, round int) {
	t.Helper()
	for i := range 10 {
		g := fmt.Sprintf("g%d", i%3)
		putCounter(t, db, counter{PK: g, SK: fmt.Sprintf("c%d", i), Group: g, N: round*10 + i})
	}
	deleteCounter(t, db, "g1", fmt.Sprintf("c%d", (round*3)%10))
}

var errKilled = errors.New("killed")

func TestAConsumerKilledMidBatchIsResumedFromItsCheckpointAndTheViewEqualsARecount(t *testing.T) {
	db := setup(t)
	v := newView()
	writeRound(t, db, 1)

	first := consumer(t, db, changes.MaxAttempts(1))
	batches := 0
	for {
		_, err := first.Step(context.Background(), func(_ context.Context, batch []changes.Change[counter]) error {
			batches++
			if batches < 2 {
				for _, ch := range batch {
					v.apply(ch)
				}
				return nil
			}
			// Killed half way through its second batch: the first half is
			// applied, the checkpoint is not written.
			require.Greater(t, len(batch), 2)
			for _, ch := range batch[:len(batch)/2] {
				v.apply(ch)
			}
			return errKilled
		})
		if err != nil {
			require.ErrorIs(t, err, errKilled)
			require.ErrorIs(t, err, changes.ErrHandler)
			break
		}
	}
	// The dead consumer is never closed: its lease has to run out.
	writeRound(t, db, 2)

	var log bytes.Buffer
	second := consumer(t, db, changes.Logger(slog.New(slog.NewTextHandler(&log, nil))))
	n, err := second.Step(context.Background(), func(context.Context, []changes.Change[counter]) error {
		require.Fail(t, "the shard was handled while another consumer's lease was live")
		return nil
	})
	require.NoError(t, err)
	assert.Zero(t, n)

	// Past the lease, and past a shard rollover, so the rest is split over
	// a parent shard and its child.
	db.Advance(4 * time.Hour)
	writeRound(t, db, 3)
	drain(t, second, func(_ context.Context, batch []changes.Change[counter]) error {
		for _, ch := range batch {
			v.apply(ch)
		}
		return nil
	})
	assert.Contains(t, log.String(), "took over an expired lease")

	assert.Equal(t, recount(t, db), v.sums(), "the view equals a full recount")
	seqs := allSequenceNumbers(t, db)
	require.NotEmpty(t, seqs)
	redelivered := 0
	for _, s := range seqs {
		assert.GreaterOrEqual(t, v.handled[s], 1, "record %s was skipped", s)
		if v.handled[s] > 1 {
			redelivered++
		}
	}
	assert.Equal(t, len(seqs), len(v.handled), "nothing but the stream's records was handled")
	assert.Positive(t, redelivered, "the killed batch's applied half is delivered again")
}

func TestAConsumerWhoseLeaseWasTakenStopsHandlingTheShard(t *testing.T) {
	db := setup(t)
	writeRound(t, db, 1)
	var mu sync.Mutex
	handledBy := map[string][]string{}
	record := func(owner string) changes.Handler[counter] {
		return func(_ context.Context, batch []changes.Change[counter]) error {
			mu.Lock()
			defer mu.Unlock()
			handledBy[owner] = append(handledBy[owner], batch[0].SequenceNumber)
			return nil
		}
	}
	a := consumer(t, db, changes.Owner("a"), changes.BatchSize(2))
	b := consumer(t, db, changes.Owner("b"), changes.BatchSize(2))
	_, err := a.Step(context.Background(), record("a"))
	require.NoError(t, err)
	n, err := b.Step(context.Background(), record("b"))
	require.NoError(t, err)
	assert.Zero(t, n, "b cannot take a's live lease")

	db.Advance(31 * time.Second) // a stalls past its lease; b takes over
	_, err = b.Step(context.Background(), record("b"))
	require.NoError(t, err)
	before := len(handledBy["a"])
	n, err = a.Step(context.Background(), record("a"))
	require.NoError(t, err)
	assert.Zero(t, n, "a finds its lease gone and reads nothing")
	assert.Len(t, handledBy["a"], before)
	assert.Len(t, handledBy["b"], 1)
}

// A consumer given a Clock measures leases by it, not by the fake's time:
// one whose clock runs ahead takes an expired lease the fake has not aged.
func TestAConsumersOwnClockMeasuresLeases(t *testing.T) {
	db := setup(t)
	writeRound(t, db, 1)
	nop := func(context.Context, []changes.Change[counter]) error { return nil }
	a := consumer(t, db, changes.Owner("a"), changes.BatchSize(2))
	_, err := a.Step(context.Background(), nop)
	require.NoError(t, err)
	ahead := consumer(t, db, changes.Owner("b"), changes.BatchSize(2),
		changes.Clock(func() time.Time { return db.Now().Add(31 * time.Second) }))
	n, err := ahead.Step(context.Background(), nop)
	require.NoError(t, err)
	assert.Positive(t, n, "a's lease has run out by b's clock")
}

func TestTwoRunningConsumersNeverHoldOneShardAtOnce(t *testing.T) {
	db := setup(t)
	for r := range 3 {
		writeRound(t, db, r)
	}
	var mu sync.Mutex
	holder := map[string]string{} // shard -> owner inside the handler
	v := newView()
	overlap := make(chan string, 10)
	handler := func(owner string) changes.Handler[counter] {
		return func(_ context.Context, batch []changes.Change[counter]) error {
			sh := batch[0].ShardID
			mu.Lock()
			if other, ok := holder[sh]; ok {
				overlap <- other + " and " + owner
			}
			holder[sh] = owner
			mu.Unlock()
			for _, ch := range batch {
				v.apply(ch)
			}
			mu.Lock()
			delete(holder, sh)
			mu.Unlock()
			return nil
		}
	}
	ctxA, stopA := context.WithCancel(context.Background())
	ctxB, stopB := context.WithCancel(context.Background())
	defer stopB()
	var wg sync.WaitGroup
	errs := make([]error, 2)
	wg.Add(2)
	go func() { defer wg.Done(); errs[0] = consumer(t, db, changes.Owner("a")).Run(ctxA, handler("a")) }()
	go func() { defer wg.Done(); errs[1] = consumer(t, db, changes.Owner("b")).Run(ctxB, handler("b")) }()

	seqs := allSequenceNumbers(t, db)
	waitHandled := func(want []string) {
		t.Helper()
		for range 10000 {
			v.mu.Lock()
			all := true
			for _, s := range want {
				if v.handled[s] == 0 {
					all = false
					break
				}
			}
			v.mu.Unlock()
			if all {
				return
			}
			time.Sleep(time.Millisecond) // waiting on goroutines, not on the fake's clock
		}
		require.Fail(t, "changes were not handled")
	}
	waitHandled(seqs)
	stopA() // whoever held the shard, the other one takes it on release
	writeRound(t, db, 9)
	waitHandled(allSequenceNumbers(t, db))
	stopB()
	wg.Wait()
	close(overlap)
	for o := range overlap {
		assert.Fail(t, "two consumers in one shard's handler: "+o)
	}
	assert.NoError(t, errs[0])
	assert.NoError(t, errs[1])
	assert.Equal(t, recount(t, db), v.sums())
}

func TestChangesIteratorRedeliversTheChangeItBrokeOn(t *testing.T) {
	db := setup(t)
	writeRound(t, db, 1)
	var firstRun []string
	for ch, err := range consumer(t, db).Changes(context.Background()) {
		require.NoError(t, err)
		firstRun = append(firstRun, ch.SequenceNumber)
		if len(firstRun) == 4 {
			break
		}
	}
	var next string
	for ch, err := range consumer(t, db).Changes(context.Background()) {
		require.NoError(t, err)
		next = ch.SequenceNumber
		break
	}
	assert.Equal(t, firstRun[3], next, "the change the loop broke on was not checkpointed")
}

func TestHandlerFailuresAreRetriedWithBackoffAndLogged(t *testing.T) {
	db := setup(t)
	writeRound(t, db, 1)
	var log bytes.Buffer
	c := consumer(t, db, changes.MaxAttempts(3), changes.Logger(slog.New(slog.NewTextHandler(&log, nil))))
	calls := 0
	_, err := c.Step(context.Background(), func(context.Context, []changes.Change[counter]) error {
		calls++
		if calls < 3 {
			return errors.New("flaky")
		}
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, 3, calls)
	assert.Equal(t, 2, strings.Count(log.String(), "retrying"))

	calls = 0
	_, err = c.Step(context.Background(), func(context.Context, []changes.Change[counter]) error {
		calls++
		return errors.New("broken")
	})
	assert.ErrorIs(t, err, changes.ErrHandler)
	assert.Equal(t, 3, calls, "bounded by MaxAttempts")
}

func TestTTLDeletionsArriveAsTheServicesOwn(t *testing.T) {
	db := setup(t)
	_, err := db.UpdateTimeToLive(context.Background(), &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(source),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("ttl"), Enabled: aws.Bool(true)}})
	require.NoError(t, err)
	_, err = db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(source), Item: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "x"}, "sk": &types.AttributeValueMemberS{Value: "y"},
		"ttl": &types.AttributeValueMemberN{Value: fmt.Sprint(epoch.Unix() + 60)}}})
	require.NoError(t, err)
	db.Advance(2 * time.Minute)
	var got []changes.Change[counter]
	drain(t, consumer(t, db), func(_ context.Context, batch []changes.Change[counter]) error {
		got = append(got, batch...)
		return nil
	})
	require.Len(t, got, 2)
	assert.False(t, got[0].ByService)
	assert.Equal(t, changes.Remove, got[1].Event)
	assert.True(t, got[1].ByService)
}

func TestSelectSkipsOtherKindsButCheckpointsPastThem(t *testing.T) {
	db := setup(t)
	writeRound(t, db, 1)
	only := changes.Select(func(keys map[string]types.AttributeValue) bool {
		return keys["pk"].(*types.AttributeValueMemberS).Value == "g0"
	})
	var got int
	drain(t, consumer(t, db, only), func(_ context.Context, batch []changes.Change[counter]) error {
		for _, ch := range batch {
			assert.Equal(t, "g0", ch.New.Group)
		}
		got += len(batch)
		return nil
	})
	assert.Equal(t, 4, got)
	n, err := consumer(t, db, only).Step(context.Background(), func(context.Context, []changes.Change[counter]) error { return nil })
	require.NoError(t, err)
	assert.Zero(t, n, "a new consumer starts after the checkpoint")
}

func TestBadInputFailsWithTypedErrors(t *testing.T) {
	db := setup(t)
	for name, build := range map[string]func() error{
		"nil db":          func() error { _, err := changes.New[counter](nil, db, source); return err },
		"nil streams":     func() error { _, err := changes.New[counter](db, nil, source); return err },
		"no table":        func() error { _, err := changes.New[counter](db, db, ""); return err },
		"empty name":      func() error { _, err := changes.New[counter](db, db, source, changes.Name("")); return err },
		"batch too large": func() error { _, err := changes.New[counter](db, db, source, changes.BatchSize(1001)); return err },
		"no attempts":     func() error { _, err := changes.New[counter](db, db, source, changes.MaxAttempts(0)); return err },
		"bad start":       func() error { _, err := changes.New[counter](db, db, source, changes.StartAt("NOW")); return err },
		"zero lease":      func() error { _, err := changes.New[counter](db, db, source, changes.LeaseDuration(0)); return err },
		"nil handler":     func() error { _, err := consumer(t, db).Step(context.Background(), nil); return err },
		"nil run handler": func() error { return consumer(t, db).Run(context.Background(), nil) },
		"enable nil db": func() error {
			_, err := changes.EnableStream(context.Background(), nil, source, types.StreamViewTypeKeysOnly)
			return err
		},
		"enable bad view": func() error { _, err := changes.EnableStream(context.Background(), db, source, "ALL"); return err },
		"nil consumer step": func() error {
			var c *changes.Consumer[counter]
			_, err := c.Step(context.Background(), func(context.Context, []changes.Change[counter]) error { return nil })
			return err
		},
		"zero consumer run": func() error {
			return (&changes.Consumer[counter]{}).Run(context.Background(), func(context.Context, []changes.Change[counter]) error { return nil })
		},
		"nil consumer close":       func() error { var c *changes.Consumer[counter]; return c.Close(context.Background()) },
		"nil consumer ensuretable": func() error { var c *changes.Consumer[counter]; return c.EnsureTable(context.Background()) },
		"zero consumer changes": func() error {
			for _, err := range (&changes.Consumer[counter]{}).Changes(context.Background()) {
				return err
			}
			return nil
		},
		"nil context": func() error {
			var noCtx context.Context
			_, err := consumer(t, db).Step(noCtx, func(context.Context, []changes.Change[counter]) error { return nil })
			return err
		},
	} {
		assert.ErrorIs(t, build(), changes.ErrInvalidInput, name)
	}
	_, err := changes.EnableStream(context.Background(), db, source, types.StreamViewTypeKeysOnly)
	assert.ErrorIs(t, err, changes.ErrStreamViewMismatch)

	require.NoError(t, table.Schema{Name: "quiet", PartitionKey: table.Attribute{Name: "pk", Type: types.ScalarAttributeTypeS}}.EnsureTable(context.Background(), db))
	c, err := changes.New[counter](db, db, "quiet")
	require.NoError(t, err)
	_, err = c.Step(context.Background(), func(context.Context, []changes.Change[counter]) error { return nil })
	assert.ErrorIs(t, err, changes.ErrNoStream)
}

func TestRunRetriesAFailedRoundWithBackoffAndGoesOn(t *testing.T) {
	db := setup(t)
	writeRound(t, db, 1)
	// The consumer's own requests (its lease and checkpoint writes and
	// reads) meet chaos drawn from one seed: throttling, answers lost
	// before or after they applied, conflicts. The first two lease writes
	// are throttled whatever the seed, so a round surely fails. Rounds are
	// retried up to MaxAttempts in a row: 10 here, which a run of chaos's
	// faults does not outlast.
	var leaseWrites atomic.Int64
	chaos := dynamotest.Chaos(dynamotest.ChaosSeed(t), dynamotest.ChaosOn(db), func(o *dynamotest.ChaosOptions) {
		o.RatesFor = func(op, _ string, _ any) dynamotest.ChaosRates {
			if op == "UpdateItem" && leaseWrites.Add(1) <= 2 {
				return dynamotest.ChaosRates{Throttle: 1}
			}
			return dynamotest.ChaosRates{Throttle: 0.1, LostBefore: 0.05, LostAfter: 0.05, Conflict: 0.05}
		}
	})
	var log bytes.Buffer
	base := []func(*changes.Options){changes.Clock(db.Now), changes.LeaseDuration(30 * time.Second), changes.BatchSize(7),
		changes.Backoff(table.Backoff{Initial: time.Millisecond, Max: 2 * time.Millisecond}), changes.PollInterval(time.Millisecond),
		changes.Logger(slog.New(slog.NewTextHandler(&log, nil))), changes.MaxAttempts(10)}
	c, err := changes.New[counter](chaos, db, source, base...)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	v := newView()
	want := len(allSequenceNumbers(t, db))
	err = c.Run(ctx, func(_ context.Context, batch []changes.Change[counter]) error {
		for _, ch := range batch {
			v.apply(ch)
		}
		if len(v.handled) == want {
			cancel()
		}
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, recount(t, db), v.sums())
	assert.Contains(t, log.String(), "round failed; retrying")
	t.Logf("faults: %v", chaos.Faults())
}

func TestAConsumerFollowsTheTableToItsNextStream(t *testing.T) {
	db := setup(t)
	putCounter(t, db, counter{PK: "g", SK: "old", Group: "g", N: 1})
	c := consumer(t, db)
	var got []string
	h := func(_ context.Context, batch []changes.Change[counter]) error {
		for _, ch := range batch {
			got = append(got, ch.New.SK)
		}
		return nil
	}
	drain(t, c, h)
	_, err := db.UpdateTable(context.Background(), &dynamodb.UpdateTableInput{TableName: aws.String(source), StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(false)}})
	require.NoError(t, err)
	db.Advance(time.Millisecond) // a new stream label
	_, err = changes.EnableStream(context.Background(), db, source, types.StreamViewTypeNewAndOldImages)
	require.NoError(t, err)
	putCounter(t, db, counter{PK: "g", SK: "new", Group: "g", N: 1})
	drain(t, c, h)
	drain(t, c, h)
	assert.Equal(t, []string{"old", "new"}, got)
}

// failingRecords is a stream whose GetRecords fails every call (a
// throttled or unreachable Streams endpoint), counting the calls; past
// limit calls it calls stop.
type failingRecords struct {
	*dynamotest.DB
	calls, limit int
	stop         func()
}

var errStreamDown = errors.New("streams endpoint unreachable")

func (f *failingRecords) GetRecords(context.Context, *dynamodbstreams.GetRecordsInput, ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error) {
	if f.calls++; f.calls > f.limit {
		f.stop()
	}
	return nil, errStreamDown
}

// TestRunReturnsAFailureThatOutlastsMaxAttempts: Run gives up on a batch
// its handler fails MaxAttempts times, and on a round whose stream call
// fails MaxAttempts times in a row, and returns the error (ErrHandler and
// the handler's own error; the stream's error) rather than retrying for
// ever: a consumer that cannot make progress must say so to whoever runs
// it. Each case cancels its context once it has seen far more attempts
// than the bound, so a Run that keeps retrying returns nil and fails here
// instead of hanging.
func TestRunReturnsAFailureThatOutlastsMaxAttempts(t *testing.T) {
	const attempts = 3
	t.Run("handler", func(t *testing.T) {
		db := setup(t)
		writeRound(t, db, 1)
		c := consumer(t, db, changes.MaxAttempts(attempts))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		broken := errors.New("broken handler")
		calls := 0
		err := c.Run(ctx, func(context.Context, []changes.Change[counter]) error {
			if calls++; calls > 10*attempts {
				cancel()
			}
			return broken
		})
		require.Error(t, err, "Run must return the handler's failure")
		assert.ErrorIs(t, err, changes.ErrHandler)
		assert.ErrorIs(t, err, broken)
		assert.Equal(t, attempts, calls, "the batch is tried MaxAttempts times, then Run returns")
	})
	t.Run("stream", func(t *testing.T) {
		db := setup(t)
		writeRound(t, db, 1)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		streams := &failingRecords{DB: db, limit: 10 * attempts, stop: cancel}
		c, err := changes.New[counter](db, streams, source, changes.Clock(db.Now), changes.MaxAttempts(attempts),
			changes.Backoff(table.Backoff{Initial: time.Millisecond, Max: 2 * time.Millisecond}), changes.PollInterval(time.Millisecond))
		require.NoError(t, err)
		handled := 0
		err = c.Run(ctx, func(context.Context, []changes.Change[counter]) error {
			handled++
			return nil
		})
		require.Error(t, err, "Run must return the stream's failure")
		assert.ErrorIs(t, err, errStreamDown)
		assert.Equal(t, attempts, streams.calls, "MaxAttempts rounds in a row, then Run returns")
		assert.Zero(t, handled)
	})
}

package dynamotest_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
)

// workload makes the same calls in the same order every time: puts,
// conditional updates, reads, batches and transactions on the simple
// table. It returns what each call answered, in short.
func workload(t *testing.T, c *dynamotest.Chaotic) []string {
	t.Helper()
	_, err := c.CreateTable(ctx, simple.input())
	require.NoError(t, err)
	var answers []string
	note := func(err error) {
		switch {
		case err == nil:
			answers = append(answers, "ok")
		default:
			answers = append(answers, fmt.Sprintf("%T", errors.Unwrap(err))+" "+err.Error())
		}
	}
	key := func(i int) item { return item{"pk": S("p"), "sk": S(fmt.Sprint(i))} }
	for i := range 40 {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("simple"),
			Item: item{"pk": S("p"), "sk": S(fmt.Sprint(i)), "n": N("0")}})
		note(err)
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("simple"), Key: key(i),
			UpdateExpression: aws.String("ADD n :one"), ConditionExpression: aws.String("attribute_exists(pk)"),
			ExpressionAttributeValues: item{":one": N("1")}})
		note(err)
		_, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("simple"), Key: key(i)})
		note(err)
		var writes []types.WriteRequest
		for j := range 5 {
			writes = append(writes, types.WriteRequest{PutRequest: &types.PutRequest{Item: item{"pk": S(fmt.Sprint("b", i)), "sk": S(fmt.Sprint(j))}}})
		}
		_, err = c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"simple": writes}})
		note(err)
		_, err = c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Update: &types.Update{TableName: aws.String("simple"), Key: key(i), UpdateExpression: aws.String("ADD n :one"),
				ExpressionAttributeValues: item{":one": N("1")}}},
			{Put: &types.Put{TableName: aws.String("simple"), Item: item{"pk": S("t"), "sk": S(fmt.Sprint(i))}}},
		}})
		note(err)
		_, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("simple"), KeyConditionExpression: aws.String("pk = :p"),
			ExpressionAttributeValues: item{":p": S("p")}, ConsistentRead: aws.Bool(true)})
		note(err)
	}
	return answers
}

func kinds(faults []dynamotest.ChaosFault) map[dynamotest.ChaosKind]int {
	out := map[dynamotest.ChaosKind]int{}
	for _, f := range faults {
		out[f.Kind]++
	}
	return out
}

func TestChaosOfOneSeedGivesTheSameFaultsCallByCall(t *testing.T) {
	seed := dynamotest.ChaosSeed(t)
	first := dynamotest.Chaos(seed)
	answersFirst := workload(t, first)
	second := dynamotest.Chaos(seed)
	answersSecond := workload(t, second)

	require.NotEmpty(t, first.Faults())
	assert.Equal(t, first.Faults(), second.Faults(), "the fault logs of two runs of seed %d", seed)
	assert.Equal(t, answersFirst, answersSecond, "what each call answered")
	assert.Equal(t, first.Lag(), second.Lag())
	t.Logf("%d calls, faults by kind %v, lag %v", first.Calls(), kinds(first.Faults()), first.Lag())

	other := dynamotest.Chaos(seed + 1)
	workload(t, other)
	assert.NotEqual(t, first.Faults(), other.Faults(), "another seed, other faults")
}

func TestChaosDefaultRatesInjectEveryKindOfFault(t *testing.T) {
	// Over a few seeds the workload meets every fault.
	seen := map[dynamotest.ChaosKind]int{}
	for seed := range int64(4) {
		c := dynamotest.Chaos(seed)
		workload(t, c)
		for k, n := range kinds(c.Faults()) {
			seen[k] += n
		}
	}
	for _, k := range []dynamotest.ChaosKind{dynamotest.ChaosThrottle, dynamotest.ChaosLostBefore, dynamotest.ChaosLostAfter,
		dynamotest.ChaosUnprocessed, dynamotest.ChaosConflict, dynamotest.ChaosClockJump} {
		assert.Positive(t, seen[k], "no %s fault", k)
	}
}

// only makes every call get the one fault kind k.
func only(k dynamotest.ChaosKind) func(*dynamotest.ChaosOptions) {
	return func(o *dynamotest.ChaosOptions) {
		o.MaxLag = 0
		o.Rates = dynamotest.ChaosRates{}
		switch k {
		case dynamotest.ChaosThrottle:
			o.Rates.Throttle = 1
		case dynamotest.ChaosLostBefore:
			o.Rates.LostBefore = 1
		case dynamotest.ChaosLostAfter:
			o.Rates.LostAfter = 1
		case dynamotest.ChaosUnprocessed:
			o.Rates.Unprocessed = 1
		case dynamotest.ChaosConflict:
			o.Rates.Conflict = 1
		case dynamotest.ChaosClockJump:
			o.Rates.ClockJump = 1
		}
	}
}

func putOne(c *dynamotest.Chaotic) error {
	_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("simple"), Item: item{"pk": S("a"), "sk": S("1")}})
	return err
}

func stored(t *testing.T, c *dynamotest.Chaotic) bool {
	t.Helper()
	return get(t, c.DB(), "simple", item{"pk": S("a"), "sk": S("1")}) != nil
}

func chaosOnSimple(t *testing.T, k dynamotest.ChaosKind) *dynamotest.Chaotic {
	t.Helper()
	c := dynamotest.Chaos(7, only(k))
	_, err := c.CreateTable(ctx, simple.input())
	require.NoError(t, err, "table calls get no faults")
	return c
}

func TestChaosThrottleAppliesNothingAndNamesTheSeed(t *testing.T) {
	c := chaosOnSimple(t, dynamotest.ChaosThrottle)
	err := putOne(c)
	var pte *types.ProvisionedThroughputExceededException
	require.ErrorAs(t, err, &pte)
	assert.Contains(t, err.Error(), "dynamotest chaos seed 7, call 1 PutItem simple #1")
	assert.False(t, stored(t, c))
	assert.Equal(t, []dynamotest.ChaosFault{{Call: 1, Key: "PutItem simple #1", Op: "PutItem", Table: "simple",
		Kind: dynamotest.ChaosThrottle}}, c.Faults())
}

func TestChaosLosesAResponseBeforeOrAfterTheWriteApplied(t *testing.T) {
	c := chaosOnSimple(t, dynamotest.ChaosLostBefore)
	require.ErrorIs(t, putOne(c), dynamotest.ErrResponseLost)
	assert.False(t, stored(t, c), "lost before: not applied")

	c = chaosOnSimple(t, dynamotest.ChaosLostAfter)
	require.ErrorIs(t, putOne(c), dynamotest.ErrResponseLost)
	assert.True(t, stored(t, c), "lost after: applied")
	assert.Equal(t, "applied", c.Faults()[0].Detail)
}

func TestChaosLeavesPartOfABatchUnprocessedAndAppliesTheRest(t *testing.T) {
	c := chaosOnSimple(t, dynamotest.ChaosUnprocessed)
	var writes []types.WriteRequest
	for i := range 10 {
		writes = append(writes, types.WriteRequest{PutRequest: &types.PutRequest{Item: item{"pk": S("a"), "sk": S(fmt.Sprint(i))}}})
	}
	out, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"simple": writes}})
	require.NoError(t, err)
	left := len(out.UnprocessedItems["simple"])
	require.Positive(t, left)
	require.Less(t, left, 10, "a batch always makes progress")
	applied := 0
	for i := range 10 {
		if get(t, c.DB(), "simple", item{"pk": S("a"), "sk": S(fmt.Sprint(i))}) != nil {
			applied++
		}
	}
	assert.Equal(t, 10-left, applied)
	assert.Equal(t, fmt.Sprintf("%d of 10 items", left), c.Faults()[0].Detail)

	// A batch of 26 is refused whole, as without chaos: the fake checks the
	// request before it leaves anything unprocessed.
	writes = append(writes, make([]types.WriteRequest, 16)...)
	for i := 10; i < 26; i++ {
		writes[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: item{"pk": S("b"), "sk": S(fmt.Sprint(i))}}}
	}
	_, err = c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"simple": writes}})
	wantValidation(t, err, "")

	keys := []map[string]types.AttributeValue{{"pk": S("a"), "sk": S("0")}, {"pk": S("a"), "sk": S("1")}, {"pk": S("a"), "sk": S("2")}}
	got, err := c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"simple": {Keys: keys}}})
	require.NoError(t, err)
	assert.Positive(t, len(got.UnprocessedKeys["simple"].Keys))
}

func TestChaosConflictCancelsATransactionAndRefusesAWrite(t *testing.T) {
	c := chaosOnSimple(t, dynamotest.ChaosConflict)
	_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String("simple"), Item: item{"pk": S("a"), "sk": S("1")}}},
		{Put: &types.Put{TableName: aws.String("simple"), Item: item{"pk": S("a"), "sk": S("2")}}},
	}})
	var tce *types.TransactionCanceledException
	require.ErrorAs(t, err, &tce)
	var codes []string
	for _, r := range tce.CancellationReasons {
		codes = append(codes, aws.ToString(r.Code))
	}
	assert.ElementsMatch(t, []string{"None", "TransactionConflict"}, codes)
	assert.False(t, stored(t, c))

	var conflict *types.TransactionConflictException
	require.ErrorAs(t, putOne(c), &conflict)
	assert.False(t, stored(t, c))

	_, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("simple"), Key: item{"pk": S("a"), "sk": S("1")}})
	require.NoError(t, err, "a read has no conflict to fail with")
}

func TestChaosClockJumpsMoveTheFakesClockForward(t *testing.T) {
	c := dynamotest.Chaos(3, only(dynamotest.ChaosClockJump), func(o *dynamotest.ChaosOptions) {
		o.DB = dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return time.Unix(1_700_000_000, 0) } })
		o.MaxJump = 10 * time.Second
	})
	_, err := c.CreateTable(ctx, simple.input())
	require.NoError(t, err)
	before := c.DB().Now()
	require.NoError(t, putOne(c))
	jumped := c.DB().Now().Sub(before)
	assert.Positive(t, jumped)
	assert.LessOrEqual(t, jumped, 10*time.Second)
	assert.Equal(t, "+"+jumped.String(), c.Faults()[0].Detail)
}

func TestChaosClockJumpBelowAMillisecondJumpsOneMillisecond(t *testing.T) {
	c := dynamotest.Chaos(3, only(dynamotest.ChaosClockJump), func(o *dynamotest.ChaosOptions) {
		o.DB = dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return time.Unix(1_700_000_000, 0) } })
		o.MaxJump = time.Microsecond
	})
	_, err := c.CreateTable(ctx, simple.input())
	require.NoError(t, err)
	before := c.DB().Now()
	require.NoError(t, putOne(c))
	assert.Equal(t, time.Millisecond, c.DB().Now().Sub(before))
}

func TestChaosDrawsTheEventualLagFromTheSeed(t *testing.T) {
	lags := map[time.Duration]bool{}
	for seed := range int64(20) {
		c := dynamotest.Chaos(seed, func(o *dynamotest.ChaosOptions) { o.MaxLag = time.Second })
		assert.Equal(t, c.Lag(), dynamotest.Chaos(seed, func(o *dynamotest.ChaosOptions) { o.MaxLag = time.Second }).Lag())
		assert.LessOrEqual(t, c.Lag(), time.Second)
		lags[c.Lag()] = true
	}
	assert.Greater(t, len(lags), 10, "lags spread over the range")
	assert.Zero(t, dynamotest.Chaos(1, func(o *dynamotest.ChaosOptions) { o.MaxLag = 0 }).Lag())
}

// racing sends 60 distinct puts from 6 goroutines in an order the
// scheduler picks (shuffled by rng as well), and returns what each put
// answered, by its item.
func racing(t *testing.T, c *dynamotest.Chaotic, rng *rand.Rand) map[int]string {
	_, err := c.CreateTable(ctx, simple.input())
	require.NoError(t, err)
	order := rng.Perm(60)
	var mu sync.Mutex
	answers := map[int]string{}
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Go(func() {
			for _, i := range order[g*10 : g*10+10] {
				_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("simple"), Item: item{"pk": S("r"), "sk": S(fmt.Sprint(i))}})
				answer := "ok"
				if err != nil {
					answer = fmt.Sprintf("%T", err)
					if errors.Is(err, dynamotest.ErrResponseLost) {
						answer = "lost"
					}
				}
				mu.Lock()
				answers[i] = answer
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return answers
}

func TestChaosKeyedByRequestGivesRacingCallsTheSameFaults(t *testing.T) {
	byRequest := func(o *dynamotest.ChaosOptions) { o.ByRequest = true; o.MaxLag = 0 }
	seed := dynamotest.ChaosSeed(t)
	first := dynamotest.Chaos(seed, byRequest)
	answersFirst := racing(t, first, rand.New(rand.NewPCG(1, 2)))
	second := dynamotest.Chaos(seed, byRequest)
	answersSecond := racing(t, second, rand.New(rand.NewPCG(3, 4)))
	require.NotEmpty(t, first.Faults())
	assert.Equal(t, answersFirst, answersSecond, "each request, whoever sent it and when, got the same fault")
	keys := func(fs []dynamotest.ChaosFault) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.Key+" "+string(f.Kind)+" "+f.Detail)
		}
		sort.Strings(out)
		return out
	}
	assert.Equal(t, keys(first.Faults()), keys(second.Faults()))
}

func TestChaosSeedReadsTheVariableAndSaysHowToReplay(t *testing.T) {
	t.Setenv(dynamotest.ChaosSeedEnv, "12345")
	rec := &logRecorder{TB: t}
	assert.Equal(t, int64(12345), dynamotest.ChaosSeed(rec))
	require.Len(t, rec.logs, 1)
	assert.Contains(t, rec.logs[0], "TABLEKIT_CHAOS_SEED=12345 go test -run '^TestChaosSeedReadsTheVariableAndSaysHowToReplay$'")

	t.Setenv(dynamotest.ChaosSeedEnv, "twelve")
	bad := &logRecorder{TB: t}
	dynamotest.ChaosSeed(bad)
	assert.True(t, bad.fatal)
}

// logRecorder is a testing.TB that keeps what it is told.
type logRecorder struct {
	testing.TB
	logs  []string
	fatal bool
}

func (r *logRecorder) Helper() {}
func (r *logRecorder) Logf(format string, args ...any) {
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}
func (r *logRecorder) Fatalf(format string, args ...any) { r.fatal = true }

func TestChaoticNotMadeByChaosRefusesCalls(t *testing.T) {
	var c *dynamotest.Chaotic
	_, err := c.PutItem(ctx, nil)
	require.Error(t, err)
	_, err = (&dynamotest.Chaotic{}).CreateTable(ctx, nil)
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), "Chaos"))
}

// otherStore is a table.API that is not the fake: Chaos sends it the part
// of a batch it processes.
type otherStore struct{ table.API }

func TestChaosInFrontOfAnotherStoreSendsThePartOfABatchItProcesses(t *testing.T) {
	db := dynamotest.New()
	_, err := db.CreateTable(ctx, simple.input())
	require.NoError(t, err)
	c := dynamotest.Chaos(11, only(dynamotest.ChaosUnprocessed), func(o *dynamotest.ChaosOptions) { o.API = otherStore{db} })
	assert.Nil(t, c.DB())
	var writes []types.WriteRequest
	for i := range 10 {
		writes = append(writes, types.WriteRequest{PutRequest: &types.PutRequest{Item: item{"pk": S("a"), "sk": S(fmt.Sprint(i))}}})
	}
	out, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"simple": writes}})
	require.NoError(t, err)
	left := out.UnprocessedItems["simple"]
	require.NotEmpty(t, left)
	require.Less(t, len(left), 10)
	assert.Equal(t, writes[10-len(left):], left, "the last items are left, as the fake leaves them")
	applied := 0
	for i := range 10 {
		if get(t, db, "simple", item{"pk": S("a"), "sk": S(fmt.Sprint(i))}) != nil {
			applied++
		}
	}
	assert.Equal(t, 10-len(left), applied)

	keys := []map[string]types.AttributeValue{{"pk": S("a"), "sk": S("0")}, {"pk": S("a"), "sk": S("1")}, {"pk": S("a"), "sk": S("2")}}
	got, err := c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"simple": {Keys: keys}}})
	require.NoError(t, err)
	unprocessed := got.UnprocessedKeys["simple"].Keys
	require.NotEmpty(t, unprocessed)
	assert.Equal(t, len(keys), len(unprocessed)+len(got.Responses["simple"]))
}

func TestChaosInFrontOfAnotherStoreLeavesTheItemsTheFakeLeavesAcrossTables(t *testing.T) {
	// A batch over several tables: the same seed leaves the same items
	// unprocessed in front of another store as on the fake (the fraction
	// is carried from table to table), never none.
	batch := func(api table.API) *dynamodb.BatchWriteItemInput {
		in := &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{}}
		for ti, name := range []string{"tableA", "tableB", "tableC"} {
			spec := hashOnly
			spec.name = name
			_, err := api.CreateTable(ctx, spec.input())
			require.NoError(t, err)
			for i := range ti + 1 {
				in.RequestItems[name] = append(in.RequestItems[name],
					types.WriteRequest{PutRequest: &types.PutRequest{Item: item{"id": S(fmt.Sprint(i))}}})
			}
		}
		return in
	}
	for seed := range int64(8) {
		fake := dynamotest.Chaos(seed, only(dynamotest.ChaosUnprocessed))
		other := dynamotest.Chaos(seed, only(dynamotest.ChaosUnprocessed), func(o *dynamotest.ChaosOptions) {
			o.API = otherStore{dynamotest.New()}
		})
		var left [2]map[string][]types.WriteRequest
		for i, c := range []*dynamotest.Chaotic{fake, other} {
			out, err := c.BatchWriteItem(ctx, batch(c))
			require.NoError(t, err)
			left[i] = out.UnprocessedItems
			require.NotEmpty(t, left[i], "seed %d: the drawn fault leaves part of the batch", seed)
		}
		assert.Equal(t, left[0], left[1], "seed %d", seed)
		assert.Equal(t, fake.Faults()[0].Detail, other.Faults()[0].Detail, "seed %d", seed)
	}
}

func TestChaosKeyedByRequestTellsValuesOfDifferentTypesApart(t *testing.T) {
	// {"S":"1"} and {"N":"1"} are different requests: each is its own
	// first call, whichever comes first.
	c := dynamotest.Chaos(1, only(dynamotest.ChaosThrottle), func(o *dynamotest.ChaosOptions) { o.ByRequest = true })
	_, err := c.CreateTable(ctx, hashOnly.input())
	require.NoError(t, err)
	for _, id := range []types.AttributeValue{S("1"), N("1"), B("1"), &types.AttributeValueMemberSS{Value: []string{"1"}},
		&types.AttributeValueMemberNS{Value: []string{"1"}}} {
		_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("hashonly"), Key: item{"id": id}})
		require.Error(t, err)
	}
	for _, f := range c.Faults() {
		assert.True(t, strings.HasSuffix(f.Key, " #1"), "%s shares its key with an earlier request", f)
	}
}

// blockingStore holds each PutItem on the table "slowtable" until release
// is closed, and says when one has arrived.
type blockingStore struct {
	table.API
	arrived chan struct{}
	release chan struct{}
}

func (b blockingStore) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	if aws.ToString(in.TableName) == "slowtable" {
		b.arrived <- struct{}{}
		<-b.release
	}
	return b.API.PutItem(ctx, in, o...)
}

func TestChaosFaultsAreInCallOrderWhenRacingCallsLogOutOfOrder(t *testing.T) {
	// Call 1's response is lost after it runs, and it runs long; call 2 is
	// throttled at once. The log still lists call 1 first.
	db := dynamotest.New()
	for _, name := range []string{"slowtable", "fasttable"} {
		spec := hashOnly
		spec.name = name
		_, err := db.CreateTable(ctx, spec.input())
		require.NoError(t, err)
	}
	store := blockingStore{API: db, arrived: make(chan struct{}), release: make(chan struct{})}
	c := dynamotest.Chaos(1, func(o *dynamotest.ChaosOptions) {
		o.API = store
		o.RatesFor = func(op, tableName string, _ any) dynamotest.ChaosRates {
			if tableName == "slowtable" {
				return dynamotest.ChaosRates{LostAfter: 1}
			}
			return dynamotest.ChaosRates{Throttle: 1}
		}
	})
	done := make(chan error)
	go func() {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("slowtable"), Item: item{"id": S("1")}})
		done <- err
	}()
	<-store.arrived
	_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("fasttable"), Item: item{"id": S("1")}})
	require.Error(t, err)
	close(store.release)
	require.ErrorIs(t, <-done, dynamotest.ErrResponseLost)
	faults := c.Faults()
	require.Len(t, faults, 2)
	assert.Equal(t, []int{1, 2}, []int{faults[0].Call, faults[1].Call})
	assert.Equal(t, dynamotest.ChaosLostAfter, faults[0].Kind)
	assert.Equal(t, dynamotest.ChaosThrottle, faults[1].Kind)
}

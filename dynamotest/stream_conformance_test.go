package dynamotest_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
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

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/table"
)

// streamsAPI is the part of *dynamodbstreams.Client the stream cases use;
// a *dynamotest.DB and the real client both satisfy it.
type streamsAPI interface {
	ListStreams(context.Context, *dynamodbstreams.ListStreamsInput, ...func(*dynamodbstreams.Options)) (*dynamodbstreams.ListStreamsOutput, error)
	DescribeStream(context.Context, *dynamodbstreams.DescribeStreamInput, ...func(*dynamodbstreams.Options)) (*dynamodbstreams.DescribeStreamOutput, error)
	GetShardIterator(context.Context, *dynamodbstreams.GetShardIteratorInput, ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetShardIteratorOutput, error)
	GetRecords(context.Context, *dynamodbstreams.GetRecordsInput, ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error)
}

var (
	_ streamsAPI = (*dynamotest.DB)(nil)
	_ streamsAPI = (*dynamodbstreams.Client)(nil)
)

// streamBackend is a DynamoDB with streams: the data plane, the streams
// API, and the fake's clock where there is one (nil on DynamoDB Local).
type streamBackend struct {
	db      table.API
	streams streamsAPI
	fake    *dynamotest.DB
	// updateTable turns streams on and off; nil when the backend cannot.
	updateTable func(context.Context, *dynamodb.UpdateTableInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateTableOutput, error)
}

// streamBackends runs fn on the fake in process, the fake over HTTP and
// DynamoDB Local (skipped without TABLEKIT_DYNAMODB_ENDPOINT).
func streamBackends(t *testing.T, fn func(t *testing.T, b streamBackend)) {
	t.Run("inprocess", func(t *testing.T) {
		db := dynamotest.New()
		fn(t, streamBackend{db: db, streams: db, fake: db, updateTable: db.UpdateTable})
	})
	t.Run("http", func(t *testing.T) {
		srv := dynamotest.NewServer()
		t.Cleanup(srv.Close)
		c := srv.Client()
		fn(t, streamBackend{db: c, streams: srv.StreamsClient(), fake: srv.DB, updateTable: c.UpdateTable})
	})
	t.Run("dynamodblocal", func(t *testing.T) {
		ep := testenv.DynamoDBEndpoint(t)
		c := testenv.DynamoDB(t)
		fn(t, streamBackend{db: c, streams: dynamotest.NewStreamsClient(ep), updateTable: c.UpdateTable})
	})
}

// seen is a stream record reduced to what the cases compare: sequence
// numbers and times differ between backends by design.
type seen struct {
	Event    string
	Keys     string
	Old, New string
	Service  bool
}

func (s seen) String() string {
	return fmt.Sprintf("%s %s old=%s new=%s service=%v", s.Event, s.Keys, s.Old, s.New, s.Service)
}

// render writes an item in a stable order: names sorted, values by type.
func renderItem(item map[string]streamstypes.AttributeValue) string {
	if item == nil {
		return "-"
	}
	conv, err := attributevalue.FromDynamoDBStreamsMap(item)
	if err != nil {
		return "bad:" + err.Error()
	}
	names := make([]string, 0, len(conv))
	for n := range conv {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteByte('{')
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		var v any
		_ = attributevalue.Unmarshal(conv[n], &v)
		fmt.Fprintf(&b, "%s:%v", n, v)
	}
	b.WriteByte('}')
	return b.String()
}

// streamTable creates a table pk (S) + sk (S) with a stream of the given
// view and returns its name and stream ARN.
func streamTable(t *testing.T, b streamBackend, view types.StreamViewType) (string, string) {
	t.Helper()
	name := testenv.TableName(t, "streams")
	out, err := b.db.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}, {AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
		BillingMode:          types.BillingModePayPerRequest,
		StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: view},
	})
	require.NoError(t, err)
	t.Cleanup(func() {
		_, _ = b.db.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	require.NotNil(t, out.TableDescription.LatestStreamArn)
	assert.Equal(t, view, out.TableDescription.StreamSpecification.StreamViewType)
	return name, aws.ToString(out.TableDescription.LatestStreamArn)
}

// readAll reads every record of every shard of the stream from
// TRIM_HORIZON, in shard order, until the record of the marker item
// (pk "zz-marker") arrives: a write after the case's writes, so every
// record the case produced is in by then, whatever the backend's delay.
func readAll(t *testing.T, b streamBackend, arn string) []streamstypes.Record {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var all []streamstypes.Record
		d, err := b.streams.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
		require.NoError(t, err)
		for _, sh := range d.StreamDescription.Shards {
			it, err := b.streams.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: sh.ShardId, ShardIteratorType: streamstypes.ShardIteratorTypeTrimHorizon})
			require.NoError(t, err)
			iter := it.ShardIterator
			for iter != nil {
				out, err := b.streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: iter})
				require.NoError(t, err)
				all = append(all, out.Records...)
				if len(out.Records) == 0 {
					break // an open shard with nothing more yet
				}
				iter = out.NextShardIterator
			}
		}
		for i, r := range all {
			if k, ok := r.Dynamodb.Keys["pk"].(*streamstypes.AttributeValueMemberS); ok && k.Value == "zz-marker" {
				return all[:i]
			}
		}
		// DynamoDB Local publishes records shortly after the write; the
		// fake at once, so this loop only ever waits on a real backend.
		require.Nil(t, b.fake, "the fake's stream lacks the marker record")
		require.True(t, time.Now().Before(deadline), "no marker record within 20s")
		time.Sleep(100 * time.Millisecond)
	}
}

func putMarker(t *testing.T, b streamBackend, name string) {
	t.Helper()
	_, err := b.db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(name), Item: map[string]types.AttributeValue{"pk": S("zz-marker"), "sk": S("-")}})
	require.NoError(t, err)
}

func reduceRecords(recs []streamstypes.Record) []string {
	out := make([]string, 0, len(recs))
	for _, r := range recs {
		s := seen{Event: string(r.EventName), Keys: renderItem(r.Dynamodb.Keys), Old: renderItem(r.Dynamodb.OldImage), New: renderItem(r.Dynamodb.NewImage)}
		s.Service = r.UserIdentity != nil && aws.ToString(r.UserIdentity.Type) == "Service" && aws.ToString(r.UserIdentity.PrincipalId) == "dynamodb.amazonaws.com"
		out = append(out, s.String())
	}
	return out
}

func skey(pk, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": S(pk), "sk": S(sk)}
}

func sitem(k map[string]types.AttributeValue, kv ...any) map[string]types.AttributeValue {
	for i := 0; i < len(kv); i += 2 {
		k[kv[i].(string)] = kv[i+1].(types.AttributeValue)
	}
	return k
}

// streamCase is a run of writes and the records DynamoDB writes for them
// on a NEW_AND_OLD_IMAGES stream, as DynamoDB's documentation describes and
// DynamoDB Local produces.
type streamCase struct {
	name   string
	writes func(ctx context.Context, db table.API, name string) error
	want   []string
}

func streamPut(ctx context.Context, db table.API, name string, item map[string]types.AttributeValue) error {
	_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: item})
	return err
}

var streamCases = []streamCase{
	{
		name: "put-insert-then-modify",
		writes: func(ctx context.Context, db table.API, name string) error {
			if err := streamPut(ctx, db, name, sitem(skey("a", "1"), "v", N("1"))); err != nil {
				return err
			}
			return streamPut(ctx, db, name, sitem(skey("a", "1"), "v", N("2")))
		},
		want: []string{
			"INSERT {pk:a,sk:1} old=- new={pk:a,sk:1,v:1} service=false",
			"MODIFY {pk:a,sk:1} old={pk:a,sk:1,v:1} new={pk:a,sk:1,v:2} service=false",
		},
	},
	{
		name: "put-of-an-identical-item-writes-no-record",
		writes: func(ctx context.Context, db table.API, name string) error {
			if err := streamPut(ctx, db, name, sitem(skey("a", "1"), "v", S("x"), "w", N("1"))); err != nil {
				return err
			}
			return streamPut(ctx, db, name, sitem(skey("a", "1"), "w", N("1.0"), "v", S("x")))
		},
		want: []string{"INSERT {pk:a,sk:1} old=- new={pk:a,sk:1,v:x,w:1} service=false"},
	},
	{
		name: "update-creates-modifies-and-a-no-op-update-writes-no-record",
		writes: func(ctx context.Context, db table.API, name string) error {
			for _, v := range []string{"1", "2", "2"} {
				_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(name), Key: skey("a", "1"),
					UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: map[string]types.AttributeValue{":v": N(v)}})
				if err != nil {
					return err
				}
			}
			return nil
		},
		want: []string{
			"INSERT {pk:a,sk:1} old=- new={pk:a,sk:1,v:1} service=false",
			"MODIFY {pk:a,sk:1} old={pk:a,sk:1,v:1} new={pk:a,sk:1,v:2} service=false",
		},
	},
	{
		name: "delete-removes-and-a-delete-of-a-missing-item-writes-no-record",
		writes: func(ctx context.Context, db table.API, name string) error {
			if err := streamPut(ctx, db, name, sitem(skey("a", "1"), "v", N("1"))); err != nil {
				return err
			}
			for range 2 {
				if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(name), Key: skey("a", "1")}); err != nil {
					return err
				}
			}
			return nil
		},
		want: []string{
			"INSERT {pk:a,sk:1} old=- new={pk:a,sk:1,v:1} service=false",
			"REMOVE {pk:a,sk:1} old={pk:a,sk:1,v:1} new=- service=false",
		},
	},
	{
		name: "a-failed-condition-writes-no-record",
		writes: func(ctx context.Context, db table.API, name string) error {
			if err := streamPut(ctx, db, name, sitem(skey("a", "1"), "v", N("1"))); err != nil {
				return err
			}
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: sitem(skey("a", "1"), "v", N("9")),
				ConditionExpression: aws.String("attribute_not_exists(pk)")})
			if err == nil {
				return fmt.Errorf("conditional put succeeded")
			}
			_, err = db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(name), Key: skey("a", "1"),
				ConditionExpression: aws.String("v = :v"), ExpressionAttributeValues: map[string]types.AttributeValue{":v": N("7")}})
			if err == nil {
				return fmt.Errorf("conditional delete succeeded")
			}
			return nil
		},
		want: []string{"INSERT {pk:a,sk:1} old=- new={pk:a,sk:1,v:1} service=false"},
	},
	{
		name: "batch-write-records-each-put-and-delete",
		writes: func(ctx context.Context, db table.API, name string) error {
			if err := streamPut(ctx, db, name, sitem(skey("b", "2"), "v", N("1"))); err != nil {
				return err
			}
			_, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{name: {
				{PutRequest: &types.PutRequest{Item: sitem(skey("b", "1"), "v", N("1"))}},
				{DeleteRequest: &types.DeleteRequest{Key: skey("b", "2")}},
				{DeleteRequest: &types.DeleteRequest{Key: skey("b", "3")}},
			}}})
			return err
		},
		want: []string{
			"INSERT {pk:b,sk:2} old=- new={pk:b,sk:2,v:1} service=false",
			// A batch's writes are separate; within one partition they
			// are applied, and recorded, in request order.
			"INSERT {pk:b,sk:1} old=- new={pk:b,sk:1,v:1} service=false",
			"REMOVE {pk:b,sk:2} old={pk:b,sk:2,v:1} new=- service=false",
		},
	},
	{
		name: "transaction-records-its-writes-but-not-its-checks",
		writes: func(ctx context.Context, db table.API, name string) error {
			if err := streamPut(ctx, db, name, sitem(skey("t", "1"), "v", N("1"))); err != nil {
				return err
			}
			_, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{ConditionCheck: &types.ConditionCheck{TableName: aws.String(name), Key: skey("t", "1"), ConditionExpression: aws.String("attribute_exists(pk)")}},
				{Put: &types.Put{TableName: aws.String(name), Item: sitem(skey("t", "2"), "v", N("2"))}},
				{Update: &types.Update{TableName: aws.String(name), Key: skey("t", "3"), UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: map[string]types.AttributeValue{":v": N("3")}}},
			}})
			return err
		},
		want: []string{
			"INSERT {pk:t,sk:1} old=- new={pk:t,sk:1,v:1} service=false",
			"INSERT {pk:t,sk:2} old=- new={pk:t,sk:2,v:2} service=false",
			"INSERT {pk:t,sk:3} old=- new={pk:t,sk:3,v:3} service=false",
		},
	},
	{
		name: "a-canceled-transaction-writes-no-record",
		writes: func(ctx context.Context, db table.API, name string) error {
			_, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: aws.String(name), Item: sitem(skey("c", "1"), "v", N("1"))}},
				{ConditionCheck: &types.ConditionCheck{TableName: aws.String(name), Key: skey("c", "2"), ConditionExpression: aws.String("attribute_exists(pk)")}},
			}})
			if err == nil {
				return fmt.Errorf("transaction succeeded")
			}
			return nil
		},
		want: []string{},
	},
}

// TestStreamConformance: every write path produces the records DynamoDB
// Local produces, on the fake in process and over HTTP.
func TestStreamConformance(t *testing.T) {
	streamBackends(t, func(t *testing.T, b streamBackend) {
		for _, c := range streamCases {
			t.Run(c.name, func(t *testing.T) {
				name, arn := streamTable(t, b, types.StreamViewTypeNewAndOldImages)
				require.NoError(t, c.writes(context.Background(), b.db, name))
				putMarker(t, b, name)
				assert.Equal(t, c.want, reduceRecords(readAll(t, b, arn)))
			})
		}
	})
}

// TestStreamViewTypesKeepTheImagesTheyName: KEYS_ONLY keeps keys,
// NEW_IMAGE the item after, OLD_IMAGE before, NEW_AND_OLD_IMAGES both.
func TestStreamViewTypesKeepTheImagesTheyName(t *testing.T) {
	want := map[types.StreamViewType][]string{
		types.StreamViewTypeKeysOnly:        {"MODIFY {pk:a,sk:1} old=- new=- service=false"},
		types.StreamViewTypeNewImage:        {"MODIFY {pk:a,sk:1} old=- new={pk:a,sk:1,v:2} service=false"},
		types.StreamViewTypeOldImage:        {"MODIFY {pk:a,sk:1} old={pk:a,sk:1,v:1} new=- service=false"},
		types.StreamViewTypeNewAndOldImages: {"MODIFY {pk:a,sk:1} old={pk:a,sk:1,v:1} new={pk:a,sk:1,v:2} service=false"},
	}
	streamBackends(t, func(t *testing.T, b streamBackend) {
		for view, w := range want {
			t.Run(string(view), func(t *testing.T) {
				name, arn := streamTable(t, b, view)
				require.NoError(t, streamPut(context.Background(), b.db, name, sitem(skey("a", "1"), "v", N("1"))))
				require.NoError(t, streamPut(context.Background(), b.db, name, sitem(skey("a", "1"), "v", N("2"))))
				putMarker(t, b, name)
				recs := readAll(t, b, arn)
				require.Len(t, recs, 2)
				assert.Equal(t, w, reduceRecords(recs[1:]))
				assert.Equal(t, streamstypes.StreamViewType(view), recs[1].Dynamodb.StreamViewType)
			})
		}
	})
}

// TestGetRecordsReturnsAtMostOneMegabyte: GetRecords stops before the
// record that would take a page past 1 MB (the DynamoDB Streams API
// reference: "up to 1 MB of data or 1000 stream records, whichever comes
// first"), and the next iterator resumes at that record. DynamoDB Local
// does not limit the page's size; there the case checks only that every
// record comes once and in order.
func TestGetRecordsReturnsAtMostOneMegabyte(t *testing.T) {
	streamBackends(t, func(t *testing.T, b streamBackend) {
		ctx := context.Background()
		name, arn := streamTable(t, b, types.StreamViewTypeNewImage)
		big := strings.Repeat("x", 350*1024)
		for _, sk := range []string{"1", "2", "3", "4", "5"} {
			require.NoError(t, streamPut(ctx, b.db, name, sitem(skey("a", sk), "v", S(big))))
		}
		putMarker(t, b, name)
		require.Len(t, readAll(t, b, arn), 5)

		d, err := b.streams.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
		require.NoError(t, err)
		require.Len(t, d.StreamDescription.Shards, 1)
		it, err := b.streams.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn),
			ShardId: d.StreamDescription.Shards[0].ShardId, ShardIteratorType: streamstypes.ShardIteratorTypeTrimHorizon})
		require.NoError(t, err)
		var pages []int
		var keys []string
		for iter := it.ShardIterator; iter != nil && len(keys) < 6; {
			out, err := b.streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: iter})
			require.NoError(t, err)
			var bytes int64
			for _, r := range out.Records {
				bytes += aws.ToInt64(r.Dynamodb.SizeBytes)
				keys = append(keys, renderItem(r.Dynamodb.Keys))
			}
			// DynamoDB Local returns every record in one page, past 1 MB;
			// the fake follows the reference, so only the fake's pages are
			// held to it.
			if len(out.Records) > 1 && b.fake != nil {
				assert.LessOrEqual(t, bytes, int64(1<<20), "a page of %d records holds %d bytes", len(out.Records), bytes)
			}
			pages = append(pages, len(out.Records))
			iter = out.NextShardIterator
		}
		assert.Equal(t, []string{"{pk:a,sk:1}", "{pk:a,sk:2}", "{pk:a,sk:3}", "{pk:a,sk:4}", "{pk:a,sk:5}", "{pk:zz-marker,sk:-}"}, keys,
			"every record once, in order, across the pages")
		if b.fake != nil {
			assert.Equal(t, []int{2, 2, 2}, pages, "two records of 350 KB fit in 1 MB, three do not")
		}
	})
}

// TestStreamRecordsKeepEmptyMapsTyped: an empty map, at the top of an item
// or inside one, comes back in a record's images as a map ({"M":{}}), as
// every other value comes with its one type (DynamoDB Streams API
// reference, AttributeValue: exactly one data type; M for a map).
//
// DynamoDB Local departs from it: it writes an empty map as {} with no
// type, and the SDK (dynamodbstreams v1.46.6) reads that as the value
// before it in the same map (a number, for journey's record), or nil.
// There the case is skipped, naming that, when Local still does so.
func TestStreamRecordsKeepEmptyMapsTyped(t *testing.T) {
	streamBackends(t, func(t *testing.T, b streamBackend) {
		name, arn := streamTable(t, b, types.StreamViewTypeNewImage)
		empty := &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}}
		require.NoError(t, streamPut(context.Background(), b.db, name, sitem(skey("a", "1"),
			"n", N("5"), "m", empty, "nested", &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"x": N("1"), "e": empty}},
			"l", &types.AttributeValueMemberL{Value: []types.AttributeValue{}})))
		putMarker(t, b, name)
		recs := readAll(t, b, arn)
		require.Len(t, recs, 1)
		img := recs[0].Dynamodb.NewImage
		problem := emptyMapsProblem(img)
		if problem != "" && b.fake == nil {
			// Local writes {} with no type, and the SDK then reads it as
			// whatever value it decoded last (a neighbour's map, a nil),
			// so what goes wrong varies from run to run.
			t.Skipf("DynamoDB Local writes an empty map in a stream record as {} with no type; the SDK reads it wrongly (%s) "+
				"(the Streams API reference's AttributeValue has exactly one type, M for a map)", problem)
		}
		assert.Empty(t, problem)
	})
}

// emptyMapsProblem says what in TestStreamRecordsKeepEmptyMapsTyped's image
// is not as written ("" when all is): the empty map m, the map nested with
// its empty map e beside x = 1, n = 5 and the empty list l.
func emptyMapsProblem(img map[string]streamstypes.AttributeValue) string {
	isEmptyMap := func(v streamstypes.AttributeValue) bool {
		m, ok := v.(*streamstypes.AttributeValueMemberM)
		return ok && len(m.Value) == 0
	}
	if !isEmptyMap(img["m"]) {
		return fmt.Sprintf("top-level empty map read as %#v", img["m"])
	}
	nested, ok := img["nested"].(*streamstypes.AttributeValueMemberM)
	if !ok {
		return fmt.Sprintf("nested map read as %#v", img["nested"])
	}
	if !isEmptyMap(nested.Value["e"]) {
		return fmt.Sprintf("nested empty map read as %#v", nested.Value["e"])
	}
	if x, ok := nested.Value["x"].(*streamstypes.AttributeValueMemberN); !ok || x.Value != "1" {
		return fmt.Sprintf("nested x read as %#v", nested.Value["x"])
	}
	if n, ok := img["n"].(*streamstypes.AttributeValueMemberN); !ok || n.Value != "5" {
		return fmt.Sprintf("n read as %#v", img["n"])
	}
	if l, ok := img["l"].(*streamstypes.AttributeValueMemberL); !ok || len(l.Value) != 0 {
		return fmt.Sprintf("empty list read as %#v", img["l"])
	}
	return ""
}

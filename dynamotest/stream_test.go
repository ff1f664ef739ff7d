package dynamotest_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamstypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
)

var streamEpoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// fakeStream is a fake with one streaming table, its clock at streamEpoch.
func fakeStream(t *testing.T) (*dynamotest.DB, string, string) {
	t.Helper()
	db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return streamEpoch } })
	name, arn := streamTable(t, streamBackend{db: db, streams: db, fake: db}, types.StreamViewTypeNewAndOldImages)
	return db, name, arn
}

func onlyShard(t *testing.T, db *dynamotest.DB, arn string) streamstypes.Shard {
	t.Helper()
	d, err := db.DescribeStream(context.Background(), &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
	require.NoError(t, err)
	require.Len(t, d.StreamDescription.Shards, 1)
	return d.StreamDescription.Shards[0]
}

func iterator(t *testing.T, db *dynamotest.DB, arn string, shard *string, typ streamstypes.ShardIteratorType, seq string) *string {
	t.Helper()
	in := &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: shard, ShardIteratorType: typ}
	if seq != "" {
		in.SequenceNumber = aws.String(seq)
	}
	out, err := db.GetShardIterator(context.Background(), in)
	require.NoError(t, err)
	return out.ShardIterator
}

func records(t *testing.T, db *dynamotest.DB, it *string) *dynamodbstreams.GetRecordsOutput {
	t.Helper()
	out, err := db.GetRecords(context.Background(), &dynamodbstreams.GetRecordsInput{ShardIterator: it})
	require.NoError(t, err)
	return out
}

// writeN puts n new items, sk "a", "b", ... after the from first letters.
func writeN(t *testing.T, db *dynamotest.DB, name string, from, n int) {
	t.Helper()
	for i := range n {
		require.NoError(t, streamPut(context.Background(), db, name, sitem(skey("k", string(rune('a'+from+i))))))
	}
}

func TestShardIteratorTypesStartWhereTheyName(t *testing.T) {
	db, name, arn := fakeStream(t)
	writeN(t, db, name, 0, 3)
	sh := onlyShard(t, db, arn)
	all := records(t, db, iterator(t, db, arn, sh.ShardId, streamstypes.ShardIteratorTypeTrimHorizon, "")).Records
	require.Len(t, all, 3)
	second := aws.ToString(all[1].Dynamodb.SequenceNumber)
	assert.Less(t, aws.ToString(all[0].Dynamodb.SequenceNumber), second, "sequence numbers grow")
	assert.Equal(t, aws.ToString(sh.SequenceNumberRange.StartingSequenceNumber), aws.ToString(all[0].Dynamodb.SequenceNumber))

	at := records(t, db, iterator(t, db, arn, sh.ShardId, streamstypes.ShardIteratorTypeAtSequenceNumber, second)).Records
	require.Len(t, at, 2)
	assert.Equal(t, second, aws.ToString(at[0].Dynamodb.SequenceNumber))
	after := records(t, db, iterator(t, db, arn, sh.ShardId, streamstypes.ShardIteratorTypeAfterSequenceNumber, second)).Records
	require.Len(t, after, 1)
	assert.Equal(t, all[2].Dynamodb.SequenceNumber, after[0].Dynamodb.SequenceNumber)

	latest := iterator(t, db, arn, sh.ShardId, streamstypes.ShardIteratorTypeLatest, "")
	out := records(t, db, latest)
	assert.Empty(t, out.Records, "LATEST starts after the newest record")
	require.NotNil(t, out.NextShardIterator, "an open shard always has a next iterator")
	writeN(t, db, name, 3, 1)
	assert.Len(t, records(t, db, out.NextShardIterator).Records, 1, "the next iterator sees later writes")
}

func TestGetRecordsPagesByLimitAndResumesFromTheNextIterator(t *testing.T) {
	db, name, arn := fakeStream(t)
	writeN(t, db, name, 0, 5)
	it := iterator(t, db, arn, onlyShard(t, db, arn).ShardId, streamstypes.ShardIteratorTypeTrimHorizon, "")
	var got []string
	for range 3 {
		out, err := db.GetRecords(context.Background(), &dynamodbstreams.GetRecordsInput{ShardIterator: it, Limit: aws.Int32(2)})
		require.NoError(t, err)
		for _, r := range out.Records {
			got = append(got, r.Dynamodb.Keys["sk"].(*streamstypes.AttributeValueMemberS).Value)
		}
		it = out.NextShardIterator
	}
	assert.Equal(t, []string{"a", "b", "c", "d", "e"}, got)
}

func TestShardIteratorsExpireAfterFifteenMinutes(t *testing.T) {
	db, _, arn := fakeStream(t)
	it := iterator(t, db, arn, onlyShard(t, db, arn).ShardId, streamstypes.ShardIteratorTypeTrimHorizon, "")
	db.Advance(15 * time.Minute)
	_, err := db.GetRecords(context.Background(), &dynamodbstreams.GetRecordsInput{ShardIterator: it})
	require.NoError(t, err, "valid for 15 minutes")
	db.Advance(time.Second)
	_, err = db.GetRecords(context.Background(), &dynamodbstreams.GetRecordsInput{ShardIterator: it})
	var expired *streamstypes.ExpiredIteratorException
	assert.ErrorAs(t, err, &expired)
}

func TestRecordsOlderThanADayAreTrimmed(t *testing.T) {
	db, name, arn := fakeStream(t)
	writeN(t, db, name, 0, 2)
	sh := onlyShard(t, db, arn)
	old := iterator(t, db, arn, sh.ShardId, streamstypes.ShardIteratorTypeTrimHorizon, "")
	first := records(t, db, old).Records[0].Dynamodb.SequenceNumber
	db.Advance(12 * time.Hour)
	require.NoError(t, streamPut(context.Background(), db, name, sitem(skey("k", "z"))))
	db.Advance(12*time.Hour + time.Second)
	putMarker(t, streamBackend{db: db, streams: db, fake: db}, name)
	assert.Equal(t, []string{"INSERT {pk:k,sk:z} old=- new={pk:k,sk:z} service=false"},
		reduceRecords(readAll(t, streamBackend{db: db, streams: db, fake: db}, arn)), "only records younger than 24 hours are kept")

	var trimmed *streamstypes.TrimmedDataAccessException
	_, err := db.GetShardIterator(context.Background(), &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: sh.ShardId,
		ShardIteratorType: streamstypes.ShardIteratorTypeAtSequenceNumber, SequenceNumber: first})
	assert.ErrorAs(t, err, &trimmed, "a sequence number retention dropped")
}

func TestShardsRollOverWithLineageAndClosedShardsEnd(t *testing.T) {
	db, name, arn := fakeStream(t)
	writeN(t, db, name, 0, 1)
	db.Advance(4 * time.Hour)
	require.NoError(t, streamPut(context.Background(), db, name, sitem(skey("k", "z"))))

	d, err := db.DescribeStream(context.Background(), &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
	require.NoError(t, err)
	shards := d.StreamDescription.Shards
	require.Len(t, shards, 2)
	assert.NotNil(t, shards[0].SequenceNumberRange.EndingSequenceNumber, "the first shard closed")
	assert.Nil(t, shards[1].SequenceNumberRange.EndingSequenceNumber, "the child is open")
	assert.Equal(t, shards[0].ShardId, shards[1].ParentShardId)

	out := records(t, db, iterator(t, db, arn, shards[0].ShardId, streamstypes.ShardIteratorTypeTrimHorizon, ""))
	assert.Len(t, out.Records, 1)
	assert.Nil(t, out.NextShardIterator, "a closed shard read to its end has no next iterator")

	children, err := db.DescribeStream(context.Background(), &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn),
		ShardFilter: &streamstypes.ShardFilter{Type: streamstypes.ShardFilterTypeChildShards, ShardId: shards[0].ShardId}})
	require.NoError(t, err)
	require.Len(t, children.StreamDescription.Shards, 1)
	assert.Equal(t, shards[1].ShardId, children.StreamDescription.Shards[0].ShardId)
}

func TestTTLDeletionsAreRecordedAsTheServicesOwn(t *testing.T) {
	db, name, arn := fakeStream(t)
	_, err := db.UpdateTimeToLive(context.Background(), &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(name),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("ttl"), Enabled: aws.Bool(true)}})
	require.NoError(t, err)
	require.NoError(t, streamPut(context.Background(), db, name, sitem(skey("e", "1"), "ttl", N("1767323100"))))
	db.Advance(time.Hour)
	putMarker(t, streamBackend{db: db, streams: db, fake: db}, name)
	assert.Equal(t, []string{
		"INSERT {pk:e,sk:1} old=- new={pk:e,sk:1,ttl:1.7673231e+09} service=false",
		"REMOVE {pk:e,sk:1} old={pk:e,sk:1,ttl:1.7673231e+09} new=- service=true",
	}, reduceRecords(readAll(t, streamBackend{db: db, streams: db, fake: db}, arn)))
}

func TestUpdateTableTurnsStreamsOnAndOff(t *testing.T) {
	streamBackends(t, func(t *testing.T, b streamBackend) {
		ctx := context.Background()
		name, arn := streamTable(t, b, types.StreamViewTypeKeysOnly)
		_, err := b.updateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name),
			StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewImage}})
		requireValidation(t, err)

		disabled, err := b.updateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(false)}})
		require.NoError(t, err)
		// The API reference: LatestStreamArn is "the latest stream for this
		// table"; the Developer Guide ("Enabling a stream"): a disabled
		// stream stays readable for 24 hours, so the table keeps naming it.
		assert.Equal(t, arn, aws.ToString(disabled.TableDescription.LatestStreamArn))
		assert.Nil(t, disabled.TableDescription.StreamSpecification, "no stream is enabled")
		desc, err := b.db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		require.NoError(t, err)
		assert.Equal(t, arn, aws.ToString(desc.Table.LatestStreamArn), "DescribeTable still names the disabled stream")
		assert.NotEmpty(t, aws.ToString(desc.Table.LatestStreamLabel))
		assert.Nil(t, desc.Table.StreamSpecification)
		d, err := b.streams.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
		require.NoError(t, err)
		assert.Contains(t, []streamstypes.StreamStatus{streamstypes.StreamStatusDisabled, streamstypes.StreamStatusDisabling}, d.StreamDescription.StreamStatus)
		_, err = b.updateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(false)}})
		requireValidation(t, err)

		out, err := b.updateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name),
			StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewImage}})
		require.NoError(t, err)
		assert.NotEqual(t, arn, aws.ToString(out.TableDescription.LatestStreamArn), "a new stream, a new ARN")

		list, err := b.streams.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String(name)})
		require.NoError(t, err)
		assert.Len(t, list.Streams, 2, "the disabled stream is listed until it ages out")
	})
}

func requireValidation(t *testing.T, err error) {
	t.Helper()
	var api smithy.APIError
	require.True(t, errors.As(err, &api), "want a ValidationException, got %v", err)
	assert.Equal(t, "ValidationException", api.ErrorCode())
}

func TestStreamSpecificationIsValidated(t *testing.T) {
	db := dynamotest.New()
	for _, spec := range []*types.StreamSpecification{
		{StreamEnabled: aws.Bool(true)},
		{StreamEnabled: aws.Bool(true), StreamViewType: "EVERYTHING"},
	} {
		_, err := db.CreateTable(context.Background(), &dynamodb.CreateTableInput{
			TableName:            aws.String("bad"),
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
			BillingMode:          types.BillingModePayPerRequest,
			StreamSpecification:  spec,
		})
		requireValidation(t, err)
	}
	_, err := db.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("bad")})
	var nf *types.ResourceNotFoundException
	assert.ErrorAs(t, err, &nf, "a refused CreateTable creates nothing")
}

func TestStreamsAPIRefusesNilAndBadInput(t *testing.T) {
	db, _, arn := fakeStream(t)
	ctx := context.Background()
	_, err := db.ListStreams(ctx, nil)
	assert.NoError(t, err)
	_, err = db.DescribeStream(ctx, nil)
	requireValidation(t, err)
	_, err = db.GetShardIterator(ctx, nil)
	requireValidation(t, err)
	_, err = db.GetRecords(ctx, nil)
	requireValidation(t, err)
	_, err = db.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String("not-an-iterator")})
	requireValidation(t, err)
	_, err = db.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn + "x")})
	var nf *streamstypes.ResourceNotFoundException
	assert.ErrorAs(t, err, &nf)
	_, err = db.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String("shardId-nope"), ShardIteratorType: streamstypes.ShardIteratorTypeLatest})
	assert.ErrorAs(t, err, &nf)
	_, err = db.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: onlyShard(t, db, arn).ShardId, ShardIteratorType: streamstypes.ShardIteratorTypeAtSequenceNumber, SequenceNumber: aws.String("999999")})
	requireValidation(t, err)
}

func TestStreamRecordsOverHTTPMatchInProcess(t *testing.T) {
	srv := dynamotest.NewServer(func(o *dynamotest.Options) { o.Clock = func() time.Time { return streamEpoch } })
	t.Cleanup(srv.Close)
	b := streamBackend{db: srv.DB, streams: srv.DB, fake: srv.DB}
	name, arn := streamTable(t, b, types.StreamViewTypeNewAndOldImages)
	require.NoError(t, streamPut(context.Background(), srv.DB, name, sitem(skey("h", "1"), "m", &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{B("x"), &types.AttributeValueMemberSS{Value: []string{"q"}}}}}})))
	_, err := srv.DB.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{TableName: aws.String(name), Key: skey("h", "1")})
	require.NoError(t, err)
	putMarker(t, b, name)
	in := readAll(t, b, arn)
	over := readAll(t, streamBackend{db: srv.DB, streams: srv.StreamsClient(), fake: srv.DB}, arn)
	require.Len(t, over, len(in))
	for i := range in {
		assert.Equal(t, in[i].Dynamodb.Keys, over[i].Dynamodb.Keys)
		assert.Equal(t, in[i].Dynamodb.NewImage, over[i].Dynamodb.NewImage)
		assert.Equal(t, in[i].Dynamodb.OldImage, over[i].Dynamodb.OldImage)
		assert.Equal(t, in[i].Dynamodb.SequenceNumber, over[i].Dynamodb.SequenceNumber)
		assert.Equal(t, in[i].Dynamodb.ApproximateCreationDateTime, over[i].Dynamodb.ApproximateCreationDateTime)
		assert.Equal(t, in[i].EventID, over[i].EventID)
		assert.Equal(t, in[i].EventName, over[i].EventName)
	}
}

func TestShardsRollOverOnTheClockWithoutWrites(t *testing.T) {
	db, name, arn := fakeStream(t)
	writeN(t, db, name, 0, 1)
	db.Advance(12*time.Hour + time.Minute)

	d, err := db.DescribeStream(context.Background(), &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
	require.NoError(t, err)
	shards := d.StreamDescription.Shards
	require.Len(t, shards, 4, "a shard closes every four hours, written to or not")
	for i, sh := range shards {
		if i > 0 {
			assert.Equal(t, shards[i-1].ShardId, sh.ParentShardId, "shard %d's parent is the one before it", i)
		}
		assert.Equal(t, i < 3, sh.SequenceNumberRange.EndingSequenceNumber != nil, "shard %d closed", i)
	}
	assert.Nil(t, shards[0].ParentShardId)

	require.NoError(t, streamPut(context.Background(), db, name, sitem(skey("k", "z"))))
	out := records(t, db, iterator(t, db, arn, shards[3].ShardId, streamstypes.ShardIteratorTypeTrimHorizon, ""))
	require.Len(t, out.Records, 1, "the write after the rollovers lands in the open child")
	assert.Greater(t, *out.Records[0].Dynamodb.SequenceNumber, *shards[2].SequenceNumberRange.EndingSequenceNumber)
	assert.Nil(t, records(t, db, iterator(t, db, arn, shards[1].ShardId, streamstypes.ShardIteratorTypeTrimHorizon, "")).NextShardIterator,
		"an empty closed shard is read to its end at once")
}

func TestAClockMovedByAYearKeepsOnlyTheShardsRetentionKeeps(t *testing.T) {
	db, name, arn := fakeStream(t)
	writeN(t, db, name, 0, 1)
	db.Advance(365 * 24 * time.Hour)
	require.NoError(t, streamPut(context.Background(), db, name, sitem(skey("k", "z"))))

	d, err := db.DescribeStream(context.Background(), &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
	require.NoError(t, err)
	shards := d.StreamDescription.Shards
	require.NotEmpty(t, shards)
	assert.LessOrEqual(t, len(shards), 8, "shards older than a day are gone")
	for i := 1; i < len(shards); i++ {
		assert.Equal(t, shards[i-1].ShardId, shards[i].ParentShardId)
	}
	last := shards[len(shards)-1]
	assert.Nil(t, last.SequenceNumberRange.EndingSequenceNumber, "the newest shard is open")
	out := records(t, db, iterator(t, db, arn, last.ShardId, streamstypes.ShardIteratorTypeTrimHorizon, ""))
	require.Len(t, out.Records, 1)
}

// TestStreamsResponsesCarryOnlyWhatDynamoDBStreamsSends: the wire answers
// are DynamoDB Streams' shapes, not the SDK's output structs marshalled
// (which would add "ResultMetadata":{} and a null per unset member).
func TestStreamsResponsesCarryOnlyWhatDynamoDBStreamsSends(t *testing.T) {
	srv := dynamotest.NewServer()
	t.Cleanup(srv.Close)
	c := srv.Client()
	in := hashOnly.input()
	in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeKeysOnly}
	created, err := c.CreateTable(ctx, in)
	require.NoError(t, err)
	arn := aws.ToString(created.TableDescription.LatestStreamArn)
	desc, err := srv.DB.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
	require.NoError(t, err)
	shard := aws.ToString(desc.StreamDescription.Shards[0].ShardId)

	for target, body := range map[string]string{
		"ListStreams":      `{}`,
		"DescribeStream":   `{"StreamArn":"` + arn + `"}`,
		"GetShardIterator": `{"StreamArn":"` + arn + `","ShardId":"` + shard + `","ShardIteratorType":"LATEST"}`,
	} {
		req, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("X-Amz-Target", "DynamoDBStreams_20120810."+target)
		req.Header.Set("Content-Type", "application/x-amz-json-1.0")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		raw, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode, "%s: %s", target, raw)
		assert.NotContains(t, string(raw), "ResultMetadata", target)
		assert.NotContains(t, string(raw), "null", target)
	}
}

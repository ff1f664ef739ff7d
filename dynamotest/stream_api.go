package dynamotest

import (
	"context"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamstypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/tablekit/tablekit/dynamotest/internal/store"
)

// The DynamoDB Streams API. A *DB serves ListStreams, DescribeStream,
// GetShardIterator and GetRecords with the signatures of
// *dynamodbstreams.Client, so code written against that client (or an
// interface it satisfies, such as changes.StreamsAPI) reads the fake's
// streams unchanged; NewHandler serves them over HTTP too.

// ListStreams lists the streams of the DB, or of one table, oldest first:
// the enabled ones and the disabled ones whose records have not aged out.
func (db *DB) ListStreams(ctx context.Context, in *dynamodbstreams.ListStreamsInput, _ ...func(*dynamodbstreams.Options)) (res *dynamodbstreams.ListStreamsOutput, err error) {
	defer acknowledged(db, &res, &err)
	in = orEmpty(in)
	limit, err := streamLimit(in.Limit, 100, "limit")
	if err != nil {
		return nil, err
	}
	tableName := aws.ToString(in.TableName)
	if in.TableName != nil {
		if err := checkName("tableName", tableName); err != nil {
			return nil, err
		}
	}
	now := db.now()
	all := db.streams.list()
	start := 0
	if after := aws.ToString(in.ExclusiveStartStreamArn); after != "" {
		start = -1
		for i, s := range all {
			if s.arn == after {
				start = i + 1
			}
		}
		if start < 0 {
			return nil, &streamstypes.ResourceNotFoundException{Message: aws.String("Requested resource not found: Stream: " + after + " not found")}
		}
	}
	out := &dynamodbstreams.ListStreamsOutput{Streams: []streamstypes.Stream{}}
	for _, s := range all[start:] {
		if tableName != "" && s.tableName != tableName {
			continue
		}
		db.rollDue(s, now)
		s.mu.Lock()
		s.advance(now)
		gone := s.disabled && len(s.shards) == 0
		s.mu.Unlock()
		if gone {
			continue
		}
		if len(out.Streams) == limit {
			out.LastEvaluatedStreamArn = aws.String(aws.ToString(out.Streams[limit-1].StreamArn))
			break
		}
		out.Streams = append(out.Streams, streamstypes.Stream{
			StreamArn:   aws.String(s.arn),
			StreamLabel: aws.String(s.label),
			TableName:   aws.String(s.tableName),
		})
	}
	return out, nil
}

// DescribeStream describes a stream and its shards, oldest first; with a
// CHILD_SHARDS filter, only the children of the shard it names.
func (db *DB) DescribeStream(ctx context.Context, in *dynamodbstreams.DescribeStreamInput, _ ...func(*dynamodbstreams.Options)) (res *dynamodbstreams.DescribeStreamOutput, err error) {
	defer acknowledged(db, &res, &err)
	in = orEmpty(in)
	limit, err := streamLimit(in.Limit, 100, "limit")
	if err != nil {
		return nil, err
	}
	s, err := db.streamByARN(in.StreamArn)
	if err != nil {
		return nil, err
	}
	var parent string
	if f := in.ShardFilter; f != nil {
		if f.Type != streamstypes.ShardFilterTypeChildShards || aws.ToString(f.ShardId) == "" {
			return nil, validationf("ShardFilter must have Type CHILD_SHARDS and a ShardId")
		}
		parent = aws.ToString(f.ShardId)
	}
	now := db.now()
	db.rollDue(s, now)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advance(now)
	d := &streamstypes.StreamDescription{
		CreationRequestDateTime: aws.Time(s.created),
		StreamArn:               aws.String(s.arn),
		StreamLabel:             aws.String(s.label),
		StreamStatus:            streamstypes.StreamStatus(s.status()),
		StreamViewType:          streamstypes.StreamViewType(s.view),
		TableName:               aws.String(s.tableName),
		Shards:                  []streamstypes.Shard{},
	}
	for _, k := range s.keySchema {
		d.KeySchema = append(d.KeySchema, streamstypes.KeySchemaElement{AttributeName: aws.String(aws.ToString(k.AttributeName)), KeyType: streamstypes.KeyType(k.KeyType)})
	}
	started := aws.ToString(in.ExclusiveStartShardId) == ""
	for _, sh := range s.shards {
		if !started {
			started = sh.id == aws.ToString(in.ExclusiveStartShardId)
			continue
		}
		if parent != "" && sh.parent != parent {
			continue
		}
		if len(d.Shards) == limit {
			d.LastEvaluatedShardId = aws.String(aws.ToString(d.Shards[limit-1].ShardId))
			break
		}
		r := &streamstypes.SequenceNumberRange{StartingSequenceNumber: aws.String(formatSeq(sh.start))}
		if sh.closed {
			r.EndingSequenceNumber = aws.String(formatSeq(sh.end))
		}
		out := streamstypes.Shard{ShardId: aws.String(sh.id), SequenceNumberRange: r}
		if sh.parent != "" {
			out.ParentShardId = aws.String(sh.parent)
		}
		d.Shards = append(d.Shards, out)
	}
	return &dynamodbstreams.DescribeStreamOutput{StreamDescription: d}, nil
}

// GetShardIterator returns an iterator into a shard, valid for 15 minutes
// of the fake's clock: TRIM_HORIZON starts at the oldest record kept,
// LATEST after the newest, AT_ and AFTER_SEQUENCE_NUMBER at or after the
// record with that sequence number.
func (db *DB) GetShardIterator(ctx context.Context, in *dynamodbstreams.GetShardIteratorInput, _ ...func(*dynamodbstreams.Options)) (res *dynamodbstreams.GetShardIteratorOutput, err error) {
	defer acknowledged(db, &res, &err)
	in = orEmpty(in)
	if aws.ToString(in.ShardId) == "" {
		return nil, constraint("null", "shardId", "Member must not be null")
	}
	s, err := db.streamByARN(in.StreamArn)
	if err != nil {
		return nil, err
	}
	now := db.now()
	db.rollDue(s, now)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advance(now)
	sh := s.shard(aws.ToString(in.ShardId))
	if sh == nil {
		return nil, &streamstypes.ResourceNotFoundException{Message: aws.String("Requested resource not found: Shard does not exist")}
	}
	var after uint64
	switch in.ShardIteratorType {
	case streamstypes.ShardIteratorTypeTrimHorizon:
		after = sh.trimmedTo
	case streamstypes.ShardIteratorTypeLatest:
		after = sh.last()
		if sh.closed {
			after = sh.end
		}
	case streamstypes.ShardIteratorTypeAtSequenceNumber, streamstypes.ShardIteratorTypeAfterSequenceNumber:
		n, ok := parseSeq(aws.ToString(in.SequenceNumber))
		if !ok {
			return nil, validationf("Invalid SequenceNumber: %q", aws.ToString(in.SequenceNumber))
		}
		hi := s.next - 1
		if sh.closed {
			hi = sh.end
		}
		if n < sh.start || n > hi {
			return nil, validationf("Invalid SequenceNumber %s for shard %s: the shard holds %s to %s", formatSeq(n), sh.id, formatSeq(sh.start), formatSeq(hi))
		}
		if n <= sh.trimmedTo {
			return nil, &streamstypes.TrimmedDataAccessException{Message: aws.String("The operation attempted to read past the oldest stream record in a shard.")}
		}
		after = n
		if in.ShardIteratorType == streamstypes.ShardIteratorTypeAtSequenceNumber {
			after = n - 1
		}
	default:
		return nil, constraint(string(in.ShardIteratorType), "shardIteratorType", "Member must satisfy enum value set: [AFTER_SEQUENCE_NUMBER, LATEST, AT_SEQUENCE_NUMBER, TRIM_HORIZON]")
	}
	it := shardIterator{arn: s.arn, shard: sh.id, after: after, issued: now}
	return &dynamodbstreams.GetShardIteratorOutput{ShardIterator: aws.String(it.String())}, nil
}

// GetRecords returns up to Limit (at most 1,000) records, and at most 1 MB
// of them, from an iterator's position, oldest first, and the iterator for the next call: nil once a
// closed shard has been read to its end. An iterator older than 15 minutes
// fails with *types.ExpiredIteratorException; one pointing at records
// retention has dropped, with *types.TrimmedDataAccessException.
func (db *DB) GetRecords(ctx context.Context, in *dynamodbstreams.GetRecordsInput, _ ...func(*dynamodbstreams.Options)) (res *dynamodbstreams.GetRecordsOutput, err error) {
	defer acknowledged(db, &res, &err)
	s, recs, next, err := db.getRecords(orEmpty(in))
	if err != nil {
		return nil, err
	}
	out := &dynamodbstreams.GetRecordsOutput{Records: make([]streamstypes.Record, 0, len(recs)), NextShardIterator: next}
	for i := range recs {
		out.Records = append(out.Records, s.render(&recs[i]))
	}
	return out, nil
}

// getRecords reads the records GetRecords returns, in their stored form,
// and the next iterator (nil at the end of a closed shard).
func (db *DB) getRecords(in *dynamodbstreams.GetRecordsInput) (*stream, []streamRecord, *string, error) {
	limit, err := streamLimit(in.Limit, maxGetRecords, "limit")
	if err != nil {
		return nil, nil, nil, err
	}
	it, err := parseShardIterator(aws.ToString(in.ShardIterator))
	if err != nil {
		return nil, nil, nil, err
	}
	now := db.now()
	if now.Sub(it.issued) > iteratorLifetime {
		return nil, nil, nil, &streamstypes.ExpiredIteratorException{Message: aws.String(fmt.Sprintf(
			"Iterator expired. The iterator was created at time %s while right now it is %s which is further in the future than the tolerated delay of 900000 milliseconds.",
			it.issued.UTC().Format(time.RFC1123), now.UTC().Format(time.RFC1123)))}
	}
	s := db.streams.byARN(it.arn)
	if s == nil {
		return nil, nil, nil, &streamstypes.ResourceNotFoundException{Message: aws.String("Requested resource not found: Stream: " + it.arn + " not found")}
	}
	db.rollDue(s, now)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advance(now)
	sh := s.shard(it.shard)
	if sh == nil || it.after < sh.trimmedTo {
		return nil, nil, nil, &streamstypes.TrimmedDataAccessException{Message: aws.String("The operation attempted to read past the oldest stream record in a shard.")}
	}
	recs := append([]streamRecord(nil), sh.after(it.after, limit)...)
	next := it
	next.issued = now
	if len(recs) > 0 {
		next.after = recs[len(recs)-1].seq
	}
	if sh.closed && next.after >= sh.last() {
		return s, recs, nil, nil
	}
	return s, recs, aws.String(next.String()), nil
}

// render builds the SDK's form of a record, decoding fresh copies of its
// images.
func (s *stream) render(r *streamRecord) streamstypes.Record {
	sr := &streamstypes.StreamRecord{
		// DynamoDB rounds the time down to the second.
		ApproximateCreationDateTime: aws.Time(r.at.Truncate(time.Second)),
		Keys:                        toStreamItem(store.Decode(r.keys)),
		SequenceNumber:              aws.String(formatSeq(r.seq)),
		SizeBytes:                   aws.Int64(r.size),
		StreamViewType:              streamstypes.StreamViewType(s.view),
	}
	if r.oldImage != "" {
		sr.OldImage = toStreamItem(store.Decode(r.oldImage))
	}
	if r.newImage != "" {
		sr.NewImage = toStreamItem(store.Decode(r.newImage))
	}
	rec := streamstypes.Record{
		AwsRegion:    aws.String("us-east-1"),
		Dynamodb:     sr,
		EventID:      aws.String(s.eventID(r)),
		EventName:    streamstypes.OperationType(r.event),
		EventSource:  aws.String("aws:dynamodb"),
		EventVersion: aws.String("1.1"),
	}
	if r.byService {
		rec.UserIdentity = &streamstypes.Identity{PrincipalId: aws.String("dynamodb.amazonaws.com"), Type: aws.String("Service")}
	}
	return rec
}

// streamByARN finds a stream named by a request.
func (db *DB) streamByARN(arn *string) (*stream, error) {
	if aws.ToString(arn) == "" {
		return nil, constraint("null", "streamArn", "Member must not be null")
	}
	s := db.streams.byARN(*arn)
	if s == nil {
		return nil, &streamstypes.ResourceNotFoundException{Message: aws.String("Requested resource not found: Stream: " + *arn + " not found")}
	}
	return s, nil
}

// streamLimit checks a Limit parameter of the Streams API.
func streamLimit(limit *int32, most int, field string) (int, error) {
	if limit == nil {
		return most, nil
	}
	n := int(*limit)
	if n < 1 {
		return 0, constraint(strconv.Itoa(n), field, "Member must have value greater than or equal to 1")
	}
	if n > most {
		return 0, constraint(strconv.Itoa(n), field, fmt.Sprintf("Member must have value less than or equal to %d", most))
	}
	return n, nil
}

// shardIterator is a position in a shard: after the record with sequence
// number after. Its string form is opaque to callers.
type shardIterator struct {
	arn, shard string
	after      uint64
	issued     time.Time
}

func (it shardIterator) String() string {
	raw := strings.Join([]string{"1", it.arn, it.shard, strconv.FormatUint(it.after, 10), strconv.FormatInt(it.issued.UnixNano(), 10)}, "|")
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

func parseShardIterator(s string) (shardIterator, error) {
	bad := validationf("Invalid ShardIterator")
	if s == "" {
		return shardIterator{}, constraint("null", "shardIterator", "Member must not be null")
	}
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return shardIterator{}, bad
	}
	parts := strings.Split(string(raw), "|")
	if len(parts) != 5 || parts[0] != "1" {
		return shardIterator{}, bad
	}
	after, err1 := strconv.ParseUint(parts[3], 10, 64)
	issued, err2 := strconv.ParseInt(parts[4], 10, 64)
	if err1 != nil || err2 != nil {
		return shardIterator{}, bad
	}
	return shardIterator{arn: parts[1], shard: parts[2], after: after, issued: time.Unix(0, issued)}, nil
}

// toStreamItem converts an item to the Streams API's attribute values.
func toStreamItem(item map[string]types.AttributeValue) map[string]streamstypes.AttributeValue {
	out := make(map[string]streamstypes.AttributeValue, len(item))
	for k, v := range item {
		out[k] = toStreamValue(v)
	}
	return out
}

func toStreamValue(v types.AttributeValue) streamstypes.AttributeValue {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return &streamstypes.AttributeValueMemberS{Value: v.Value}
	case *types.AttributeValueMemberN:
		return &streamstypes.AttributeValueMemberN{Value: v.Value}
	case *types.AttributeValueMemberB:
		return &streamstypes.AttributeValueMemberB{Value: v.Value}
	case *types.AttributeValueMemberBOOL:
		return &streamstypes.AttributeValueMemberBOOL{Value: v.Value}
	case *types.AttributeValueMemberNULL:
		return &streamstypes.AttributeValueMemberNULL{Value: v.Value}
	case *types.AttributeValueMemberSS:
		return &streamstypes.AttributeValueMemberSS{Value: v.Value}
	case *types.AttributeValueMemberNS:
		return &streamstypes.AttributeValueMemberNS{Value: v.Value}
	case *types.AttributeValueMemberBS:
		return &streamstypes.AttributeValueMemberBS{Value: v.Value}
	case *types.AttributeValueMemberL:
		l := make([]streamstypes.AttributeValue, len(v.Value))
		for i, e := range v.Value {
			l[i] = toStreamValue(e)
		}
		return &streamstypes.AttributeValueMemberL{Value: l}
	case *types.AttributeValueMemberM:
		return &streamstypes.AttributeValueMemberM{Value: toStreamItem(v.Value)}
	}
	return nil
}

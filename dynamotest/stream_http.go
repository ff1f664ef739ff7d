package dynamotest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/smithy-go"

	"github.com/tablekit/tablekit/dynamotest/internal/store"
	"github.com/tablekit/tablekit/table"
)

// streamsTargetPrefix is the X-Amz-Target prefix of the DynamoDB Streams
// operations. A streams client sends them to the same endpoint as the
// DynamoDB client when both are pointed at one server.
const streamsTargetPrefix = "DynamoDBStreams_20120810."

// streamOperations are the Streams API's wire operations when the handler
// serves a *DB, keyed by their whole target (the keys of DynamoDB's
// operations have no prefix, so they never meet these). Requests and
// responses are small apart from records, whose images are written from
// their stored encoding.
func streamOperations(api table.API) map[string]wireOperation {
	db, ok := api.(*DB)
	if !ok {
		return nil
	}
	return map[string]wireOperation{
		streamsTargetPrefix + "ListStreams":      serveStreams(db.listStreamsJSON),
		streamsTargetPrefix + "DescribeStream":   serveStreams(db.describeStreamJSON),
		streamsTargetPrefix + "GetShardIterator": serveStreams(db.getShardIteratorJSON),
		streamsTargetPrefix + "GetRecords":       serveStreams(db.getRecordsJSON),
		// UpdateTable is not in table.API; the fake serves it for streams.
		"UpdateTable": serve(func(_ table.API, ctx context.Context, in *dynamodb.UpdateTableInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateTableOutput, error) {
			return db.UpdateTable(ctx, in, o...)
		}),
	}
}

// serveStreams decodes a Streams request with encoding/json (the inputs
// are strings, numbers and one small structure) and encodes the output the
// same way. Outputs are the wire's own shapes (jsonStreamDescription and
// the rest), never the SDK's output structs: those would carry the SDK's
// ResultMetadata and a null for every member left unset, which DynamoDB
// Streams never sends.
func serveStreams[In, Out any](call func(context.Context, *In, ...func(*dynamodbstreams.Options)) (*Out, error)) wireOperation {
	return func(ctx context.Context, _ table.API, body, out []byte) ([]byte, error) {
		in := new(In)
		if err := json.Unmarshal(body, in); err != nil {
			return nil, &smithy.GenericAPIError{Code: "SerializationException", Message: err.Error()}
		}
		res, err := call(ctx, in)
		if err != nil {
			return nil, err
		}
		b, err := json.Marshal(res)
		if err != nil {
			return nil, err
		}
		return append(out, b...), nil
	}
}

// epochSeconds is a time as the JSON protocol writes it.
type epochSeconds time.Time

func (t epochSeconds) MarshalJSON() ([]byte, error) {
	return strconv.AppendFloat(nil, float64(time.Time(t).UnixMilli())/1000, 'f', -1, 64), nil
}

type jsonStreams struct {
	LastEvaluatedStreamArn string `json:",omitempty"`
	Streams                []jsonStream
}

type jsonStream struct{ StreamArn, StreamLabel, TableName string }

// listStreamsJSON is ListStreams with its output shaped for the wire.
func (db *DB) listStreamsJSON(ctx context.Context, in *dynamodbstreams.ListStreamsInput, _ ...func(*dynamodbstreams.Options)) (*jsonStreams, error) {
	res, err := db.ListStreams(ctx, in)
	if err != nil {
		return nil, err
	}
	out := &jsonStreams{LastEvaluatedStreamArn: aws.ToString(res.LastEvaluatedStreamArn), Streams: make([]jsonStream, len(res.Streams))}
	for i, s := range res.Streams {
		out.Streams[i] = jsonStream{aws.ToString(s.StreamArn), aws.ToString(s.StreamLabel), aws.ToString(s.TableName)}
	}
	return out, nil
}

type jsonShardIterator struct {
	ShardIterator string `json:",omitempty"`
}

// getShardIteratorJSON is GetShardIterator with its output shaped for the
// wire.
func (db *DB) getShardIteratorJSON(ctx context.Context, in *dynamodbstreams.GetShardIteratorInput, _ ...func(*dynamodbstreams.Options)) (*jsonShardIterator, error) {
	res, err := db.GetShardIterator(ctx, in)
	if err != nil {
		return nil, err
	}
	return &jsonShardIterator{ShardIterator: aws.ToString(res.ShardIterator)}, nil
}

type jsonShard struct {
	ShardId             string
	ParentShardId       string `json:",omitempty"`
	SequenceNumberRange struct {
		StartingSequenceNumber string
		EndingSequenceNumber   string `json:",omitempty"`
	}
}

type jsonStreamDescription struct {
	StreamDescription struct {
		CreationRequestDateTime epochSeconds
		KeySchema               []struct{ AttributeName, KeyType string }
		LastEvaluatedShardId    string `json:",omitempty"`
		Shards                  []jsonShard
		StreamArn               string
		StreamLabel             string
		StreamStatus            string
		StreamViewType          string
		TableName               string
	}
}

// describeStreamJSON is DescribeStream with its output shaped for the wire.
func (db *DB) describeStreamJSON(ctx context.Context, in *dynamodbstreams.DescribeStreamInput, _ ...func(*dynamodbstreams.Options)) (*jsonStreamDescription, error) {
	res, err := db.DescribeStream(ctx, in)
	if err != nil {
		return nil, err
	}
	d := res.StreamDescription
	out := &jsonStreamDescription{}
	o := &out.StreamDescription
	o.CreationRequestDateTime = epochSeconds(aws.ToTime(d.CreationRequestDateTime))
	for _, k := range d.KeySchema {
		o.KeySchema = append(o.KeySchema, struct{ AttributeName, KeyType string }{aws.ToString(k.AttributeName), string(k.KeyType)})
	}
	o.LastEvaluatedShardId = aws.ToString(d.LastEvaluatedShardId)
	o.Shards = make([]jsonShard, 0, len(d.Shards))
	for _, sh := range d.Shards {
		var j jsonShard
		j.ShardId, j.ParentShardId = aws.ToString(sh.ShardId), aws.ToString(sh.ParentShardId)
		j.SequenceNumberRange.StartingSequenceNumber = aws.ToString(sh.SequenceNumberRange.StartingSequenceNumber)
		j.SequenceNumberRange.EndingSequenceNumber = aws.ToString(sh.SequenceNumberRange.EndingSequenceNumber)
		o.Shards = append(o.Shards, j)
	}
	o.StreamArn, o.StreamLabel = aws.ToString(d.StreamArn), aws.ToString(d.StreamLabel)
	o.StreamStatus, o.StreamViewType = string(d.StreamStatus), string(d.StreamViewType)
	o.TableName = aws.ToString(d.TableName)
	return out, nil
}

// storedItem is an item's stored encoding, written as DynamoDB JSON.
type storedItem string

func (s storedItem) MarshalJSON() ([]byte, error) { return store.AppendJSON(nil, string(s)), nil }

type jsonRecord struct {
	AwsRegion string `json:"awsRegion"`
	Dynamodb  struct {
		ApproximateCreationDateTime epochSeconds
		Keys                        storedItem
		NewImage                    storedItem `json:",omitempty"`
		OldImage                    storedItem `json:",omitempty"`
		SequenceNumber              string
		SizeBytes                   int64
		StreamViewType              string
	} `json:"dynamodb"`
	EventID      string             `json:"eventID"`
	EventName    string             `json:"eventName"`
	EventSource  string             `json:"eventSource"`
	EventVersion string             `json:"eventVersion"`
	UserIdentity *map[string]string `json:"userIdentity,omitempty"`
}

type jsonRecords struct {
	NextShardIterator *string `json:",omitempty"`
	Records           []jsonRecord
}

// getRecordsJSON is GetRecords with its output shaped for the wire: images
// go from their stored encoding to JSON without a map between.
func (db *DB) getRecordsJSON(ctx context.Context, in *dynamodbstreams.GetRecordsInput, _ ...func(*dynamodbstreams.Options)) (*jsonRecords, error) {
	s, recs, next, err := db.getRecords(in)
	if err != nil {
		return nil, err
	}
	out := &jsonRecords{NextShardIterator: next, Records: make([]jsonRecord, len(recs))}
	for i := range recs {
		r, j := &recs[i], &out.Records[i]
		j.AwsRegion, j.EventID, j.EventName = "us-east-1", s.eventID(r), r.event
		j.EventSource, j.EventVersion = "aws:dynamodb", "1.1"
		d := &j.Dynamodb
		d.ApproximateCreationDateTime = epochSeconds(r.at.Truncate(time.Second))
		d.Keys, d.NewImage, d.OldImage = storedItem(r.keys), storedItem(r.newImage), storedItem(r.oldImage)
		d.SequenceNumber, d.SizeBytes, d.StreamViewType = formatSeq(r.seq), r.size, string(s.view)
		if r.byService {
			j.UserIdentity = &map[string]string{"PrincipalId": "dynamodb.amazonaws.com", "Type": "Service"}
		}
	}
	return out, nil
}

// eventID is a record's unique id.
func (s *stream) eventID(r *streamRecord) string { return fmt.Sprintf("%016x%016x", s.hash, r.seq) }

// NewStreamsClient returns a DynamoDB Streams client for an endpoint served
// by a handler from NewHandler (or cmd/dynamotest, or DynamoDB Local), set
// up as NewClient sets up DynamoDB clients: static credentials, region
// us-east-1, no retries.
func NewStreamsClient(endpoint string, optFns ...func(*dynamodbstreams.Options)) *dynamodbstreams.Client {
	return dynamodbstreams.New(dynamodbstreams.Options{
		BaseEndpoint: aws.String(endpoint),
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("dynamotest", "dynamotest", ""),
		Retryer:      aws.NopRetryer{},
		HTTPClient:   &http.Client{Transport: memoryBody{newTransport()}},
	}, optFns...)
}

// StreamsClient returns a DynamoDB Streams client for the server, as
// NewStreamsClient builds it.
func (s *Server) StreamsClient() *dynamodbstreams.Client { return NewStreamsClient(s.URL) }

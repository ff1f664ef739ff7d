package changes

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"

	"github.com/tablekit/tablekit/table"
)

// StreamsAPI is the part of *dynamodbstreams.Client a Consumer uses. The
// real client and dynamotest's fake both satisfy it.
type StreamsAPI interface {
	DescribeStream(ctx context.Context, in *dynamodbstreams.DescribeStreamInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.DescribeStreamOutput, error)
	GetShardIterator(ctx context.Context, in *dynamodbstreams.GetShardIteratorInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetShardIteratorOutput, error)
	GetRecords(ctx context.Context, in *dynamodbstreams.GetRecordsInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error)
}

var _ StreamsAPI = (*dynamodbstreams.Client)(nil)

// TableUpdater was the part of *dynamodb.Client EnableStream used, before
// table.API had UpdateTable.
//
// Deprecated: pass a table.API.
type TableUpdater = table.API

// EnableStream turns on the stream of an existing table with the given view
// and returns its ARN: table.EnableStream, with this package's errors. A
// table that already streams with that view is left alone; one that
// streams with another view is refused with ErrStreamViewMismatch
// (changing it would start a new stream and lose the consumers' place). A
// schema can ask for its stream itself (table.Schema.Stream), so that
// EnsureTable turns it on and tables check reports its drift.
func EnableStream(ctx context.Context, db table.API, tableName string, view types.StreamViewType) (string, error) {
	if db == nil {
		return "", fmt.Errorf("%w: nil table.API", ErrInvalidInput)
	}
	arn, err := table.EnableStream(ctx, db, tableName, view)
	switch {
	case errors.Is(err, table.ErrInvalidInput):
		return "", fmt.Errorf("%w: %w", ErrInvalidInput, err)
	case errors.Is(err, table.ErrDrift):
		return "", fmt.Errorf("%w: %w", ErrStreamViewMismatch, err)
	case err != nil:
		return "", fmt.Errorf("changes: enable stream on %s: %w", tableName, err)
	}
	return arn, nil
}

// latestStream returns the ARN of the table's enabled stream.
func latestStream(ctx context.Context, db interface {
	DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
}, tableName string) (string, error) {
	out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(tableName)})
	if err != nil {
		return "", fmt.Errorf("changes: describe table %s: %w", tableName, err)
	}
	spec := out.Table.StreamSpecification
	if spec == nil || !aws.ToBool(spec.StreamEnabled) || aws.ToString(out.Table.LatestStreamArn) == "" {
		return "", fmt.Errorf("%w: %s", ErrNoStream, tableName)
	}
	return aws.ToString(out.Table.LatestStreamArn), nil
}

// Sentinel errors; the errors returned wrap them (test with errors.Is).
var (
	// ErrInvalidInput: a nil dependency, an empty name or a bad option.
	ErrInvalidInput = errors.New("changes: invalid input")
	// ErrNoStream: the table has no enabled stream.
	ErrNoStream = errors.New("changes: table has no enabled stream")
	// ErrStreamViewMismatch: EnableStream found another view enabled.
	ErrStreamViewMismatch = errors.New("changes: table streams another view")
	// ErrHandler: the handler failed a batch MaxAttempts times; the error
	// wraps the handler's last error too.
	ErrHandler = errors.New("changes: handler failed")
	// ErrDecode: a record's image did not decode into the entity type.
	ErrDecode = errors.New("changes: cannot decode record")
	// ErrNotCaughtUp: CatchUp read every shard it could, and shards
	// remain that another consumer of the group holds (or that wait on a
	// parent shard it holds): they are that consumer's to read.
	ErrNotCaughtUp = errors.New("changes: not caught up: shards held by another consumer")
)

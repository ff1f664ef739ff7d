package changes

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
)

// StreamsAPI is the part of *dynamodbstreams.Client a Consumer uses. The
// real client and dynamotest's fake both satisfy it.
type StreamsAPI interface {
	DescribeStream(ctx context.Context, in *dynamodbstreams.DescribeStreamInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.DescribeStreamOutput, error)
	GetShardIterator(ctx context.Context, in *dynamodbstreams.GetShardIteratorInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetShardIteratorOutput, error)
	GetRecords(ctx context.Context, in *dynamodbstreams.GetRecordsInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error)
}

var _ StreamsAPI = (*dynamodbstreams.Client)(nil)

// TableUpdater is the part of *dynamodb.Client EnableStream uses.
type TableUpdater interface {
	DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
	UpdateTable(ctx context.Context, in *dynamodb.UpdateTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateTableOutput, error)
}

var _ TableUpdater = (*dynamodb.Client)(nil)

// EnableStream turns on the stream of an existing table with the given view
// and returns its ARN. A table that already streams with that view is left
// alone; one that streams with another view is refused with
// ErrStreamViewMismatch (changing it would start a new stream and lose the
// consumers' place).
func EnableStream(ctx context.Context, db TableUpdater, tableName string, view types.StreamViewType) (string, error) {
	if db == nil {
		return "", fmt.Errorf("%w: nil TableUpdater", ErrInvalidInput)
	}
	switch view {
	case types.StreamViewTypeKeysOnly, types.StreamViewTypeNewImage, types.StreamViewTypeOldImage, types.StreamViewTypeNewAndOldImages:
	default:
		return "", fmt.Errorf("%w: stream view %q", ErrInvalidInput, view)
	}
	if tableName == "" {
		return "", fmt.Errorf("%w: empty table name", ErrInvalidInput)
	}
	out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(tableName)})
	if err != nil {
		return "", fmt.Errorf("changes: describe table %s: %w", tableName, err)
	}
	if spec := out.Table.StreamSpecification; spec != nil && aws.ToBool(spec.StreamEnabled) {
		if spec.StreamViewType != view {
			return "", fmt.Errorf("%w: table %s streams %s, not %s", ErrStreamViewMismatch, tableName, spec.StreamViewType, view)
		}
		return aws.ToString(out.Table.LatestStreamArn), nil
	}
	up, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(tableName),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: view}})
	if err != nil {
		return "", fmt.Errorf("changes: enable stream on %s: %w", tableName, err)
	}
	return aws.ToString(up.TableDescription.LatestStreamArn), nil
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
)

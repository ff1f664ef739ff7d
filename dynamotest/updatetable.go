package dynamotest

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// UpdateTable changes a table's settings. The fake supports turning its
// stream on and off (StreamSpecification); any other change fails with a
// ValidationException that says so. Enabling a stream on a table that had
// one starts a new stream, with a new label and ARN; the old one stays
// readable until its records age out, as in DynamoDB.
func (db *DB) UpdateTable(ctx context.Context, in *dynamodb.UpdateTableInput, _ ...func(*dynamodb.Options)) (*dynamodb.UpdateTableOutput, error) {
	in = orEmpty(in)
	name := aws.ToString(in.TableName)
	if err := checkName("tableName", name); err != nil {
		return nil, err
	}
	if in.AttributeDefinitions != nil || in.BillingMode != "" || in.ProvisionedThroughput != nil ||
		in.GlobalSecondaryIndexUpdates != nil || in.SSESpecification != nil || in.ReplicaUpdates != nil ||
		in.TableClass != "" || in.DeletionProtectionEnabled != nil || in.OnDemandThroughput != nil ||
		in.WarmThroughput != nil || in.MultiRegionConsistency != "" || in.GlobalTableWitnessUpdates != nil {
		return nil, validationf("dynamotest: UpdateTable supports only StreamSpecification")
	}
	if in.StreamSpecification == nil {
		return nil, validationf("At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates or SSESpecification or ReplicaUpdates is required")
	}
	on, err := checkStreamSpec(in.StreamSpecification)
	if err != nil {
		return nil, err
	}
	t := db.table(name)
	if t == nil {
		return nil, tableNotFound(name)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.deleted {
		return nil, tableNotFound(name)
	}
	switch {
	case on && t.stream != nil:
		return nil, validationf("Table already has an enabled stream: TableName: %s", name)
	case !on && t.stream == nil:
		return nil, validationf("Table already has stream disabled: TableName: %s", name)
	case on:
		t.stream = newStream(t, in.StreamSpecification.StreamViewType, db.now)
		db.streams.add(t.stream)
	default:
		t.stopStream()
	}
	return &dynamodb.UpdateTableOutput{TableDescription: t.describeLocked("ACTIVE")}, nil
}

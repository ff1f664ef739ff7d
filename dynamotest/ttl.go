package dynamotest

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// UpdateTimeToLive enables or disables TTL on a table. Enabled takes effect
// at once (DynamoDB takes up to an hour); expired items are deleted when
// the clock next moves (Advance, SetTime).
func (db *DB) UpdateTimeToLive(ctx context.Context, in *dynamodb.UpdateTimeToLiveInput, _ ...func(*dynamodb.Options)) (res *dynamodb.UpdateTimeToLiveOutput, err error) {
	defer acknowledged(db, &res, &err)
	in = orEmpty(in)
	name := aws.ToString(in.TableName)
	if _, err := db.stats.begin(ctx, opUpdateTimeToLive, name); err != nil {
		return nil, err
	}
	spec := in.TimeToLiveSpecification
	if spec == nil || spec.AttributeName == nil || spec.Enabled == nil {
		return nil, constraint("null", "timeToLiveSpecification", "Member must not be null")
	}
	attrName := *spec.AttributeName
	if attrName == "" {
		return nil, constraint("", "timeToLiveSpecification.attributeName", "Member must have length greater than or equal to 1")
	}
	t := db.table(name)
	if t == nil {
		return nil, resourceNotFound()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.deleted {
		return nil, resourceNotFound()
	}
	enable := *spec.Enabled
	switch {
	case enable && t.ttlEnabled && t.ttlAttr == attrName:
		return nil, validationf("TimeToLive is already enabled")
	case enable && t.ttlEnabled:
		return nil, validationf("TimeToLive is active on a different AttributeName: current AttributeName is %s", t.ttlAttr)
	case !enable && !t.ttlEnabled:
		return nil, validationf("TimeToLive is already disabled")
	case !enable && t.ttlAttr != attrName:
		return nil, validationf("TimeToLive is active on a different AttributeName: current AttributeName is %s", t.ttlAttr)
	}
	t.ttlEnabled = enable
	t.ttlAttr = attrName
	t.rebuildExpiries()
	t.changed()
	return &dynamodb.UpdateTimeToLiveOutput{TimeToLiveSpecification: &types.TimeToLiveSpecification{
		AttributeName: aws.String(attrName),
		Enabled:       aws.Bool(enable),
	}}, nil
}

// DescribeTimeToLive reports whether TTL is enabled on a table and on which
// attribute.
func (db *DB) DescribeTimeToLive(ctx context.Context, in *dynamodb.DescribeTimeToLiveInput, _ ...func(*dynamodb.Options)) (res *dynamodb.DescribeTimeToLiveOutput, err error) {
	defer acknowledged(db, &res, &err)
	in = orEmpty(in)
	name := aws.ToString(in.TableName)
	if _, err := db.stats.begin(ctx, opDescribeTimeToLive, name); err != nil {
		return nil, err
	}
	t := db.table(name)
	if t == nil {
		return nil, resourceNotFound()
	}
	t.mu.RLock()
	defer t.mu.RUnlock()
	if t.deleted {
		return nil, resourceNotFound()
	}
	d := &types.TimeToLiveDescription{TimeToLiveStatus: types.TimeToLiveStatusDisabled}
	if t.ttlEnabled {
		d.TimeToLiveStatus = types.TimeToLiveStatusEnabled
		d.AttributeName = aws.String(t.ttlAttr)
	}
	return &dynamodb.DescribeTimeToLiveOutput{TimeToLiveDescription: d}, nil
}

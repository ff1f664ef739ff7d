package dynamotest

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// DescribeLimits reports the account's and a table's capacity limits,
// DynamoDB's defaults: the fake records provisioned throughput but does not
// enforce it, so these are what a real account would start with.
func (db *DB) DescribeLimits(ctx context.Context, in *dynamodb.DescribeLimitsInput, _ ...func(*dynamodb.Options)) (res *dynamodb.DescribeLimitsOutput, err error) {
	defer acknowledged(db, &res, &err)
	if _, err := db.stats.begin(ctx, opDescribeLimits); err != nil {
		return nil, err
	}
	return &dynamodb.DescribeLimitsOutput{
		AccountMaxReadCapacityUnits:  aws.Int64(80000),
		AccountMaxWriteCapacityUnits: aws.Int64(80000),
		TableMaxReadCapacityUnits:    aws.Int64(40000),
		TableMaxWriteCapacityUnits:   aws.Int64(40000),
	}, nil
}

package dynamotest

import (
	"context"
	"fmt"
	"sort"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// ListTables lists table names in order, at most Limit (1 to 100, default
// 100) per page; LastEvaluatedTableName is set when more may follow.
func (db *DB) ListTables(ctx context.Context, in *dynamodb.ListTablesInput, _ ...func(*dynamodb.Options)) (res *dynamodb.ListTablesOutput, err error) {
	defer acknowledged(db, &res, &err)
	in = orEmpty(in)
	if _, err := db.stats.begin(ctx, opListTables); err != nil {
		return nil, err
	}
	limit := 100
	if in.Limit != nil {
		l := int(*in.Limit)
		switch {
		case l < 1:
			return nil, constraint(fmt.Sprint(l), "limit", "Member must have value greater than or equal to 1")
		case l > 100:
			return nil, constraint(fmt.Sprint(l), "limit", "Member must have value less than or equal to 100")
		}
		limit = l
	}
	names := db.tableNames()
	start := 0
	if in.ExclusiveStartTableName != nil {
		start = sort.SearchStrings(names, *in.ExclusiveStartTableName)
		if start < len(names) && names[start] == *in.ExclusiveStartTableName {
			start++
		}
	}
	out := &dynamodb.ListTablesOutput{TableNames: []string{}}
	end := min(start+limit, len(names))
	out.TableNames = append(out.TableNames, names[start:end]...)
	if end < len(names) {
		out.LastEvaluatedTableName = aws.String(names[end-1])
	}
	return out, nil
}

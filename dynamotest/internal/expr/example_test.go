package expr_test

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest/internal/expr"
)

// A conditional update as the fake's engine runs it: both expressions are
// parsed through one Env, unused placeholders are rejected, then the
// condition is checked against the stored item and the update applied.
func ExampleEnv() {
	stored := map[string]types.AttributeValue{
		"pk":      &types.AttributeValueMemberS{Value: "JOB#1"},
		"status":  &types.AttributeValueMemberS{Value: "QUEUED"},
		"version": &types.AttributeValueMemberN{Value: "7"},
	}
	env := expr.NewEnv(
		map[string]string{"#s": "status"},
		map[string]types.AttributeValue{
			":queued":  &types.AttributeValueMemberS{Value: "QUEUED"},
			":running": &types.AttributeValueMemberS{Value: "RUNNING"},
			":one":     &types.AttributeValueMemberN{Value: "1"},
		})
	cond, err := env.Condition("#s = :queued")
	if err != nil {
		panic(err)
	}
	upd, err := env.Update("SET #s = :running, version = version + :one")
	if err != nil {
		panic(err)
	}
	if err := env.CheckUnused(); err != nil {
		panic(err)
	}
	ok, _ := cond.Eval(stored)
	fmt.Println("condition holds:", ok)
	updated, err := upd.Apply(stored)
	if err != nil {
		panic(err)
	}
	fmt.Println(updated["status"].(*types.AttributeValueMemberS).Value, updated["version"].(*types.AttributeValueMemberN).Value)
	fmt.Println("stored item untouched:", stored["status"].(*types.AttributeValueMemberS).Value)
	// Output:
	// condition holds: true
	// RUNNING 8
	// stored item untouched: QUEUED
}

// Errors carry DynamoDB's wording, which the engine returns in a
// ValidationException.
func ExampleError() {
	_, err := expr.NewEnv(nil, nil).Condition("status = :s")
	fmt.Println(err)
	// Output:
	// Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: status
}

package expr

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// A typical optimistic-locking condition of the kind tablekit sends.
const benchCondition = "attribute_exists(pk) AND #s = :open AND version < :v AND begins_with(sk, :prefix)"

func benchEnv() *Env {
	return NewEnv(map[string]string{"#s": "status"}, map[string]types.AttributeValue{
		":open":   &types.AttributeValueMemberS{Value: "OPEN"},
		":v":      &types.AttributeValueMemberN{Value: "42"},
		":prefix": &types.AttributeValueMemberS{Value: "STAGE#"},
		":one":    &types.AttributeValueMemberN{Value: "1"},
		":now":    &types.AttributeValueMemberS{Value: "2025-11-01T20:30:00.000000Z"},
	})
}

func benchItem() map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"pk":      &types.AttributeValueMemberS{Value: "JOURNEY#01J9Z"},
		"sk":      &types.AttributeValueMemberS{Value: "STAGE#03#review"},
		"status":  &types.AttributeValueMemberS{Value: "OPEN"},
		"version": &types.AttributeValueMemberN{Value: "41"},
		"payload": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"a": &types.AttributeValueMemberS{Value: "b"}}},
	}
}

func BenchmarkConditionParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := benchEnv().Condition(benchCondition); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkConditionEval(b *testing.B) {
	c, err := benchEnv().Condition(benchCondition)
	if err != nil {
		b.Fatal(err)
	}
	it := benchItem()
	b.ReportAllocs()
	for b.Loop() {
		if ok, _ := c.Eval(it); !ok {
			b.Fatal("condition should hold")
		}
	}
}

func BenchmarkConditionParseAndEval(b *testing.B) {
	it := benchItem()
	b.ReportAllocs()
	for b.Loop() {
		c, err := benchEnv().Condition(benchCondition)
		if err != nil {
			b.Fatal(err)
		}
		if ok, _ := c.Eval(it); !ok {
			b.Fatal("condition should hold")
		}
	}
}

func BenchmarkUpdateParseAndApply(b *testing.B) {
	it := benchItem()
	b.ReportAllocs()
	for b.Loop() {
		u, err := benchEnv().Update("SET version = version + :one, updatedAt = :now, #s = :open REMOVE payload.a")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := u.Apply(it); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkProjectionApply(b *testing.B) {
	p, err := benchEnv().Projection("pk, sk, payload.a")
	if err != nil {
		b.Fatal(err)
	}
	it := benchItem()
	b.ReportAllocs()
	for b.Loop() {
		p.Apply(it)
	}
}

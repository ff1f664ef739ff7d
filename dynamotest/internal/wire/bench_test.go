package wire

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// A page of 25 items of 1 KB, the body of a typical Query response.
func benchPage() *dynamodb.QueryOutput {
	out := &dynamodb.QueryOutput{Count: 25, ScannedCount: 25}
	for i := range 25 {
		out.Items = append(out.Items, map[string]types.AttributeValue{
			"pk":   &types.AttributeValueMemberS{Value: "LARGE"},
			"sk":   &types.AttributeValueMemberS{Value: fmt.Sprintf("ITEM#%06d", i)},
			"data": &types.AttributeValueMemberS{Value: strings.Repeat("x", 1000)},
			"n":    &types.AttributeValueMemberN{Value: "12345"},
		})
	}
	out.LastEvaluatedKey = map[string]types.AttributeValue{"pk": out.Items[24]["pk"], "sk": out.Items[24]["sk"]}
	return out
}

func BenchmarkMarshalQueryPage(b *testing.B) {
	page := benchPage()
	buf := Marshal(page)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		buf = Append(buf[:0], page)
	}
}

func BenchmarkUnmarshalQueryPage(b *testing.B) {
	body := Marshal(benchPage())
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var out dynamodb.QueryOutput
		if err := Unmarshal(body, &out); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUnmarshalPutItem1KB(b *testing.B) {
	body := Marshal(&dynamodb.PutItemInput{TableName: aws.String("bench"), Item: benchPage().Items[0]})
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var in dynamodb.PutItemInput
		if err := Unmarshal(body, &in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUnmarshalQueryInput(b *testing.B) {
	body := []byte(`{"TableName":"bench","KeyConditionExpression":"pk = :p AND begins_with(sk, :prefix)","ExpressionAttributeValues":{":p":{"S":"LARGE"},":prefix":{"S":"ITEM#"}},"ExclusiveStartKey":{"pk":{"S":"LARGE"},"sk":{"S":"ITEM#050000"}},"Limit":25}`)
	b.ReportAllocs()
	for b.Loop() {
		var in dynamodb.QueryInput
		if err := Unmarshal(body, &in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerbatim checks a 1 KB string, what a store pays per write of a
// typical item to answer its reads by copying.
func BenchmarkVerbatim(b *testing.B) {
	s := strings.Repeat("abcdefgh", 128)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		if !Verbatim(s) {
			b.Fatal("not verbatim")
		}
	}
}

package table

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestItemSizeFollowsDynamoDBRules(t *testing.T) {
	cases := []struct {
		name string
		item Item
		want int
	}{
		{"empty item", Item{}, 0},
		{"string counts name and UTF-8 bytes", Item{"pk": &types.AttributeValueMemberS{Value: "héllo"}}, 2 + 6},
		{"empty string", Item{"s": &types.AttributeValueMemberS{Value: ""}}, 1},
		{"binary counts raw bytes", Item{"data": &types.AttributeValueMemberB{Value: []byte{1, 2, 3}}}, 4 + 3},
		{"bool is one byte", Item{"ok": &types.AttributeValueMemberBOOL{Value: true}}, 2 + 1},
		{"null is one byte", Item{"n": &types.AttributeValueMemberNULL{Value: true}}, 1 + 1},
		{"number one digit", Item{"n": &types.AttributeValueMemberN{Value: "7"}}, 1 + 2},
		{"number two digits", Item{"n": &types.AttributeValueMemberN{Value: "27"}}, 1 + 2},
		{"number three digits", Item{"n": &types.AttributeValueMemberN{Value: "123"}}, 1 + 3},
		{"negative number costs a byte more", Item{"n": &types.AttributeValueMemberN{Value: "-123"}}, 1 + 4},
		{"zero", Item{"n": &types.AttributeValueMemberN{Value: "0"}}, 1 + 1},
		{"number trims leading and trailing zeros", Item{"n": &types.AttributeValueMemberN{Value: "000120.0500"}}, 1 + 4},
		{"trailing zero pairs are free", Item{"n": &types.AttributeValueMemberN{Value: "1000000"}}, 1 + 2},
		{"digits pair on the decimal point: 1.5 is 01|50", Item{"n": &types.AttributeValueMemberN{Value: "1.5"}}, 1 + 3},
		{"12.5 is 12|50", Item{"n": &types.AttributeValueMemberN{Value: "12.5"}}, 1 + 3},
		{"0.012 is 01|20", Item{"n": &types.AttributeValueMemberN{Value: "0.012"}}, 1 + 3},
		{"tiny fraction", Item{"n": &types.AttributeValueMemberN{Value: "0.000000001"}}, 1 + 2},
		{"number 38 digits", Item{"n": &types.AttributeValueMemberN{Value: strings.Repeat("9", 38)}}, 1 + 20},
		{"exponent shifts the pairs", Item{"n": &types.AttributeValueMemberN{Value: "1.5E+10"}}, 1 + 3},
		{"exponent aligned", Item{"n": &types.AttributeValueMemberN{Value: "15e1"}}, 1 + 3},
		{"empty map is three bytes", Item{"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}}}, 1 + 3},
		{"empty list is three bytes", Item{"l": &types.AttributeValueMemberL{}}, 1 + 3},
		{
			"map element counts name, value and one byte",
			Item{"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
				"ab": &types.AttributeValueMemberS{Value: "xyz"},
			}}},
			1 + 3 + (1 + 2 + 3),
		},
		{
			"list elements count one byte each",
			Item{"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{
				&types.AttributeValueMemberS{Value: "ab"},
				&types.AttributeValueMemberBOOL{Value: false},
			}}},
			1 + 3 + (1 + 2) + (1 + 1),
		},
		{
			"nested list in map",
			Item{"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
				"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberN{Value: "1"}}},
			}}},
			1 + 3 + (1 + 1 + (3 + 1 + 2)),
		},
		{"string set sums members", Item{"ss": &types.AttributeValueMemberSS{Value: []string{"a", "bcd"}}}, 2 + 4},
		{"number set sums members", Item{"ns": &types.AttributeValueMemberNS{Value: []string{"1", "12345"}}}, 2 + 2 + 4},
		{"binary set sums members", Item{"bs": &types.AttributeValueMemberBS{Value: [][]byte{{1}, {2, 3}}}}, 2 + 3},
		{
			"attributes add up",
			Item{
				"pk": &types.AttributeValueMemberS{Value: "USER#1"},
				"sk": &types.AttributeValueMemberS{Value: "META"},
			},
			2 + 6 + 2 + 4,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, ItemSize(c.item))
		})
	}
}

func TestItemSizeAtTheLimit(t *testing.T) {
	// "b" plus 409,599 bytes is exactly 400 KB: the largest item DynamoDB accepts.
	item := Item{"b": &types.AttributeValueMemberB{Value: make([]byte, MaxItemSize-1)}}
	require.Equal(t, MaxItemSize, ItemSize(item))
	item["x"] = &types.AttributeValueMemberBOOL{Value: true}
	require.Greater(t, ItemSize(item), MaxItemSize)
}

func BenchmarkItemSize(b *testing.B) {
	item := Item{
		"PK":     &types.AttributeValueMemberS{Value: "JOURNEY#01HZX3"},
		"SK":     &types.AttributeValueMemberS{Value: "STAGE#03#transform"},
		"count":  &types.AttributeValueMemberN{Value: "-12345.678"},
		"tags":   &types.AttributeValueMemberSS{Value: []string{"a", "b", "c"}},
		"config": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"retries": &types.AttributeValueMemberN{Value: "3"}, "name": &types.AttributeValueMemberS{Value: "x"}}},
	}
	for b.Loop() {
		ItemSize(item)
	}
}

// Error messages across tablekit name attribute types as DynamoDB does.
func TestTypeOfNamesEveryAttributeType(t *testing.T) {
	cases := map[string]types.AttributeValue{
		"S": &types.AttributeValueMemberS{}, "N": &types.AttributeValueMemberN{}, "B": &types.AttributeValueMemberB{},
		"BOOL": &types.AttributeValueMemberBOOL{}, "NULL": &types.AttributeValueMemberNULL{},
		"M": &types.AttributeValueMemberM{}, "L": &types.AttributeValueMemberL{},
		"SS": &types.AttributeValueMemberSS{}, "NS": &types.AttributeValueMemberNS{}, "BS": &types.AttributeValueMemberBS{},
		"": nil,
	}
	for want, v := range cases {
		assert.Equal(t, want, TypeOf(v), "TypeOf(%T)", v)
	}
}

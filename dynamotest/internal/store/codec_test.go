package store

import (
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEncodeDecodeRoundTripsEveryType(t *testing.T) {
	item := Item{
		"s":     s("text with \x00 and \u00e9"),
		"empty": s(""),
		"n":     n("-1.5"),
		"b":     b("\x00\xff"),
		"t":     &types.AttributeValueMemberBOOL{Value: true},
		"f":     &types.AttributeValueMemberBOOL{Value: false},
		"null":  &types.AttributeValueMemberNULL{Value: true},
		"ss":    &types.AttributeValueMemberSS{Value: []string{"a", ""}},
		"ns":    &types.AttributeValueMemberNS{Value: []string{"1", "2"}},
		"bs":    &types.AttributeValueMemberBS{Value: [][]byte{{0}, {1, 2}}},
		"l":     &types.AttributeValueMemberL{Value: []types.AttributeValue{s("x"), n("2"), &types.AttributeValueMemberL{Value: []types.AttributeValue{}}}},
		"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"inner": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}},
			"k":     b("v"),
		}},
		strings.Repeat("long name ", 30): s(strings.Repeat("v", 300)),
	}
	got := Decode(Encode(item, 0))
	require.Falsef(t, !reflect.DeepEqual(got, item), "round trip changed the item:\n got %#v\nwant %#v", got, item)
	// Decoded binaries are the caller's own: changing one leaves the
	// encoding alone.
	data := Encode(item, 10)
	first := Decode(data)
	first["b"].(*types.AttributeValueMemberB).Value[0] = 'X'
	first["bs"].(*types.AttributeValueMemberBS).Value[0][0] = 'X'
	again := Decode(data)
	require.False(t, !reflect.DeepEqual(again, item), "changing a decoded binary changed the encoding")
}

func TestAttrFindsOneAttribute(t *testing.T) {
	item := Item{
		"l":  &types.AttributeValueMemberL{Value: []types.AttributeValue{s("x"), &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"k": n("1")}}}},
		"ss": &types.AttributeValueMemberSS{Value: []string{"a"}},
		"pk": s("key"),
		"n":  n("7"),
	}
	data := Encode(item, 1000)
	for name, want := range item {
		got := Attr(data, name)
		assert.Falsef(t, !reflect.DeepEqual(got, want), "Attr(%s) = %#v, want %#v", name, got, want)
	}
	assert.False(t, Attr(data, "missing") != nil || Attr(data, "") != nil, "Attr found an attribute the item lacks")
}

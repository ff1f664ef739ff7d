package conformance

import (
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Item is one DynamoDB item.
type Item = map[string]types.AttributeValue

// Shorthands for attribute values, so cases read like the data they hold.

// S is a string value.
func S(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

// N is a number value, given as DynamoDB's decimal text.
func N(s string) types.AttributeValue { return &types.AttributeValueMemberN{Value: s} }

// Ni is a number value from an int.
func Ni(i int) types.AttributeValue { return N(strconv.Itoa(i)) }

// B is a binary value.
func B(b ...byte) types.AttributeValue {
	if b == nil {
		b = []byte{}
	}
	return &types.AttributeValueMemberB{Value: b}
}

// Bs is a binary value from a string's bytes.
func Bs(s string) types.AttributeValue { return &types.AttributeValueMemberB{Value: []byte(s)} }

// Bool is a boolean value.
func Bool(b bool) types.AttributeValue { return &types.AttributeValueMemberBOOL{Value: b} }

// Null is the NULL value.
func Null() types.AttributeValue { return &types.AttributeValueMemberNULL{Value: true} }

// SS is a string set.
func SS(v ...string) types.AttributeValue { return &types.AttributeValueMemberSS{Value: v} }

// NS is a number set.
func NS(v ...string) types.AttributeValue { return &types.AttributeValueMemberNS{Value: v} }

// BS is a binary set of the strings' bytes.
func BS(v ...string) types.AttributeValue {
	out := make([][]byte, len(v))
	for i, s := range v {
		out[i] = []byte(s)
	}
	return &types.AttributeValueMemberBS{Value: out}
}

// L is a list.
func L(v ...types.AttributeValue) types.AttributeValue {
	if v == nil {
		v = []types.AttributeValue{}
	}
	return &types.AttributeValueMemberL{Value: v}
}

// M is a map built like [I].
func M(kv ...any) types.AttributeValue { return &types.AttributeValueMemberM{Value: I(kv...)} }

// I builds an item from name, value pairs. A value may be an
// AttributeValue, a string (S), an int (N) or a bool (BOOL).
func I(kv ...any) Item {
	if len(kv)%2 != 0 {
		panic("conformance: I needs name, value pairs")
	}
	item := make(Item, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		name, ok := kv[i].(string)
		if !ok {
			panic(fmt.Sprintf("conformance: I: attribute name %v is not a string", kv[i]))
		}
		item[name] = av(kv[i+1])
	}
	return item
}

func av(v any) types.AttributeValue {
	switch v := v.(type) {
	case types.AttributeValue:
		return v
	case string:
		return S(v)
	case int:
		return Ni(v)
	case bool:
		return Bool(v)
	}
	panic(fmt.Sprintf("conformance: no attribute value for %T", v))
}

// Vals builds ExpressionAttributeValues from ":name", value pairs like [I].
func Vals(kv ...any) map[string]types.AttributeValue { return I(kv...) }

// Names builds ExpressionAttributeNames from "#name", attribute pairs.
func Names(kv ...string) map[string]string {
	if len(kv)%2 != 0 {
		panic("conformance: Names needs placeholder, name pairs")
	}
	m := make(map[string]string, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

// Items is a list of items; a nil Items and an empty one mean the same
// where a case expects items.
func Items(items ...Item) []Item {
	if items == nil {
		return []Item{}
	}
	return items
}

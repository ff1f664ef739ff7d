package dynamotest

import (
	"encoding/base64"
	"slices"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest/internal/attr"
	"github.com/tablekit/tablekit/dynamotest/internal/wire"
)

// The canonical text of values, which Compare compares and shows: DynamoDB
// JSON with map keys in order, numbers in canonical form ("1.0" is "1")
// and set members sorted, so two answers holding the same values render
// the same however each store ordered a map or a set. DynamoDB promises
// no order for either.

// canonItem renders an item; nil renders as "(none)", which tells an item
// that is missing from one that is empty ({}).
func canonItem(item map[string]types.AttributeValue) string {
	if item == nil {
		return none
	}
	var b strings.Builder
	appendCanonItem(&b, item)
	return b.String()
}

// none stands for an item, key or field an answer does not have.
const none = "(none)"

func appendCanonItem(b *strings.Builder, item map[string]types.AttributeValue) {
	names := make([]string, 0, len(item))
	for n := range item {
		names = append(names, n)
	}
	sort.Strings(names)
	b.WriteByte('{')
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(wire.AppendString(nil, n))
		b.WriteByte(':')
		appendCanonValue(b, item[n])
	}
	b.WriteByte('}')
}

func appendCanonValue(b *strings.Builder, v types.AttributeValue) {
	str := func(s string) { b.Write(wire.AppendString(nil, s)) }
	member := func(typ string) { b.WriteString(`{"` + typ + `":`) }
	strs := func(typ string, ss []string) {
		member(typ)
		b.WriteByte('[')
		for i, s := range ss {
			if i > 0 {
				b.WriteByte(',')
			}
			str(s)
		}
		b.WriteString("]}")
	}
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		member("S")
		str(v.Value)
		b.WriteByte('}')
	case *types.AttributeValueMemberN:
		member("N")
		str(canonNumber(v.Value))
		b.WriteByte('}')
	case *types.AttributeValueMemberB:
		member("B")
		str(base64.StdEncoding.EncodeToString(v.Value))
		b.WriteByte('}')
	case *types.AttributeValueMemberBOOL:
		if v.Value {
			b.WriteString(`{"BOOL":true}`)
		} else {
			b.WriteString(`{"BOOL":false}`)
		}
	case *types.AttributeValueMemberNULL:
		b.WriteString(`{"NULL":true}`)
	case *types.AttributeValueMemberSS:
		strs("SS", sorted(v.Value))
	case *types.AttributeValueMemberNS:
		ns := make([]string, len(v.Value))
		for i, n := range v.Value {
			ns[i] = canonNumber(n)
		}
		slices.SortFunc(ns, attr.CompareNumbers)
		strs("NS", ns)
	case *types.AttributeValueMemberBS:
		bs := make([]string, len(v.Value))
		for i, x := range v.Value {
			bs[i] = base64.StdEncoding.EncodeToString(x)
		}
		strs("BS", sorted(bs))
	case *types.AttributeValueMemberL:
		member("L")
		b.WriteByte('[')
		for i, x := range v.Value {
			if i > 0 {
				b.WriteByte(',')
			}
			appendCanonValue(b, x)
		}
		b.WriteString("]}")
	case *types.AttributeValueMemberM:
		member("M")
		appendCanonItem(b, v.Value)
		b.WriteByte('}')
	case nil:
		b.WriteString("null")
	default:
		b.WriteString(`{"?":` + attr.TypeOf(v) + `}`)
	}
}

func sorted(ss []string) []string {
	out := slices.Clone(ss)
	sort.Strings(out)
	return out
}

// canonNumber is n's canonical text, or n itself when it is not a number
// DynamoDB would accept (then it is compared as written).
func canonNumber(n string) string {
	if c, err := attr.CanonicalNumber(n); err == nil {
		return c
	}
	return n
}

// canonValue renders one value; nil renders as "(none)".
func canonValue(v types.AttributeValue) string {
	if v == nil {
		return none
	}
	var b strings.Builder
	appendCanonValue(&b, v)
	return b.String()
}

// canonItems renders a list of items in their order.
func canonItems(items []map[string]types.AttributeValue) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = canonItem(it)
	}
	return out
}

// requestJSON renders a request as DynamoDB's JSON, for a person reading a
// difference.
func requestJSON(in any) string {
	if in == nil {
		return "{}"
	}
	return string(wire.Marshal(in))
}

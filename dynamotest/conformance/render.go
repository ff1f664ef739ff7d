package conformance

import (
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Render writes a value in a compact, deterministic notation used to compare
// values and to show them in failures: map keys sorted, set members sorted
// (DynamoDB keeps no set order), numbers exactly as returned.
func Render(v types.AttributeValue) string {
	var b strings.Builder
	render(&b, v)
	return b.String()
}

// RenderItem renders an item as a map.
func RenderItem(item Item) string {
	if item == nil {
		return "<none>"
	}
	return Render(&types.AttributeValueMemberM{Value: item})
}

func render(b *strings.Builder, v types.AttributeValue) {
	switch v := v.(type) {
	case nil:
		b.WriteString("<nil>")
	case *types.AttributeValueMemberS:
		b.WriteString(strconv.Quote(v.Value))
	case *types.AttributeValueMemberN:
		b.WriteString("N(" + v.Value + ")")
	case *types.AttributeValueMemberB:
		b.WriteString("B(" + hex.EncodeToString(v.Value) + ")")
	case *types.AttributeValueMemberBOOL:
		b.WriteString(strconv.FormatBool(v.Value))
	case *types.AttributeValueMemberNULL:
		b.WriteString("null")
	case *types.AttributeValueMemberSS:
		s := append([]string(nil), v.Value...)
		for i := range s {
			s[i] = strconv.Quote(s[i])
		}
		sort.Strings(s)
		b.WriteString("SS[" + strings.Join(s, ",") + "]")
	case *types.AttributeValueMemberNS:
		s := append([]string(nil), v.Value...)
		sort.Strings(s)
		b.WriteString("NS[" + strings.Join(s, ",") + "]")
	case *types.AttributeValueMemberBS:
		s := make([]string, len(v.Value))
		for i, x := range v.Value {
			s[i] = hex.EncodeToString(x)
		}
		sort.Strings(s)
		b.WriteString("BS[" + strings.Join(s, ",") + "]")
	case *types.AttributeValueMemberL:
		b.WriteString("[")
		for i, x := range v.Value {
			if i > 0 {
				b.WriteString(",")
			}
			render(b, x)
		}
		b.WriteString("]")
	case *types.AttributeValueMemberM:
		keys := make([]string, 0, len(v.Value))
		for k := range v.Value {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("{")
		for i, k := range keys {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(k + ":")
			render(b, v.Value[k])
		}
		b.WriteString("}")
	default:
		fmt.Fprintf(b, "<%T>", v)
	}
}

// renderItems renders each item, keeping order.
func renderItems(items []Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = RenderItem(it)
	}
	return out
}

func renderList(items []Item) string {
	if len(items) == 0 {
		return "(no items)"
	}
	return "\n\t" + strings.Join(renderItems(items), "\n\t")
}

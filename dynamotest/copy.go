package dynamotest

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest/internal/attr"
)

// Items handed to callers are deep copies: a caller may modify what it
// gets back without touching what the fake stores.

// copyItem deep-copies a stored item for a caller. It is attr.CopyItem with
// one economy on the read path: the item's top-level strings and numbers,
// most of any item, are copied into one allocation per type instead of one
// each (the slices never grow past their capacity, so the pointers taken
// stay valid). Everything else goes through attr.Copy.
func copyItem(item map[string]types.AttributeValue) map[string]types.AttributeValue {
	if item == nil {
		return nil
	}
	var ss []types.AttributeValueMemberS
	var ns []types.AttributeValueMemberN
	out := make(map[string]types.AttributeValue, len(item))
	for k, v := range item {
		switch v := v.(type) {
		case *types.AttributeValueMemberS:
			if ss == nil {
				ss = make([]types.AttributeValueMemberS, 0, len(item))
			}
			ss = append(ss, types.AttributeValueMemberS{Value: v.Value})
			out[k] = &ss[len(ss)-1]
		case *types.AttributeValueMemberN:
			if ns == nil {
				ns = make([]types.AttributeValueMemberN, 0, len(item))
			}
			ns = append(ns, types.AttributeValueMemberN{Value: v.Value})
			out[k] = &ns[len(ns)-1]
		default:
			out[k] = attr.Copy(v)
		}
	}
	return out
}

func copyValue(v types.AttributeValue) types.AttributeValue {
	return attr.Copy(v)
}

// keyString identifies a key value: "1.0" and "1" are one number.
func keyString(v types.AttributeValue) string { return attr.KeyString(v) }

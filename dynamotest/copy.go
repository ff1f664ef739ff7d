package dynamotest

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest/internal/attr"
)

// Items handed to callers are deep copies: a caller may modify what it
// gets back without touching what the fake stores.

func copyItem(item map[string]types.AttributeValue) map[string]types.AttributeValue {
	return attr.CopyItem(item)
}

func copyValue(v types.AttributeValue) types.AttributeValue {
	return attr.Copy(v)
}

// keyString identifies a key value: "1.0" and "1" are one number.
func keyString(v types.AttributeValue) string { return attr.KeyString(v) }

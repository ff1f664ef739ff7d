package dynamotest

import (
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"sort"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// fingerprint digests everything in a TransactWriteItems request that
// decides what it does, so a replayed ClientRequestToken can be told apart
// from a token reused with other parameters. Maps are written in key order
// and every field is length-prefixed, so two requests share a fingerprint
// only when they are the same request.
func fingerprint(in *dynamodb.TransactWriteItemsInput) [32]byte {
	f := fp{h: sha256.New()}
	f.int(len(in.TransactItems))
	for _, it := range in.TransactItems {
		switch {
		case it.Put != nil:
			f.str("put")
			f.str(aws.ToString(it.Put.TableName))
			f.item(it.Put.Item)
			f.opt(it.Put.ConditionExpression)
			f.names(it.Put.ExpressionAttributeNames)
			f.item(it.Put.ExpressionAttributeValues)
			f.str(string(it.Put.ReturnValuesOnConditionCheckFailure))
		case it.Update != nil:
			f.str("update")
			f.str(aws.ToString(it.Update.TableName))
			f.item(it.Update.Key)
			f.opt(it.Update.UpdateExpression)
			f.opt(it.Update.ConditionExpression)
			f.names(it.Update.ExpressionAttributeNames)
			f.item(it.Update.ExpressionAttributeValues)
			f.str(string(it.Update.ReturnValuesOnConditionCheckFailure))
		case it.Delete != nil:
			f.str("delete")
			f.str(aws.ToString(it.Delete.TableName))
			f.item(it.Delete.Key)
			f.opt(it.Delete.ConditionExpression)
			f.names(it.Delete.ExpressionAttributeNames)
			f.item(it.Delete.ExpressionAttributeValues)
			f.str(string(it.Delete.ReturnValuesOnConditionCheckFailure))
		case it.ConditionCheck != nil:
			f.str("check")
			f.str(aws.ToString(it.ConditionCheck.TableName))
			f.item(it.ConditionCheck.Key)
			f.opt(it.ConditionCheck.ConditionExpression)
			f.names(it.ConditionCheck.ExpressionAttributeNames)
			f.item(it.ConditionCheck.ExpressionAttributeValues)
			f.str(string(it.ConditionCheck.ReturnValuesOnConditionCheckFailure))
		default:
			f.str("none")
		}
	}
	var sum [32]byte
	f.h.Sum(sum[:0])
	return sum
}

type fp struct{ h hash.Hash }

func (f fp) int(n int) {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(n))
	f.h.Write(b[:])
}

func (f fp) str(s string) {
	f.int(len(s))
	f.h.Write([]byte(s))
}

func (f fp) opt(s *string) {
	if s == nil {
		f.int(-1)
		return
	}
	f.str(*s)
}

func (f fp) names(m map[string]string) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	f.int(len(keys))
	for _, k := range keys {
		f.str(k)
		f.str(m[k])
	}
}

func (f fp) item(m map[string]types.AttributeValue) {
	if m == nil {
		f.int(-1)
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	f.int(len(keys))
	for _, k := range keys {
		f.str(k)
		f.value(m[k])
	}
}

func (f fp) value(v types.AttributeValue) {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		f.str("S")
		f.str(v.Value)
	case *types.AttributeValueMemberN:
		f.str("N")
		f.str(v.Value)
	case *types.AttributeValueMemberB:
		f.str("B")
		f.str(string(v.Value))
	case *types.AttributeValueMemberBOOL:
		f.str("BOOL")
		if v.Value {
			f.int(1)
		} else {
			f.int(0)
		}
	case *types.AttributeValueMemberNULL:
		f.str("NULL")
	case *types.AttributeValueMemberSS:
		f.str("SS")
		f.int(len(v.Value))
		for _, s := range v.Value {
			f.str(s)
		}
	case *types.AttributeValueMemberNS:
		f.str("NS")
		f.int(len(v.Value))
		for _, s := range v.Value {
			f.str(s)
		}
	case *types.AttributeValueMemberBS:
		f.str("BS")
		f.int(len(v.Value))
		for _, b := range v.Value {
			f.str(string(b))
		}
	case *types.AttributeValueMemberL:
		f.str("L")
		f.int(len(v.Value))
		for _, e := range v.Value {
			f.value(e)
		}
	case *types.AttributeValueMemberM:
		f.str("M")
		f.item(v.Value)
	default:
		f.str("?")
	}
}

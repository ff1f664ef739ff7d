package dynamotest

import (
	"encoding/base64"
	"fmt"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/iam"
)

// The condition keys an Enforced fake sets beyond PartiQL's.
const (
	// ConditionLeadingKeys is the partition key value of the item a request
	// reads or writes (a Query's, the item's of GetItem, PutItem,
	// UpdateItem and DeleteItem, each item's of a batch or a transaction,
	// a PartiQL statement's whose WHERE clause fixes it): what a policy
	// restricting a caller to its own partitions compares. A Scan has none.
	// A batch is authorized item by item, each with its one value, so a
	// condition on the key must hold for every item, as IAM's
	// ForAllValues does for the request's set of values.
	ConditionLeadingKeys = "dynamodb:LeadingKeys"
	// ConditionSecureTransport is "true" for a request that came over TLS,
	// "false" over plain HTTP (Handler on an http:// endpoint); a call in
	// process counts as secure, as an SDK client's calls to DynamoDB are.
	ConditionSecureTransport = "aws:SecureTransport"
)

// evaluable are the condition keys an Enforced fake sets on its requests.
var evaluable = []string{ConditionEnclosingOperation, ConditionFullTableScan, ConditionLeadingKeys, ConditionSecureTransport}

// checkDenyConditions refuses a policy with a Deny whose Condition names a
// key the fake does not set: such a Deny would never match here, and the
// fake would allow what IAM denies. An Allow on such a key is kept: it
// never matches either, which only makes the fake stricter than IAM.
func checkDenyConditions(p iam.Policy) error {
	for i, s := range p.Statement {
		if s.Effect != iam.Deny {
			continue
		}
		var keys []string
		for _, byKey := range s.Condition {
			for key := range byKey {
				keys = append(keys, key)
			}
		}
		sort.Strings(keys)
		for _, key := range keys {
			known := false
			for _, k := range evaluable {
				known = known || strings.EqualFold(k, key)
			}
			if !known {
				return fmt.Errorf("%w: Statement[%d] denies on condition key %s, which dynamotest does not evaluate (it sets %s), "+
					"so the Deny would never apply and the fake would be looser than IAM", iam.ErrInvalidPolicy, i, key, strings.Join(evaluable, ", "))
			}
		}
	}
	return nil
}

// with returns ctx (a new map when nil) with key set to v.
func with(ctx map[string]string, key, v string) map[string]string {
	if ctx == nil {
		ctx = map[string]string{}
	}
	ctx[key] = v
	return ctx
}

// withLeadingKeys gives each request of in the dynamodb:LeadingKeys value
// of the item it touches, splitting a batch's per-table request into one
// per item. pk names a table's partition key. Requests whose key cannot be
// told (a missing table, an unparsable key condition) stay without it, so
// only a policy that does not ask for the key lets them through.
func withLeadingKeys(reqs []iam.Request, in any, db *DB) []iam.Request {
	leading := func(table string, item map[string]types.AttributeValue) (string, bool) {
		name, _, ok := db.keyNames(table, "")
		if !ok {
			return "", false
		}
		return keyText(item[name])
	}
	set := func(r *iam.Request, table string, item map[string]types.AttributeValue) {
		if v, ok := leading(table, item); ok {
			r.Context = with(r.Context, ConditionLeadingKeys, v)
		}
	}
	switch in := in.(type) {
	case *dynamodb.GetItemInput:
		set(&reqs[0], aws.ToString(in.TableName), in.Key)
	case *dynamodb.PutItemInput:
		set(&reqs[0], aws.ToString(in.TableName), in.Item)
	case *dynamodb.UpdateItemInput:
		set(&reqs[0], aws.ToString(in.TableName), in.Key)
	case *dynamodb.DeleteItemInput:
		set(&reqs[0], aws.ToString(in.TableName), in.Key)
	case *dynamodb.QueryInput:
		if v, ok := queryHash(in, db); ok {
			reqs[0].Context = with(reqs[0].Context, ConditionLeadingKeys, v)
		}
	case *dynamodb.BatchGetItemInput:
		return perItem(reqs, func(table string) []map[string]types.AttributeValue { return in.RequestItems[table].Keys }, leading)
	case *dynamodb.BatchWriteItemInput:
		return perItem(reqs, func(table string) []map[string]types.AttributeValue {
			var items []map[string]types.AttributeValue
			for _, w := range in.RequestItems[table] {
				switch {
				case w.PutRequest != nil:
					items = append(items, w.PutRequest.Item)
				case w.DeleteRequest != nil:
					items = append(items, w.DeleteRequest.Key)
				}
			}
			return items
		}, leading)
	case *dynamodb.TransactGetItemsInput:
		i := 0
		for _, it := range in.TransactItems {
			if it.Get != nil && i < len(reqs) {
				set(&reqs[i], aws.ToString(it.Get.TableName), it.Get.Key)
				i++
			}
		}
	case *dynamodb.TransactWriteItemsInput:
		i := 0
		for _, it := range in.TransactItems {
			if i >= len(reqs) {
				break
			}
			switch {
			case it.Put != nil:
				set(&reqs[i], aws.ToString(it.Put.TableName), it.Put.Item)
			case it.Update != nil:
				set(&reqs[i], aws.ToString(it.Update.TableName), it.Update.Key)
			case it.Delete != nil:
				set(&reqs[i], aws.ToString(it.Delete.TableName), it.Delete.Key)
			case it.ConditionCheck != nil:
				set(&reqs[i], aws.ToString(it.ConditionCheck.TableName), it.ConditionCheck.Key)
			default:
				continue
			}
			i++
		}
	}
	return reqs
}

// perItem replaces each per-table request by one request per item of that
// table, each with the item's leading key.
func perItem(reqs []iam.Request, items func(table string) []map[string]types.AttributeValue,
	leading func(string, map[string]types.AttributeValue) (string, bool)) []iam.Request {
	var out []iam.Request
	for _, r := range reqs {
		arn, err := iam.ParseARN(r.Resource)
		table := strings.TrimPrefix(arn.Resource, "table/")
		if err != nil || strings.Contains(table, "/") {
			out = append(out, r)
			continue
		}
		list := items(table)
		if len(list) == 0 {
			out = append(out, r)
			continue
		}
		for _, item := range list {
			one := iam.Request{Action: r.Action, Resource: r.Resource}
			for k, v := range r.Context {
				one.Context = with(one.Context, k, v)
			}
			if v, ok := leading(table, item); ok {
				one.Context = with(one.Context, ConditionLeadingKeys, v)
			}
			out = append(out, one)
		}
	}
	return out
}

// queryHash is the partition key value a Query's key condition fixes.
func queryHash(in *dynamodb.QueryInput, db *DB) (string, bool) {
	name, sortKey, ok := db.keyNames(aws.ToString(in.TableName), aws.ToString(in.IndexName))
	if !ok {
		return "", false
	}
	if in.KeyConditions != nil {
		c, ok := in.KeyConditions[name]
		if !ok || c.ComparisonOperator != types.ComparisonOperatorEq || len(c.AttributeValueList) != 1 {
			return "", false
		}
		return keyText(c.AttributeValueList[0])
	}
	if in.KeyConditionExpression == nil {
		return "", false
	}
	x, err := newExprs(in.ExpressionAttributeNames, in.ExpressionAttributeValues)
	if err != nil {
		return "", false
	}
	kc, err := x.keyCondition(*in.KeyConditionExpression, name, sortKey)
	if err != nil || kc == nil || kc.hashName != name {
		return "", false
	}
	return keyText(kc.hash)
}

// keyText is a key value as IAM compares it: a string's or a number's
// text, a binary's base64.
func keyText(v types.AttributeValue) (string, bool) {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return v.Value, true
	case *types.AttributeValueMemberN:
		return v.Value, true
	case *types.AttributeValueMemberB:
		return base64.StdEncoding.EncodeToString(v.Value), true
	}
	return "", false
}

// keyNames names the partition and sort keys of table, or of its index,
// if the DB has them ("" sort key: none).
func (db *DB) keyNames(table, index string) (pk, sk string, ok bool) {
	t := db.table(table)
	if t == nil {
		return "", "", false
	}
	t.mu.RLock()
	defer t.mu.RUnlock()
	if index == "" {
		return t.pk.name, t.sk.name, true
	}
	if ix := t.index(index); ix != nil {
		return ix.pk.name, ix.sk.name, true
	}
	return "", "", false
}

package dynamotest

import (
	"errors"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/tablekit/tablekit/dynamotest/internal/attr"
	"github.com/tablekit/tablekit/table"
)

// DynamoDB's limits on key values.
const (
	maxPartitionKeyBytes = 2048
	maxSortKeyBytes      = 1024
	// Attribute names are limited to 64 KB (less one byte).
	maxAttributeNameBytes = 65535
)

var errKeySchema = validationf("The provided key element does not match the schema")

// attrError turns an attr validation error into DynamoDB's
// ValidationException with the same message.
func attrError(err error) error {
	var ae *attr.Error
	if errors.As(err, &ae) {
		return validationf("%s", ae.Message)
	}
	var api smithy.APIError
	if errors.As(err, &api) {
		return err // already DynamoDB's answer
	}
	return validationf("%s", err.Error())
}

// checkKeyValue applies the rules every key attribute value obeys: the
// declared type, not empty, not too long.
func checkKeyValue(name string, v types.AttributeValue, typ types.ScalarAttributeType, isSort bool) error {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		if typ != types.ScalarAttributeTypeS {
			return invalidParam("Type mismatch for key %s expected: %s actual: S", name, typ)
		}
		if v.Value == "" {
			return validationf("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: %s", name)
		}
		return checkKeyLength(len(v.Value), isSort)
	case *types.AttributeValueMemberB:
		if typ != types.ScalarAttributeTypeB {
			return invalidParam("Type mismatch for key %s expected: %s actual: B", name, typ)
		}
		if len(v.Value) == 0 {
			return validationf("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty binary value. Key: %s", name)
		}
		return checkKeyLength(len(v.Value), isSort)
	case *types.AttributeValueMemberN:
		if typ != types.ScalarAttributeTypeN {
			return invalidParam("Type mismatch for key %s expected: %s actual: N", name, typ)
		}
		if _, err := attr.CanonicalNumber(v.Value); err != nil {
			return attrError(err)
		}
		return nil
	case nil:
		return invalidParam("Missing the key %s in the item", name)
	default:
		return invalidParam("Type mismatch for key %s expected: %s actual: %s", name, typ, attr.TypeOf(v))
	}
}

func checkKeyLength(n int, isSort bool) error {
	if isSort && n > maxSortKeyBytes {
		return invalidParam("Aggregated size of all range keys has exceeded the size limit of 1024 bytes")
	}
	if !isSort && n > maxPartitionKeyBytes {
		return invalidParam("Size of hashkey has exceeded the maximum size limit of2048 bytes")
	}
	return nil
}

// checkKey validates a Key parameter (GetItem, UpdateItem, DeleteItem, the
// keys of batches and transactions): exactly the table's key attributes,
// of their declared types. It returns the key's values, sk nil when the
// table has no sort key.
func (t *dbTable) checkKey(key map[string]types.AttributeValue) (pk, sk types.AttributeValue, err error) {
	want := 1
	if t.sk.name != "" {
		want = 2
	}
	if len(key) != want {
		return nil, nil, errKeySchema
	}
	pk, ok := key[t.pk.name]
	if !ok || !hasType(pk, t.pk.typ) {
		return nil, nil, errKeySchema
	}
	if err := checkKeyValue(t.pk.name, pk, t.pk.typ, false); err != nil {
		return nil, nil, err
	}
	if t.sk.name != "" {
		sk, ok = key[t.sk.name]
		if !ok || !hasType(sk, t.sk.typ) {
			return nil, nil, errKeySchema
		}
		if err := checkKeyValue(t.sk.name, sk, t.sk.typ, true); err != nil {
			return nil, nil, err
		}
	}
	return pk, sk, nil
}

// ownKey copies a validated key, numbers in canonical form, so the fake
// can store it in a new item.
func ownKey(key map[string]types.AttributeValue) map[string]types.AttributeValue {
	out := attr.CopyItem(key)
	normalizeItem(out)
	return out
}

// putItem validates an item a write would store (key attributes present
// and well-formed, index key attributes of the index's type when present,
// every value valid, the 400 KB limit) and returns it with its size, in
// canonical form: the caller's own map when its numbers are canonical
// already (the common case; the fake encodes it at once and keeps no
// reference to it), otherwise a copy with canonical numbers.
func (t *dbTable) putItem(item map[string]types.AttributeValue) (map[string]types.AttributeValue, int, error) {
	if err := checkKeyValue(t.pk.name, item[t.pk.name], t.pk.typ, false); err != nil {
		return nil, 0, err
	}
	if t.sk.name != "" {
		if err := checkKeyValue(t.sk.name, item[t.sk.name], t.sk.typ, true); err != nil {
			return nil, 0, err
		}
	}
	if err := t.checkIndexKeys(item); err != nil {
		return nil, 0, err
	}
	canonical := true
	for name, v := range item {
		if name == "" {
			return nil, 0, invalidParam("An AttributeValue may not contain an empty string")
		}
		if len(name) > maxAttributeNameBytes {
			return nil, 0, invalidParam("Attribute name exceeds the maximum size of 65535 bytes")
		}
		switch v := v.(type) {
		case *types.AttributeValueMemberS, *types.AttributeValueMemberB, *types.AttributeValueMemberBOOL:
		case *types.AttributeValueMemberN:
			c, err := attr.CanonicalNumber(v.Value)
			if err != nil {
				return nil, 0, attrError(err)
			}
			canonical = canonical && c == v.Value
		default:
			if err := attr.Validate(v); err != nil {
				return nil, 0, attrError(err)
			}
			canonical = canonical && isCanonical(v)
		}
	}
	if !canonical {
		item = attr.CopyItem(item)
		normalizeItem(item)
	}
	size := table.ItemSize(item)
	if size > table.MaxItemSize {
		return nil, 0, itemTooLarge()
	}
	return item, size, nil
}

// isCanonical reports whether every number in a valid value is in
// canonical form.
func isCanonical(v types.AttributeValue) bool {
	switch v := v.(type) {
	case *types.AttributeValueMemberN:
		c, err := attr.CanonicalNumber(v.Value)
		return err == nil && c == v.Value
	case *types.AttributeValueMemberNS:
		for _, s := range v.Value {
			if c, err := attr.CanonicalNumber(s); err != nil || c != s {
				return false
			}
		}
	case *types.AttributeValueMemberL:
		for _, e := range v.Value {
			if !isCanonical(e) {
				return false
			}
		}
	case *types.AttributeValueMemberM:
		for _, e := range v.Value {
			if !isCanonical(e) {
				return false
			}
		}
	}
	return true
}

// checkIndexKeys rejects an item whose index key attributes have another
// type than the index declares, or are empty: DynamoDB refuses such writes
// rather than leaving the item out of the index.
func (t *dbTable) checkIndexKeys(item map[string]types.AttributeValue) error {
	for _, ix := range t.indexes {
		for _, k := range []keyAttr{ix.pk, ix.sk} {
			if k.name == "" || t.isKeyAttr(k.name) {
				continue
			}
			v, ok := item[k.name]
			if !ok {
				continue
			}
			if !hasType(v, k.typ) {
				return invalidParam("Type mismatch for Index Key %s Expected: %s Actual: %s IndexName: %s", k.name, k.typ, attr.TypeOf(v), ix.name)
			}
			empty := false
			switch v := v.(type) {
			case *types.AttributeValueMemberS:
				empty = v.Value == ""
			case *types.AttributeValueMemberB:
				empty = len(v.Value) == 0
			}
			if empty {
				return validationf("One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: %s, IndexKey: %s", ix.name, k.name)
			}
		}
	}
	return nil
}

// normalizeItem rewrites, in place, every number in an item the fake owns
// to its canonical text: DynamoDB trims leading and trailing zeros, so an
// item written with "1.50" reads back "1.5". Values must be valid.
func normalizeItem(item map[string]types.AttributeValue) {
	for name, v := range item {
		if nv := normalize(v); nv != nil {
			item[name] = nv
		}
	}
}

// normalize returns v's canonical replacement, or nil when v is already
// canonical. Containers are rewritten in place (they are the fake's copies).
func normalize(v types.AttributeValue) types.AttributeValue {
	switch v := v.(type) {
	case *types.AttributeValueMemberN:
		if c, err := attr.CanonicalNumber(v.Value); err == nil && c != v.Value {
			return &types.AttributeValueMemberN{Value: c}
		}
	case *types.AttributeValueMemberNS:
		for i, s := range v.Value {
			if c, err := attr.CanonicalNumber(s); err == nil {
				v.Value[i] = c
			}
		}
	case *types.AttributeValueMemberM:
		normalizeItem(v.Value)
	case *types.AttributeValueMemberL:
		for i, e := range v.Value {
			if ne := normalize(e); ne != nil {
				v.Value[i] = ne
			}
		}
	}
	return nil
}

// itemID identifies an item within a table, for duplicate checks in batches
// and transactions.
func (t *dbTable) itemID(key map[string]types.AttributeValue) string {
	id := attr.KeyString(key[t.pk.name])
	if t.sk.name != "" {
		id += "\x00" + attr.KeyString(key[t.sk.name])
	}
	return t.name + "\x00" + id
}

// names lists a map's keys in order, for messages.
func names[V any](m map[string]V) string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

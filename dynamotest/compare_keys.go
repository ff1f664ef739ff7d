package dynamotest

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// requestTables are the tables a request names, in its order.
func requestTables(in any) []string {
	one := func(s *string) []string {
		if s == nil {
			return nil
		}
		return []string{*s}
	}
	switch in := in.(type) {
	case *dynamodb.GetItemInput:
		return one(in.TableName)
	case *dynamodb.PutItemInput:
		return one(in.TableName)
	case *dynamodb.UpdateItemInput:
		return one(in.TableName)
	case *dynamodb.DeleteItemInput:
		return one(in.TableName)
	case *dynamodb.QueryInput:
		return one(in.TableName)
	case *dynamodb.ScanInput:
		return one(in.TableName)
	case *dynamodb.BatchGetItemInput:
		return sortedNames(in.RequestItems)
	case *dynamodb.BatchWriteItemInput:
		return sortedNames(in.RequestItems)
	case *dynamodb.TransactGetItemsInput:
		var names []string
		for _, it := range in.TransactItems {
			if it.Get != nil {
				names = appendNew(names, aws.ToString(it.Get.TableName))
			}
		}
		return names
	case *dynamodb.TransactWriteItemsInput:
		var names []string
		for _, it := range in.TransactItems {
			names = appendNew(names, txTable(it))
		}
		return names
	case *dynamodb.CreateTableInput:
		return one(in.TableName)
	case *dynamodb.DeleteTableInput:
		return one(in.TableName)
	case *dynamodb.DescribeTableInput:
		return one(in.TableName)
	case *dynamodb.UpdateTableInput:
		return one(in.TableName)
	case *dynamodb.UpdateTimeToLiveInput:
		return one(in.TableName)
	case *dynamodb.DescribeTimeToLiveInput:
		return one(in.TableName)
	case *dynamodb.UpdateContinuousBackupsInput:
		return one(in.TableName)
	case *dynamodb.DescribeContinuousBackupsInput:
		return one(in.TableName)
	}
	return nil
}

func appendNew(list []string, s string) []string {
	if s == "" || dup(list, s) {
		return list
	}
	return append(list, s)
}

// itemOp reports whether in is a request on items (not on a table's
// settings), whose answers hold items.
func itemOp(in any) bool {
	switch in.(type) {
	case *dynamodb.GetItemInput, *dynamodb.PutItemInput, *dynamodb.UpdateItemInput, *dynamodb.DeleteItemInput,
		*dynamodb.QueryInput, *dynamodb.ScanInput, *dynamodb.BatchGetItemInput, *dynamodb.BatchWriteItemInput,
		*dynamodb.TransactGetItemsInput, *dynamodb.TransactWriteItemsInput:
		return true
	}
	return false
}

// learn reads, from the reference, the key and TTL attributes of the
// tables an item request names that the Comparison does not know yet:
// what the read-backs and the TTL rule need. A table the reference does
// not have stays unknown. The caller holds c.mu.
func (c *Comparison) learn(ctx context.Context, tables []string, in any) {
	if !itemOp(in) {
		return
	}
	for _, name := range tables {
		t := c.table(name)
		if t.known {
			continue
		}
		d, err := c.ref.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err != nil || d.Table == nil {
			continue
		}
		t.pk, t.sk = keyAttrNames(d.Table.KeySchema)
		t.indexes = map[string][2]string{}
		for _, ix := range d.Table.GlobalSecondaryIndexes {
			t.addIndex(aws.ToString(ix.IndexName), ix.KeySchema)
		}
		for _, ix := range d.Table.LocalSecondaryIndexes {
			t.addIndex(aws.ToString(ix.IndexName), ix.KeySchema)
		}
		if ttl, err := c.ref.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)}); err == nil &&
			ttl.TimeToLiveDescription != nil && settledTTL(ttl.TimeToLiveDescription.TimeToLiveStatus) == string(types.TimeToLiveStatusEnabled) {
			t.ttl = aws.ToString(ttl.TimeToLiveDescription.AttributeName)
		}
		t.known = true
	}
}

func (t *tableInfo) addIndex(name string, ks []types.KeySchemaElement) {
	if t.indexes == nil {
		t.indexes = map[string][2]string{}
	}
	pk, sk := keyAttrNames(ks)
	t.indexes[name] = [2]string{pk, sk}
}

func keyAttrNames(ks []types.KeySchemaElement) (pk, sk string) {
	for _, k := range ks {
		switch k.KeyType {
		case types.KeyTypeHash:
			pk = aws.ToString(k.AttributeName)
		case types.KeyTypeRange:
			sk = aws.ToString(k.AttributeName)
		}
	}
	return pk, sk
}

// afterTableCall keeps what the Comparison knows of tables in step with a
// call that created, deleted or changed one, and marks a table split when
// only one store created or deleted it. The caller holds c.mu.
func (c *Comparison) afterTableCall(cs *callState, in any, rerr, cerr error) {
	switch in := in.(type) {
	case *dynamodb.CreateTableInput:
		name := aws.ToString(in.TableName)
		switch {
		case rerr == nil && cerr == nil:
			pk, sk := keyAttrNames(in.KeySchema)
			t := &tableInfo{pk: pk, sk: sk, known: true}
			for _, ix := range in.GlobalSecondaryIndexes {
				t.addIndex(aws.ToString(ix.IndexName), ix.KeySchema)
			}
			for _, ix := range in.LocalSecondaryIndexes {
				t.addIndex(aws.ToString(ix.IndexName), ix.KeySchema)
			}
			c.tables[name] = t
		case (rerr == nil) != (cerr == nil):
			c.split(name, cs.firstID)
		}
	case *dynamodb.DeleteTableInput:
		name := aws.ToString(in.TableName)
		switch {
		case rerr == nil && cerr == nil:
			delete(c.tables, name)
		case (rerr == nil) != (cerr == nil):
			c.split(name, cs.firstID)
		}
	case *dynamodb.UpdateTableInput:
		// Its indexes may have changed: read them again when next needed.
		if t := c.tables[aws.ToString(in.TableName)]; t != nil && rerr == nil {
			t.known = false
		}
	case *dynamodb.UpdateTimeToLiveInput:
		if rerr == nil && in.TimeToLiveSpecification != nil {
			t := c.table(aws.ToString(in.TableName))
			if aws.ToBool(in.TimeToLiveSpecification.Enabled) {
				t.ttl = aws.ToString(in.TimeToLiveSpecification.AttributeName)
			} else {
				t.ttl = ""
			}
		}
	}
}

// itemKey is one key a write names.
type itemKey struct {
	table string
	key   map[string]types.AttributeValue
}

// writtenKeys are the keys a write request puts, updates or deletes (a
// transaction's condition checks write nothing). A put's key is read from
// its item by the table's key attributes; a table the Comparison cannot
// learn them for is skipped. The caller holds c.mu.
func (c *Comparison) writtenKeys(ctx context.Context, in any) []itemKey {
	var keys []itemKey
	seen := map[string]bool{}
	add := func(tableName *string, key map[string]types.AttributeValue) {
		if tableName == nil || len(key) == 0 {
			return
		}
		id := *tableName + "\x00" + canonItem(key)
		if !seen[id] {
			seen[id] = true
			keys = append(keys, itemKey{table: *tableName, key: key})
		}
	}
	put := func(tableName *string, item map[string]types.AttributeValue) {
		if tableName == nil {
			return
		}
		c.learn(ctx, []string{*tableName}, in)
		if t := c.tables[*tableName]; t != nil && t.known {
			add(tableName, keyOf(t, item))
		}
	}
	switch in := in.(type) {
	case *dynamodb.PutItemInput:
		put(in.TableName, in.Item)
	case *dynamodb.UpdateItemInput:
		add(in.TableName, in.Key)
	case *dynamodb.DeleteItemInput:
		add(in.TableName, in.Key)
	case *dynamodb.BatchWriteItemInput:
		for _, name := range sortedNames(in.RequestItems) {
			for _, w := range in.RequestItems[name] {
				switch {
				case w.PutRequest != nil:
					put(aws.String(name), w.PutRequest.Item)
				case w.DeleteRequest != nil:
					add(aws.String(name), w.DeleteRequest.Key)
				}
			}
		}
	case *dynamodb.TransactWriteItemsInput:
		for _, it := range in.TransactItems {
			switch {
			case it.Put != nil:
				put(it.Put.TableName, it.Put.Item)
			case it.Update != nil:
				add(it.Update.TableName, it.Update.Key)
			case it.Delete != nil:
				add(it.Delete.TableName, it.Delete.Key)
			}
		}
	}
	return keys
}

// keyOf is the key part of item, nil when it lacks a key attribute.
func keyOf(t *tableInfo, item map[string]types.AttributeValue) map[string]types.AttributeValue {
	key := map[string]types.AttributeValue{}
	for _, name := range []string{t.pk, t.sk} {
		if name == "" {
			continue
		}
		v, ok := item[name]
		if !ok {
			return nil
		}
		key[name] = v
	}
	return key
}

// resync reads each written key back from both stores with a consistent
// GetItem and, where they hold different items, records the difference
// (when compare is set: the call was sent to both) and makes the
// candidate's item the reference's, so the stores go on from the same
// state. A candidate that refuses the copy splits the table. The caller
// holds c.mu.
func (c *Comparison) resync(ctx context.Context, cs *callState, keys []itemKey, compare bool) {
	v := answerView{now: c.o.Now(), ttl: c.ttlOf}
	for _, k := range keys {
		get := &dynamodb.GetItemInput{TableName: aws.String(k.table), Key: k.key, ConsistentRead: aws.Bool(true)}
		r, err := c.ref.GetItem(ctx, get)
		if err != nil {
			continue
		}
		cand, err := c.cand.GetItem(ctx, get)
		if err != nil {
			continue
		}
		want, got := canonItem(v.liveItem(k.table, r.Item)), canonItem(v.liveItem(k.table, cand.Item))
		if want == got {
			continue
		}
		fieldName := "item " + canonItem(k.key)
		if compare {
			c.record(cs, DiffItem, fieldName, want, got)
		}
		if r.Item == nil {
			_, err = c.cand.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(k.table), Key: k.key})
		} else {
			_, err = c.cand.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(k.table), Item: r.Item})
		}
		if err != nil {
			c.record(cs, DiffItem, fieldName+" (resync refused: "+errorText(err)+")", want, got)
			c.split(k.table, len(c.diffs))
		}
	}
}

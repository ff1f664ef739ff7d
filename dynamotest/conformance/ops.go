package conformance

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Want is what a data-only case expects from its one request.
type Want struct {
	// Err is the error code ("" for success) and Msg a substring of its message.
	Err, Msg string
	// Items: the items returned, in order (Query, Scan, TransactGetItems),
	// or the one item of a GetItem (nil or empty: no item).
	Items []Item
	// AnyOrder compares Items in any order (Scan, BatchGetItem).
	AnyOrder bool
	// AnyItems: which items come back is not checked (a Scan page whose
	// contents depend on hash order), only their number.
	AnyItems bool
	// Count, when non-nil, is the expected Count (Select COUNT); otherwise
	// Count must equal len(Items).
	Count *int32
	// Scanned, when non-nil, is the expected ScannedCount.
	Scanned *int32
	// More: a LastEvaluatedKey must follow (and must not when false).
	More bool
	// LastKey, when non-nil, is the exact LastEvaluatedKey.
	LastKey Item
	// Attrs: the Attributes returned by a write (nil: none).
	Attrs Item
	// CCFItem: the item carried by a ConditionalCheckFailedException.
	CCFItem Item
	// Reasons: the cancellation reason codes of a TransactionCanceledException.
	Reasons []string
	// After, when non-nil, is what the table holds after a successful
	// request. A failed write always checks the table is unchanged.
	After []Item
}

func i32(n int32) *int32 { return &n }

// QueryCase runs one Query (TableName filled in) and checks its page.
func QueryCase(name string, s Schema, seed []Item, in dynamodb.QueryInput, w Want) Case {
	return Case{Name: name, Schema: s, Seed: seed, Run: func(c *C) {
		in := in
		in.TableName = c.TableName()
		out, err := c.API.Query(c.Ctx, &in)
		c.ExpectErr(err, w.Err, msgs(w.Msg)...)
		if err == nil {
			c.checkPage(out.Items, out.Count, out.ScannedCount, out.LastEvaluatedKey, w)
		}
	}}
}

// ScanCase runs one Scan (TableName filled in) and checks its page.
func ScanCase(name string, s Schema, seed []Item, in dynamodb.ScanInput, w Want) Case {
	return Case{Name: name, Schema: s, Seed: seed, Run: func(c *C) {
		in := in
		in.TableName = c.TableName()
		out, err := c.API.Scan(c.Ctx, &in)
		c.ExpectErr(err, w.Err, msgs(w.Msg)...)
		if err == nil {
			c.checkPage(out.Items, out.Count, out.ScannedCount, out.LastEvaluatedKey, w)
		}
	}}
}

func (c *C) checkPage(items []Item, count, scanned int32, lek Item, w Want) {
	c.Helper()
	switch {
	case w.AnyItems:
	case w.AnyOrder:
		c.ExpectSameItems("items", items, w.Items)
	default:
		c.ExpectItems("items", items, w.Items)
	}
	wantCount := int32(len(w.Items))
	if w.Count != nil {
		wantCount = *w.Count
	}
	if count != wantCount {
		c.Errorf("Count = %d; want %d", count, wantCount)
	}
	if w.Scanned != nil && scanned != *w.Scanned {
		c.Errorf("ScannedCount = %d; want %d", scanned, *w.Scanned)
	}
	if (len(lek) > 0) != w.More {
		c.Errorf("LastEvaluatedKey = %s; want one: %v", RenderItem(lek), w.More)
	}
	if w.LastKey != nil {
		c.ExpectItem("LastEvaluatedKey", lek, w.LastKey)
	}
}

// GetCase runs one GetItem and checks the item.
func GetCase(name string, s Schema, seed []Item, in dynamodb.GetItemInput, w Want) Case {
	return Case{Name: name, Schema: s, Seed: seed, Run: func(c *C) {
		in := in
		in.TableName = c.TableName()
		out, err := c.API.GetItem(c.Ctx, &in)
		c.ExpectErr(err, w.Err, msgs(w.Msg)...)
		if err == nil {
			var want Item
			if len(w.Items) > 0 {
				want = w.Items[0]
			}
			c.ExpectItem("item", out.Item, want)
		}
	}}
}

// PutCase runs one PutItem and checks its outcome and the table after it.
func PutCase(name string, s Schema, seed []Item, in dynamodb.PutItemInput, w Want) Case {
	return Case{Name: name, Schema: s, Seed: seed, Run: func(c *C) {
		in := in
		in.TableName = c.TableName()
		out, err := c.API.PutItem(c.Ctx, &in)
		c.checkWrite(err, func() Item { return out.Attributes }, w)
	}}
}

// UpdateCase runs one UpdateItem and checks its outcome and the table after it.
func UpdateCase(name string, s Schema, seed []Item, in dynamodb.UpdateItemInput, w Want) Case {
	return Case{Name: name, Schema: s, Seed: seed, Run: func(c *C) {
		in := in
		in.TableName = c.TableName()
		out, err := c.API.UpdateItem(c.Ctx, &in)
		c.checkWrite(err, func() Item { return out.Attributes }, w)
	}}
}

// DeleteCase runs one DeleteItem and checks its outcome and the table after it.
func DeleteCase(name string, s Schema, seed []Item, in dynamodb.DeleteItemInput, w Want) Case {
	return Case{Name: name, Schema: s, Seed: seed, Run: func(c *C) {
		in := in
		in.TableName = c.TableName()
		out, err := c.API.DeleteItem(c.Ctx, &in)
		c.checkWrite(err, func() Item { return out.Attributes }, w)
	}}
}

func (c *C) checkWrite(err error, attrs func() Item, w Want) {
	c.Helper()
	c.ExpectErr(err, w.Err, msgs(w.Msg)...)
	if err != nil {
		if w.Err == "ConditionalCheckFailedException" {
			c.ExpectCCFItem(err, w.CCFItem)
		}
		if len(w.Reasons) > 0 {
			c.ExpectReasons(err, w.Reasons...)
		}
		c.ExpectUnchanged()
		return
	}
	c.ExpectItem("Attributes (ReturnValues)", attrs(), w.Attrs)
	if w.After != nil {
		c.ExpectTable(w.After)
	}
}

// TxWriteCase runs one TransactWriteItems; every action's nil TableName is
// filled in with the case's table.
func TxWriteCase(name string, s Schema, seed []Item, in dynamodb.TransactWriteItemsInput, w Want) Case {
	return Case{Name: name, Schema: s, Seed: seed, Run: func(c *C) {
		in := in
		in.TransactItems = c.FillTx(in.TransactItems)
		_, err := c.API.TransactWriteItems(c.Ctx, &in)
		c.checkWrite(err, func() Item { return nil }, w)
	}}
}

// FillTx returns a copy of actions with each nil TableName set to the case's table.
func (c *C) FillTx(actions []types.TransactWriteItem) []types.TransactWriteItem {
	out := make([]types.TransactWriteItem, len(actions))
	for i, a := range actions {
		switch {
		case a.Put != nil:
			p := *a.Put
			if p.TableName == nil {
				p.TableName = c.TableName()
			}
			a.Put = &p
		case a.Update != nil:
			u := *a.Update
			if u.TableName == nil {
				u.TableName = c.TableName()
			}
			a.Update = &u
		case a.Delete != nil:
			d := *a.Delete
			if d.TableName == nil {
				d.TableName = c.TableName()
			}
			a.Delete = &d
		case a.ConditionCheck != nil:
			k := *a.ConditionCheck
			if k.TableName == nil {
				k.TableName = c.TableName()
			}
			a.ConditionCheck = &k
		}
		out[i] = a
	}
	return out
}

// TxGetCase runs one TransactGetItems (nil TableNames filled in) and checks
// the items in request order (an empty item for a missing one).
func TxGetCase(name string, s Schema, seed []Item, gets []types.TransactGetItem, w Want) Case {
	return Case{Name: name, Schema: s, Seed: seed, Run: func(c *C) {
		in := &dynamodb.TransactGetItemsInput{TransactItems: make([]types.TransactGetItem, len(gets))}
		for i, g := range gets {
			if g.Get != nil {
				gg := *g.Get
				if gg.TableName == nil {
					gg.TableName = c.TableName()
				}
				g.Get = &gg
			}
			in.TransactItems[i] = g
		}
		out, err := c.API.TransactGetItems(c.Ctx, in)
		c.ExpectErr(err, w.Err, msgs(w.Msg)...)
		if len(w.Reasons) > 0 {
			c.ExpectReasons(err, w.Reasons...)
		}
		if err != nil {
			return
		}
		if len(out.Responses) != len(gets) {
			c.Fatalf("%d responses for %d gets", len(out.Responses), len(gets))
		}
		got := make([]Item, len(out.Responses))
		for i, r := range out.Responses {
			got[i] = r.Item
			if got[i] == nil {
				got[i] = Item{}
			}
		}
		c.ExpectItems("responses", got, w.Items)
	}}
}

// BatchWriteCase runs one BatchWriteItem on the case's table (the request
// map's key "T" is replaced with its name) and checks the table after it.
func BatchWriteCase(name string, s Schema, seed []Item, reqs []types.WriteRequest, w Want) Case {
	return Case{Name: name, Schema: s, Seed: seed, Run: func(c *C) {
		out, err := c.API.BatchWriteItem(c.Ctx, &dynamodb.BatchWriteItemInput{
			RequestItems: map[string][]types.WriteRequest{c.Table: reqs},
		})
		c.ExpectErr(err, w.Err, msgs(w.Msg)...)
		if err != nil {
			c.ExpectUnchanged()
			return
		}
		if n := len(out.UnprocessedItems); n > 0 {
			c.Errorf("UnprocessedItems for %d tables; want none", n)
		}
		if w.After != nil {
			c.ExpectTable(w.After)
		}
	}}
}

// BatchGetCase runs one BatchGetItem on the case's table and checks the
// items returned (in any order).
func BatchGetCase(name string, s Schema, seed []Item, ka types.KeysAndAttributes, w Want) Case {
	return Case{Name: name, Schema: s, Seed: seed, Run: func(c *C) {
		out, err := c.API.BatchGetItem(c.Ctx, &dynamodb.BatchGetItemInput{
			RequestItems: map[string]types.KeysAndAttributes{c.Table: ka},
		})
		c.ExpectErr(err, w.Err, msgs(w.Msg)...)
		if err != nil {
			return
		}
		if n := len(out.UnprocessedKeys); n > 0 {
			c.Errorf("UnprocessedKeys for %d tables; want none", n)
		}
		c.ExpectSameItems("items", out.Responses[c.Table], w.Items)
	}}
}

func msgs(m string) []string {
	if m == "" {
		return nil
	}
	return []string{m}
}

// Put, Update, Delete and Check build transaction actions on the case table.
func TxPut(item Item, cond string, vals map[string]types.AttributeValue) types.TransactWriteItem {
	p := &types.Put{Item: item, ExpressionAttributeValues: vals}
	if cond != "" {
		p.ConditionExpression = aws.String(cond)
	}
	return types.TransactWriteItem{Put: p}
}

// TxUpdate is an Update action on the case table.
func TxUpdate(key Item, update, cond string, vals map[string]types.AttributeValue) types.TransactWriteItem {
	u := &types.Update{Key: key, UpdateExpression: aws.String(update), ExpressionAttributeValues: vals}
	if cond != "" {
		u.ConditionExpression = aws.String(cond)
	}
	return types.TransactWriteItem{Update: u}
}

// TxDelete is a Delete action on the case table.
func TxDelete(key Item, cond string, vals map[string]types.AttributeValue) types.TransactWriteItem {
	d := &types.Delete{Key: key, ExpressionAttributeValues: vals}
	if cond != "" {
		d.ConditionExpression = aws.String(cond)
	}
	return types.TransactWriteItem{Delete: d}
}

// TxCheck is a ConditionCheck action on the case table.
func TxCheck(key Item, cond string, vals map[string]types.AttributeValue) types.TransactWriteItem {
	return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{Key: key, ConditionExpression: aws.String(cond), ExpressionAttributeValues: vals}}
}

// TxGet is a Get on the case table.
func TxGet(key Item) types.TransactGetItem {
	return types.TransactGetItem{Get: &types.Get{Key: key}}
}

package datamodel

import (
	"context"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/access"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
)

// Measurement is one access pattern replayed on dynamotest next to its
// estimate: the units one request consumed and the units EstimateSchema
// predicted.
type Measurement struct {
	Pattern                           string
	EstimatedRead, EstimatedWrite     float64
	MeasuredRead, MeasuredWrite       float64
	ItemsWritten, ItemsRead, Requests int
}

// Within reports whether the measured units are within tolerance (0.1 for
// 10%) of the estimate, reads and writes alike.
func (m Measurement) Within(tolerance float64) bool {
	near := func(est, got float64) bool {
		if est == 0 {
			return got == 0
		}
		d := (got - est) / est
		return d <= tolerance && d >= -tolerance
	}
	return near(m.EstimatedRead, m.MeasuredRead) && near(m.EstimatedWrite, m.MeasuredWrite)
}

// Measure replays every access pattern of ps on a fresh dynamotest fake of
// the table s,
// one pattern at a time: it creates the table, stores representative
// items of the declared sizes and counts (carrying the index keys the
// pattern declares, old key values first for a key move), runs one
// request of the pattern's operation, and reads the capacity the fake
// consumed by DynamoDB's rules. Patterns are replayed from their
// declaration, not through a store's code: the comparison checks the
// estimate's arithmetic against the fake's accounting for the request
// shape the declaration describes.
func Measure(ctx context.Context, s table.Schema, ps []access.Pattern) ([]Measurement, error) {
	est, err := EstimateSchema(s, ps)
	if err != nil {
		return nil, err
	}
	var out []Measurement
	for _, pe := range est.Patterns {
		m, err := measurePattern(ctx, s, pe.Pattern)
		if err != nil {
			return nil, fmt.Errorf("datamodel: measure %s: pattern %q: %w", s.Name, pe.Pattern.Name, err)
		}
		m.EstimatedRead, m.EstimatedWrite = pe.ReadUnits, pe.WriteUnits
		out = append(out, m)
	}
	return out, nil
}

// replay builds items and requests for one pattern on one fake.
type replay struct {
	s   table.Schema
	ap  access.Pattern
	db  *dynamotest.DB
	seq int
}

func measurePattern(ctx context.Context, s table.Schema, ap access.Pattern) (Measurement, error) {
	db := dynamotest.New()
	if err := s.Create(ctx, db); err != nil {
		return Measurement{}, err
	}
	r := &replay{s: s, ap: ap, db: db}
	m := Measurement{Pattern: ap.Name}
	var run func() error
	var err error
	if isRead(ap.Operation) {
		run, err = r.read(ctx, &m)
	} else {
		run, err = r.write(ctx, &m)
	}
	if err != nil {
		return m, err
	}
	db.ResetConsumed()
	if err := run(); err != nil {
		return m, err
	}
	c := db.Consumed(s.Name)
	m.MeasuredRead, m.MeasuredWrite = c.ReadUnits, c.WriteUnits
	return m, nil
}

// value renders a key value of type t from a unique text.
func value(t types.ScalarAttributeType, text string) types.AttributeValue {
	switch t {
	case types.ScalarAttributeTypeN:
		h := fnv.New32a()
		h.Write([]byte(text))
		return &types.AttributeValueMemberN{Value: strconv.FormatUint(uint64(h.Sum32()), 10)}
	case types.ScalarAttributeTypeB:
		return &types.AttributeValueMemberB{Value: []byte(text)}
	}
	return &types.AttributeValueMemberS{Value: text}
}

// item builds a distinct item: the attributes in fixed first, then the
// table's keys with fresh values where fixed has none.
func (r *replay) item(fixed map[string]types.AttributeValue) table.Item {
	r.seq++
	it := table.Item{}
	for k, v := range fixed {
		it[k] = v
	}
	for _, a := range []table.Attribute{r.s.PartitionKey, r.s.SortKey} {
		if a.Name != "" {
			if _, ok := it[a.Name]; !ok {
				it[a.Name] = value(a.Type, fmt.Sprintf("%s%05d", strings.ToLower(a.Name[:1]), r.seq))
			}
		}
	}
	return it
}

// indexKeys sets ix's keys on it: partition value part (by name), a
// fresh sort value.
func (r *replay) indexKeys(it table.Item, ix table.Index, part string) {
	r.seq++
	it[ix.PartitionKey.Name] = value(ix.PartitionKey.Type, part)
	if ix.SortKey.Name != "" {
		if _, ok := it[ix.SortKey.Name]; !ok || ix.SortKey.Name != r.s.PartitionKey.Name && ix.SortKey.Name != r.s.SortKey.Name {
			it[ix.SortKey.Name] = value(ix.SortKey.Type, fmt.Sprintf("x%05d", r.seq))
		}
	}
}

const padName = "pad"

// pad sizes it to size bytes with a string attribute (fill repeated).
func pad(it table.Item, size int, fill byte) error {
	delete(it, padName)
	base := table.ItemSize(it)
	n := size - base - len(padName)
	if n < 1 {
		return fmt.Errorf("%w: %d bytes cannot hold the item's keys (%d bytes)", ErrInvalidSize, size, base)
	}
	it[padName] = &types.AttributeValueMemberS{Value: strings.Repeat(string(fill), n)}
	return nil
}

func (r *replay) put(ctx context.Context, it table.Item) error {
	_, err := r.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(r.s.Name), Item: it})
	return err
}

func (r *replay) key(it table.Item) table.Item {
	k := table.Item{r.s.PartitionKey.Name: it[r.s.PartitionKey.Name]}
	if r.s.SortKey.Name != "" {
		k[r.s.SortKey.Name] = it[r.s.SortKey.Name]
	}
	return k
}

// read stores the items a read pattern returns and prepares its request.
func (r *replay) read(ctx context.Context, m *Measurement) (func() error, error) {
	ap := r.ap
	var keys []table.Item
	fixed := map[string]types.AttributeValue{}
	if ap.Operation == access.Query {
		if ap.Index != "" {
			ix, _ := r.s.Index(ap.Index)
			fixed[ix.PartitionKey.Name] = value(ix.PartitionKey.Type, "v")
		} else {
			fixed[r.s.PartitionKey.Name] = value(r.s.PartitionKey.Type, "p")
		}
	}
	for _, ia := range itemsOf(ap) {
		for range max(ia.Count, 1) {
			it := r.item(fixed)
			if ap.Index != "" {
				ix, _ := r.s.Index(ap.Index)
				r.indexKeys(it, ix, "v")
			}
			if err := pad(it, ia.Size, 'r'); err != nil {
				return nil, err
			}
			if err := r.put(ctx, it); err != nil {
				return nil, err
			}
			keys = append(keys, r.key(it))
			m.ItemsRead++
		}
	}
	name := aws.String(r.s.Name)
	consistent := aws.Bool(ap.Consistent)
	switch ap.Operation {
	case access.Query:
		return func() error {
			in := &dynamodb.QueryInput{TableName: name, ConsistentRead: consistent,
				KeyConditionExpression:    aws.String("#k = :v"),
				ExpressionAttributeNames:  map[string]string{"#k": r.s.PartitionKey.Name},
				ExpressionAttributeValues: map[string]types.AttributeValue{":v": fixed[r.s.PartitionKey.Name]}}
			if ap.Index != "" {
				ix, _ := r.s.Index(ap.Index)
				in.IndexName = aws.String(ap.Index)
				in.ExpressionAttributeNames["#k"] = ix.PartitionKey.Name
				in.ExpressionAttributeValues[":v"] = fixed[ix.PartitionKey.Name]
			}
			m.Requests++
			_, err := r.db.Query(ctx, in)
			return err
		}, nil
	case access.Scan:
		return func() error {
			in := &dynamodb.ScanInput{TableName: name, ConsistentRead: consistent}
			if ap.Index != "" {
				in.IndexName = aws.String(ap.Index)
			}
			m.Requests++
			_, err := r.db.Scan(ctx, in)
			return err
		}, nil
	case access.GetItem:
		return func() error {
			for _, k := range keys {
				m.Requests++
				if _, err := r.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: name, Key: k, ConsistentRead: consistent}); err != nil {
					return err
				}
			}
			return nil
		}, nil
	case access.BatchGetItem:
		return func() error {
			for start := 0; start < len(keys); start += 100 {
				m.Requests++
				ka := types.KeysAndAttributes{Keys: keys[start:min(start+100, len(keys))], ConsistentRead: consistent}
				if _, err := r.db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{r.s.Name: ka}}); err != nil {
					return err
				}
			}
			return nil
		}, nil
	default: // TransactGetItems
		return func() error {
			var gets []types.TransactGetItem
			for _, k := range keys {
				gets = append(gets, types.TransactGetItem{Get: &types.Get{TableName: name, Key: k}})
			}
			m.Requests++
			_, err := r.db.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: gets})
			return err
		}, nil
	}
}

// write stores the items a write pattern finds (for updates, deletes,
// checks and key moves) and prepares its request.
func (r *replay) write(ctx context.Context, m *Measurement) (func() error, error) {
	ap := r.ap
	name := aws.String(r.s.Name)
	var puts []table.Item       // PutItem / BatchWriteItem puts
	var deletes []table.Item    // keys
	var updates []*types.Update // UpdateItem
	var checks []table.Item     // ConditionCheck keys
	for _, ia := range itemsOf(ap) {
		op := itemOp(ap, ia)
		for range max(ia.Count, 1) {
			before := r.item(nil)
			after := table.Item{}
			for k, v := range before {
				after[k] = v
			}
			hasBefore := op != access.PutItem
			for i, iw := range ia.IndexWrites {
				ix, _ := r.s.Index(iw.Index)
				switch {
				case iw.Move:
					hasBefore = true
					r.indexKeys(before, ix, fmt.Sprintf("old%d", i))
					r.indexKeys(after, ix, fmt.Sprintf("new%d", i))
				case op == access.DeleteItem:
					r.indexKeys(before, ix, fmt.Sprintf("v%d", i))
				default:
					// The item enters the index: one index write.
					r.indexKeys(after, ix, fmt.Sprintf("v%d", i))
				}
			}
			if err := pad(before, ia.Size, 'a'); err != nil {
				return nil, err
			}
			if err := pad(after, ia.Size, 'b'); err != nil {
				return nil, err
			}
			if hasBefore {
				if err := r.put(ctx, before); err != nil {
					return nil, err
				}
			}
			m.ItemsWritten++
			switch op {
			case access.PutItem:
				puts = append(puts, after)
			case access.DeleteItem:
				deletes = append(deletes, r.key(before))
			case access.ConditionCheck:
				checks = append(checks, r.key(before))
			case access.UpdateItem:
				updates = append(updates, r.update(before, after))
			}
		}
	}
	switch ap.Operation {
	case access.TransactWriteItems:
		return func() error {
			var tx []types.TransactWriteItem
			for _, it := range puts {
				tx = append(tx, types.TransactWriteItem{Put: &types.Put{TableName: name, Item: it}})
			}
			for _, u := range updates {
				tx = append(tx, types.TransactWriteItem{Update: u})
			}
			for _, k := range deletes {
				tx = append(tx, types.TransactWriteItem{Delete: &types.Delete{TableName: name, Key: k}})
			}
			for _, k := range checks {
				tx = append(tx, types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: name, Key: k,
					ConditionExpression:      aws.String("attribute_exists(#k)"),
					ExpressionAttributeNames: map[string]string{"#k": r.s.PartitionKey.Name}}})
			}
			m.Requests++
			_, err := r.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: tx})
			return err
		}, nil
	case access.BatchWriteItem:
		return func() error {
			var reqs []types.WriteRequest
			for _, it := range puts {
				reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
			}
			for _, k := range deletes {
				reqs = append(reqs, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: k}})
			}
			for start := 0; start < len(reqs); start += 25 {
				m.Requests++
				out, err := r.db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
					r.s.Name: reqs[start:min(start+25, len(reqs))]}})
				if err != nil {
					return err
				}
				if len(out.UnprocessedItems) > 0 {
					return fmt.Errorf("unprocessed items on the fake")
				}
			}
			return nil
		}, nil
	}
	// Single-item writes: one request per item.
	return func() error {
		for _, it := range puts {
			m.Requests++
			if _, err := r.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: name, Item: it}); err != nil {
				return err
			}
		}
		for _, u := range updates {
			m.Requests++
			if _, err := r.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: u.TableName, Key: u.Key,
				UpdateExpression: u.UpdateExpression, ExpressionAttributeNames: u.ExpressionAttributeNames,
				ExpressionAttributeValues: u.ExpressionAttributeValues}); err != nil {
				return err
			}
		}
		for _, k := range deletes {
			m.Requests++
			if _, err := r.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: name, Key: k}); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

// update is the UpdateItem that turns before into after: SET every
// non-key attribute that differs, REMOVE those after lacks.
func (r *replay) update(before, after table.Item) *types.Update {
	names := map[string]string{}
	values := map[string]types.AttributeValue{}
	var set, remove []string
	keys := r.key(before)
	attrs := make([]string, 0, len(after)+len(before))
	for k := range after {
		attrs = append(attrs, k)
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			attrs = append(attrs, k)
		}
	}
	for i, k := range attrs {
		if _, isKey := keys[k]; isKey {
			continue
		}
		n := fmt.Sprintf("#a%d", i)
		v, ok := after[k]
		if !ok {
			names[n] = k
			remove = append(remove, n)
			continue
		}
		names[n] = k
		values[fmt.Sprintf(":v%d", i)] = v
		set = append(set, fmt.Sprintf("%s = :v%d", n, i))
	}
	expr := "SET " + strings.Join(set, ", ")
	if len(remove) > 0 {
		expr += " REMOVE " + strings.Join(remove, ", ")
	}
	return &types.Update{TableName: aws.String(r.s.Name), Key: keys, UpdateExpression: aws.String(expr),
		ExpressionAttributeNames: names, ExpressionAttributeValues: values}
}

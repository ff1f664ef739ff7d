package table

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Query reads the items of one partition of the table or of an index, in
// sort key order.
//
// # Ties
//
// Within a partition of the table, sort keys are unique. Within a partition
// of a global secondary index they need not be (two log entries written in
// the same microsecond share GSI1SK), and DynamoDB returns such ties in an
// order it does not define: DynamoDB Local and the fake may disagree, and a
// cursor taken inside a run of ties cannot say where in the run it was.
// Set TieBreak to attributes every item carries and whose values together
// are unique among items with the same sort key — the base table's key
// (partition and sort key: the sort key alone is unique only within one
// partition of the table, and an index's partition gathers several) is the
// choice that always holds, or an id the item holds — and QueryPage and
// QueryAll return a total order:
//
//   - ascending (the default): sort key ascending, ties by the TieBreak
//     values ascending, the first attribute first;
//   - Descending: the exact reverse, sort key descending and ties by the
//     TieBreak values descending, so "newest first" lists the reverse of
//     "oldest first", page by page.
//
// Values compare as DynamoDB compares them: strings and binaries byte by
// byte, numbers by value. A cursor carries the sort key and the tie-break
// values of the page's last item, bound to the query by the same HMAC as
// any cursor (the tie-break names are part of the binding): the next page
// starts at that sort key, inclusive, and skips the ties already returned,
// so every item comes exactly once across pages even when a page ends
// inside a run of ties.
//
// Cost: to order a run of ties tablekit reads the whole run, so a page that
// touches a run of n ties reads all n (paging a run of n items k at a time
// reads about n*n/k items). A run longer than MaxTieRun items fails with
// ErrTooManyTies instead of growing without bound. An item that lacks the
// attribute, holds a non-scalar value, or shares its values with another
// item of the run fails the read with ErrBadTieBreak: the order would not be
// total. The attributes are read even under a Projection.
//
// Adopting it in a store:
//
//	q := table.Query{Index: "GSI1", Partition: gpk, Descending: newestFirst,
//		TieBreak: []string{"PK", "SK"}, Limit: int32(limit)}
//	page, err := table.QueryPage[record](ctx, tbl, q, cursor)
//
// and document the list's order as "newest GSI1SK first; ties by the table
// key descending". Cursors from a query without TieBreak (or with another
// one) fail with ErrInvalidCursor.
//
// # Keep
//
// Keep is a filter written in Go, for what a FilterExpression cannot say
// (which entity a key's shape belongs to, say): like Filter it is applied
// after reading, and a page holds only the items it keeps, so QueryPage
// reads on while a page is short and hands out no cursor that leads to an
// empty page. It must decide by the item alone, the same way every time.
type Query struct {
	Index      string // "" for the table
	Partition  any    // the partition key value (of the index, when Index is set)
	Sort       SortCondition
	Filter     *expression.ConditionBuilder // applied after reading: it saves bandwidth, not capacity
	Descending bool
	// Limit is the page size for QueryPage (0: what one DynamoDB request
	// returns, up to 1 MB) and the per-request limit for QueryAll.
	Limit      int32
	Consistent bool // on the table and its local secondary indexes; DynamoDB refuses it on a global one
	// Projection limits the attributes read; the key attributes are always
	// read too, since cursors are built from them.
	Projection *expression.ProjectionBuilder
	// TieBreak names the attributes that order items with equal sort keys
	// (see Ties above); none keeps DynamoDB's order, which is undefined for
	// ties on an index.
	TieBreak []string
	// Keep, when set, drops the items it returns false for, after Filter
	// (see Keep above).
	Keep func(Item) bool
}

type sortOp int

const (
	sortNone sortOp = iota
	sortEQ
	sortBeginsWith
	sortBetween
	sortLT
	sortLE
	sortGT
	sortGE
)

var sortOpNames = [...]string{"", "=", "begins_with", "between", "<", "<=", ">", ">="}

// SortCondition restricts the sort key of a Query. The zero value reads the
// whole partition.
type SortCondition struct {
	op     sortOp
	values []any
}

// IsSet reports whether the condition restricts anything.
func (c SortCondition) IsSet() bool { return c.op != sortNone }

// SortEquals selects the item whose sort key is v.
func SortEquals(v any) SortCondition { return SortCondition{sortEQ, []any{v}} }

// SortBeginsWith selects sort keys starting with prefix (string sort keys
// only). Build prefixes with keys.Template.Prefix so that they end at a
// delimiter and never match a longer value ("RULE#raw#" not "RULE#raw").
func SortBeginsWith(prefix string) SortCondition {
	return SortCondition{sortBeginsWith, []any{prefix}}
}

// SortBetween selects sort keys from lo to hi, both included.
func SortBetween(lo, hi any) SortCondition { return SortCondition{sortBetween, []any{lo, hi}} }

// SortLess selects sort keys below v.
func SortLess(v any) SortCondition { return SortCondition{sortLT, []any{v}} }

// SortLessOrEqual selects sort keys up to v.
func SortLessOrEqual(v any) SortCondition { return SortCondition{sortLE, []any{v}} }

// SortGreater selects sort keys above v.
func SortGreater(v any) SortCondition { return SortCondition{sortGT, []any{v}} }

// SortGreaterOrEqual selects sort keys from v up.
func SortGreaterOrEqual(v any) SortCondition { return SortCondition{sortGE, []any{v}} }

// Page is one page of results and the cursor of the next one; Next is ""
// exactly when nothing follows.
type Page[T any] struct {
	Items []T
	Next  string
}

// readPlan is a validated Query or Scan: the request without paging fields,
// what its cursors are bound to, and how to send it.
type readPlan struct {
	op     string
	cursor cursorSpec
	limit  int
	filter bool // a filter (Filter or Keep) may leave a response short: read whole pages ahead
	fetch  func(ctx context.Context, start Item, limit int32) (items []Item, last Item, err error)
	// count counts every item of a query (Select COUNT), page by page;
	// nil for a scan.
	count func(ctx context.Context) (int64, error)
	// tie is set when the query names a tie-break attribute: then pages and
	// iterators order and resume runs of equal sort keys (ties.go).
	tie *tiePlan
}

// indexKeys returns the partition and sort key of the table or of index
// name, and the attributes of an ExclusiveStartKey there.
func (t *Table) indexKeys(field, name string) (pk, sk Attribute, startKey []Attribute, err error) {
	startKey = t.keyAttrs()
	if name == "" {
		return t.schema.PartitionKey, t.schema.SortKey, startKey, nil
	}
	ix, ok := t.schema.Index(name)
	if !ok {
		return pk, sk, nil, inputErr(field, name, fmt.Sprintf("no index of that name in %s's schema", t.Name()))
	}
	for _, a := range []Attribute{ix.PartitionKey, ix.SortKey} {
		if a.Name != "" && a.Name != t.schema.PartitionKey.Name && a.Name != t.schema.SortKey.Name {
			startKey = append(startKey, a)
		}
	}
	return ix.PartitionKey, ix.SortKey, startKey, nil
}

// checkConsistent refuses a strongly consistent read of a global secondary
// index, as DynamoDB does (ValidationException); the table and its local
// secondary indexes have them. index names a known index or is "".
func (t *Table) checkConsistent(field string, consistent bool, index string) error {
	if !consistent || index == "" {
		return nil
	}
	if ix, _ := t.schema.Index(index); !ix.Local {
		return inputErr(field, "true", "global secondary indexes support only eventually consistent reads")
	}
	return nil
}

// keyValue marshals v as a value of key attribute a.
func keyValue(field string, a Attribute, v any) (types.AttributeValue, error) {
	av, ok := v.(types.AttributeValue)
	if !ok {
		var err error
		if av, err = marshalAttr(v); err != nil {
			return nil, inputErr(field, fmt.Sprintf("%v", v), "cannot marshal: "+err.Error())
		}
	}
	if err := checkKeyValue(field, "", a, av); err != nil {
		return nil, err
	}
	return av, nil
}

// withKeys adds the key attributes to a projection unless they are in it:
// cursors and batch results are keyed by them, and DynamoDB rejects an
// attribute named twice ("Two document paths overlap").
func withKeys(p expression.ProjectionBuilder, attrs []Attribute) (expression.ProjectionBuilder, error) {
	e, err := builders{projection: &p}.build()
	if err != nil {
		return p, inputErr("options.Projection", "", err.Error())
	}
	have := map[string]bool{}
	names := e.Names()
	for _, path := range strings.Split(aws.ToString(e.Projection()), ",") {
		if n, ok := names[strings.TrimSpace(path)]; ok {
			have[n] = true
		}
	}
	for _, a := range attrs {
		if !have[a.Name] {
			p = p.AddNames(expression.Name(a.Name))
		}
	}
	return p, nil
}

// sortCond is a validated SortCondition: its values marshaled as values of
// the sort key attribute.
type sortCond struct {
	op   sortOp
	vals []types.AttributeValue
}

// keyCondition is the key condition of a query on partition pv with sort
// condition c on sort key attribute sk.
func keyCondition(pk Attribute, pv types.AttributeValue, sk Attribute, c sortCond) expression.KeyConditionBuilder {
	kc := expression.Key(pk.Name).Equal(expression.Value(pv))
	if c.op == sortNone {
		return kc
	}
	key := expression.Key(sk.Name)
	var sc expression.KeyConditionBuilder
	switch c.op {
	case sortEQ:
		sc = key.Equal(expression.Value(c.vals[0]))
	case sortBeginsWith:
		sc = key.BeginsWith(c.vals[0].(*types.AttributeValueMemberS).Value)
	case sortBetween:
		sc = key.Between(expression.Value(c.vals[0]), expression.Value(c.vals[1]))
	case sortLT:
		sc = key.LessThan(expression.Value(c.vals[0]))
	case sortLE:
		sc = key.LessThanEqual(expression.Value(c.vals[0]))
	case sortGT:
		sc = key.GreaterThan(expression.Value(c.vals[0]))
	case sortGE:
		sc = key.GreaterThanEqual(expression.Value(c.vals[0]))
	}
	return kc.And(sc)
}

func (t *Table) planQuery(q Query) (*readPlan, error) {
	if q.Limit < 0 {
		return nil, inputErr("query.Limit", fmt.Sprint(q.Limit), "must not be negative")
	}
	pk, sk, startKey, err := t.indexKeys("query.Index", q.Index)
	if err != nil {
		return nil, err
	}
	if err := t.checkConsistent("query.Consistent", q.Consistent, q.Index); err != nil {
		return nil, err
	}
	if q.Partition == nil {
		return nil, inputErr("query.Partition", "", "partition key value is nil")
	}
	pv, err := keyValue("query.Partition", pk, q.Partition)
	if err != nil {
		return nil, err
	}
	binding := fmt.Sprintf("query\x00%s\x00%s\x00%s\x00", t.Name(), q.Index, canonical(pv))
	cond := sortCond{op: q.Sort.op}
	if q.Sort.IsSet() {
		if sk.Name == "" {
			return nil, inputErr("query.Sort", sortOpNames[q.Sort.op], "the table or index has no sort key")
		}
		cond.vals = make([]types.AttributeValue, len(q.Sort.values))
		for i, v := range q.Sort.values {
			if q.Sort.op == sortBeginsWith {
				// The expression package builds begins_with with a string
				// operand only, so tablekit supports it on S sort keys.
				if sk.Type != types.ScalarAttributeTypeS {
					return nil, inputErr("query.Sort", fmt.Sprintf("%q", v), "begins_with needs a string sort key")
				}
				if s, _ := v.(string); s == "" {
					return nil, inputErr("query.Sort", `""`, "begins_with prefix is empty")
				}
			}
			if cond.vals[i], err = keyValue("query.Sort", sk, v); err != nil {
				return nil, err
			}
		}
		binding += sortOpNames[q.Sort.op]
		for _, v := range cond.vals {
			binding += "\x00" + canonical(v)
		}
	}
	binding += fmt.Sprintf("\x00desc=%t", q.Descending)

	var tieAttrs []Attribute
	projected := startKey
	if len(q.TieBreak) > 0 {
		if tieAttrs, err = t.tieBreakAttrs(q.TieBreak, sk); err != nil {
			return nil, err
		}
		// One name binds as it always did, so cursors handed out before
		// TieBreak took several stay valid.
		binding += "\x00tie=" + strings.Join(q.TieBreak, "\x00")
		projected = append(slices.Clone(startKey), tieAttrs...)
	}
	var projection *expression.ProjectionBuilder
	if q.Projection != nil {
		p, err := withKeys(*q.Projection, projected)
		if err != nil {
			return nil, err
		}
		projection = &p
	}
	// input builds the request for sort condition c: the query's own, or
	// the narrower one a tie-break cursor resumes with; a count projects
	// nothing (DynamoDB refuses a projection with Select COUNT).
	input := func(c sortCond, count bool) (dynamodb.QueryInput, error) {
		kc := keyCondition(pk, pv, sk, c)
		b := builders{keyCondition: &kc, filter: q.Filter, projection: projection}
		if count {
			b.projection = nil
		}
		e, err := buildExpr("query", b)
		if err != nil {
			return dynamodb.QueryInput{}, err
		}
		in := dynamodb.QueryInput{
			TableName:                 aws.String(t.Name()),
			KeyConditionExpression:    e.KeyCondition(),
			FilterExpression:          e.Filter(),
			ProjectionExpression:      e.Projection(),
			ExpressionAttributeNames:  e.Names(),
			ExpressionAttributeValues: e.Values(),
			ScanIndexForward:          aws.Bool(!q.Descending),
		}
		if q.Index != "" {
			in.IndexName = aws.String(q.Index)
		}
		if q.Consistent {
			in.ConsistentRead = aws.Bool(true)
		}
		if count {
			in.Select = types.SelectCount
		}
		return in, nil
	}
	base, err := input(cond, false)
	if err != nil {
		return nil, err
	}
	send := func(ctx context.Context, in dynamodb.QueryInput, start Item, limit int32) ([]Item, Item, error) {
		in.ExclusiveStartKey = start
		if limit > 0 {
			in.Limit = aws.Int32(limit)
		}
		out, err := t.db.Query(ctx, &in)
		if err != nil {
			return nil, nil, wrapError("query", t.Name(), "", err)
		}
		if q.Keep == nil {
			return out.Items, out.LastEvaluatedKey, nil
		}
		// Dropped here, below paging and tie runs: to them a kept-out item
		// is one the filter left out, read past by LastEvaluatedKey.
		return slices.DeleteFunc(out.Items, func(it Item) bool { return !q.Keep(it) }), out.LastEvaluatedKey, nil
	}
	p := &readPlan{
		op:     "query",
		cursor: cursorSpec{binding: binding, attrs: startKey},
		limit:  int(q.Limit),
		filter: q.Filter != nil || q.Keep != nil,
		fetch: func(ctx context.Context, start Item, limit int32) ([]Item, Item, error) {
			return send(ctx, base, start, limit)
		},
		count: func(ctx context.Context) (int64, error) {
			in, err := input(cond, true)
			if err != nil {
				return 0, err
			}
			var n int64
			for {
				out, err := t.db.Query(ctx, &in)
				if err != nil {
					return n, wrapError("query", t.Name(), "", err)
				}
				n += int64(out.Count)
				if len(out.LastEvaluatedKey) == 0 {
					return n, nil
				}
				in.ExclusiveStartKey = out.LastEvaluatedKey
			}
		},
	}
	if len(q.TieBreak) > 0 {
		p.tie = &tiePlan{
			table:   t.Name(),
			sortKey: sk,
			ties:    tieAttrs,
			desc:    q.Descending,
			cond:    cond,
			cursor:  cursorSpec{binding: binding, attrs: tieCursorAttrs(sk, tieAttrs)},
			resume: func(ctx context.Context, c sortCond, start Item, limit int32) ([]Item, Item, error) {
				in, err := input(c, false)
				if err != nil {
					return nil, nil, err
				}
				return send(ctx, in, start, limit)
			},
		}
	}
	return p, nil
}

// QueryPage reads one page of q, starting after cursor ("" for the first
// page). The page holds at most q.Limit items (all of one DynamoDB response
// when q.Limit is 0) and Next is "" exactly when no item follows: tablekit
// reads one item ahead, and keeps reading while a filter leaves a page
// short, instead of handing out a cursor that leads to an empty page.
//
// T is a struct to unmarshal into, or Item for the raw items. A cursor from
// another query, or an altered one, fails with ErrInvalidCursor before
// anything is read.
func QueryPage[T any](ctx context.Context, t *Table, q Query, cursor string) (Page[T], error) {
	if err := t.ready(ctx); err != nil {
		return Page[T]{}, err
	}
	p, err := t.planQuery(q)
	if err != nil {
		return Page[T]{}, err
	}
	if p.tie != nil {
		return readTiedPage[T](ctx, t, p, cursor)
	}
	return readPage[T](ctx, t, p, cursor)
}

// QueryCount counts the items of q (those its Filter keeps), reading every
// page with Select COUNT: DynamoDB sends back no item, but reads, and
// bills, every item it counts as a Query returning them would (a 1 MB page
// at a time). Limit, Projection, TieBreak and Descending change no count,
// but are checked as QueryPage checks them; a Keep is refused (DynamoDB
// counts, so no item comes back for it to judge). Bad input fails before
// any request, as for QueryPage.
func QueryCount(ctx context.Context, t *Table, q Query) (int64, error) {
	if err := t.ready(ctx); err != nil {
		return 0, err
	}
	if q.Keep != nil {
		// Select COUNT sends no item back for a Go filter to look at.
		return 0, inputErr("query.Keep", "set", "QueryCount counts what DynamoDB keeps: express the filter as Filter")
	}
	// Planned as QueryPage plans it, so every field is checked the same
	// way (a negative Limit, a bad TieBreak or Projection fails here too);
	// the count request then sends no Limit, projection or tie-break.
	p, err := t.planQuery(q)
	if err != nil {
		return 0, err
	}
	return p.count(ctx)
}

// QueryAll returns an iterator over every item of q, reading page after
// page (q.Limit items per request when set). It stops at the first error,
// which it yields with the zero T.
func QueryAll[T any](ctx context.Context, t *Table, q Query) iter.Seq2[T, error] {
	if err := t.ready(ctx); err != nil {
		return readAll[T](ctx, nil, err)
	}
	p, err := t.planQuery(q)
	if err == nil && p.tie != nil {
		return readTiedAll[T](ctx, p)
	}
	return readAll[T](ctx, p, err)
}

func readPage[T any](ctx context.Context, t *Table, p *readPlan, cursor string) (Page[T], error) {
	var start Item
	if cursor != "" {
		var err error
		if start, err = t.decodeCursor(p.cursor, cursor); err != nil {
			return Page[T]{}, err
		}
	}
	items, more, err := p.collect(ctx, start)
	if err != nil {
		return Page[T]{}, err
	}
	return makePage[T](t, p.cursor, items, more)
}

// makePage unmarshals a page's items and, when more follow, makes the
// cursor that resumes after the last one.
func makePage[T any](t *Table, spec cursorSpec, items []Item, more bool) (Page[T], error) {
	page := Page[T]{Items: make([]T, len(items))}
	var dec itemDecoder
	for i, it := range items {
		if err := dec.decode(it, &page.Items[i]); err != nil {
			return Page[T]{}, err
		}
	}
	if more {
		var err error
		if page.Next, err = t.encodeCursor(spec, items[len(items)-1]); err != nil {
			return Page[T]{}, err
		}
	}
	return page, nil
}

// yieldItems unmarshals items and yields them in turn; false when the
// iteration is over (the consumer stopped, or an error was yielded).
func yieldItems[T any](items []Item, yield func(T, error) bool) bool {
	var dec itemDecoder
	for _, it := range items {
		var v T
		if err := dec.decode(it, &v); err != nil {
			var zero T
			yield(zero, err)
			return false
		}
		if !yield(v, nil) {
			return false
		}
	}
	return true
}

// collect reads the items of one page from start and reports whether more
// items follow.
func (p *readPlan) collect(ctx context.Context, start Item) (items []Item, more bool, err error) {
	esk := start
	if p.limit > 0 {
		for {
			// One more than the page needs: if it comes back, more follows.
			got, last, err := p.fetch(ctx, esk, int32(p.limit-len(items)+1))
			if err != nil {
				return nil, false, err
			}
			items = append(items, got...)
			if len(items) > p.limit {
				return items[:p.limit], true, nil
			}
			if len(last) == 0 {
				return items, false, nil
			}
			esk = last
		}
	}
	for {
		got, last, err := p.fetch(ctx, esk, 0)
		if err != nil {
			return nil, false, err
		}
		items = append(items, got...)
		if len(last) == 0 {
			return items, false, nil
		}
		esk = last
		if len(items) > 0 {
			break
		}
	}
	// DynamoDB returns LastEvaluatedKey whenever it stopped at 1 MB, even if
	// nothing follows: look ahead for one item. Without a filter one item
	// is enough; with one, read whole pages so a selective filter does not
	// cost a request per item.
	peek := int32(1)
	if p.filter {
		peek = 0
	}
	for {
		got, last, err := p.fetch(ctx, esk, peek)
		if err != nil {
			return nil, false, err
		}
		if len(got) > 0 {
			return items, true, nil
		}
		if len(last) == 0 {
			return items, false, nil
		}
		esk = last
	}
}

func readAll[T any](ctx context.Context, p *readPlan, planErr error) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		if planErr != nil {
			yield(zero, planErr)
			return
		}
		var esk Item
		for {
			items, last, err := p.fetch(ctx, esk, int32(p.limit))
			if err != nil {
				yield(zero, err)
				return
			}
			if !yieldItems(items, yield) {
				return
			}
			if len(last) == 0 {
				return
			}
			esk = last
		}
	}
}

package table

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"math/big"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// MaxTieRun is the longest run of equal sort keys a query with a TieBreak
// orders: the run is held in memory to be sorted, so a longer one fails
// with ErrTooManyTies instead of growing without bound.
const MaxTieRun = 10000

var (
	// ErrTooManyTies: a query with a TieBreak met more than MaxTieRun items
	// with one sort key.
	ErrTooManyTies = errors.New("table: too many ties")
	// ErrBadTieBreak: an item lacks the query's TieBreak attribute, holds a
	// value that is not a string, number or binary (or of another type than
	// the rest of its run), or shares it with another item of its run.
	ErrBadTieBreak = errors.New("table: bad tie-break value")
)

// tieReadMax caps the request size while a read grows to the end of a run.
const tieReadMax = 1000

// tiePlan is how a query with a TieBreak orders and resumes runs of ties.
type tiePlan struct {
	table   string
	sortKey Attribute   // Name "" when the index has no sort key: one run
	ties    []Attribute // Type "" when the attribute is not a key attribute
	desc    bool
	cond    sortCond   // the query's sort condition
	cursor  cursorSpec // the cursor holds the sort key and tie-break values
	// resume sends the query with another sort condition.
	resume func(ctx context.Context, c sortCond, start Item, limit int32) ([]Item, Item, error)
}

// tieBreakAttrs checks the TieBreak names of a query on the table or index
// whose sort key is sk, and returns them with their types when they are
// key attributes of the table or of one of its indexes.
func (t *Table) tieBreakAttrs(names []string, sk Attribute) ([]Attribute, error) {
	all := []Attribute{t.schema.PartitionKey, t.schema.SortKey}
	for _, ix := range t.schema.Indexes {
		all = append(all, ix.PartitionKey, ix.SortKey)
	}
	out := make([]Attribute, 0, len(names))
	for i, name := range names {
		switch {
		case name == "":
			return nil, inputErr("query.TieBreak", `""`, "an attribute name is empty")
		case name == sk.Name:
			return nil, inputErr("query.TieBreak", name, "is the sort key of what the query reads; name attributes unique among its ties, such as the table's key")
		case slices.Contains(names[:i], name):
			return nil, inputErr("query.TieBreak", name, "is named twice")
		}
		a := Attribute{Name: name}
		if j := slices.IndexFunc(all, func(a Attribute) bool { return a.Name == name }); j >= 0 {
			a = all[j]
		}
		out = append(out, a)
	}
	return out, nil
}

// tieCursorAttrs are the attributes a tie-break cursor carries.
func tieCursorAttrs(sk Attribute, ties []Attribute) []Attribute {
	if sk.Name == "" {
		return ties
	}
	return append([]Attribute{sk}, ties...)
}

// compareValues orders two scalar values of one type as DynamoDB does:
// strings and binaries byte by byte (UTF-8 byte order is code point order),
// numbers by value.
func compareValues(a, b types.AttributeValue) (int, bool) {
	switch a := a.(type) {
	case *types.AttributeValueMemberS:
		if b, ok := b.(*types.AttributeValueMemberS); ok {
			return strings.Compare(a.Value, b.Value), true
		}
	case *types.AttributeValueMemberB:
		if b, ok := b.(*types.AttributeValueMemberB); ok {
			return bytes.Compare(a.Value, b.Value), true
		}
	case *types.AttributeValueMemberN:
		if b, ok := b.(*types.AttributeValueMemberN); ok {
			x, okx := new(big.Rat).SetString(a.Value)
			y, oky := new(big.Rat).SetString(b.Value)
			if okx && oky {
				return x.Cmp(y), true
			}
		}
	case nil:
		return 0, b == nil
	}
	return 0, false
}

func sameValue(a, b types.AttributeValue) bool {
	c, ok := compareValues(a, b)
	return ok && c == 0
}

// matches reports whether sort key v meets c (which DynamoDB already
// checked for the items it returned; a resumed read checks it again because
// it sends a wider condition, see resumeCond).
func (c sortCond) matches(v types.AttributeValue) bool {
	cmp := func(i int) int {
		n, ok := compareValues(v, c.vals[i])
		if !ok {
			return 2 // not comparable: fails every test below
		}
		return n
	}
	switch c.op {
	case sortEQ:
		return cmp(0) == 0
	case sortBeginsWith:
		s, ok := v.(*types.AttributeValueMemberS)
		return ok && strings.HasPrefix(s.Value, c.vals[0].(*types.AttributeValueMemberS).Value)
	case sortBetween:
		lo, hi := cmp(0), cmp(1)
		return (lo == 0 || lo == 1) && (hi == 0 || hi == -1)
	case sortLT:
		return cmp(0) == -1
	case sortLE:
		n := cmp(0)
		return n == -1 || n == 0
	case sortGT:
		return cmp(0) == 1
	case sortGE:
		n := cmp(0)
		return n == 0 || n == 1
	}
	return true
}

// prefixEnd returns the least string above every string that begins with
// p: p with its last code point incremented. ok is false when there is none
// that DynamoDB accepts (p ends in U+10FFFF).
func prefixEnd(p string) (string, bool) {
	r, size := utf8.DecodeLastRuneInString(p)
	if r == utf8.RuneError || r == utf8.MaxRune {
		return "", false
	}
	r++
	if r == 0xD800 { // skip the surrogates, which UTF-8 cannot hold
		r = 0xE000
	}
	return p[:len(p)-size] + string(r), true
}

// resumeCond is the sort condition that resumes the query at sort key x,
// inclusive: the part of the query's condition at or after x in the read
// direction, as tight as one key condition can say it. It may read a
// boundary item the query's condition excludes (between is inclusive where
// < is not), so the resumed read also checks p.cond.matches and stops at
// the first item outside it: the condition is a contiguous range of sort
// keys and x lies in it.
func (p *tiePlan) resumeCond(x types.AttributeValue) sortCond {
	c := p.cond
	if c.op == sortEQ {
		return c
	}
	between := func(lo, hi types.AttributeValue) sortCond {
		return sortCond{op: sortBetween, vals: []types.AttributeValue{lo, hi}}
	}
	if !p.desc {
		switch c.op {
		case sortBetween:
			return between(x, c.vals[1])
		case sortLT, sortLE:
			return between(x, c.vals[0])
		case sortBeginsWith:
			if end, ok := prefixEnd(c.vals[0].(*types.AttributeValueMemberS).Value); ok {
				return between(x, &types.AttributeValueMemberS{Value: end})
			}
		}
		return sortCond{op: sortGE, vals: []types.AttributeValue{x}}
	}
	switch c.op {
	case sortBetween, sortGT, sortGE, sortBeginsWith:
		// Every string with prefix p is at least p, and every string from
		// p up to x (which begins with p) begins with p.
		return between(c.vals[0], x)
	}
	return sortCond{op: sortLE, vals: []types.AttributeValue{x}}
}

// tieStream reads a query's items in DynamoDB's order and hands them out a
// run of equal sort keys at a time, each run in tie-break order.
type tieStream struct {
	plan  *tiePlan
	fetch func(ctx context.Context, start Item, limit int32) ([]Item, Item, error)
	// check, when set, ends the stream at the first item it refuses.
	check func(sortKey types.AttributeValue) bool
	// size is the Limit of the next request (0: DynamoDB's 1 MB page).
	size int32
	// firstBatch is the number of items of the first non-empty response.
	firstBatch int
	buf        []Item
	esk        Item
	started    bool
	done       bool
}

func (s *tieStream) sortKeyOf(it Item) types.AttributeValue {
	if s.plan.sortKey.Name == "" {
		return nil
	}
	return it[s.plan.sortKey.Name]
}

// peek returns the next item without taking it; nil at the end.
func (s *tieStream) peek(ctx context.Context, size int32) (Item, error) {
	for len(s.buf) == 0 {
		if s.done {
			return nil, nil
		}
		if s.started && len(s.esk) == 0 {
			s.done = true
			return nil, nil
		}
		s.started = true
		items, last, err := s.fetch(ctx, s.esk, size)
		if err != nil {
			return nil, err
		}
		if s.firstBatch == 0 {
			s.firstBatch = len(items)
		}
		s.buf, s.esk = items, last
	}
	it := s.buf[0]
	if s.check != nil && !s.check(s.sortKeyOf(it)) {
		s.buf, s.done = nil, true
		return nil, nil
	}
	return it, nil
}

// nextRun returns the next run of items with one sort key, sorted by the
// tie-break attribute in the read direction; nil at the end.
func (s *tieStream) nextRun(ctx context.Context) ([]Item, error) {
	size := s.size
	first, err := s.peek(ctx, size)
	if first == nil || err != nil {
		return nil, err
	}
	key := s.sortKeyOf(first)
	var run []Item
	for {
		it, err := s.peek(ctx, size)
		if err != nil {
			return nil, err
		}
		if it == nil || !sameValue(s.sortKeyOf(it), key) {
			break
		}
		s.buf = s.buf[1:]
		run = append(run, it)
		if len(run) > MaxTieRun {
			return nil, fmt.Errorf("table: query %s: more than %d items with %s=%s: %w",
				s.plan.table, MaxTieRun, s.plan.sortKey.Name, formatValue(key), ErrTooManyTies)
		}
		if len(s.buf) == 0 && size > 0 {
			// Still inside the run: read on in growing requests.
			size = min(2*size, tieReadMax)
		}
	}
	return run, s.plan.sortRun(run)
}

// sortRun orders one run by the tie-break attributes (descending for a
// descending query) and checks their values are of one scalar type each
// and unique together.
func (p *tiePlan) sortRun(run []Item) error {
	bad := func(it Item, why string) error {
		return fmt.Errorf("table: query %s: item with %s=%s: tie-break %s: %w",
			p.table, p.sortKey.Name, formatValue(it[p.sortKey.Name]), why, ErrBadTieBreak)
	}
	for _, a := range p.ties {
		var want string
		for _, it := range run {
			v, ok := it[a.Name]
			if !ok {
				return bad(it, "attribute "+a.Name+" is missing")
			}
			typ := TypeOf(v)
			if typ != "S" && typ != "N" && typ != "B" {
				return bad(it, "attribute "+a.Name+" is of type "+typeName(v)+", not S, N or B")
			}
			if want == "" {
				want = typ
				if a.Type != "" {
					want = string(a.Type)
				}
			}
			if typ != want {
				return bad(it, "attribute "+a.Name+" is of type "+typ+", not "+want)
			}
		}
	}
	slices.SortFunc(run, p.compare)
	for i := 1; i < len(run); i++ {
		if p.compare(run[i-1], run[i]) == 0 {
			var vals []string
			for _, a := range p.ties {
				vals = append(vals, a.Name+"="+formatValue(run[i][a.Name]))
			}
			return bad(run[i], "values "+strings.Join(vals, ", ")+" are not unique among the ties")
		}
	}
	return nil
}

// compare orders two items of one run by their tie-break values in the
// read direction.
func (p *tiePlan) compare(a, b Item) int {
	for _, t := range p.ties {
		if c, _ := compareValues(a[t.Name], b[t.Name]); c != 0 {
			if p.desc {
				return -c
			}
			return c
		}
	}
	return 0
}

// after reports whether item comes after the cursor position at (sort key
// and tie-break values) in the read direction; it is called only for items
// of at's run.
func (p *tiePlan) after(it, at Item) bool { return p.compare(it, at) > 0 }

// readTiedPage is QueryPage for a query with a TieBreak: whole runs, sorted,
// resumed at the cursor's sort key with the ties already returned skipped.
func readTiedPage[T any](ctx context.Context, t *Table, p *readPlan, cursor string) (Page[T], error) {
	tp := p.tie
	s := &tieStream{plan: tp, fetch: p.fetch}
	var at Item // the cursor's position: sort key and tie-break value
	if cursor != "" {
		var err error
		if at, err = t.decodeCursor(tp.cursor, cursor); err != nil {
			return Page[T]{}, err
		}
		if tp.sortKey.Name != "" {
			c := tp.resumeCond(at[tp.sortKey.Name])
			s.fetch = func(ctx context.Context, start Item, limit int32) ([]Item, Item, error) {
				return tp.resume(ctx, c, start, limit)
			}
			s.check = tp.cond.matches
		}
	}
	limit := p.limit
	var out []Item
	more := false
	for {
		if limit > 0 {
			s.size = int32(limit + 1 - len(out))
		}
		run, err := s.nextRun(ctx)
		if err != nil {
			return Page[T]{}, err
		}
		if len(run) == 0 {
			break
		}
		if at != nil && sameValue(s.sortKeyOf(run[0]), s.sortKeyOf(at)) {
			// The cursor's run: drop the ties earlier pages returned.
			i := slices.IndexFunc(run, func(it Item) bool { return tp.after(it, at) })
			if i < 0 {
				i = len(run)
			}
			run = run[i:]
		}
		out = append(out, run...)
		if limit == 0 && len(out) > 0 {
			// A page is what the first response held, completed to the end
			// of its last run.
			limit = max(s.firstBatch, len(out))
		}
		if limit > 0 && len(out) > limit {
			out, more = out[:limit], true
			break
		}
		if limit > 0 && len(out) == limit {
			next, err := s.peek(ctx, 1)
			if err != nil {
				return Page[T]{}, err
			}
			more = next != nil
			break
		}
	}
	return makePage[T](t, tp.cursor, out, more)
}

// readTiedAll is QueryAll for a query with a TieBreak: run after run.
func readTiedAll[T any](ctx context.Context, p *readPlan) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		s := &tieStream{plan: p.tie, fetch: p.fetch, size: int32(p.limit)}
		for {
			run, err := s.nextRun(ctx)
			if err != nil {
				yield(zero, err)
				return
			}
			if len(run) == 0 {
				return
			}
			if !yieldItems(run, yield) {
				return
			}
		}
	}
}

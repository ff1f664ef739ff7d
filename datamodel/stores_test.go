package datamodel_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/access"
	"github.com/tablekit/tablekit/datamodel"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
)

// This file checks the declarations against the stores' code: a store
// call runs on the fake, the items it wrote are found by comparing the
// table before and after, each is matched to a declared item of the
// pattern (by partition key template and kind of change), and the write
// units the fake charged are compared with the estimate for those items'
// real sizes. An undeclared write, a declared item the call did not
// write, a missing GSI write or a transaction declared as a plain write
// all show up as a difference.

type stored struct {
	pk, sk string
	size   int
	body   string
}

// snapshot reads every item of the table straight from the fake.
func snapshot(t *testing.T, fake *dynamotest.DB, s table.Schema) map[string]stored {
	t.Helper()
	out := map[string]stored{}
	in := &dynamodb.ScanInput{TableName: aws.String(s.Name)}
	for {
		page, err := fake.Scan(context.Background(), in)
		require.NoError(t, err)
		for _, it := range page.Items {
			var m map[string]any
			require.NoError(t, attributevalue.UnmarshalMap(it, &m))
			b, _ := json.Marshal(m)
			st := stored{pk: fmt.Sprint(m[s.PartitionKey.Name]), size: table.ItemSize(it), body: string(b)}
			if s.SortKey.Name != "" {
				st.sk = fmt.Sprint(m[s.SortKey.Name])
			}
			out[st.pk+"\x00"+st.sk] = st
		}
		if len(page.LastEvaluatedKey) == 0 {
			return out
		}
		in.ExclusiveStartKey = page.LastEvaluatedKey
	}
}

type change struct {
	stored
	kind access.Op // PutItem (new), UpdateItem (changed), DeleteItem (gone)
}

func diff(before, after map[string]stored) []change {
	var out []change
	for k, a := range after {
		b, ok := before[k]
		switch {
		case !ok:
			out = append(out, change{a, access.PutItem})
		case a.body != b.body:
			a.size = max(a.size, b.size) // an update costs the larger of the two
			out = append(out, change{a, access.UpdateItem})
		}
	}
	for k, b := range before {
		if _, ok := after[k]; !ok {
			out = append(out, change{b, access.DeleteItem})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].pk+out[i].sk < out[j].pk+out[j].sk })
	return out
}

// templateRE turns a declared partition template ("T:{key}[#{parent}]")
// into a regular expression: placeholders match anything, [...] is
// optional.
func templateRE(tmpl string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(tmpl); i++ {
		switch c := tmpl[i]; c {
		case '{':
			j := strings.IndexByte(tmpl[i:], '}')
			b.WriteString(".+")
			i += j
		case '[':
			b.WriteString("(?:")
		case ']':
			b.WriteString(")?")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// compatible says whether a change of kind can be a declared op.
func compatible(op, kind access.Op) bool {
	switch op {
	case access.PutItem:
		return kind == access.PutItem || kind == access.UpdateItem // a put may replace
	case access.UpdateItem:
		return kind == access.UpdateItem || kind == access.PutItem // an update may create (ADD)
	}
	return op == kind
}

type storeRow struct {
	table, pattern      string
	estimated, measured float64
	items               int
	problems            []string
	// updatedThenGone marks the deletions an UpdateItem was matched to:
	// an item a call updates and then deletes shows only as gone.
	updatedThenGone map[int]bool
}

// checkWrite runs one store call and compares its write units with the
// pattern's estimate for the items it actually wrote.
// decl is a store's table and the access patterns it declares.
type decl struct {
	table.Schema
	Patterns []access.Pattern
}

func checkWrite(t *testing.T, fake *dynamotest.DB, s decl, name string, run func() error) storeRow {
	t.Helper()
	return checkCall(t, fake, s, []string{name}, run)
}

// checkCall runs one store call that sends a request of each of the named
// patterns, one after another (tasks' Submit, Claim and Complete are
// single-item writes in a row), and compares its write units with the sum
// of the patterns' estimates for the items it actually wrote.
func checkCall(t *testing.T, fake *dynamotest.DB, s decl, names []string, run func() error) storeRow {
	t.Helper()
	return checkCallOn(t, fake, []callOn{{s, names}}, run)[0]
}

// callOn is a table and the patterns a call is declared to send it.
type callOn struct {
	decl
	names []string
}

// checkCallOn is checkCall of one call that writes several tables (a
// transaction across two stores' tables): a row per table, each
// comparing the table's write units with its named patterns' estimates.
func checkCallOn(t *testing.T, fake *dynamotest.DB, on []callOn, run func() error) []storeRow {
	t.Helper()
	var calls []string
	aps := make([][]access.Pattern, len(on))
	before := make([]map[string]stored, len(on))
	for i, c := range on {
		calls = append(calls, strings.Join(c.names, " + "))
		for _, n := range c.names {
			var ap access.Pattern
			for _, p := range c.Patterns {
				if p.Name == n {
					ap = p
				}
			}
			require.NotEmpty(t, ap.Name, "%s: no pattern %q", c.Name, n)
			aps[i] = append(aps[i], ap)
		}
		before[i] = snapshot(t, fake, c.Schema)
	}
	fake.ResetConsumed()
	require.NoError(t, run(), "%s", strings.Join(calls, "; "))
	var rows []storeRow
	for i, c := range on {
		measured := fake.Consumed(c.Name).WriteUnits
		after := snapshot(t, fake, c.Schema)
		changes := diff(before[i], after)
		row := storeRow{table: c.Name, pattern: calls[i], measured: measured, items: len(changes)}

		// Match every declared item to a change.
		used := make([]bool, len(changes))
		for _, ap := range aps[i] {
			row.estimated += estimateWritten(t, c.decl, ap, changes, used, after, &row)
		}
		for j, ch := range changes {
			if !used[j] {
				row.problems = append(row.problems, fmt.Sprintf("undeclared %s of %s %s", ch.kind, ch.pk, ch.sk))
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// estimateWritten matches the items pattern ap declares to changes not yet
// used and returns the pattern's estimate for the items really written.
func estimateWritten(t *testing.T, s decl, ap access.Pattern, changes []change, used []bool, after map[string]stored, row *storeRow) float64 {
	t.Helper()
	var items []access.Item
	declared := ap.Items
	if len(declared) == 0 {
		declared = []access.Item{{Operation: ap.Operation, Size: ap.ItemSize, Count: max(ap.ItemsPerRequest, 1), Partition: ap.Partition, IndexWrites: ap.IndexWrites}}
		if ap.Operation == access.BatchWriteItem {
			declared[0].Operation = access.PutItem
		}
	}
	for _, it := range declared {
		re := templateRE(it.Partition)
		op := it.Operation
		for range max(it.Count, 1) {
			if op == access.ConditionCheck {
				// Nothing changes; the check costs the checked item's size.
				// Take the largest item under a matching partition: an upper
				// bound, exact when that partition's items are alike.
				size := 0
				for _, st := range after {
					if re.MatchString(st.pk) {
						size = max(size, st.size)
					}
				}
				if size == 0 {
					row.problems = append(row.problems, fmt.Sprintf("no item on %s to check", it.Partition))
					continue
				}
				items = append(items, access.Item{Operation: op, Size: size, Partition: it.Partition})
				continue
			}
			found := -1
			for i, c := range changes {
				if !used[i] && re.MatchString(c.pk) && compatible(op, c.kind) {
					found = i
					break
				}
			}
			if found < 0 && op == access.UpdateItem {
				if gone := row.updatedThenDeleted(changes, re); gone >= 0 {
					items = append(items, access.Item{Operation: op, Size: changes[gone].size, Partition: it.Partition, IndexWrites: it.IndexWrites})
					continue
				}
			}
			if found < 0 {
				row.problems = append(row.problems, fmt.Sprintf("declared %s on %s not written", op, it.Partition))
				continue
			}
			used[found] = true
			items = append(items, access.Item{Operation: op, Size: changes[found].size, Partition: it.Partition, IndexWrites: it.IndexWrites})
		}
	}
	real := ap
	real.Items, real.Name = items, "real"
	if len(items) == 0 {
		real.Items = nil
	}
	if ap.Operation != access.TransactWriteItems && ap.Operation != access.BatchWriteItem && len(items) == 1 {
		real.Items = nil
		real.ItemSize, real.ItemsPerRequest, real.IndexWrites = items[0].Size, 1, items[0].IndexWrites
	}
	if len(real.Items) > 0 || real.ItemSize > 0 {
		est, err := datamodel.EstimateSchema(s.Schema, []access.Pattern{real})
		require.NoError(t, err, "%s: %s", s.Name, ap.Name)
		return est.Patterns[0].WriteUnits
	}
	return 0
}

// updatedThenDeleted finds, for a declared UpdateItem no change matches,
// a deletion under its partition no other UpdateItem took: the call
// updated the item and then deleted it (pipeline's ADD -1 to zero, then
// the zero count's removal), which the end state shows only as gone. The
// deletion stays for the DeleteItem declared for it. -1 when there is none.
func (r *storeRow) updatedThenDeleted(changes []change, re *regexp.Regexp) int {
	for i, c := range changes {
		if c.kind == access.DeleteItem && !r.updatedThenGone[i] && re.MatchString(c.pk) {
			if r.updatedThenGone == nil {
				r.updatedThenGone = map[int]bool{}
			}
			r.updatedThenGone[i] = true
			return i
		}
	}
	return -1
}

func reportRows(t *testing.T, rows []storeRow) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-22s %-34s %6s %9s %9s  %s\n", "table", "pattern (run through the store)", "items", "est WCU", "meas WCU", "ok")
	for _, r := range rows {
		ok := r.ok()
		fmt.Fprintf(&b, "%-22s %-34s %6d %9.1f %9.1f  %v %s\n", r.table, r.pattern, r.items, r.estimated, r.measured, ok, strings.Join(r.problems, "; "))
		assert.True(t, ok, "%s: %q through the store: estimated %.1f WCU, measured %.1f; %s", r.table, r.pattern, r.estimated, r.measured, strings.Join(r.problems, "; "))
	}
	t.Log(b.String())
}

// ok says the call wrote what the pattern declares, within 10% of its units.
func (r storeRow) ok() bool {
	return len(r.problems) == 0 && r.estimated > 0 && (r.measured-r.estimated)/r.estimated <= 0.1 && (r.estimated-r.measured)/r.estimated <= 0.1
}

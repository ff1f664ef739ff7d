package dynamotest

import (
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest/internal/expr"
)

// heapPerCall is the heap one call of fn allocates: the least of a few
// calls, since another goroutine's allocations can only add to a reading.
func heapPerCall(fn func()) uint64 {
	var least uint64
	for i := range 3 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		fn()
		runtime.ReadMemStats(&after)
		if d := after.TotalAlloc - before.TotalAlloc; i == 0 || d < least {
			least = d
		}
	}
	return least
}

// growth is how the heap of cost(n)() grows from n = 2,000 to 4,000:
// about 2 when the work is linear in n, 4 when it is quadratic.
func growth(t *testing.T, cost func(n int) func()) float64 {
	t.Helper()
	small, large := heapPerCall(cost(2000)), heapPerCall(cost(4000))
	require.NotZero(t, small)
	return float64(large) / float64(small)
}

// A statement is translated into the expression language and compiled;
// both must cost memory linear in the statement, whatever its size (the
// 8 KB limit is checked before, by the operations, and this parser must
// not lean on it). The translation once rebuilt "(" + left + ") OR (" +
// right + ")" at every OR: 2,500 ORs allocated 74 MB, 5,000 289 MB. Linear
// work doubles the heap when the statement doubles; quadratic work
// quadruples it.
func TestPartiQLTranslationCostsMemoryLinearInTheStatement(t *testing.T) {
	repeat := func(n int, each func(i int) string) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(each(i))
		}
		return b.String()
	}
	for name, statement := range map[string]func(n int) string{
		"or-chain": func(n int) string {
			return "SELECT * FROM t WHERE a = 0" + strings.Repeat(" OR a = 1", n)
		},
		"and-chain": func(n int) string {
			return "SELECT * FROM t WHERE a = 0" + strings.Repeat(" AND a = 1", n)
		},
		"nested-parentheses": func(n int) string {
			return "SELECT * FROM t WHERE " + strings.Repeat("(", n) + "a = 0" + strings.Repeat(") OR a = 1", n)
		},
		"nested-not": func(n int) string {
			return "SELECT * FROM t WHERE " + strings.Repeat("NOT ", n) + "a = 0"
		},
		"nested-calls": func(n int) string {
			return "SELECT * FROM t WHERE " + strings.Repeat("size(", n) + "a" + strings.Repeat(")", n) + " > 1"
		},
		"distinct-names": func(n int) string {
			return "SELECT * FROM t WHERE a0 = 0" + repeat(n, func(i int) string { return " OR a" + strconv.Itoa(i) + " = 1" })
		},
		"projection": func(n int) string {
			return "SELECT a" + repeat(n, func(i int) string { return ", a" + strconv.Itoa(i) }) + " FROM t WHERE pk = 'x'"
		},
		"update": func(n int) string {
			return "UPDATE t" + repeat(n, func(i int) string { return " SET a" + strconv.Itoa(i) + " = " + strconv.Itoa(i) }) + " WHERE pk = 'x'"
		},
	} {
		cost := func(n int) func() {
			s := statement(n)
			return func() {
				st, err := parseStatement(s, nil)
				require.NoErrorf(t, err, "%s", name)
				x, err := newExprs(st.p.names, st.p.values)
				require.NoError(t, err)
				x.env.Translated()
				_, _ = x.condition(st.where) // size(size(a)) is refused, once parsed
				_, err = x.projection(st.projection)
				require.NoError(t, err)
				_, err = x.update(st.update)
				require.NoError(t, err)
			}
		}
		g := growth(t, cost)
		t.Logf("%s: ×%.2f", name, g)
		assert.Lessf(t, g, 3.0, "%s: the heap more than doubles when the statement doubles", name)
	}
}

// parseStatement translates a WHERE clause's ORs, ANDs and NOTs with the
// parentheses they need, once each.
func TestPartiQLWhereTranslatesEachOperandInParentheses(t *testing.T) {
	for statement, want := range map[string]string{
		`SELECT * FROM t WHERE a = 1`:                                      `#pq0 = :pq0`,
		`SELECT * FROM t WHERE a = 1 OR a = 2 OR a = 3`:                    `(#pq0 = :pq0) OR (#pq0 = :pq1) OR (#pq0 = :pq2)`,
		`SELECT * FROM t WHERE a = 1 AND (b = 2 OR c = 3) AND NOT d = 4`:   `(#pq0 = :pq0) AND ((#pq1 = :pq1) OR (#pq2 = :pq2)) AND (NOT (#pq3 = :pq3))`,
		`SELECT * FROM t WHERE ((a = 1)) OR NOT NOT (b = 2 AND c = 3)`:     `(#pq0 = :pq0) OR (NOT (NOT ((#pq1 = :pq1) AND (#pq2 = :pq2))))`,
		`SELECT * FROM t WHERE begins_with(a, 'x') OR size(size(b)) > 1`:   `(begins_with(#pq0, :pq0)) OR (size(size(#pq1)) > :pq1)`,
		`SELECT * FROM t WHERE a IN [1, 2] AND b BETWEEN 1 AND 2 OR c = 1`: `((#pq0 IN (:pq0, :pq1)) AND (#pq1 BETWEEN :pq2 AND :pq3)) OR (#pq2 = :pq4)`,
	} {
		st, err := parseStatement(statement, nil)
		require.NoErrorf(t, err, "%s", statement)
		require.NotNil(t, st.where)
		assert.Equalf(t, want, *st.where, "%s", statement)
	}
}

// The expression limits bound what a caller can send (4 KB of expression,
// 2 MB per placeholder map); a translated expression (PartiQL, legacy
// parameters) is not bound by the 4 KB, so parsing and checking must cost
// memory linear in the input whatever its size. A quadratic shape doubles
// the memory twice for each doubling of n; these would show 4, not 2.
func TestExpressionParsingCostsMemoryLinearInTheInput(t *testing.T) {
	translated := func(kind string, text func(n int) string) func(n int) func() {
		return func(n int) func() {
			s := text(n)
			return func() {
				e := expr.NewEnv(map[string]string{"#a": "a"}, map[string]types.AttributeValue{":v": &types.AttributeValueMemberN{Value: "1"}})
				e.Translated()
				var err error
				switch kind {
				case "projection":
					_, err = e.Projection(s)
				case "update":
					_, err = e.Update(s)
				default:
					_, err = e.Condition(s)
				}
				// size(size(x)) is refused, but only once it has all parsed.
				if !strings.HasPrefix(s, "size(") {
					require.NoError(t, err)
				}
			}
		}
	}
	numbered := func(n int, each func(i int) string, sep string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = each(i)
		}
		return strings.Join(parts, sep)
	}
	for name, cost := range map[string]func(n int) func(){
		"or-chain":  translated("condition", func(n int) string { return numbered(n, func(int) string { return "#a = :v" }, " OR ") }),
		"and-chain": translated("condition", func(n int) string { return numbered(n, func(int) string { return "(#a = :v)" }, " AND ") }),
		"nested-parentheses": translated("condition", func(n int) string {
			return strings.Repeat("(", n) + "#a = :v" + strings.Repeat(") OR #a = :v", n)
		}),
		"nested-calls": translated("condition", func(n int) string {
			return strings.Repeat("size(", n) + "#a" + strings.Repeat(")", n) + " > :v"
		}),
		"projection": translated("projection", func(n int) string {
			return numbered(n, func(i int) string { return "a" + strconv.Itoa(i) }, ", ")
		}),
		"update": translated("update", func(n int) string {
			return "SET " + numbered(n, func(i int) string { return "a" + strconv.Itoa(i) + " = :v" }, ", ")
		}),
		"names-map": func(n int) func() {
			names := map[string]string{}
			for i := range n {
				names["#n"+strconv.Itoa(i)] = "a"
			}
			return func() {
				e := expr.NewEnv(names, nil)
				_, err := e.Projection("#n0")
				require.NoError(t, err)
				require.Error(t, e.CheckUnused())
			}
		},
	} {
		g := growth(t, cost)
		t.Logf("%s: %.2f", name, g)
		assert.Lessf(t, g, 3.0, "%s: the heap more than doubles when the input doubles", name)
	}
}

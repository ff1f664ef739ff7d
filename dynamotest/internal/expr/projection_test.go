package expr

import (
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"strings"
	"testing"
)

type projCase struct {
	item  string
	expr  string
	names string
	want  string // the projected item (DynamoDB JSON) or the exact error message
}

const projItem = `{"a":{"N":"1"},"s":{"S":"hello"},"l":{"L":[{"S":"w"},{"S":"x"},{"M":{"y":{"N":"1"},"z":{"N":"2"}}},{"S":"z"}]},
	"m":{"M":{"k":{"S":"v"},"n":{"M":{"deep":{"N":"3"},"other":{"N":"4"}}}}},"ss":{"SS":["a","b"]},"a.b":{"S":"dotted"}}`

func runProjectionCases(t *testing.T, cases []projCase) {
	t.Helper()
	for i := range cases {
		if cases[i].item == "" {
			cases[i].item = projItem
		}
	}
	dumpCases(t, "projection", cases)
	for _, tc := range cases {
		env := NewEnv(names(t, tc.names), nil)
		pr, err := env.Projection(tc.expr)
		if err == nil {
			err = env.CheckUnused()
		}
		if err != nil {
			got := errMessage(t, err)
			assert.EqualValuesf(t, tc.want, got, "%s\n got error: %s\n      want: %s", tc.expr, got, tc.want)
			continue
		}
		it := item(t, tc.item)
		got := pr.Apply(it)
		assert.Falsef(t, !strings.HasPrefix(tc.want, "{") || !sameItem(got, item(t, tc.want)), "%s\n got: %s\nwant: %s", tc.expr, show(got), tc.want)
		assert.Falsef(t, !sameItem(it, item(t, tc.item)), "%s changed the item", tc.expr)
	}
}

func TestProjection(t *testing.T) {
	runProjectionCases(t, []projCase{
		{"", "a", "", `{"a":{"N":"1"}}`},
		{"", "a, s, zz", "", `{"a":{"N":"1"},"s":{"S":"hello"}}`},
		{"", "zz", "", `{}`},
		{"", "m.k", "", `{"m":{"M":{"k":{"S":"v"}}}}`},
		{"", "m.k, m.zz", "", `{"m":{"M":{"k":{"S":"v"}}}}`},
		{"", "m.zz", "", `{}`},
		{"", "m.n.deep, a", "", `{"m":{"M":{"n":{"M":{"deep":{"N":"3"}}}}},"a":{"N":"1"}}`},
		{"", "l[1]", "", `{"l":{"L":[{"S":"x"}]}}`},
		{"", "l[3], l[1]", "", `{"l":{"L":[{"S":"x"},{"S":"z"}]}}`},
		{"", "l[0], l[9]", "", `{"l":{"L":[{"S":"w"}]}}`},
		{"", "l[9]", "", `{}`},
		{"", "l[2].z", "", `{"l":{"L":[{"M":{"z":{"N":"2"}}}]}}`},
		{"", "l[2].q, l[0]", "", `{"l":{"L":[{"S":"w"}]}}`},
		{"", "s[0], a.b, m[0]", "", `{}`},
		{"", "#d", `{"#d":"a.b"}`, `{"a.b":{"S":"dotted"}}`},
		{"", "#m.#k", `{"#m":"m","#k":"k"}`, `{"m":{"M":{"k":{"S":"v"}}}}`},
		{"", "ss", "", `{"ss":{"SS":["a","b"]}}`},
		{"", "a, a", "", "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]"},
		{"", "a, a.b", "", "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a, b]"},
		{"", "a.b, a[0]", "", "Invalid ProjectionExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, b], path two: [a, [0]]"},
		{"", "a,", "", `Invalid ProjectionExpression: Syntax error; token: "<EOF>", near: ","`},
		{"", "a b", "", `Invalid ProjectionExpression: Syntax error; token: "b", near: "a b"`},
		{"", ":v", "", `Invalid ProjectionExpression: Syntax error; token: ":v", near: ":v"`},
		{"", "status", "", "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: status"},
		{"", "add", "", `Invalid ProjectionExpression: Syntax error; token: "add", near: "add"`},
		{"", "size, convert", "", `{}`},
		{"", "#x", "", "Invalid ProjectionExpression: An expression attribute name used in the document path is not defined; attribute name: #x"},
		{"", "a", `{"#x":"a"}`, "Value provided in ExpressionAttributeNames unused in expressions: keys: {#x}"},
	})
}

func TestProjectionTopLevelNames(t *testing.T) {
	env := NewEnv(nil, nil)
	pr, err := env.Projection("b.c, a, b.d, l[1]")
	require.NoError(t, err)
	got := strings.Join(pr.TopLevelNames(), ",")
	require.EqualValuesf(t, "b,a,l", got, "TopLevelNames = %s", got)
}

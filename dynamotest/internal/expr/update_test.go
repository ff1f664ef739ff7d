package expr

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type updCase struct {
	item   string // DynamoDB JSON; "" = the item does not exist
	expr   string
	values string
	names  string
	want   string // the item after the update (DynamoDB JSON), or the exact error message
}

func runUpdateCases(t *testing.T, cases []updCase) {
	t.Helper()
	dumpCases(t, "update", cases)
	for _, tc := range cases {
		env := NewEnv(names(t, tc.names), item(t, tc.values))
		before := item(t, tc.item)
		snapshot := item(t, tc.item)
		u, err := env.Update(tc.expr)
		if err == nil {
			err = env.CheckUnused()
		}
		var after map[string]types.AttributeValue
		if err == nil {
			after, err = u.Apply(before)
		}
		if err != nil {
			got := errMessage(t, err)
			assert.EqualValuesf(t, tc.want, got, "%s on %s\n got error: %s\n      want: %s", tc.expr, tc.item, got, tc.want)
			continue
		}
		if strings.HasPrefix(tc.want, "{") {
			want := item(t, tc.want)
			assert.Falsef(t, !sameItem(after, want), "%s on %s\n got: %s\nwant: %s", tc.expr, tc.item, show(after), tc.want)
		} else {
			assert.Failf(t, "want an error", "%s on %s\n got: %s\nwant error: %s", tc.expr, tc.item, show(after), tc.want)
		}
		assert.Falsef(t, !sameItem(before, snapshot), "%s changed its input item to %s", tc.expr, show(before))
	}
}

func TestUpdateSet(t *testing.T) {
	runUpdateCases(t, []updCase{
		{"", "SET a = :v", v1, "", `{"a":{"N":"1"}}`},
		{`{"a":{"S":"hi"}}`, "SET b = :v", v1, "", `{"a":{"S":"hi"},"b":{"N":"1"}}`},
		{`{"a":{"S":"hi"}}`, "SET a = :v", v1, "", `{"a":{"N":"1"}}`},
		{`{"a":{"S":"hi"}}`, "set b = :v, c = a", v1, "", `{"a":{"S":"hi"},"b":{"N":"1"},"c":{"S":"hi"}}`},
		{`{"a":{"S":"hi"}}`, "sEt #x = :v", v1, `{"#x":"a.b"}`, `{"a":{"S":"hi"},"a.b":{"N":"1"}}`},
		{`{"a":{"S":"hi"}}`, "SET a = a", "", "", `{"a":{"S":"hi"}}`},
		// The right-hand side reads the item as it was.
		{`{"a":{"N":"1"}}`, "SET a = :v, b = a", `{":v":{"N":"7"}}`, "", `{"a":{"N":"7"},"b":{"N":"1"}}`},
		{`{"a":{"S":"hi"}}`, "SET x = :v, y = x", v1, "", msgMissingAttr},
		{`{"a":{"S":"hi"}}`, "SET c = z", "", "", msgMissingAttr},
		{"", "SET c = z", "", "", msgMissingAttr},
		{"", "SET a = :v", `{":v":{"L":[]}}`, "", `{"a":{"L":[]}}`},
		{"", "SET a = :v", `{":v":` + nestedList(31) + `}`, "", `{"a":` + nestedList(31) + `}`},
		{"", "SET a = :v", `{":v":` + nestedList(32) + `}`, "", "Nesting Levels have exceeded supported limits"},
		{`{"m":{"M":{}}}`, "SET m.x = :v", `{":v":` + nestedList(30) + `}`, "", `{"m":{"M":{"x":` + nestedList(30) + `}}}`},
		{`{"m":{"M":{}}}`, "SET m.x = :v", `{":v":` + nestedList(31) + `}`, "", "Nesting Levels have exceeded supported limits"},
		{"", "SET a = :v", `{":v":` + nestedList(33) + `}`, "", "ExpressionAttributeValues contains invalid value: Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit for key :v"},
		{"", "SET d = :a, e = :b, f = :c", `{":a":{"M":{}},":b":{"S":""},":c":{"B":""}}`, "", `{"d":{"M":{}},"e":{"S":""},"f":{"B":""}}`},
	})
}

// nestedList is DynamoDB JSON for n lists nested around a string.
func nestedList(n int) string {
	return strings.Repeat(`{"L":[`, n) + `{"S":"x"}` + strings.Repeat(`]}`, n)
}

func TestUpdateArithmetic(t *testing.T) {
	runUpdateCases(t, []updCase{
		{"", "SET b = :a + :b", `{":a":{"N":"4"},":b":{"N":"3"}}`, "", `{"b":{"N":"7"}}`},
		{"", "SET b = :a - :b", `{":a":{"N":"5"},":b":{"N":"2"}}`, "", `{"b":{"N":"3"}}`},
		{`{"a":{"N":"2"}}`, "SET a = a + :v", `{":v":{"N":"3"}}`, "", `{"a":{"N":"5"}}`},
		{`{"a":{"N":"2"}}`, "SET a = :v - a", `{":v":{"N":"3"}}`, "", `{"a":{"N":"1"}}`},
		{`{"a":{"N":"0.1"}}`, "SET a = a + :v", `{":v":{"N":"0.2"}}`, "", `{"a":{"N":"0.3"}}`},
		{"", "SET b = :a + :b", `{":a":{"N":"1"},":b":{"N":"10000000000000000000000"}}`, "", `{"b":{"N":"10000000000000000000001"}}`},
		{"", "SET b = :a + :b", `{":a":{"N":"1e50"},":b":{"N":"1"}}`, "", "DynamoDB only supports precision up to 38 digits"},
		{"", "SET b = :a + :b", `{":a":{"N":"9e125"},":b":{"N":"9e125"}}`, "", "Number overflow. Attempting to store a number with magnitude larger than supported range"},
		{`{"s":{"S":"x"}}`, "SET a = s + :v", v1, "", msgBadOperand},
		{"", "SET a = zz + :v", v1, "", msgMissingAttr},
		{"", "SET b = if_not_exists(b, :a) + :b", `{":a":{"N":"2"},":b":{"N":"3"}}`, "", `{"b":{"N":"5"}}`},
		{"", "SET a = :v + :v + :v", v1, "", `Invalid UpdateExpression: Syntax error; token: "+", near: ":v + :v"`},
		{"", "SET a = :v + :w", `{":v":{"S":"dog"},":w":{"N":"3"}}`, "", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: +, operand type: S"},
		{"", "SET a = x - :v", `{":v":{"S":"1"}}`, "", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: -, operand type: S"},
		{"", "SET a = :v - x", `{":v":{"BOOL":true}}`, "", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: -, operand type: BOOL"},
		{"", "SET c = if_not_exists(c, :a+:b)", `{":a":{"N":"2"},":b":{"N":"3"}}`, "", `Invalid UpdateExpression: Syntax error; token: "+", near: ":a+:b"`},
	})
}

func TestUpdateFunctions(t *testing.T) {
	runUpdateCases(t, []updCase{
		{"", "SET a = list_append(:a, :b)", `{":a":{"L":[{"N":"4"},{"S":"hello"}]},":b":{"L":[{"S":"hi"},{"N":"7"}]}}`, "",
			`{"a":{"L":[{"N":"4"},{"S":"hello"},{"S":"hi"},{"N":"7"}]}}`},
		{`{"a":{"L":[{"S":"x"}]}}`, "SET a = list_append(a, :b)", `{":b":{"L":[{"S":"y"}]}}`, "", `{"a":{"L":[{"S":"x"},{"S":"y"}]}}`},
		{`{"a":{"L":[{"S":"x"}]}}`, "SET a = list_append(:b, a)", `{":b":{"L":[{"S":"y"}]}}`, "", `{"a":{"L":[{"S":"y"},{"S":"x"}]}}`},
		{`{"a":{"L":[{"S":"x"}]}}`, "SET b = list_append(a, a)", "", "", `{"a":{"L":[{"S":"x"}]},"b":{"L":[{"S":"x"},{"S":"x"}]}}`},
		{`{"b":{"N":"7"}}`, "SET a = list_append(b, :v)", `{":v":{"L":[]}}`, "", msgBadOperand},
		{"", "SET a = list_append(b, :v)", `{":v":{"L":[]}}`, "", msgMissingAttr},
		{"", "SET a = list_append(if_not_exists(a, :v), :w)", `{":v":{"L":[{"S":"a"}]},":w":{"L":[{"S":"b"}]}}`, "", `{"a":{"L":[{"S":"a"},{"S":"b"}]}}`},
		{"", "SET a = if_not_exists(a, :v)", `{":v":{"N":"2"}}`, "", `{"a":{"N":"2"}}`},
		{`{"a":{"N":"1"}}`, "SET a = if_not_exists(a, :v)", `{":v":{"N":"2"}}`, "", `{"a":{"N":"1"}}`},
		{`{"a":{"N":"1"}}`, "SET b = if_not_exists(a, :v)", `{":v":{"N":"2"}}`, "", `{"a":{"N":"1"},"b":{"N":"1"}}`},
		{`{"a":{"N":"1"}}`, "SET b = if_not_exists(c, if_not_exists(a, :v))", `{":v":{"N":"2"}}`, "", `{"a":{"N":"1"},"b":{"N":"1"}}`},
		{"", "SET a = list_append(:v)", `{":v":{"L":[]}}`, "", "Invalid UpdateExpression: Incorrect number of operands for operator or function; operator or function: list_append, number of operands: 1"},
		{"", "SET a = if_not_exists(q)", `{":v":{"L":[]}}`, "", "Invalid UpdateExpression: Incorrect number of operands for operator or function; operator or function: if_not_exists, number of operands: 1"},
		{"", "SET a = list_append(:v, :v)", v1, "", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: list_append, operand type: N"},
		{"", "SET a = list_append(:v, :w)", `{":v":{"L":[]},":w":{"S":"x"}}`, "", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: list_append, operand type: S"},
		{"", "SET a = LIST_APPEND(:v, :v)", `{":v":{"L":[]}}`, "", "Invalid UpdateExpression: Invalid function name; function: LIST_APPEND"},
		{"", "SET a = f(:v)", v1, "", "Invalid UpdateExpression: Invalid function name; function: f"},
		{"", "SET a = _f(:v)", v1, "", `Invalid UpdateExpression: Syntax error; token: "_", near: "= _f"`},
		{"", "SET a = if_not_exists(:v, :v)", v1, "", "Invalid UpdateExpression: Operator or function requires a document path; operator or function: if_not_exists"},
		{"", "SET a = if_not_exists(q, list_append(:v, :v))", `{":v":{"L":[]}}`, "", "Invalid UpdateExpression: The function is not allowed to be used this way in an expression; function: list_append"},
		{"", "SET a = list_append(list_append(:v, :v), :v)", `{":v":{"L":[]}}`, "", "Invalid UpdateExpression: The function is not allowed to be used this way in an expression; function: list_append"},
		{"", "SET a = size(s)", "", "", "Invalid UpdateExpression: The function is not allowed in an update expression; function: size"},
	})
}

func TestUpdateNestedPaths(t *testing.T) {
	const doc = `{"a":{"M":{"b":{"N":"3"},"c":{"L":[{"S":"hi"},{"M":{"x":{"M":{"y":{"L":[{"N":"3"},{"N":"5"},{"N":"7"}]}}},"q":{"N":"2"}}}]}}}}`
	runUpdateCases(t, []updCase{
		{doc, "SET a.c[1].#n.y[1] = :v", `{":v":{"N":"9"}}`, `{"#n":"x"}`,
			`{"a":{"M":{"b":{"N":"3"},"c":{"L":[{"S":"hi"},{"M":{"x":{"M":{"y":{"L":[{"N":"3"},{"N":"9"},{"N":"7"}]}}},"q":{"N":"2"}}}]}}}}`},
		{doc, "SET a.z = a.c[1].x.y[2]", "", "",
			`{"a":{"M":{"z":{"N":"7"},"b":{"N":"3"},"c":{"L":[{"S":"hi"},{"M":{"x":{"M":{"y":{"L":[{"N":"3"},{"N":"5"},{"N":"7"}]}}},"q":{"N":"2"}}}]}}}}`},
		{doc, "REMOVE a.c[1].x.y[1], a.c[1].q", "", "",
			`{"a":{"M":{"b":{"N":"3"},"c":{"L":[{"S":"hi"},{"M":{"x":{"M":{"y":{"L":[{"N":"3"},{"N":"7"}]}}}}}]}}}}`},
		{`{"a":{"M":{"b":{"N":"3"},"c":{"N":"4"}}},"d":{"N":"5"}}`, "SET a.c = :v", `{":v":{"N":"7"}}`, "", `{"a":{"M":{"b":{"N":"3"},"c":{"N":"7"}}},"d":{"N":"5"}}`},
		{`{"a":{"M":{"b":{"N":"3"}}}}`, "SET a.d = :v", `{":v":{"N":"7"}}`, "", `{"a":{"M":{"b":{"N":"3"},"d":{"N":"7"}}}}`},
		{`{"a":{"M":{"x":{"N":"3"},"y":{"N":"4"},"c":{"M":{"y":{"N":"3"}}}}},"b":{"M":{"x":{"N":"1"},"y":{"N":"2"}}}}`,
			"SET a.b = :a, a.c.d = :b, b.x = :c REMOVE a.x, b.y", `{":a":{"N":"10"},":b":{"S":"dog"},":c":{"N":"17"}}`, "",
			`{"a":{"M":{"y":{"N":"4"},"b":{"N":"10"},"c":{"M":{"y":{"N":"3"},"d":{"S":"dog"}}}}},"b":{"M":{"x":{"N":"17"}}}}`},
		{`{"a":{"L":[{"S":"one"},{"S":"two"},{"S":"three"}]}}`, "SET a[1] = :v", `{":v":{"S":"hello"}}`, "", `{"a":{"L":[{"S":"one"},{"S":"hello"},{"S":"three"}]}}`},
		// Past the end, SET appends, in index order.
		{`{"a":{"L":[{"S":"one"}]}}`, "SET a[7] = :v", `{":v":{"S":"hello"}}`, "", `{"a":{"L":[{"S":"one"},{"S":"hello"}]}}`},
		{`{"a":{"L":[{"S":"one"}]}}`, "SET a[84] = :a, a[37] = :b, a[17] = :c, a[50] = :d", `{":a":{"S":"a1"},":b":{"S":"a2"},":c":{"S":"a3"},":d":{"S":"a4"}}`, "",
			`{"a":{"L":[{"S":"one"},{"S":"a3"},{"S":"a2"},{"S":"a4"},{"S":"a1"}]}}`},
		// Indexes name elements of the list as it was before the update.
		{`{"a":{"L":[{"N":"2"},{"N":"3"},{"N":"4"},{"N":"5"},{"N":"6"},{"N":"7"}]}}`, "REMOVE a[1] SET a[3] = :v", `{":v":{"N":"17"}}`, "",
			`{"a":{"L":[{"N":"2"},{"N":"4"},{"N":"17"},{"N":"6"},{"N":"7"}]}}`},
		{`{"a":{"L":[{"N":"2"},{"N":"3"},{"N":"4"},{"N":"5"},{"N":"6"},{"N":"7"}]}}`, "SET a[3] = :v REMOVE a[1]", `{":v":{"N":"17"}}`, "",
			`{"a":{"L":[{"N":"2"},{"N":"4"},{"N":"17"},{"N":"6"},{"N":"7"}]}}`},
		{`{"l":{"L":[{"N":"1"},{"N":"2"},{"N":"3"}]}}`, "REMOVE l[0], l[2]", "", "", `{"l":{"L":[{"N":"2"}]}}`},
		{`{"l":{"L":[{"N":"1"},{"N":"2"},{"N":"3"}]}}`, "REMOVE l[2], l[0], l[1]", "", "", `{"l":{"L":[]}}`},
		{`{"a":{"M":{"b":{"N":"1"}}}}`, "REMOVE a.b", "", "", `{"a":{"M":{}}}`},
		{`{"a":{"M":{"x":{"N":"3"}}},"b":{"L":[{"S":"hi"}]}}`, "REMOVE a.y, b[7], c", "", "", `{"a":{"M":{"x":{"N":"3"}}},"b":{"L":[{"S":"hi"}]}}`},
		{`{"a":{"S":"hello"},"b":{"L":[{"S":"hi"}]}}`, "SET a.c = :v", v1, "", msgInvalidPath},
		{`{"a":{"S":"hello"},"b":{"L":[{"S":"hi"}]}}`, "SET b.c = :v", v1, "", msgInvalidPath},
		{`{"a":{"S":"hello"},"b":{"L":[{"S":"hi"}]}}`, "SET c.c = :v", v1, "", msgInvalidPath},
		{`{"a":{"S":"hello"},"b":{"L":[{"S":"hi"}]}}`, "REMOVE a.c", "", "", msgInvalidPath},
		{`{"a":{"S":"hello"},"b":{"L":[{"S":"hi"}]}}`, "REMOVE c.c", "", "", msgInvalidPath},
		{`{"a":{"S":"hello"}}`, "SET a[0] = :v", v1, "", msgInvalidPath},
		{`{"a":{"S":"hello"}}`, "SET b[0] = :v", v1, "", msgInvalidPath},
		{`{"a":{"S":"hello"}}`, "REMOVE a[0]", "", "", msgInvalidPath},
		{"", "SET c.c = :v", v1, "", msgInvalidPath},
		{"", "REMOVE x.y", "", "", msgInvalidPath},
		{"", "REMOVE x[0]", "", "", msgInvalidPath},
		{"", "ADD a.b :v", v1, "", msgInvalidPath},
		{`{"q":{"N":"1"}}`, "DELETE a.b :v", `{":v":{"SS":["a"]}}`, "", msgInvalidPath},
		{`{"a":{"M":{}}}`, "DELETE a.b :v", `{":v":{"SS":["a"]}}`, "", `{"a":{"M":{}}}`},
		{`{"a":{"L":[]}}`, "SET a[0] = :v", v1, "", `{"a":{"L":[{"N":"1"}]}}`},
		{"", "SET b[0] = :v", v1, "", msgInvalidPath},
	})
}

func TestUpdateAddDelete(t *testing.T) {
	runUpdateCases(t, []updCase{
		{`{"a":{"N":"3"}}`, "ADD a :v", `{":v":{"N":"4"}}`, "", `{"a":{"N":"7"}}`},
		{`{"a":{"S":"hello"}}`, "ADD b :v", `{":v":{"N":"7"}}`, "", `{"a":{"S":"hello"},"b":{"N":"7"}}`},
		{"", "ADD b :v", `{":v":{"N":"8"}}`, "", `{"b":{"N":"8"}}`},
		{`{"a":{"SS":["dog","cat","mouse"]}}`, "ADD a :v", `{":v":{"SS":["pig"]}}`, "", `{"a":{"SS":["dog","cat","mouse","pig"]}}`},
		{`{"a":{"SS":["beaver","lynx","coati"]}}`, "ADD a :v", `{":v":{"SS":["coati","beaver","badger"]}}`, "", `{"a":{"SS":["beaver","lynx","coati","badger"]}}`},
		{`{"a":{"NS":["1","2"]}}`, "ADD a :v", `{":v":{"NS":["2.0","3"]}}`, "", `{"a":{"NS":["1","2","3"]}}`},
		{`{"a":{"BS":["AQ=="]}}`, "ADD a :v", `{":v":{"BS":["Ag==","AQ=="]}}`, "", `{"a":{"BS":["AQ==","Ag=="]}}`},
		{"", "ADD b :v", `{":v":{"SS":["cat"]}}`, "", `{"b":{"SS":["cat"]}}`},
		{`{"m":{"M":{"k":{"N":"1"},"ss":{"SS":["a"]}}}}`, "ADD m.k :v, m.ss :w", `{":v":{"N":"2"},":w":{"SS":["b"]}}`, "", `{"m":{"M":{"k":{"N":"3"},"ss":{"SS":["a","b"]}}}}`},
		{`{"l":{"L":[{"N":"1"}]}}`, "ADD l[0] :v", `{":v":{"N":"2"}}`, "", `{"l":{"L":[{"N":"3"}]}}`},
		{`{"x":{"N":"5"}}`, "ADD x :w, y :w", `{":w":{"N":"2"}}`, "", `{"x":{"N":"7"},"y":{"N":"2"}}`},
		{`{"a":{"N":"3"},"b":{"S":"hi"}}`, "ADD b :v", v1, "", msgBadOperand},
		{`{"a":{"SS":["x"]}}`, "ADD a :v", `{":v":{"NS":["1"]}}`, "", msgBadOperand},
		{`{"a":{"L":[]}}`, "ADD a :v", `{":v":{"SS":["x"]}}`, "", msgBadOperand},
		{"", "ADD a :v", `{":v":{"S":"hello"}}`, "", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: STRING, typeSet: ALLOWED_FOR_ADD_OPERAND"},
		{"", "ADD a :v", `{":v":{"L":[]}}`, "", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: LIST, typeSet: ALLOWED_FOR_ADD_OPERAND"},
		{"", "ADD a :v", `{":v":{"BOOL":true}}`, "", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: BOOLEAN, typeSet: ALLOWED_FOR_ADD_OPERAND"},
		{"", "ADD a :v", `{":v":{"NULL":true}}`, "", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: NULL, typeSet: ALLOWED_FOR_ADD_OPERAND"},
		{"", "ADD a :v", `{":v":{"M":{}}}`, "", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: MAP, typeSet: ALLOWED_FOR_ADD_OPERAND"},
		{"", "ADD a :v", `{":v":{"B":"AQ=="}}`, "", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: BINARY, typeSet: ALLOWED_FOR_ADD_OPERAND"},
		{"", "ADD x x", "", "", `Invalid UpdateExpression: Syntax error; token: "x", near: "x x"`},
		{`{"a":{"SS":["dog","cat","mouse"]},"b":{"S":"hi"}}`, "DELETE a :v", `{":v":{"SS":["cat","mouse"]}}`, "", `{"a":{"SS":["dog"]},"b":{"S":"hi"}}`},
		{`{"a":{"SS":["dog"]}}`, "DELETE a :v", `{":v":{"SS":["pig"]}}`, "", `{"a":{"SS":["dog"]}}`},
		{`{"a":{"SS":["dog"]},"b":{"S":"hi"}}`, "DELETE a :v", `{":v":{"SS":["dog"]}}`, "", `{"b":{"S":"hi"}}`},
		{`{"b":{"S":"hi"}}`, "DELETE a :v", `{":v":{"SS":["dog"]}}`, "", `{"b":{"S":"hi"}}`},
		{`{"a":{"NS":["1","2"]}}`, "DELETE a :v", `{":v":{"NS":["1.0"]}}`, "", `{"a":{"NS":["2"]}}`},
		{`{"m":{"M":{"ss":{"SS":["a"]}}}}`, "DELETE m.ss :v", `{":v":{"SS":["a","b"]}}`, "", `{"m":{"M":{}}}`},
		{`{"a":{"SS":["dog"]}}`, "DELETE a :v", `{":v":{"NS":["1"]}}`, "", msgBadOperand},
		{`{"a":{"S":"dog"}}`, "DELETE a :v", `{":v":{"SS":["dog"]}}`, "", msgBadOperand},
		{"", "DELETE a :v", `{":v":{"S":"x"}}`, "", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: DELETE, operand type: STRING, typeSet: ALLOWED_FOR_DELETE_OPERAND"},
		{"", "DELETE a :v", v1, "", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: DELETE, operand type: NUMBER, typeSet: ALLOWED_FOR_DELETE_OPERAND"},
		{"", "DELETE a :v", `{":v":{"SS":[]}}`, "", "ExpressionAttributeValues contains invalid value: One or more parameter values were invalid: An string set  may not be empty for key :v"},
	})
}

func TestUpdateClausesAndPaths(t *testing.T) {
	runUpdateCases(t, []updCase{
		{`{"a":{"N":"1"},"b":{"N":"2"}}`, "REMOVE a SET c = :v", v1, "", `{"b":{"N":"2"},"c":{"N":"1"}}`},
		{`{"a":{"N":"1"},"b":{"N":"2"}}`, "SET c = :v REMOVE b", v1, "", `{"a":{"N":"1"},"c":{"N":"1"}}`},
		{`{"a":{"S":"hello"}}`, "REMOVE a SET b = a", "", "", `{"b":{"S":"hello"}}`},
		{`{"a":{"N":"1"},"s":{"SS":["x"]}}`, "SET b = :v REMOVE a ADD n :v DELETE s :w", `{":v":{"N":"1"},":w":{"SS":["x"]}}`, "", `{"b":{"N":"1"},"n":{"N":"1"}}`},
		{"", "set a = :v remove zz", v1, "", `{"a":{"N":"1"}}`},
		{"", "SET a = :v SET b = :v", v1, "", `Invalid UpdateExpression: The "SET" section can only be used once in an update expression;`},
		{"", "SET a = :v REMOVE a SET b = :v", v1, "", `Invalid UpdateExpression: The "SET" section can only be used once in an update expression;`},
		{"", "REMOVE a REMOVE b", "", "", `Invalid UpdateExpression: The "REMOVE" section can only be used once in an update expression;`},
		{"", "ADD a :v ADD b :v", v1, "", `Invalid UpdateExpression: The "ADD" section can only be used once in an update expression;`},
		{"", "DELETE a :v DELETE b :v", `{":v":{"SS":["x"]}}`, "", `Invalid UpdateExpression: The "DELETE" section can only be used once in an update expression;`},
		{"", "SET a = :v, a = :v", v1, "", "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]"},
		{"", "SET a = :v, a.b = :v", v1, "", "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a, b]"},
		{"", "SET a.b = :v, a = :v", v1, "", "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a, b], path two: [a]"},
		{"", "SET a = :v REMOVE a", v1, "", "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]"},
		{"", "SET #a = :v, #b = :v", v1, `{"#a":"a","#b":"a"}`, "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]"},
		{"", "SET a[1][1] = :v, a[1][1][1][1] = :v", v1, "", "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a, [1], [1]], path two: [a, [1], [1], [1], [1]]"},
		{"", "SET l[1] = :v, l[1].x = :v", v1, "", "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [l, [1]], path two: [l, [1], x]"},
		{"", "ADD a :v DELETE a :w", `{":v":{"SS":["x"]},":w":{"SS":["x"]}}`, "", "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]"},
		{"", "SET a.b = :v, a[1] = :v", v1, "", "Invalid UpdateExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, b], path two: [a, [1]]"},
		{"", "SET a.b.c = :v, a.b[2] = :v", v1, "", "Invalid UpdateExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, b, c], path two: [a, b, [2]]"},
		{`{"a":{"M":{}},"b":{"L":[]}}`, "SET a.b = :v, a.c = :v, b[0] = :v, b[1] = :v", v1, "", `{"a":{"M":{"b":{"N":"1"},"c":{"N":"1"}}},"b":{"L":[{"N":"1"},{"N":"1"}]}}`},
	})
}

func TestUpdateSyntaxAndPlaceholderErrors(t *testing.T) {
	runUpdateCases(t, []updCase{
		{"", "", "", "", "Invalid UpdateExpression: The expression can not be empty;"},
		{"", "HELLO a = :v", v1, "", `Invalid UpdateExpression: Syntax error; token: "HELLO", near: "HELLO a"`},
		{"", "SET _a = :v", v1, "", `Invalid UpdateExpression: Syntax error; token: "_", near: "SET _a"`},
		{"", "SET 123a = :v", v1, "", `Invalid UpdateExpression: Syntax error; token: "123", near: "SET 123a"`},
		{"", "SET a = :v,", v1, "", `Invalid UpdateExpression: Syntax error; token: "<EOF>", near: ","`},
		{"", "SET a[:v] = :v", v1, "", `Invalid UpdateExpression: Syntax error; token: ":v", near: "[:v]"`},
		{"", "SET a[#x] = :v", v1, `{"#x":"x"}`, `Invalid UpdateExpression: Syntax error; token: "#x", near: "[#x]"`},
		{"", "SET :a = :v", v1, "", `Invalid UpdateExpression: Syntax error; token: ":a", near: "SET :a ="`},
		{"", "SET a = :v, remove zz", v1, "", `Invalid UpdateExpression: Syntax error; token: "remove", near: ", remove zz"`},
		{"", "SET hi-there = :v", v1, "", `Invalid UpdateExpression: Syntax error; token: "-", near: "hi-there"`},
		{"", "SET status = :v", v1, "", "Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: status"},
		{"", "ADD m.new :v", v1, "", "Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: new"},
		{"", "SET a = :zz", v1, "", "Invalid UpdateExpression: An expression attribute value used in expression is not defined; attribute value: :zz"},
		{"", "SET #zz = :v", v1, "", "Invalid UpdateExpression: An expression attribute name used in the document path is not defined; attribute name: #zz"},
		{"", "SET a = :v", `{":v":{"N":"1"},":w":{"N":"2"}}`, "", "Value provided in ExpressionAttributeValues unused in expressions: keys: {:w}"},
		{"", "SET #a = :v", v1, `{"#a":"a","#b":"b"}`, "Value provided in ExpressionAttributeNames unused in expressions: keys: {#b}"},
		{"", "SET #one = #two", "", `{"#one":"c","#two":"a","#three":"z"}`, "Value provided in ExpressionAttributeNames unused in expressions: keys: {#three}"},
		{"", "SET #a = :v, #b = :w", `{":v":{"N":"1"},":w":{"N":"1"},":x":{"N":"1"},":y":{"N":"1"}}`, `{"#a":"a","#b":"b","#c":"c","#d":"d"}`,
			"Value provided in ExpressionAttributeNames unused in expressions: keys: {#c, #d}"},
		{"", "SET a = :v", `{":v":{"N":"1"},":b":{"N":"1"},":c":{"N":"1"},":d":{"N":"1"},":e":{"N":"1"},":aa":{"N":"1"},":ab":{"N":"1"},":ba":{"N":"1"}}`, "",
			"Value provided in ExpressionAttributeValues unused in expressions: keys: {:b, :c, :ba, :d, :aa, :e, :ab}"},
		{"", "SET a = :v", `{":v":{"N":"1"},":zz":{"SS":[]}}`, "", "ExpressionAttributeValues contains invalid value: One or more parameter values were invalid: An string set  may not be empty for key :zz"},
		{"", "SET a = :v", `{":v":{"N":"dog"}}`, "", "ExpressionAttributeValues contains invalid value: A value provided cannot be converted into a number for key :v"},
		{"", "SET a = :v", `{"v":{"N":"1"}}`, "", `ExpressionAttributeValues contains invalid key: Syntax error; key: "v"`},
		{"", "SET #a = :v", v1, `{"a":"q"}`, `ExpressionAttributeNames contains invalid key: Syntax error; key: "a"`},
		{"", "SET #a = :v", v1, `{"#a":""}`, "ExpressionAttributeNames contains invalid value: Empty attribute name for key #a"},
		{"", "SET a = :v", v1, `{}`, "ExpressionAttributeNames must not be empty"},
		{"", "REMOVE a", `{}`, "", "ExpressionAttributeValues must not be empty"},
	})
}

func TestUpdateTopLevelNames(t *testing.T) {
	env := NewEnv(map[string]string{"#n": "name"}, item(t, v1))
	u, err := env.Update("SET a.b = :v, #n = :v REMOVE c[0], a.c ADD d :v")
	require.NoError(t, err)
	got := strings.Join(u.TopLevelNames(), ",")
	require.EqualValuesf(t, "a,name,c,d", got, "TopLevelNames = %s", got)
}

func TestUpdateResultDoesNotAliasRequestValues(t *testing.T) {
	values := item(t, `{":l":{"L":[{"S":"x"}]},":s":{"SS":["a"]}}`)
	env := NewEnv(nil, values)
	u, err := env.Update("SET l = :l ADD s :s")
	require.NoError(t, err)
	out, err := u.Apply(nil)
	require.NoError(t, err)
	values[":l"].(*types.AttributeValueMemberL).Value[0] = &types.AttributeValueMemberS{Value: "changed"}
	values[":s"].(*types.AttributeValueMemberSS).Value[0] = "changed"
	require.Falsef(t, !sameItem(out, item(t, `{"l":{"L":[{"S":"x"}]},"s":{"SS":["a"]}}`)), "changing the request's values changed the result: %s", show(out))
}

package expr

import (
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"strings"
	"testing"
)

// condItem is the item DynamoDB Local evaluated these conditions against;
// the expected outcomes and messages are what it returned.
const condItem = `{"p":{"S":"a"},"c":{"N":"1"},"x":{"N":"5"},"s":{"S":"héllo"},"b":{"B":"AQID"},
	"l":{"L":[{"N":"1"},{"S":"two"},{"N":"3"}]},"m":{"M":{"k":{"S":"v"}}},"ss":{"SS":["a","b"]},
	"ns":{"NS":["1","2"]},"t":{"BOOL":true},"n":{"NULL":true},"u":{"S":"a😀"},"e":{"S":""}}`

type condCase struct {
	item   string
	expr   string
	values string // DynamoDB JSON of ExpressionAttributeValues
	names  string
	want   string // "true", "false", or the exact error message
}

func runConditionCases(t *testing.T, cases []condCase) {
	t.Helper()
	it := item(t, condItem)
	for i := range cases {
		cases[i].item = condItem
	}
	dumpCases(t, "condition", cases)
	for _, tc := range cases {
		env := NewEnv(names(t, tc.names), item(t, tc.values))
		c, err := env.Condition(tc.expr)
		got := ""
		if err != nil {
			got = errMessage(t, err)
		} else {
			ok, err := c.Eval(it)
			if err != nil {
				got = errMessage(t, err)
			} else if ok {
				got = "true"
			} else {
				got = "false"
			}
		}
		assert.EqualValuesf(t, tc.want, got, "%s\n got: %s\nwant: %s", tc.expr, got, tc.want)
	}
}

const v1 = `{":v":{"N":"1"}}`

func TestConditionComparisons(t *testing.T) {
	runConditionCases(t, []condCase{
		{"", "x = :v", `{":v":{"N":"5"}}`, "", "true"},
		{"", "x = :v", `{":v":{"N":"5.00"}}`, "", "true"},
		{"", "x = :v", v1, "", "false"},
		{"", "x <> :v", v1, "", "true"},
		{"", "x < :v", `{":v":{"N":"10"}}`, "", "true"},
		{"", "x <= :v", `{":v":{"N":"5"}}`, "", "true"},
		{"", "x > :v", `{":v":{"N":"10"}}`, "", "false"},
		{"", "x >= :v", `{":v":{"N":"5"}}`, "", "true"},
		{"", ":v < x", `{":v":{"N":"10"}}`, "", "false"},
		{"", "s > :v", `{":v":{"S":"h"}}`, "", "true"},
		{"", "s < :v", `{":v":{"S":"hz"}}`, "", "false"}, // "é" is two bytes above 'z'
		{"", "b > :v", `{":v":{"B":"AQI="}}`, "", "true"},
		// A missing attribute equals nothing, so <> holds.
		{"", "zz2 = :v", v1, "", "false"},
		{"", "zz2 <> :v", v1, "", "true"},
		{"", "NOT zz2 = :v", v1, "", "true"},
		{"", "zz2 < :v", v1, "", "false"},
		// Different types are unequal and unordered.
		{"", "s <> :v", v1, "", "true"},
		{"", "s < :v", v1, "", "false"},
		{"", "s = :v", `{":v":{"N":"5"}}`, "", "false"},
		// = compares documents deeply, numbers by value, sets in any order.
		{"", "l = :a", `{":a":{"L":[{"N":"1.0"},{"S":"two"},{"N":"3"}]}}`, "", "true"},
		{"", "ns = :a", `{":a":{"NS":["2","1"]}}`, "", "true"},
		{"", "m = :a", `{":a":{"M":{"k":{"S":"v"}}}}`, "", "true"},
		{"", "t = :a", `{":a":{"BOOL":true}}`, "", "true"},
		{"", "n = :a", `{":a":{"NULL":true}}`, "", "true"},
		{"", "m.k = :a", `{":a":{"S":"v"}}`, "", "true"},
		{"", "l[1] = :a", `{":a":{"S":"two"}}`, "", "true"},
		{"", "l[5] = :a", `{":a":{"S":"two"}}`, "", "false"},
		{"", "m.k.z = :a", `{":a":{"S":"two"}}`, "", "false"},
		{"", "x[0] = :v", v1, "", "false"},
		{"", ":v = :v", v1, "", "true"},
		{"", "x = (:v)", v1, "", "false"},
		{"", "(x) = :v", `{":v":{"N":"5"}}`, "", "true"},
		{"", "l[2] > l[0]", "", "", "true"},
	})
}

func TestConditionBetweenAndIn(t *testing.T) {
	runConditionCases(t, []condCase{
		{"", "x BETWEEN :a AND :b", `{":a":{"N":"1"},":b":{"N":"10"}}`, "", "true"},
		{"", "x BETWEEN :a AND :b", `{":a":{"N":"5"},":b":{"N":"5"}}`, "", "true"},
		{"", "x BETWEEN :a AND :b", `{":a":{"N":"6"},":b":{"N":"10"}}`, "", "false"},
		{"", "x between :a and :b", `{":a":{"N":"1"},":b":{"N":"10"}}`, "", "true"},
		{"", "s BETWEEN :a AND :b", `{":a":{"S":"a"},":b":{"S":"z"}}`, "", "true"},
		{"", "zz2 BETWEEN :a AND :b", `{":a":{"N":"1"},":b":{"N":"10"}}`, "", "false"},
		{"", "x BETWEEN :a AND :b", `{":a":{"N":"1"},":b":{"S":"z"}}`, "",
			"Invalid ConditionExpression: The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: AttributeValue: {N:1}, upper bound operand: AttributeValue: {S:z}"},
		{"", "x BETWEEN :w AND :v", `{":v":{"N":"1"},":w":{"N":"2"}}`, "",
			"Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {N:2}, upper bound operand: AttributeValue: {N:1}"},
		{"", "x BETWEEN :v AND :w", `{":v":{"S":"b"},":w":{"S":"a"}}`, "",
			"Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {S:b}, upper bound operand: AttributeValue: {S:a}"},
		{"", "x BETWEEN :v AND :w", `{":v":{"BOOL":true},":w":{"BOOL":true}}`, "",
			"Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: BETWEEN, operand type: BOOL"},
		{"", "x BETWEEN x AND :v", v1, "",
			"Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: BETWEEN, first operand: [x]"},
		{"", "x BETWEEN :v", v1, "", `Invalid ConditionExpression: Syntax error; token: "<EOF>", near: ":v"`},
		{"", "x IN (:a, :b)", `{":a":{"N":"1"},":b":{"N":"5.0"}}`, "", "true"},
		{"", "x IN (:a)", `{":a":{"N":"1"}}`, "", "false"},
		{"", "zz2 IN (:a)", `{":a":{"N":"1"}}`, "", "false"},
		{"", "m.k IN (:v, :w)", `{":v":{"N":"1"},":w":{"S":"v"}}`, "", "true"},
		{"", ":v IN (:v)", v1, "", "true"},
		{"", "x IN (" + strings.Repeat(":v,", 99) + ":v)", v1, "", "false"},
		{"", "x IN (" + strings.Repeat(":v,", 100) + ":v)", v1, "",
			"Invalid ConditionExpression: The IN operator is provided with too many operands; number of operands: 101"},
		{"", "x IN (x, :v)", v1, "",
			"Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: IN, first operand: [x]"},
		{"", "x IN ()", v1, "", `Invalid ConditionExpression: Syntax error; token: ")", near: "()"`},
		{"", "x IN :v", v1, "", `Invalid ConditionExpression: Syntax error; token: ":v", near: "IN :v"`},
	})
}

func TestConditionFunctions(t *testing.T) {
	runConditionCases(t, []condCase{
		{"", "attribute_exists(x)", "", "", "true"},
		{"", "attribute_exists(m.k)", "", "", "true"},
		{"", "attribute_exists(l[2])", "", "", "true"},
		{"", "attribute_exists(l[3])", "", "", "false"},
		{"", "attribute_not_exists(zz)", "", "", "true"},
		{"", "attribute_not_exists(x)", "", "", "false"},
		{"", "attribute_type(x, :v)", `{":v":{"S":"N"}}`, "", "true"},
		{"", "attribute_type(ss, :v)", `{":v":{"S":"SS"}}`, "", "true"},
		{"", "attribute_type(x, :v)", `{":v":{"S":"S"}}`, "", "false"},
		{"", "attribute_type(zz2, :v)", `{":v":{"S":"N"}}`, "", "false"},
		{"", "begins_with(s, :v)", `{":v":{"S":"hé"}}`, "", "true"},
		{"", "begins_with(s, :v)", `{":v":{"S":"e"}}`, "", "false"},
		{"", "begins_with(b, :v)", `{":v":{"B":"AQ=="}}`, "", "true"},
		{"", "begins_with(x, :v)", `{":v":{"S":"5"}}`, "", "false"},
		{"", "begins_with(:v, s)", `{":v":{"S":"héllo!"}}`, "", "true"},
		{"", "begins_with(:v, :w)", `{":v":{"S":"abc"},":w":{"S":"ab"}}`, "", "true"},
		{"", "contains(s, :v)", `{":v":{"S":"ll"}}`, "", "true"},
		{"", "contains(s, :v)", `{":v":{"S":"xx"}}`, "", "false"},
		{"", "contains(b, :v)", `{":v":{"B":"Ag=="}}`, "", "true"},
		{"", "contains(l, :v)", `{":v":{"S":"two"}}`, "", "true"},
		{"", "contains(l, :v)", `{":v":{"N":"3.0"}}`, "", "true"},
		{"", "contains(ns, :v)", `{":v":{"N":"2.0"}}`, "", "true"},
		{"", "contains(ss, :v)", `{":v":{"S":"b"}}`, "", "true"},
		{"", "contains(ss, :v)", `{":v":{"SS":["a"]}}`, "", "false"},
		{"", "contains(:v, s)", `{":v":{"S":"xhéllox"}}`, "", "true"},
		{"", "contains(x, :v)", `{":v":{"N":"5"}}`, "", "false"},
		{"", "contains(zz, :v)", `{":v":{"N":"5"}}`, "", "false"},
		{"", "size(s) = :v", `{":v":{"N":"5"}}`, "", "true"}, // characters, not bytes
		{"", "size(u) = :v", `{":v":{"N":"3"}}`, "", "true"}, // UTF-16 units, as Java counts
		{"", "size(e) = :v", `{":v":{"N":"0"}}`, "", "true"},
		{"", "begins_with(e, :v)", `{":v":{"S":""}}`, "", "true"},
		{"", "contains(u, :v)", `{":v":{"S":""}}`, "", "true"},
		{"", "x IN (:v)", `{":v":{"N":"0.5e1"}}`, "", "true"},
		{"", "size(b) = :v", `{":v":{"N":"3"}}`, "", "true"},
		{"", "size(l) = :v", `{":v":{"N":"3"}}`, "", "true"},
		{"", "size(m) = :v", `{":v":{"N":"1"}}`, "", "true"},
		{"", "size(ss) = :v", `{":v":{"N":"2.0"}}`, "", "true"},
		{"", "size(ss) < :v", `{":v":{"N":"2.5"}}`, "", "true"},
		{"", "size(x) = :v", v1, "", "false"}, // a number has no size
		{"", "size(x) <> :v", v1, "", "true"},
		{"", "size(t) <> :v", v1, "", "true"},
		{"", "size(zz2) <> :v", v1, "", "true"},
		{"", "size(l) > size(m)", "", "", "true"},
		{"", "size(l) BETWEEN :a AND :b", `{":a":{"N":"2"},":b":{"N":"3"}}`, "", "true"},
		{"", "size(l) IN (:a, :b)", `{":a":{"N":"2"},":b":{"N":"3"}}`, "", "true"},
		{"", "size(:v) = :w", `{":v":{"S":"abc"},":w":{"N":"3"}}`, "", "true"},
		{"", "contains(size(s), :v)", v1, "", "false"},
		{"", "size(:v) = :w", `{":v":{"BOOL":true},":w":{"N":"3"}}`, "",
			"Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: size, operand type: BOOL"},
		{"", "size(:v) = :v", v1, "",
			"Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: size, operand type: N"},
		{"", "size(size(s)) = :v", v1, "",
			"Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: size, operand type: N"},
	})
}

func TestConditionFunctionErrors(t *testing.T) {
	runConditionCases(t, []condCase{
		{"", "attribute_type(x, :v)", v1, "",
			"Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: attribute_type, operand type: N"},
		{"", "attribute_type(x, :v)", `{":v":{"S":"XX"}}`, "",
			"Invalid ConditionExpression: Invalid attribute type name found; type: XX, valid types: {N,BS,L,B,NULL,M,S,SS,NS,BOOL}"},
		{"", "attribute_type(x, s)", "", "",
			"Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: attribute_type, operand type: {B,NULL,INT,DOUBLE,FS,DOUBLESET,S,INTSET,L,DICT,N,HDS,FLOAT,DECIMAL,SS,BOOL,BS,HD,NS,M,DECIMALSET}"},
		{"", "begins_with(x)", "", "",
			"Invalid ConditionExpression: Incorrect number of operands for operator or function; operator or function: begins_with, number of operands: 1"},
		{"", "begins_with(s, :v)", v1, "",
			"Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"},
		{"", "contains(s)", "", "",
			"Invalid ConditionExpression: Incorrect number of operands for operator or function; operator or function: contains, number of operands: 1"},
		{"", "contains(s, s)", "", "",
			"Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: contains, first operand: [s]"},
		{"", "attribute_exists(x, s)", "", "",
			"Invalid ConditionExpression: Incorrect number of operands for operator or function; operator or function: attribute_exists, number of operands: 2"},
		{"", "attribute_exists(:v)", v1, "",
			"Invalid ConditionExpression: Operator or function requires a document path; operator or function: attribute_exists"},
		{"", "attribute_not_exists(:v)", v1, "",
			"Invalid ConditionExpression: Operator or function requires a document path; operator or function: attribute_not_exists"},
		{"", "foo(s)", "", "", "Invalid ConditionExpression: Invalid function name; function: foo"},
		{"", "Begins_With(s, :v)", `{":v":{"S":"h"}}`, "", "Invalid ConditionExpression: Invalid function name; function: Begins_With"},
		{"", "size(s)", "", "",
			"Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: size"},
		{"", "attribute_exists(x) = :v", v1, "",
			"Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: attribute_exists"},
		{"", "x = if_not_exists(x, :v)", v1, "",
			"Invalid ConditionExpression: The function is not allowed in a condition expression; function: if_not_exists"},
		{"", "list_append(l, :v)", v1, "",
			"Invalid ConditionExpression: The function is not allowed in a condition expression; function: list_append"},
		{"", "t < :a", `{":a":{"BOOL":true}}`, "",
			"Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: <, operand type: BOOL"},
		{"", "x < :v", `{":v":{"L":[]}}`, "",
			"Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: <, operand type: L"},
		{"", "x = x", "", "",
			"Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: =, first operand: [x]"},
		{"", "x.y = x.y", "", "",
			"Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: =, first operand: [x, y]"},
		{"", "#a = x", "", `{"#a":"x"}`,
			"Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: =, first operand: [x]"},
	})
}

func TestConditionLogicAndPrecedence(t *testing.T) {
	yes, no := "attribute_exists(x)", "attribute_exists(zz)"
	runConditionCases(t, []condCase{
		{"", yes + " AND " + yes, "", "", "true"},
		{"", yes + " AND " + no, "", "", "false"},
		{"", no + " OR " + yes, "", "", "true"},
		{"", "NOT " + no, "", "", "true"},
		{"", "NOT NOT " + yes, "", "", "true"},
		{"", "not " + yes, "", "", "false"},
		// AND binds tighter than OR: yes OR (no AND no).
		{"", yes + " OR " + no + " AND " + no, "", "", "true"},
		{"", "(" + yes + " OR " + no + ") AND " + no, "", "", "false"},
		// NOT binds tighter than AND: (NOT no) AND yes.
		{"", "NOT " + no + " AND " + yes, "", "", "true"},
		{"", "NOT (" + yes + " AND " + no + ")", "", "", "true"},
		{"", "(NOT (" + yes + "))", "", "", "false"},
		{"", "(x = :v) OR (x <> :v)", v1, "", "true"},
		{"", "x=:v and not x=:v or x=:v", v1, "", "false"},
		{"", "  x   =   :v  ", `{":v":{"N":"5"}}`, "", "true"},
		{"", "x\n=\t:v", `{":v":{"N":"5"}}`, "", "true"},
	})
}

func TestConditionSyntaxErrors(t *testing.T) {
	runConditionCases(t, []condCase{
		{"", "x > :v AND", v1, "", `Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "AND"`},
		{"", "x = :v OR", v1, "", `Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "OR"`},
		{"", "x", "", "", `Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "x"`},
		{"", "x == :v", v1, "", `Invalid ConditionExpression: Syntax error; token: "=", near: "== :v"`},
		{"", `x = :v ""`, v1, "", `Invalid ConditionExpression: Syntax error; token: """, near: ":v """`},
		{"", "x = :v)", v1, "", `Invalid ConditionExpression: Syntax error; token: ")", near: ":v)"`},
		{"", "(x = :v", v1, "", `Invalid ConditionExpression: Syntax error; token: "<EOF>", near: ":v"`},
		{"", "x != :v", v1, "", `Invalid ConditionExpression: Syntax error; token: "!", near: "x !="`},
		{"", "_x = :v", v1, "", `Invalid ConditionExpression: Syntax error; token: "_", near: "_x"`},
		{"", "x = :", v1, "", `Invalid ConditionExpression: Syntax error; token: ":", near: "= :"`},
		{"", "# = :v", v1, "", `Invalid ConditionExpression: Syntax error; token: "#", near: "# ="`},
		{"", "x[01] = :v", v1, "", `Invalid ConditionExpression: Syntax error; token: "1", near: "01]"`},
		{"", "x[:v] = :v", v1, "", `Invalid ConditionExpression: Syntax error; token: ":v", near: "[:v]"`},
		{"", "x[-1] = :v", v1, "", `Invalid ConditionExpression: Syntax error; token: "-", near: "[-1"`},
		{"", "x. = :v", v1, "", `Invalid ConditionExpression: Syntax error; token: "=", near: ". = :v"`},
		{"", "AND = :v", v1, "", `Invalid ConditionExpression: Syntax error; token: "AND", near: "AND ="`},
		{"", "x = :v AND in = :v", v1, "", `Invalid ConditionExpression: Syntax error; token: "in", near: "AND in ="`},
		{"", "x = :v é", v1, "", `Invalid ConditionExpression: Syntax error; token: "é", near: ":v é"`},
		{"", "", "", "", "Invalid ConditionExpression: The expression can not be empty;"},
		{"", "   ", "", "", `Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "   "`},
		{"", "x = :v AND " + strings.Repeat("x = :v AND ", 400) + "x = :v", v1, "",
			"Invalid ConditionExpression: Expression size has exceeded the maximum allowed size; expression size: 4417"},
	})
}

func TestConditionParenthesesRules(t *testing.T) {
	runConditionCases(t, []condCase{
		{"", "(x = :v)", v1, "", "false"},
		{"", "((x = :v))", v1, "", "Invalid ConditionExpression: The expression has redundant parentheses;"},
		{"", "(((x = :v)))", v1, "", "Invalid ConditionExpression: The expression has redundant parentheses;"},
		{"", "((x = :v) AND ((x = :v)))", v1, "", "Invalid ConditionExpression: The expression has redundant parentheses;"},
		{"", "NOT ((x = :v))", v1, "", "Invalid ConditionExpression: The expression has redundant parentheses;"},
		{"", "((x = :v) AND (x = :v))", v1, "", "false"},
		{"", strings.Repeat("(", 2000) + "x" + strings.Repeat(")", 2000) + " = :v", v1, "", "Invalid ConditionExpression: The expression has redundant parentheses;"},
		{"", strings.Repeat("(x = :v AND ", 74) + "x = :v" + strings.Repeat(")", 74), v1, "", "false"},
	})
}

func TestConditionOperatorLimit(t *testing.T) {
	terms := func(n int, term, op string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = term
		}
		return strings.Join(parts, op)
	}
	tooMany := "Invalid ConditionExpression: The expression contains too many operators; operator count: 301"
	runConditionCases(t, []condCase{
		{"", terms(150, "x = :v", " AND "), v1, "", "false"}, // 149 ANDs and 150 comparisons
		{"", terms(151, "x = :v", " AND "), v1, "", tooMany},
		{"", terms(300, "x = :v", " AND "), v1, "", tooMany},
		{"", terms(150, "attribute_exists(x)", " OR "), "", "", "true"},
		{"", terms(151, "attribute_exists(x)", " OR "), "", "", tooMany},
		{"", strings.Repeat("NOT ", 299) + "x = :v", v1, "", "true"},
		{"", strings.Repeat("NOT ", 300) + "x = :v", v1, "", tooMany},
		{"", "x IN (" + terms(100, ":v", ",") + ") AND " + terms(150, "x = :v", " AND "), v1, "", tooMany},
	})
}

func TestConditionPathsAndNames(t *testing.T) {
	runConditionCases(t, []condCase{
		{"", "#a = :v", `{":v":{"N":"5"}}`, `{"#a":"x"}`, "true"},
		{"", "#1 = :v", `{":v":{"N":"5"}}`, `{"#1":"x"}`, "true"},
		{"", "#m.#k = :v", `{":v":{"S":"v"}}`, `{"#m":"m","#k":"k"}`, "true"},
		{"", "m . k = :v", `{":v":{"S":"v"}}`, "", "true"},
		{"", "l [ 1 ] = :v", `{":v":{"S":"two"}}`, "", "true"},
		{"", "#d = :v", `{":v":{"N":"5"}}`, `{"#d":"m.k"}`, "false"}, // a dot in a name is not a path
		{"", "status = :v", v1, "", "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: status"},
		{"", "Status = :v", v1, "", "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: Status"},
		{"", "x.status = :v", v1, "", "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: status"},
		{"", "size = :v", v1, "", "false"},
		{"", "convert = :v", v1, "", "false"},
		{"", "#zz = :v", v1, "", "Invalid ConditionExpression: An expression attribute name used in the document path is not defined; attribute name: #zz"},
		{"", "x = :zz", v1, "", "Invalid ConditionExpression: An expression attribute value used in expression is not defined; attribute value: :zz"},
		{"", "x[99999999999999999999] = :v", v1, "",
			"Invalid ConditionExpression: List index is not within the allowable range; index: [99999999999999999999]"},
		{"", "a" + strings.Repeat(".a", 40) + " = :v", v1, "",
			"Invalid ConditionExpression: The document path has too many nesting levels; nesting levels: 41"},
		{"", "a" + strings.Repeat(".a", 31) + " = :v", v1, "", "false"},
	})
}

func TestFilterUsesItsOwnName(t *testing.T) {
	env := NewEnv(nil, nil)
	_, err := env.Filter("status = x")
	got := errMessage(t, err)
	require.EqualValuesf(t, "Invalid FilterExpression: Attribute name is a reserved keyword; reserved keyword: status", got, "got %q", got)
}

func TestConditionTopLevelNames(t *testing.T) {
	env := NewEnv(map[string]string{"#n": "name"}, item(t, v1))
	c, err := env.Condition("a.b = :v AND (size(#n) > :v OR contains(l[0], :v)) AND a.c = :v")
	require.NoError(t, err)
	got := strings.Join(c.TopLevelNames(), ",")
	require.EqualValuesf(t, "a,name,l", got, "TopLevelNames = %s", got)
}

func TestConditionOnMissingItem(t *testing.T) {
	env := NewEnv(nil, nil)
	c, err := env.Condition("attribute_not_exists(pk)")
	require.NoError(t, err)
	ok, _ := c.Eval(nil)
	require.True(t, ok, "attribute_not_exists on a missing item should hold")
}

func TestConditionEvalIsRepeatableAndConcurrent(t *testing.T) {
	env := NewEnv(nil, item(t, `{":v":{"N":"5"}}`))
	c, err := env.Condition("x = :v AND size(l) > :v OR contains(s, :v)")
	require.NoError(t, err)
	it := item(t, condItem)
	done := make(chan bool)
	for i := 0; i < 4; i++ {
		go func() {
			for j := 0; j < 200; j++ {
				if ok, _ := c.Eval(it); ok {
					done <- false
					return
				}
			}
			done <- true
		}()
	}
	for i := 0; i < 4; i++ {
		require.False(t, !<-done, "condition changed its answer")
	}
}

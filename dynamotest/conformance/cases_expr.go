package conformance

import (
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// rich is one item holding every attribute type, nested documents, a name
// with a dot in it and a reserved word ("status") as an attribute name.
func rich() Item {
	return I(
		"pk", "p", "sk", "s",
		"str", "hello", "num", N("42"), "neg", N("-7.5"), "bin", Bs("abc"),
		"truthy", true, "falsy", false, "nul", Null(), "blank", "",
		"ss", SS("a", "b", "c"), "ns", NS("1", "2", "3"), "bs", BS("x", "y"),
		"lst", L(S("a"), N("1"), M("k", "v")),
		"mp", M("nest", M("deep", "d"), "n", N("5"), "dotted.name", "v"),
		"status", "active",
		"dotted.top", "t",
	)
}

// filterCase scans a one-item table with a FilterExpression and expects
// the item back exactly when match is true. ScannedCount is 1 either way:
// a filter applies after the read.
func filterCase(name, expr string, names map[string]string, vals map[string]types.AttributeValue, match bool) Case {
	in := dynamodb.ScanInput{FilterExpression: aws.String(expr), ExpressionAttributeNames: names, ExpressionAttributeValues: vals}
	w := Want{Items: Items(), Scanned: i32(1)}
	if match {
		w.Items = Items(rich())
	}
	return ScanCase("filter/"+name, PKSK, Items(rich()), in, w)
}

// filterErr expects the filter to be rejected with a ValidationException
// whose message contains msg.
func filterErr(name, expr string, names map[string]string, vals map[string]types.AttributeValue, msg string) Case {
	in := dynamodb.ScanInput{FilterExpression: aws.String(expr), ExpressionAttributeNames: names, ExpressionAttributeValues: vals}
	return ScanCase("filter-error/"+name, PKSK, Items(rich()), in, Want{Err: "ValidationException", Msg: msg})
}

// condCase puts a new version of rich() under a ConditionExpression and
// expects it to pass (the item is replaced) or fail (ConditionalCheckFailed,
// item unchanged).
func condCase(name, expr string, names map[string]string, vals map[string]types.AttributeValue, pass bool) Case {
	next := rich()
	next["version"] = N("2")
	in := dynamodb.PutItemInput{Item: next, ConditionExpression: aws.String(expr), ExpressionAttributeNames: names, ExpressionAttributeValues: vals}
	w := Want{After: Items(next)}
	if !pass {
		w = Want{Err: "ConditionalCheckFailedException", Msg: "The conditional request failed"}
	}
	return PutCase("condition/"+name, PKSK, Items(rich()), in, w)
}

func expressionCases() []Case {
	v := Vals
	n := Names
	cs := []Case{
		// Comparators by type: numbers compare as numbers, strings and
		// binaries by bytes.
		filterCase("eq-number", "num = :v", nil, v(":v", N("42")), true),
		filterCase("eq-number-other-text", "num = :v", nil, v(":v", N("42.000")), true),
		filterCase("eq-number-vs-string-is-false", "num = :v", nil, v(":v", "42"), false),
		filterCase("lt-number-numeric-not-textual", "num < :v", nil, v(":v", N("100")), true),
		filterCase("gt-number-numeric-not-textual", "num > :v", nil, v(":v", N("9")), true),
		filterCase("le-number-equal", "num <= :v", nil, v(":v", N("42")), true),
		filterCase("ge-number-fraction", "num >= :v", nil, v(":v", N("41.999999")), true),
		filterCase("ne-number-equal-is-false", "num <> :v", nil, v(":v", N("42")), false),
		filterCase("ne-number-other", "num <> :v", nil, v(":v", N("43")), true),
		filterCase("lt-negative", "neg < :v", nil, v(":v", N("-7.4")), true),
		filterCase("lt-number-exponent", "num < :v", nil, v(":v", N("1E+2")), true),
		filterCase("lt-string-bytes", "str < :v", nil, v(":v", "help"), true),
		filterCase("gt-string-lowercase-after-uppercase", "str > :v", nil, v(":v", "Hello"), true),
		filterCase("lt-string-prefix-sorts-first", "str > :v", nil, v(":v", "hell"), true),
		filterCase("lt-binary-bytes", "bin < :v", nil, v(":v", Bs("abd")), true),
		filterCase("eq-binary", "bin = :v", nil, v(":v", Bs("abc")), true),
		filterCase("lt-across-types-is-false", "str < :v", nil, v(":v", N("1")), false),
		filterCase("ne-across-types-is-true", "str <> :v", nil, v(":v", N("1")), true),
		filterCase("eq-bool", "truthy = :v", nil, v(":v", true), true),
		filterCase("eq-bool-false", "falsy = :v", nil, v(":v", true), false),
		filterCase("eq-null", "nul = :v", nil, v(":v", Null()), true),
		filterCase("eq-empty-string", "blank = :v", nil, v(":v", ""), true),
		filterCase("eq-string-set-any-order", "ss = :v", nil, v(":v", SS("c", "a", "b")), true),
		filterCase("eq-string-set-subset-is-false", "ss = :v", nil, v(":v", SS("a", "b")), false),
		filterCase("eq-number-set-numeric", "ns = :v", nil, v(":v", NS("3", "2.0", "1")), true),
		filterCase("eq-list-in-order", "lst = :v", nil, v(":v", L(S("a"), N("1"), M("k", "v"))), true),
		filterCase("eq-list-other-order-is-false", "lst = :v", nil, v(":v", L(N("1"), S("a"), M("k", "v"))), false),
		filterCase("eq-map-deep", "mp = :v", nil, v(":v", M("nest", M("deep", "d"), "n", N("5"), "dotted.name", "v")), true),
		filterErr("eq-path-to-itself", "str = str", nil, nil, "first operand must be distinct"),
		filterCase("eq-path-to-other-path", "str = #s", n("#s", "status"), nil, false),
		filterCase("lt-path-to-path-numbers", "neg < num", nil, nil, true),
		filterCase("eq-missing-attribute-is-false", "absent = :v", nil, v(":v", "x"), false),
		filterCase("ne-missing-attribute-is-true", "absent <> :v", nil, v(":v", "x"), true),
		filterCase("lt-missing-attribute-is-false", "absent < :v", nil, v(":v", N("1")), false),

		// BETWEEN and IN.
		filterCase("between-inclusive-low", "num BETWEEN :a AND :b", nil, v(":a", N("42"), ":b", N("50")), true),
		filterCase("between-inclusive-high", "num BETWEEN :a AND :b", nil, v(":a", N("1"), ":b", N("42")), true),
		filterCase("between-outside", "num BETWEEN :a AND :b", nil, v(":a", N("43"), ":b", N("50")), false),
		filterCase("between-strings", "str BETWEEN :a AND :b", nil, v(":a", "a", ":b", "i"), true),
		filterCase("between-numeric-not-textual", "num BETWEEN :a AND :b", nil, v(":a", N("5"), ":b", N("100")), true),
		filterCase("in-match", "num IN (:a, :b, :c)", nil, v(":a", N("1"), ":b", N("42"), ":c", N("7")), true),
		filterCase("in-no-match", "num IN (:a, :b)", nil, v(":a", N("1"), ":b", N("2")), false),
		filterCase("in-single", "str IN (:a)", nil, v(":a", "hello"), true),
		filterCase("in-mixed-types", "str IN (:a, :b)", nil, v(":a", N("1"), ":b", "hello"), true),

		// Logical operators and precedence: NOT binds tighter than AND,
		// AND tighter than OR.
		filterCase("and-both", "num = :n AND str = :s", nil, v(":n", N("42"), ":s", "hello"), true),
		filterCase("and-one-false", "num = :n AND str = :s", nil, v(":n", N("42"), ":s", "nope"), false),
		filterCase("or-one-true", "num = :n OR str = :s", nil, v(":n", N("1"), ":s", "hello"), true),
		filterCase("not", "NOT num = :n", nil, v(":n", N("1")), true),
		filterCase("not-binds-tighter-than-and", "NOT num = :n AND str = :s", nil, v(":n", N("42"), ":s", "nope"), false),
		filterCase("and-binds-tighter-than-or", "num = :n OR str = :s AND truthy = :f", nil, v(":n", N("42"), ":s", "nope", ":f", false), true),
		filterCase("parentheses-override-precedence", "(num = :n OR str = :s) AND truthy = :f", nil, v(":n", N("42"), ":s", "nope", ":f", false), false),
		filterCase("not-parenthesised", "NOT (num = :n AND str = :s)", nil, v(":n", N("42"), ":s", "nope"), true),
		filterCase("keywords-case-insensitive", "num between :a and :b AnD not str = :s", nil, v(":a", N("1"), ":b", N("50"), ":s", "x"), true),

		// Functions.
		filterCase("attribute-exists", "attribute_exists(str)", nil, nil, true),
		filterCase("attribute-exists-missing", "attribute_exists(absent)", nil, nil, false),
		filterCase("attribute-not-exists-missing", "attribute_not_exists(absent)", nil, nil, true),
		filterCase("attribute-not-exists-present", "attribute_not_exists(num)", nil, nil, false),
		filterCase("attribute-exists-null-value", "attribute_exists(nul)", nil, nil, true),
		filterCase("attribute-exists-nested-map", "attribute_exists(mp.nest.deep)", nil, nil, true),
		filterCase("attribute-exists-nested-missing", "attribute_exists(mp.nest.nope)", nil, nil, false),
		filterCase("attribute-exists-list-element", "attribute_exists(lst[2].k)", nil, nil, true),
		filterCase("attribute-exists-list-out-of-range", "attribute_exists(lst[5])", nil, nil, false),
		filterCase("attribute-exists-index-on-non-list", "attribute_exists(str[0])", nil, nil, false),
		filterCase("attribute-exists-dotted-name-via-placeholder", "attribute_exists(#d)", n("#d", "dotted.top"), nil, true),
		filterCase("attribute-exists-dotted-path-is-nested", "attribute_exists(dotted.top)", nil, nil, false),
		filterCase("attribute-exists-nested-dotted-key", "attribute_exists(#m.#d)", n("#m", "mp", "#d", "dotted.name"), nil, true),
		filterCase("attribute-type-S", "attribute_type(str, :t)", nil, v(":t", "S"), true),
		filterCase("attribute-type-N", "attribute_type(num, :t)", nil, v(":t", "N"), true),
		filterCase("attribute-type-B", "attribute_type(bin, :t)", nil, v(":t", "B"), true),
		filterCase("attribute-type-BOOL", "attribute_type(truthy, :t)", nil, v(":t", "BOOL"), true),
		filterCase("attribute-type-NULL", "attribute_type(nul, :t)", nil, v(":t", "NULL"), true),
		filterCase("attribute-type-SS", "attribute_type(ss, :t)", nil, v(":t", "SS"), true),
		filterCase("attribute-type-NS", "attribute_type(ns, :t)", nil, v(":t", "NS"), true),
		filterCase("attribute-type-BS", "attribute_type(bs, :t)", nil, v(":t", "BS"), true),
		filterCase("attribute-type-L", "attribute_type(lst, :t)", nil, v(":t", "L"), true),
		filterCase("attribute-type-M", "attribute_type(mp, :t)", nil, v(":t", "M"), true),
		filterCase("attribute-type-mismatch", "attribute_type(str, :t)", nil, v(":t", "N"), false),
		filterCase("attribute-type-nested", "attribute_type(mp.n, :t)", nil, v(":t", "N"), true),
		filterCase("begins-with-string", "begins_with(str, :p)", nil, v(":p", "he"), true),
		filterCase("begins-with-case-sensitive", "begins_with(str, :p)", nil, v(":p", "He"), false),
		filterCase("begins-with-whole-value", "begins_with(str, :p)", nil, v(":p", "hello"), true),
		filterCase("begins-with-binary", "begins_with(bin, :p)", nil, v(":p", Bs("ab")), true),
		filterCase("begins-with-on-number-attribute-is-false", "begins_with(num, :p)", nil, v(":p", "4"), false),
		filterCase("begins-with-nested", "begins_with(mp.nest.deep, :p)", nil, v(":p", "d"), true),
		filterCase("contains-substring", "contains(str, :s)", nil, v(":s", "ell"), true),
		filterCase("contains-substring-missing", "contains(str, :s)", nil, v(":s", "xyz"), false),
		filterCase("contains-string-set", "contains(ss, :s)", nil, v(":s", "b"), true),
		filterCase("contains-string-set-missing", "contains(ss, :s)", nil, v(":s", "z"), false),
		filterCase("contains-number-set", "contains(ns, :s)", nil, v(":s", N("2")), true),
		filterCase("contains-binary-set", "contains(bs, :s)", nil, v(":s", Bs("x")), true),
		filterCase("contains-list-string", "contains(lst, :s)", nil, v(":s", "a"), true),
		filterCase("contains-list-number", "contains(lst, :s)", nil, v(":s", N("1")), true),
		filterCase("contains-binary-substring", "contains(bin, :s)", nil, v(":s", Bs("bc")), true),
		filterCase("contains-set-other-type-is-false", "contains(ss, :s)", nil, v(":s", N("1")), false),
		filterCase("size-string", "size(str) = :n", nil, v(":n", N("5")), true),
		filterCase("size-string-utf8-bytes", "size(#e) = :n", n("#e", "blank"), v(":n", N("0")), true),
		filterCase("size-binary", "size(bin) = :n", nil, v(":n", N("3")), true),
		filterCase("size-string-set", "size(ss) = :n", nil, v(":n", N("3")), true),
		filterCase("size-list", "size(lst) = :n", nil, v(":n", N("3")), true),
		filterCase("size-map", "size(mp) = :n", nil, v(":n", N("3")), true),
		filterCase("size-compared", "size(str) > :n", nil, v(":n", N("4")), true),
		filterCase("size-missing-is-false", "size(absent) > :n", nil, v(":n", N("0")), false),
		filterCase("size-nested", "size(mp.nest) = :n", nil, v(":n", N("1")), true),

		// Document paths.
		filterCase("nested-map", "mp.nest.deep = :v", nil, v(":v", "d"), true),
		filterCase("nested-list-index", "lst[0] = :v", nil, v(":v", "a"), true),
		filterCase("nested-list-then-map", "lst[2].k = :v", nil, v(":v", "v"), true),
		filterCase("nested-names", "#m.#i.#d = :v", n("#m", "mp", "#i", "nest", "#d", "deep"), v(":v", "d"), true),
		filterCase("reserved-word-via-name-placeholder", "#s = :v", n("#s", "status"), v(":v", "active"), true),
		filterCase("one-value-used-twice", "str = :v OR blank = :v", nil, v(":v", "hello"), true),

		// Validation: the request is rejected before anything is read.
		// The names are checked before the values, and every value's key
		// before any value (DynamoDB Local; dynalite's AWS-written "should
		// return ValidationException for invalid ExpressionAttributeNames",
		// beside an empty ExpressionAttributeValues).
		filterErr("names-before-empty-values", "num = :v", n("a", "num"), map[string]types.AttributeValue{},
			`ExpressionAttributeNames contains invalid key: Syntax error; key: "a"`),
		filterErr("value-keys-before-values", "num = :v", nil,
			map[string]types.AttributeValue{":v": &types.AttributeValueMemberNULL{Value: false}, "bad": S("x")},
			`ExpressionAttributeValues contains invalid key: Syntax error; key: "bad"`),
		// A call's fault (an unknown name, a function out of place) stands
		// at its name, before the words of its arguments (dynalite's
		// AWS-written scan "should return ValidationException for invalid
		// function names" and "...functions used incorrectly").
		filterErr("invalid-function-name-before-reserved-word-in-its-arguments", "attRIbute_exIsts((views), #a)", n("#a", "a"), nil,
			"Invalid FilterExpression: Invalid function name; function: attRIbute_exIsts"),
		filterErr("misused-function-before-reserved-word-in-its-arguments", "num = num and attribute_exists((views), (#a)) > str", n("#a", "a"), nil,
			"Invalid FilterExpression: The function is not allowed to be used this way in an expression; function: attribute_exists"),
		filterErr("unused-value", "num = :v", nil, v(":v", N("42"), ":unused", "x"), "unused in expressions"),
		filterErr("unused-name", "num = :v", n("#unused", "x"), v(":v", N("42")), "unused in expressions"),
		filterErr("undefined-value", "num = :nope", nil, v(":v", N("42")), "not defined"),
		filterErr("undefined-name", "#nope = :v", nil, v(":v", N("42")), "not defined"),
		filterErr("reserved-word", "status = :v", nil, v(":v", "active"), "reserved keyword"),
		filterErr("reserved-word-in-nested-path", "mp.inner = :v", nil, v(":v", N("1")), "reserved keyword: inner"),
		filterErr("syntax-dangling-comparator", "num = ", nil, nil, "Syntax error"),
		filterErr("syntax-between-without-and", "num BETWEEN :a", nil, v(":a", N("1")), "Syntax error"),
		filterErr("unknown-function", "nosuch(str)", nil, nil, "Invalid function name"),
		filterErr("attribute-exists-of-value", "attribute_exists(:v)", nil, v(":v", "x"), "Invalid FilterExpression"),
		filterErr("attribute-type-invalid-type", "attribute_type(str, :t)", nil, v(":t", "X"), "Invalid FilterExpression"),
		filterErr("begins-with-number-operand", "begins_with(str, :p)", nil, v(":p", N("1")), "Incorrect operand type"),
		filterCase("size-of-number-is-false", "size(num) = :n", nil, v(":n", N("2")), false),
		filterErr("function-as-condition-needs-comparison", "size(str)", nil, nil, "Invalid FilterExpression"),
		filterCase("comparison-of-two-values", ":a = :b", nil, v(":a", N("1"), ":b", N("1.0")), true),
		filterErr("between-low-above-high", "num BETWEEN :a AND :b", nil, v(":a", N("50"), ":b", N("1")), "BETWEEN"),
		filterErr("empty-expression", "", nil, nil, ""),
		filterErr("empty-attribute-values-map", "num = num", nil, map[string]types.AttributeValue{}, "ExpressionAttributeValues must not be empty"),
		filterErr("empty-attribute-names-map", "num = num", map[string]string{}, nil, "ExpressionAttributeNames must not be empty"),
		filterErr("value-is-empty-set", "ss = :v", nil, v(":v", SS()), ""),
		filterErr("value-name-without-colon", "num = :v", nil, v("v", N("1")), ""),
		filterErr("in-more-than-100", "num IN ("+placeholders(101)+")", nil, numberVals(101), ""),
		filterErr("contains-wrong-arity", "contains(str)", nil, nil, "Invalid FilterExpression"),
		filterErr("list-index-negative", "lst[-1] = :v", nil, v(":v", "a"), "Syntax error"),
		filterErr("lt-on-set-value", "ss < :v", nil, v(":v", SS("z")), "Incorrect operand type for operator or function; operator or function: <, operand type: SS"),
		filterErr("lt-on-map-value", "mp < :v", nil, v(":v", M("a", 1)), "Incorrect operand type for operator or function; operator or function: <, operand type: M"),
		filterErr("lt-on-bool-value", "truthy < :v", nil, v(":v", true), "Incorrect operand type for operator or function; operator or function: <, operand type: BOOL"),
		filterErr("between-bounds-of-two-types", "num BETWEEN :a AND :b", nil, v(":a", N("1"), ":b", "z"), "The BETWEEN operator requires same data type for lower and upper bounds"),
		filterCase("in-list-of-lists", "lst IN (:a, :b)", nil, v(":a", L(S("a")), ":b", L(S("a"), N("1"), M("k", "v"))), true),
		filterCase("contains-of-absent-is-false", "contains(absent, :v)", nil, v(":v", "a"), false),
		filterCase("not-contains", "NOT contains(ss, :v)", nil, v(":v", "z"), true),
		filterCase("nested-index-beyond-depth-is-false", "lst[2].k[0] = :v", nil, v(":v", "v"), false),
		filterCase("deep-and-or-chain", "(num = :a OR num = :b) AND (str = :c OR str = :d) AND NOT (truthy = :f)", nil,
			v(":a", N("1"), ":b", N("42"), ":c", "x", ":d", "hello", ":f", false), true),
		filterErr("undefined-name-in-function", "attribute_exists(#nope)", nil, nil, "not defined"),
		filterErr("unused-value-with-names", "#s = :v", n("#s", "status"), v(":v", "active", ":w", "x"), "unused"),
		filterErr("begins-with-set-operand", "begins_with(str, :p)", nil, v(":p", SS("h")), "Incorrect operand type"),
		filterErr("attribute-type-number-operand", "attribute_type(str, :t)", nil, v(":t", N("1")), "Incorrect operand type"),
		filterErr("unbalanced-parentheses", "(num = :v", nil, v(":v", N("1")), "Syntax error"),
		filterErr("dangling-and", "num = :v AND", nil, v(":v", N("1")), "Syntax error"),

		// Conditions on writes use the same language, evaluated on the
		// item as it was before the write.
		condCase("exists-passes", "attribute_exists(pk)", nil, nil, true),
		condCase("not-exists-fails-on-existing", "attribute_not_exists(pk)", nil, nil, false),
		condCase("compare-passes", "num = :v", nil, v(":v", N("42")), true),
		condCase("compare-fails", "num > :v", nil, v(":v", N("42")), false),
		condCase("nested-and-function", "contains(ss, :a) AND mp.n BETWEEN :lo AND :hi", nil, v(":a", "c", ":lo", N("1"), ":hi", N("5")), true),
		condCase("version-lock", "attribute_not_exists(version) OR version = :v", nil, v(":v", N("1")), true),
		condCase("reserved-name-placeholder", "#s = :s", n("#s", "status"), v(":s", "inactive"), false),
	}
	return cs
}

func placeholders(count int) string {
	var p []string
	for i := range count {
		p = append(p, fmt.Sprintf(":v%d", i))
	}
	return strings.Join(p, ", ")
}

func numberVals(count int) map[string]types.AttributeValue {
	m := map[string]types.AttributeValue{}
	for i := range count {
		m[fmt.Sprintf(":v%d", i)] = Ni(i)
	}
	return m
}

// pathOrderCases: which two document paths DynamoDB names when several
// clash (dynalite's AWS-written getItem and updateItem tests), and that a
// projection's undefined name comes before its overlapping paths.
func pathOrderCases() []Case {
	seed := Items(I("pk", "a", "sk", "1", "a", "x"))
	key := I("pk", "a", "sk", "1")
	return []Case{
		GetCase("path-error/projection-overlap-before-an-earlier-conflict", PKSK, seed, dynamodb.GetItemInput{Key: key,
			ProjectionExpression: aws.String("b[1], b.a, #a.b, a"), ExpressionAttributeNames: Names("#a", "a")},
			Want{Err: "ValidationException", Msg: "Invalid ProjectionExpression: Two document paths overlap with each other; " +
				"must remove or rewrite one of these paths; path one: [a, b], path two: [a]"}),
		UpdateCase("path-error/update-overlap-before-an-earlier-conflict", PKSK, seed, dynamodb.UpdateItemInput{Key: key,
			UpdateExpression: aws.String("SET d[1] = :v, d.b = :v, c[1].a = :v, c = :v"), ExpressionAttributeValues: Vals(":v", 1)},
			Want{Err: "ValidationException", Msg: "Invalid UpdateExpression: Two document paths overlap with each other; " +
				"must remove or rewrite one of these paths; path one: [c, [1], a], path two: [c]"}),
		GetCase("path-error/projection-undefined-name-before-overlapping-paths", PKSK, seed, dynamodb.GetItemInput{Key: key,
			ProjectionExpression: aws.String("a,b,a,#a")},
			Want{Err: "ValidationException", Msg: "Invalid ProjectionExpression: An expression attribute name used in the document path is not defined; attribute name: #a"}),
	}
}

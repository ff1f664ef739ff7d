package expr

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type keyCase struct {
	expr   string
	values string
	names  string
	want   string // "ok <description>" or the exact error message
}

// describeKey renders a key condition as "ok p=S:a c<N:5".
func describeKey(kc *KeyCondition) string {
	var b strings.Builder
	b.WriteString("ok p" + kc.HashOp.String() + shortType(kc.Hash) + ":" + scalarText(kc.Hash))
	if r := kc.Range; r != nil {
		b.WriteString(" c" + r.Op.String())
		for i, v := range r.Values {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(shortType(v) + ":" + scalarText(v))
		}
	}
	return b.String()
}

func scalarText(v types.AttributeValue) string {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return v.Value
	case *types.AttributeValueMemberN:
		return v.Value
	}
	return "?"
}

func runKeyCases(t *testing.T, cases []keyCase) {
	t.Helper()
	dumpCases(t, "key", cases)
	for _, tc := range cases {
		// Twice: the second parse of an accepted condition comes from the
		// template cache, and must say exactly what the first said.
		for _, round := range []string{"parsed", "again"} {
			env := NewEnv(names(t, tc.names), item(t, tc.values))
			kc, err := env.KeyCondition(tc.expr, "p", "c")
			if err == nil {
				err = env.CheckUnused()
			}
			got := ""
			if err != nil {
				got = errMessage(t, err)
			} else {
				got = describeKey(kc)
			}
			assert.EqualValuesf(t, tc.want, got, "%s (%s)\n got: %s\nwant: %s", tc.expr, round, got, tc.want)
		}
	}
}

const (
	vp   = `{":p":{"S":"a"}}`
	vpc  = `{":p":{"S":"a"},":c":{"N":"1"}}`
	vpcd = `{":p":{"S":"a"},":c":{"N":"1"},":d":{"N":"2"}}`
)

func TestKeyConditionAccepted(t *testing.T) {
	runKeyCases(t, []keyCase{
		{"p = :p", vp, "", "ok p=S:a"},
		{" p  =   :p ", vp, "", "ok p=S:a"},
		{":p = p", vp, "", "ok p=S:a"},
		{"#k = :p", vp, `{"#k":"p"}`, "ok p=S:a"},
		{"p = :p AND c = :c", vpc, "", "ok p=S:a c=N:1"},
		{"c = :c AND p = :p", vpc, "", "ok p=S:a c=N:1"},
		{"p = :p AND c < :c", vpc, "", "ok p=S:a c<N:1"},
		{"p = :p AND c <= :c", vpc, "", "ok p=S:a c<=N:1"},
		{"p = :p AND c > :c", vpc, "", "ok p=S:a c>N:1"},
		{"p = :p AND c >= :c", vpc, "", "ok p=S:a c>=N:1"},
		{"p = :p AND :c < c", vpc, "", "ok p=S:a c>N:1"},
		{"p = :p AND :c >= c", vpc, "", "ok p=S:a c<=N:1"},
		{"p = :p AND c BETWEEN :c AND :d", vpcd, "", "ok p=S:a cBETWEENN:1,N:2"},
		{"p=:p AnD c BeTwEeN :c aNd :d", vpcd, "", "ok p=S:a cBETWEENN:1,N:2"},
		{"((c = :c) AND (p = :p))", vpc, "", "ok p=S:a c=N:1"},
	})
}

func TestKeyConditionRejected(t *testing.T) {
	runKeyCases(t, []keyCase{
		{"p = :p AND p = :p", vp, "", "KeyConditionExpressions must only contain one condition per key"},
		{"p = :p AND c >= :c AND c <= :d", vpcd, "", "KeyConditionExpressions must only contain one condition per key"},
		{"p = :p AND (c = :c AND c = :c)", vpc, "", "KeyConditionExpressions must only contain one condition per key"},
		// A partition-key condition other than "=" is refused by the engine
		// once the value's type has passed the schema.
		{"p < :p", vp, "", "ok p<S:a"},
		{"p BETWEEN :p AND :p", vp, "", "ok pBETWEENS:a"},
		// The missing element is named (dynalite's AWS-written query
		// tests; DynamoDB Local leaves the name out): the partition key,
		// or the sort key beside a condition on another attribute.
		{"c = :c", `{":c":{"N":"1"}}`, "", "Query condition missed key schema element: p"},
		{"x = :c AND c = :c", `{":c":{"N":"1"}}`, "", "Query condition missed key schema element: p"},
		{"p = :p AND x = :c", vpc, "", "Query condition missed key schema element: c"},
		{"p = :p AND begins_with(c, :c)", vpc, "", "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"},
		{"p = :p AND dog(c, :c)", vpc, "", "Invalid KeyConditionExpression: Invalid function name; function: dog"},
		{"p = :p AND attribute_exists(c)", vp, "", "Invalid operator used in KeyConditionExpression: attribute_exists"},
		{"p = :p AND c <> :c", vpc, "", "Invalid operator used in KeyConditionExpression: <>"},
		{"p = :p AND c IN (:c)", vpc, "", "Invalid operator used in KeyConditionExpression: IN"},
		{"c = :c OR p = :p", vpc, "", "Invalid operator used in KeyConditionExpression: OR"},
		{"NOT c = :c AND p = :p", vpc, "", "Invalid operator used in KeyConditionExpression: NOT"},
		{"((c=:c) AND ((p=:p)))", vpc, "", "Invalid KeyConditionExpression: The expression has redundant parentheses;"},
		{"p = :p AND c != :c", vpc, "", `Invalid KeyConditionExpression: Syntax error; token: "!", near: "c !="`},
		{"", vp, "", "Invalid KeyConditionExpression: The expression can not be empty;"},
		{"p = :p AND c = c", vp, "", "Invalid KeyConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: =, first operand: [c]"},
		{"p = p", "", "", "Invalid KeyConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: =, first operand: [p]"},
		{"p = :p AND c BETWEEN :d AND :c", vpcd, "", "Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {N:2}, upper bound operand: AttributeValue: {N:1}"},
		{"p = :p AND size(c) = :c", vpc, "", "KeyConditionExpressions cannot contain nested operations"},
		{"p = :p AND c.d = :c", vpc, "", "Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: Key: c"},
		{"p = :p AND c[0] = :c", vpc, "", "Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: Key: c"},
		{"p = :p", vpc, "", "Value provided in ExpressionAttributeValues unused in expressions: keys: {:c}"},
		{"p = :q", vp, "", "Invalid KeyConditionExpression: An expression attribute value used in expression is not defined; attribute value: :q"},
	})
}

func TestKeyConditionBeginsWithOnStringKey(t *testing.T) {
	env := NewEnv(nil, item(t, `{":p":{"S":"a"},":pre":{"S":"STAGE#"}}`))
	kc, err := env.KeyCondition("p = :p AND begins_with(c, :pre)", "p", "c")
	require.NoError(t, err)
	require.Falsef(t, kc.Range == nil || kc.Range.Op != BeginsWith, "range = %+v", kc.Range)
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	for v, want := range map[string]bool{"STAGE#01": true, "STAGE#": true, "STAGE": false, "META": false} {
		got := kc.Range.Match(s(v))
		assert.EqualValuesf(t, want, got, "Match(%q) = %v", v, got)
	}
}

// Two conditions where the schema has one key are refused whatever they
// name (dynalite's AWS-written "should return ValidationException if
// querying with unsupported conditions"; DynamoDB Local agrees), and one
// on another attribute misses the partition key.
func TestKeyConditionWithoutSortKey(t *testing.T) {
	for expr, want := range map[string]string{
		"p = :p AND c = :c": "Query key condition not supported",
		"x = :c AND c = :c": "Query key condition not supported",
		"p = :p AND p = :p": "KeyConditionExpressions must only contain one condition per key",
		"c = :c":            "Query condition missed key schema element: p",
	} {
		env := NewEnv(nil, item(t, vpc))
		_, err := env.KeyCondition(expr, "p", "")
		assert.Equalf(t, want, errMessage(t, err), "%s", expr)
	}
}

func TestRangeConditionMatchOrdersNumbersNumerically(t *testing.T) {
	n := func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
	tests := []struct {
		op   RangeOp
		vals []string
		v    string
		want bool
	}{
		{EQ, []string{"10"}, "10.0", true},
		{LT, []string{"10"}, "9", true},
		{LT, []string{"10"}, "10", false},
		{LE, []string{"10"}, "10", true},
		{GT, []string{"9"}, "10", true}, // as text "10" < "9"
		{GE, []string{"10"}, "9", false},
		{Between, []string{"2", "10"}, "9", true},
		{Between, []string{"2", "10"}, "11", false},
		{Between, []string{"-1", "1"}, "-0.5", true},
		{BeginsWith, []string{"1"}, "10", false}, // numbers have no prefix
	}
	for _, tt := range tests {
		var vals []types.AttributeValue
		for _, s := range tt.vals {
			vals = append(vals, n(s))
		}
		r := &RangeCondition{Op: tt.op, Values: vals}
		got := r.Match(n(tt.v))
		assert.EqualValuesf(t, tt.want, got, "%v %v on %s = %v", tt.op, tt.vals, tt.v, got)
	}
	r := &RangeCondition{Op: EQ, Values: []types.AttributeValue{n("1")}}
	assert.False(t, r.Match(&types.AttributeValueMemberS{Value: "1"}), "a string key matched a number condition")
}

// A cached key condition binds each request's own values and marks the
// same placeholders used as a parse does; a change of names or of a
// value's type is another entry, and BETWEEN is parsed every time.
func TestKeyConditionCacheBindsEachRequestsValues(t *testing.T) {
	const expr = "#k = :p AND begins_with(c, :pre)"
	parse := func(nameMap, values string) (string, error) {
		env := NewEnv(names(t, nameMap), item(t, values))
		kc, err := env.KeyCondition(expr, "p", "c")
		if err == nil {
			err = env.CheckUnused()
		}
		if err != nil {
			return "", err
		}
		return describeKey(kc), nil
	}
	for i, want := range []string{"ok p=S:a cbegins_withS:x", "ok p=S:b cbegins_withS:y", "ok p=S:a cbegins_withS:x"} {
		values := []string{`{":p":{"S":"a"},":pre":{"S":"x"}}`, `{":p":{"S":"b"},":pre":{"S":"y"}}`}[i%2]
		got, err := parse(`{"#k":"p"}`, values)
		require.Falsef(t, err != nil || got != want, "call %d: %q, %v; want %q", i, got, err, want)
	}
	_, err := parse(`{"#k":"p"}`, `{":p":{"S":"a"},":pre":{"S":"x"},":extra":{"S":"z"}}`)
	assert.Falsef(t, err == nil || !strings.Contains(err.Error(), "unused in expressions: keys: {:extra}"), "an unused value after a cached parse: %v", err)
	_, err = parse(`{"#k":"p","#other":"q"}`, `{":p":{"S":"a"},":pre":{"S":"x"}}`)
	assert.Falsef(t, err == nil || !strings.Contains(err.Error(), "unused in expressions: keys: {#other}"), "an unused name after a cached parse: %v", err)
	_, err = parse(`{"#k":"c"}`, `{":p":{"S":"a"},":pre":{"S":"x"}}`)
	assert.Falsef(t, err == nil || !strings.Contains(err.Error(), "KeyConditionExpressions must only contain one condition per key"), "#k naming the sort key: %v", err)
	_, err = parse(`{"#k":"p"}`, `{":p":{"S":"a"},":pre":{"N":"1"}}`)
	assert.Falsef(t, err == nil || !strings.Contains(err.Error(), "Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"), "begins_with on a number after the string was cached: %v", err)

	between := func(lo, hi string) error {
		env := NewEnv(nil, item(t, `{":p":{"S":"a"},":lo":{"N":"`+lo+`"},":hi":{"N":"`+hi+`"}}`))
		_, err := env.KeyCondition("p = :p AND c BETWEEN :lo AND :hi", "p", "c")
		return err
	}
	err = between("1", "2")
	require.NoError(t, err)
	err = between("2", "1")
	assert.Falsef(t, err == nil || !strings.Contains(err.Error(), "upper bound to be greater than or equal to lower bound"), "BETWEEN 2 AND 1 after BETWEEN 1 AND 2: %v", err)
}

package expr

import (
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"
)

// The fuzz targets feed arbitrary text to each parser, with a fixed set of
// placeholders, and evaluate whatever parses against a varied item. The
// property: no input panics, every failure is an *Error, and evaluation
// of a parsed expression never fails in an unexpected way.

func fuzzEnv() *Env {
	return NewEnv(
		map[string]string{"#a": "a", "#b": "b", "#dot": "a.b", "#l": "l"},
		map[string]types.AttributeValue{
			":n":  &types.AttributeValueMemberN{Value: "5"},
			":s":  &types.AttributeValueMemberS{Value: "he"},
			":b":  &types.AttributeValueMemberB{Value: []byte{1}},
			":l":  &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberN{Value: "1"}}},
			":m":  &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}},
			":ss": &types.AttributeValueMemberSS{Value: []string{"x"}},
			":ns": &types.AttributeValueMemberNS{Value: []string{"1"}},
			":t":  &types.AttributeValueMemberBOOL{Value: true},
			":N":  &types.AttributeValueMemberS{Value: "N"},
		})
}

func fuzzItem() map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"a": &types.AttributeValueMemberN{Value: "5"},
		"b": &types.AttributeValueMemberS{Value: "hello"},
		"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{
			&types.AttributeValueMemberN{Value: "1"},
			&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"x": &types.AttributeValueMemberSS{Value: []string{"x"}}}},
		}},
		"m":   &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"k": &types.AttributeValueMemberL{}}},
		"ss":  &types.AttributeValueMemberSS{Value: []string{"x", "y"}},
		"ns":  &types.AttributeValueMemberNS{Value: []string{"1", "2"}},
		"a.b": &types.AttributeValueMemberBOOL{Value: true},
	}
}

func checkErr(t *testing.T, s string, err error) {
	t.Helper()
	var e *Error
	require.Falsef(t, err != nil && !errors.As(err, &e), "%q: error %v is %T, not *Error", s, err, err)
}

func addSeeds(f *testing.F, seeds ...string) {
	for _, s := range seeds {
		f.Add(s)
	}
}

func FuzzCondition(f *testing.F) {
	addSeeds(f,
		"#a = :n AND attribute_exists(b) OR NOT begins_with(b, :s)",
		"a BETWEEN :n AND :n", "a IN (:n, :s, :l)", "size(l) > :n", "contains(ss, :s)",
		"attribute_type(#l, :N)", "((a = :n))", "(a) = (:n)", "l[1].x = :ss", "#dot <> :t",
		"NOT NOT NOT a < b", "a = :n AND (b = :s OR (ss = :ss AND ns = :ns))", "x[01] = :n",
		"size(size(a)) = :n", "a = :n )", "(((", "a.#b[2] >= :b")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := fuzzEnv().Condition(s)
		checkErr(t, s, err)
		if err == nil {
			c.Eval(fuzzItem())
			c.Eval(nil)
			c.TopLevelNames()
		}
		kc, err := fuzzEnv().KeyCondition(s, "a", "b")
		checkErr(t, s, err)
		if err == nil && kc.Range != nil {
			kc.Range.Match(&types.AttributeValueMemberS{Value: "x"})
		}
	})
}

func FuzzUpdate(f *testing.F) {
	addSeeds(f,
		"SET a = a + :n, b = list_append(:l, l) REMOVE m.k ADD ss :ss DELETE ns :ns",
		"SET l[5] = :n, l[0] = if_not_exists(zz, :s)", "REMOVE l[0], l[1], l[7]",
		"SET #dot = :m, m.k[0] = :t", "ADD a :n", "DELETE ss :ss", "set a = :n remove b",
		"SET a = :n, a.b = :n", "SET a.b = :n, a[0] = :n", "SET l[1].x = :s", "SET a = list_append(if_not_exists(l, :l), :l)")
	f.Fuzz(func(t *testing.T, s string) {
		u, err := fuzzEnv().Update(s)
		checkErr(t, s, err)
		if err != nil {
			return
		}
		it := fuzzItem()
		before := show(it)
		out, err := u.Apply(it)
		checkErr(t, s, err)
		require.EqualValuesf(t, before, show(it), "%q changed its input item", s)
		if err == nil {
			u.Apply(out)
		}
		_, err = u.Apply(nil)
		checkErr(t, s, err)
		u.TopLevelNames()
	})
}

func FuzzProjection(f *testing.F) {
	addSeeds(f, "a, b, l[1].x, m.k", "#dot, #l[0]", "l[9], l[0]", "a, a", "a.b, a[0]", "status", "a,")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := fuzzEnv().Projection(s)
		checkErr(t, s, err)
		if err == nil {
			p.Apply(fuzzItem())
			p.Apply(nil)
		}
	})
}

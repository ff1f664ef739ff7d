package table

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
)

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func n(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }

func TestCompareValuesOrdersAsDynamoDB(t *testing.T) {
	cases := []struct {
		a, b types.AttributeValue
		want int
	}{
		{s("a"), s("b"), -1},
		{s("B"), s("a"), -1},   // byte order, not case-folded
		{s("é"), s("z"), 1},    // UTF-8 bytes: U+00E9 sorts after ASCII
		{n("9"), n("10"), -1},  // numbers by value, not as text
		{n("1.0"), n("1"), 0},  // one number, two spellings
		{n("-2"), n("-10"), 1}, // negative numbers
		{n("1E+2"), n("99"), 1},
		{&types.AttributeValueMemberB{Value: []byte{1}}, &types.AttributeValueMemberB{Value: []byte{1, 0}}, -1},
	}
	for _, c := range cases {
		got, ok := compareValues(c.a, c.b)
		assert.True(t, ok, "%v vs %v", c.a, c.b)
		assert.Equal(t, c.want, got, "%v vs %v", formatValue(c.a), formatValue(c.b))
	}
	_, ok := compareValues(s("1"), n("1"))
	assert.False(t, ok, "values of different types do not compare")
	_, ok = compareValues(&types.AttributeValueMemberBOOL{Value: true}, &types.AttributeValueMemberBOOL{Value: true})
	assert.False(t, ok, "non-scalar values do not compare")
}

func TestPrefixEndIsTheLeastStringAfterThePrefix(t *testing.T) {
	cases := map[string]string{"T#": "T$", "LOG#a": "LOG#b", "x\u00ff": "x\u0100", "a\ud7ff": "a\ue000"}
	for p, want := range cases {
		got, ok := prefixEnd(p)
		assert.True(t, ok, p)
		assert.Equal(t, want, got, p)
	}
	_, ok := prefixEnd("a\U0010FFFF")
	assert.False(t, ok, "no code point follows U+10FFFF")
}

func TestResumeCondStartsAtTheCursorAndStaysInsideTheQuery(t *testing.T) {
	x := s("T#5")
	cond := func(op sortOp, vals ...types.AttributeValue) sortCond { return sortCond{op: op, vals: vals} }
	cases := []struct {
		name string
		desc bool
		in   sortCond
		want sortCond
	}{
		{"none ascending", false, cond(sortNone), cond(sortGE, x)},
		{"none descending", true, cond(sortNone), cond(sortLE, x)},
		{"equals", false, cond(sortEQ, x), cond(sortEQ, x)},
		{"between ascending", false, cond(sortBetween, s("T#1"), s("T#8")), cond(sortBetween, x, s("T#8"))},
		{"between descending", true, cond(sortBetween, s("T#1"), s("T#8")), cond(sortBetween, s("T#1"), x)},
		{"less ascending", false, cond(sortLT, s("T#8")), cond(sortBetween, x, s("T#8"))},
		{"less descending", true, cond(sortLT, s("T#8")), cond(sortLE, x)},
		{"greater ascending", false, cond(sortGT, s("T#1")), cond(sortGE, x)},
		{"greater descending", true, cond(sortGT, s("T#1")), cond(sortBetween, s("T#1"), x)},
		{"begins_with ascending", false, cond(sortBeginsWith, s("T#")), cond(sortBetween, x, s("T$"))},
		{"begins_with descending", true, cond(sortBeginsWith, s("T#")), cond(sortBetween, s("T#"), x)},
	}
	for _, c := range cases {
		p := &tiePlan{desc: c.desc, cond: c.in}
		assert.Equal(t, c.want, p.resumeCond(x), c.name)
	}
}

func TestSortCondMatches(t *testing.T) {
	lt := sortCond{op: sortLT, vals: []types.AttributeValue{s("b")}}
	assert.True(t, lt.matches(s("a")))
	assert.False(t, lt.matches(s("b")), "< excludes its bound, which a resumed between reads")
	bw := sortCond{op: sortBeginsWith, vals: []types.AttributeValue{s("T#")}}
	assert.True(t, bw.matches(s("T#1")))
	assert.False(t, bw.matches(s("T$")))
	assert.False(t, bw.matches(n("1")))
	assert.True(t, sortCond{}.matches(nil), "no condition matches everything")
}

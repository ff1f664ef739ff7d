package attr

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func n(s string) types.AttributeValue { return &types.AttributeValueMemberN{Value: s} }
func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func b(v string) types.AttributeValue { return &types.AttributeValueMemberB{Value: []byte(v)} }

func TestCanonicalNumberSameValueSameText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"1", "1"},
		{"1.0", "1"},
		{"01", "1"},
		{"1e0", "1"},
		{"+1", "1"},
		{"10", "10"},
		{"1E1", "10"},
		{"100.00", "100"},
		{".5", "0.5"},
		{"0.050", "0.05"},
		{"5.", "5"},
		{"-0", "0"},
		{"0e1000", "0"},
		{"-0.000", "0"},
		{"-17e5", "-1700000"},
		{"-17.4E37", "-174" + strings.Repeat("0", 36)},
		{"1e-130", "0." + strings.Repeat("0", 129) + "1"},
		{"1e+5", "100000"},
		{"0001.23", "1.23"},
		{"123.456", "123.456"},
		{"3.1415926535897932384626433832795028841", "3.1415926535897932384626433832795028841"},
		{"31415926535897932384626433832795028841e30", "31415926535897932384626433832795028841" + strings.Repeat("0", 30)},
		{"9.9999999999999999999999999999999999999E+125", "99999999999999999999999999999999999999" + strings.Repeat("0", 88)},
	}
	for _, tt := range tests {
		got, err := CanonicalNumber(tt.in)
		assert.Falsef(t, err != nil || got != tt.want, "CanonicalNumber(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
	}
}

func TestCanonicalNumberRejectsWhatDynamoDBRejects(t *testing.T) {
	tests := []struct{ in, msg string }{
		{"NaN", msgNotNumber},
		{"Infinity", msgNotNumber},
		{"-Infinity", msgNotNumber},
		{"dog", msgNotNumber},
		{" 1", msgNotNumber},
		{"1 ", msgNotNumber},
		{"", msgNotNumber},
		{".", msgNotNumber},
		{"-", msgNotNumber},
		{"1e", msgNotNumber},
		{"1e+", msgNotNumber},
		{"1.2.3", msgNotNumber},
		{"0x10", msgNotNumber},
		{"1_000", msgNotNumber},
		{"1e126", msgOverflow},
		{"11e125", msgOverflow},
		{"-1e126", msgOverflow},
		{"1.0e100000000", msgOverflow},
		{"1e-131", msgUnderflow},
		{"0.9e-130", msgUnderflow},
		{"-1e-131", msgUnderflow},
		{"3.14159265358979323846264338327950288419", msgPrecision},
		{"314159265358979323846264338327950288419e30", msgPrecision},
	}
	for _, tt := range tests {
		_, err := CanonicalNumber(tt.in)
		var ae *Error
		assert.Falsef(t, !errors.As(err, &ae) || !strings.HasPrefix(ae.Message, tt.msg), "CanonicalNumber(%q) error = %v; want %q", tt.in, err, tt.msg)
	}
}

func TestCompareOrdersNumbersNumerically(t *testing.T) {
	ordered := []string{"-1e125", "-100", "-10", "-9.5", "-1", "-0.001", "0", "1e-130", "0.001", "1", "2", "9", "10", "10.5", "100", "1e125"}
	for i := range ordered {
		for j := range ordered {
			c, ok := Compare(n(ordered[i]), n(ordered[j]))
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			assert.Falsef(t, !ok || c != want, "Compare(%s, %s) = %d, %v; want %d", ordered[i], ordered[j], c, ok, want)
		}
	}
	c, ok := Compare(n("1.0"), n("01"))
	assert.Falsef(t, !ok || c != 0, "1.0 vs 01: %d %v", c, ok)
}

func TestCompareStringsAndBinaryByBytes(t *testing.T) {
	// "Z" (0x5A) before "a" (0x61); "é" (0xC3 0xA9) after "z".
	c, _ := Compare(s("Z"), s("a"))
	assert.EqualValuesf(t, -1, c, "Z vs a = %d", c)
	c, _ = Compare(s("z"), s("é"))
	assert.EqualValuesf(t, -1, c, "z vs é = %d", c)
	c, _ = Compare(s("10"), s("9"))
	assert.EqualValuesf(t, -1, c, "strings compare as text: 10 vs 9 = %d", c)
	c, _ = Compare(b("\x00\xff"), b("\x01"))
	assert.EqualValuesf(t, -1, c, "binary = %d", c)
	c, _ = Compare(s("ab"), s("abc"))
	assert.EqualValuesf(t, -1, c, "prefix = %d", c)
}

func TestCompareAcrossTypesIsNotOK(t *testing.T) {
	pairs := [][2]types.AttributeValue{
		{s("1"), n("1")},
		{n("1"), b("1")},
		{&types.AttributeValueMemberBOOL{Value: true}, &types.AttributeValueMemberBOOL{Value: true}},
		{&types.AttributeValueMemberSS{Value: []string{"a"}}, &types.AttributeValueMemberSS{Value: []string{"a"}}},
		{nil, s("a")},
	}
	for _, p := range pairs {
		_, ok := Compare(p[0], p[1])
		assert.Falsef(t, ok, "Compare(%T, %T) ok", p[0], p[1])
	}
}

func TestEqualDeep(t *testing.T) {
	m := func(kv ...any) types.AttributeValue {
		out := map[string]types.AttributeValue{}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i].(string)] = kv[i+1].(types.AttributeValue)
		}
		return &types.AttributeValueMemberM{Value: out}
	}
	l := func(vs ...types.AttributeValue) types.AttributeValue { return &types.AttributeValueMemberL{Value: vs} }
	tests := []struct {
		a, b types.AttributeValue
		want bool
	}{
		{n("1.0"), n("1"), true},
		{n("1"), n("2"), false},
		{s("a"), s("a"), true},
		{s("a"), b("a"), false},
		{b(""), b(""), true},
		{&types.AttributeValueMemberNULL{Value: true}, &types.AttributeValueMemberNULL{Value: true}, true},
		{&types.AttributeValueMemberBOOL{Value: true}, &types.AttributeValueMemberBOOL{Value: false}, false},
		{&types.AttributeValueMemberSS{Value: []string{"a", "b"}}, &types.AttributeValueMemberSS{Value: []string{"b", "a"}}, true},
		{&types.AttributeValueMemberSS{Value: []string{"a", "b"}}, &types.AttributeValueMemberSS{Value: []string{"a", "c"}}, false},
		{&types.AttributeValueMemberSS{Value: []string{"a"}}, &types.AttributeValueMemberSS{Value: []string{"a", "b"}}, false},
		{&types.AttributeValueMemberNS{Value: []string{"1", "2.0"}}, &types.AttributeValueMemberNS{Value: []string{"2", "1.00"}}, true},
		{&types.AttributeValueMemberBS{Value: [][]byte{{1}, {2}}}, &types.AttributeValueMemberBS{Value: [][]byte{{2}, {1}}}, true},
		{&types.AttributeValueMemberSS{Value: []string{"1"}}, &types.AttributeValueMemberNS{Value: []string{"1"}}, false},
		{l(n("1"), s("x")), l(n("1.0"), s("x")), true},
		{l(n("1"), s("x")), l(s("x"), n("1")), false},
		{l(), l(), true},
		{m("a", n("1"), "b", l(s("x"))), m("b", l(s("x")), "a", n("1")), true},
		{m("a", n("1")), m("a", n("1"), "b", n("2")), false},
		{m("a", n("1")), m("b", n("1")), false},
		{nil, nil, false},
	}
	for i, tt := range tests {
		got := Equal(tt.a, tt.b)
		assert.EqualValuesf(t, tt.want, got, "case %d: Equal = %v; want %v", i, got, tt.want)
		got = Equal(tt.b, tt.a)
		assert.EqualValuesf(t, tt.want, got, "case %d: Equal reversed = %v; want %v", i, got, tt.want)
	}
}

func TestAddNumbersExactly(t *testing.T) {
	tests := []struct{ a, b, sum, diff string }{
		{"1", "10000000000000000000000", "10000000000000000000001", "-9999999999999999999999"},
		{"0.1", "0.2", "0.3", "-0.1"},
		{"1.5", "1.5", "3", "0"},
		{"0", "-5", "-5", "5"},
		{"-5", "0", "-5", "-5"},
		{"1e125", "1e125", "2" + strings.Repeat("0", 125), "0"},
		{"12345678901234567890123456789012345678", "1", "12345678901234567890123456789012345679", "12345678901234567890123456789012345677"},
		{"1e-130", "1e-130", "0." + strings.Repeat("0", 129) + "2", "0"},
	}
	for _, tt := range tests {
		got, err := AddNumbers(tt.a, tt.b)
		assert.Falsef(t, err != nil || got != tt.sum, "AddNumbers(%s, %s) = %q, %v; want %q", tt.a, tt.b, got, err, tt.sum)
		got, err = SubtractNumbers(tt.a, tt.b)
		assert.Falsef(t, err != nil || got != tt.diff, "SubtractNumbers(%s, %s) = %q, %v; want %q", tt.a, tt.b, got, err, tt.diff)
	}
}

func TestAddNumbersFailsWhereDynamoDBFails(t *testing.T) {
	tests := []struct {
		a, b string
		sub  bool
		msg  string
	}{
		{"9e125", "9e125", false, msgOverflow},
		{"9e125", "-9e125", true, msgOverflow},
		// DynamoDB does not round: 1e50+1 needs 51 digits and fails.
		{"1e50", "1", false, msgPrecision},
		{"1e50", "1", true, msgPrecision},
		{"abc", "1", false, msgNotNumber},
		{"1", "1e200", false, msgOverflow},
	}
	for _, tt := range tests {
		var err error
		if tt.sub {
			_, err = SubtractNumbers(tt.a, tt.b)
		} else {
			_, err = AddNumbers(tt.a, tt.b)
		}
		assert.Falsef(t, err == nil || !strings.HasPrefix(err.Error(), tt.msg), "%s op %s: err = %v; want %q", tt.a, tt.b, err, tt.msg)
	}
}

func TestValidateRejectsWhatDynamoDBRejects(t *testing.T) {
	// DynamoDB Local accepts an attribute nesting 31 lists or maps and
	// rejects 32: the item is a level too.
	deep := types.AttributeValue(s("x"))
	for i := 0; i < 32; i++ {
		deep = &types.AttributeValueMemberL{Value: []types.AttributeValue{deep}}
	}
	okDeep := types.AttributeValue(s("x"))
	for i := 0; i < 31; i++ {
		okDeep = &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"a": okDeep}}
	}
	tests := []struct {
		v   types.AttributeValue
		msg string // "" = valid
	}{
		{s(""), ""},
		{b(""), ""},
		{n("1"), ""},
		{&types.AttributeValueMemberSS{Value: []string{""}}, ""},
		{&types.AttributeValueMemberL{}, ""},
		{&types.AttributeValueMemberM{}, ""},
		{okDeep, ""},
		{&types.AttributeValueMemberNULL{Value: true}, ""},
		{&types.AttributeValueMemberNULL{Value: false}, "Null attribute value types must have the value of true"},
		{n("x"), msgNotNumber},
		{n("1e200"), msgOverflow},
		{&types.AttributeValueMemberSS{}, "An string set  may not be empty"},
		{&types.AttributeValueMemberNS{Value: []string{}}, "An number set  may not be empty"},
		{&types.AttributeValueMemberBS{}, "Binary sets should not be empty"},
		{&types.AttributeValueMemberSS{Value: []string{"a", "b", "a"}}, "One or more parameter values were invalid: Input collection [a, b, a] contains duplicates"},
		{&types.AttributeValueMemberNS{Value: []string{"1", "1.0"}}, "Input collection contains duplicates"},
		{&types.AttributeValueMemberNS{Value: []string{"1", "x"}}, msgNotNumber},
		{&types.AttributeValueMemberBS{Value: [][]byte{{1}, {1}}}, "Input collection of type BS contains duplicates."},
		{&types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberSS{}}}, "may not be empty"},
		{&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"a": n("--1")}}, msgNotNumber},
		{deep, "Nesting Levels have exceeded supported limits"},
		{nil, "Supplied AttributeValue is empty"},
		{&types.AttributeValueMemberL{Value: []types.AttributeValue{nil}}, "Supplied AttributeValue is empty"},
	}
	for i, tt := range tests {
		err := Validate(tt.v)
		if tt.msg == "" {
			assert.NoErrorf(t, err, "case %d: unexpected %v", i, err)
			continue
		}
		var ae *Error
		assert.Falsef(t, !errors.As(err, &ae) || !strings.Contains(ae.Message, tt.msg), "case %d: err = %v; want %q", i, err, tt.msg)
	}
}

func TestValidateValueAllowsOneMoreLevel(t *testing.T) {
	v := types.AttributeValue(s("x"))
	for i := 0; i < 32; i++ {
		v = &types.AttributeValueMemberL{Value: []types.AttributeValue{v}}
	}
	require.EqualValuesf(t, 32, Depth(v), "Depth = %d", Depth(v))
	err := ValidateValue(v)
	require.NoError(t, err, "32 levels as a value")
	err = Validate(v)
	require.Error(t, err, "32 levels in an item attribute accepted")
	v = &types.AttributeValueMemberL{Value: []types.AttributeValue{v}}
	err = ValidateValue(v)
	require.Error(t, err, "33 levels as a value accepted")
}

func TestCopySharesNoMemory(t *testing.T) {
	orig := map[string]types.AttributeValue{
		"b":  &types.AttributeValueMemberB{Value: []byte{1, 2}},
		"bs": &types.AttributeValueMemberBS{Value: [][]byte{{1}}},
		"ss": &types.AttributeValueMemberSS{Value: []string{"a"}},
		"l":  &types.AttributeValueMemberL{Value: []types.AttributeValue{n("1")}},
		"m":  &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"x": s("y")}},
	}
	cp := CopyItem(orig)
	for k := range orig {
		require.Falsef(t, !Equal(orig[k], cp[k]), "%s differs after copy", k)
	}
	cp["b"].(*types.AttributeValueMemberB).Value[0] = 9
	cp["bs"].(*types.AttributeValueMemberBS).Value[0][0] = 9
	cp["ss"].(*types.AttributeValueMemberSS).Value[0] = "z"
	cp["l"].(*types.AttributeValueMemberL).Value[0] = s("z")
	cp["m"].(*types.AttributeValueMemberM).Value["x"] = s("z")
	// Changing the copy leaves the original as it was.
	assert.Equal(t, byte(1), orig["b"].(*types.AttributeValueMemberB).Value[0])
	assert.Equal(t, byte(1), orig["bs"].(*types.AttributeValueMemberBS).Value[0][0])
	assert.Equal(t, "a", orig["ss"].(*types.AttributeValueMemberSS).Value[0])
	assert.True(t, Equal(orig["l"].(*types.AttributeValueMemberL).Value[0], n("1")), "list element")
	assert.True(t, Equal(orig["m"].(*types.AttributeValueMemberM).Value["x"], s("y")), "map value")
	require.Nil(t, CopyItem(nil), "CopyItem(nil) != nil")
}

func TestKeyBytesIdentifiesDynamoDBKeys(t *testing.T) {
	same := [][2]types.AttributeValue{
		{n("1"), n("1.0")},
		{n("1"), n("01")},
		{n("100"), n("1e2")},
		{s("a.b"), s("a.b")},
		{b("\x00"), b("\x00")},
	}
	for _, p := range same {
		assert.Falsef(t, string(KeyBytes(p[0])) != string(KeyBytes(p[1])) || KeyString(p[0]) != KeyString(p[1]), "%v and %v should be one key", p[0], p[1])
	}
	diff := [][2]types.AttributeValue{
		{n("1"), s("1")},
		{s("1"), b("1")},
		{n("1"), n("10")},
		{s("a.b"), s("a")},
		{s("a"), s("A")},
	}
	for _, p := range diff {
		assert.Falsef(t, string(KeyBytes(p[0])) == string(KeyBytes(p[1])) || KeyString(p[0]) == KeyString(p[1]), "%v and %v should be different keys", p[0], p[1])
	}
}

func TestTypeOf(t *testing.T) {
	require.False(t, TypeOf(n("1")) != "N" || TypeOf(&types.AttributeValueMemberBS{}) != "BS" || TypeOf(nil) != "", "TypeOf")
}

func TestCompareNumbersFastPathAgreesWithDecimal(t *testing.T) {
	vals := []string{"0", "-0", "00", "1", "-1", "9", "10", "-10", "99", "100", "-100", "1.0", "-1.0", "12345678901234567890123456789012345678", "-5", "5e0"}
	for _, a := range vals {
		for _, b := range vals {
			var abuf, bbuf [48]byte
			da, _ := parseDecimal(a, abuf[:0])
			db, _ := parseDecimal(b, bbuf[:0])
			got, want := CompareNumbers(a, b), da.cmp(db)
			assert.EqualValuesf(t, want, got, "CompareNumbers(%q, %q) = %d; want %d", a, b, got, want)
		}
	}
}

func BenchmarkCompareIntegers(b *testing.B) {
	x, y := n("1700000000"), n("1700000001")
	for b.Loop() {
		Compare(x, y)
	}
}

func BenchmarkCompareNumbers(b *testing.B) {
	x, y := n("12345.6789"), n("12345.679")
	for b.Loop() {
		Compare(x, y)
	}
}

func FuzzCanonicalNumber(f *testing.F) {
	for _, s := range []string{"1", "1.0", "-0.5e-3", "1e126", "9.9e125", ".", "+.5E+2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := CanonicalNumber(s)
		if err != nil {
			return
		}
		// The canonical text is itself canonical and equal in value.
		c2, err := CanonicalNumber(c)
		require.Falsef(t, err != nil || c2 != c, "CanonicalNumber(%q) = %q, then %q, %v", s, c, c2, err)
		require.EqualValuesf(t, 0, CompareNumbers(s, c), "%q and its canonical %q compare unequal", s, c)
	})
}

func TestCompareIntNumber(t *testing.T) {
	tests := []struct {
		n    int
		s    string
		want int
	}{
		{0, "0", 0}, {0, "0.0", 0}, {5, "5", 0}, {5, "5.0", 0}, {10, "1e1", 0},
		{5, "6", -1}, {5, "4.99", 1}, {-3, "-3", 0}, {-3, "-2", -1}, {100, "99.9999", 1},
		{0, "-0.1", 1}, {0, "0.1", -1},
	}
	for _, tt := range tests {
		got := CompareIntNumber(tt.n, tt.s)
		assert.EqualValuesf(t, tt.want, got, "CompareIntNumber(%d, %q) = %d; want %d", tt.n, tt.s, got, tt.want)
	}
}

func FuzzCompareNumbers(f *testing.F) {
	f.Add("10", "9")
	f.Add("-0", "0")
	f.Add("1.50", "1.5")
	f.Fuzz(func(t *testing.T, a, b string) {
		ab, ba := CompareNumbers(a, b), CompareNumbers(b, a)
		require.EqualValuesf(t, -ba, ab, "CompareNumbers(%q, %q) = %d but reversed %d", a, b, ab, ba)
		var abuf, bbuf [48]byte
		da, aok := parseDecimal(a, abuf[:0])
		db, bok := parseDecimal(b, bbuf[:0])
		require.Falsef(t, aok && bok && ab != da.cmp(db), "CompareNumbers(%q, %q) = %d; decimal order %d", a, b, ab, da.cmp(db))
	})
}

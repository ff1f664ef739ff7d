package expr

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEnvPlaceholdersUsedAcrossExpressions(t *testing.T) {
	// A conditional update: the condition uses #s and :old, the update
	// :new; together they use everything, so nothing is unused.
	env := NewEnv(map[string]string{"#s": "state"}, item(t, `{":old":{"S":"A"},":new":{"S":"B"}}`))
	_, err := env.Condition("#s = :old")
	require.NoError(t, err)
	err = env.CheckUnused()
	require.Error(t, err, "CheckUnused passed before the update used :new")
	_, err = env.Update("SET #s = :new")
	require.NoError(t, err)
	err = env.CheckUnused()
	require.NoError(t, err, "CheckUnused")
}

func TestEnvWithoutPlaceholders(t *testing.T) {
	env := NewEnv(nil, nil)
	_, err := env.Condition("attribute_exists(a)")
	require.NoError(t, err)
	err = env.CheckUnused()
	require.NoError(t, err)
	_, err = env.Condition("a = :v")
	require.EqualValuesf(t, "Invalid ConditionExpression: An expression attribute value used in expression is not defined; attribute value: :v", errMessage(t, err), "got %v", err)
}

func TestEnvRejectsBadInputsBeforeParsing(t *testing.T) {
	env := NewEnv(nil, map[string]types.AttributeValue{":v": &types.AttributeValueMemberNS{}})
	_, err := env.Condition("this is not parsed")
	want := "ExpressionAttributeValues contains invalid value: One or more parameter values were invalid: An number set  may not be empty for key :v"
	got := errMessage(t, err)
	require.EqualValuesf(t, want, got, "got %q", got)
	got = errMessage(t, env.CheckUnused())
	require.EqualValuesf(t, want, got, "CheckUnused got %q", got)
}

func TestJavaSetOrder(t *testing.T) {
	// Orders DynamoDB Local printed for these sets of unused keys.
	tests := []struct{ in, want []string }{
		{[]string{"#b", "#c"}, []string{"#c", "#b"}},
		{[]string{":b", ":a"}, []string{":a", ":b"}},
		{[]string{":ab", ":aa", ":ba", ":b", ":c", ":d", ":e"}, []string{":b", ":c", ":ba", ":d", ":aa", ":e", ":ab"}},
	}
	for _, tt := range tests {
		got := append([]string(nil), tt.in...)
		javaSetOrder(got)
		assert.Equal(t, tt.want, got, "javaSetOrder(%v)", tt.in)
	}
}

// javaSetOrder's counting sort puts keys where a sort by (bucket, length,
// text) does, for sets larger than its small cases.
func TestJavaSetOrderSortsLargeSetsByBucketLengthAndText(t *testing.T) {
	for _, n := range []int{13, 100, 5000} {
		keys := make([]string, n)
		for i := range keys {
			keys[i] = "#" + strings.Repeat("k", i%3) + strconv.Itoa(i*7919%100003)
		}
		capacity := 16
		for float64(n) > 0.75*float64(capacity) {
			capacity *= 2
		}
		want := slices.Clone(keys)
		slices.SortFunc(want, func(x, y string) int {
			if bx, by := javaBucket(x, capacity), javaBucket(y, capacity); bx != by {
				return bx - by
			}
			if len(x) != len(y) {
				return len(x) - len(y)
			}
			return strings.Compare(x, y)
		})
		javaSetOrder(keys)
		assert.Equalf(t, want, keys, "%d keys", n)
	}
}

// The placeholder maps' limits, at their boundaries, in DynamoDB Local's
// words (the Developer Guide's expression-parameter quotas: 255 bytes a
// placeholder, 2 MB of substitution variables; DynamoDB Local checks each
// map's 2 MB apart, keys included, and refuses a name over 64 KB).
func TestEnvRefusesPlaceholderMapsOverDynamoDBsLimits(t *testing.T) {
	s := func(n int) types.AttributeValue { return &types.AttributeValueMemberS{Value: strings.Repeat("v", n)} }
	bigNames := func(extra int) map[string]string {
		names := map[string]string{}
		for i := 10; i < 42; i++ { // 32 names of 4 + 65,532 bytes: 2 MB
			names["#n"+strconv.Itoa(i)] = strings.Repeat("a", 65532)
		}
		names["#n10"] += strings.Repeat("a", extra)
		return names
	}
	for _, tc := range []struct {
		what   string
		names  map[string]string
		values map[string]types.AttributeValue
		want   string // "" for accepted
	}{
		{"a name key of 255 bytes", map[string]string{"#" + strings.Repeat("k", 254): "a"}, nil, ""},
		{"a name key of 256 bytes", map[string]string{"#" + strings.Repeat("k", 255): "a"}, nil,
			"ExpressionAttributeNames contains invalid key: The expression attribute map contains a key that is too long; size of key: 256"},
		{"a long key that is not a placeholder either", map[string]string{"bad" + strings.Repeat("k", 300): "a"}, nil,
			"ExpressionAttributeNames contains invalid key: The expression attribute map contains a key that is too long; size of key: 303"},
		{"a value key of 256 bytes", nil, map[string]types.AttributeValue{":" + strings.Repeat("k", 255): s(1)},
			"ExpressionAttributeValues contains invalid key: The expression attribute map contains a key that is too long;"},
		{"a name of 65,535 bytes", map[string]string{"#n": strings.Repeat("a", 65535)}, nil, ""},
		{"a name of 65,536 bytes", map[string]string{"#n": strings.Repeat("a", 65536)}, nil,
			"ExpressionAttributeNames contains invalid value: Attribute name is too large, must be less than 65536 bytes for key #n"},
		{"names of 2 MB", bigNames(0), nil, ""},
		{"names of 2 MB and a byte", bigNames(1), nil, "ExpressionAttributeNames exceeds max size"},
		{"values of 2 MB", nil, map[string]types.AttributeValue{":v": s(2<<20 - 2)}, ""},
		{"values of 2 MB and a byte", nil, map[string]types.AttributeValue{":v": s(2<<20 - 1)}, "ExpressionAttributeValues exceeds max size"},
		{"a bad key before the values' size", nil, map[string]types.AttributeValue{":v": s(2 << 20), "bad": s(1)},
			`ExpressionAttributeValues contains invalid key: Syntax error; key: "bad"`},
		{"a bad value before the values' size", nil, map[string]types.AttributeValue{":v": s(2 << 20), ":w": &types.AttributeValueMemberSS{}},
			"ExpressionAttributeValues contains invalid value: One or more parameter values were invalid: An string set  may not be empty for key :w"},
		{"the names before the values", map[string]string{"bad": "a"}, map[string]types.AttributeValue{":v": s(2 << 20)},
			`ExpressionAttributeNames contains invalid key: Syntax error; key: "bad"`},
		{"the least bad key, whatever each one's fault", map[string]string{"#z": "", "#b": "", "#c": strings.Repeat("a", 65536), "#a": "ok", "zz": "a"}, nil,
			"ExpressionAttributeNames contains invalid value: Empty attribute name for key #b"},
	} {
		err := NewEnv(tc.names, tc.values).CheckInputs()
		if tc.want == "" {
			assert.NoErrorf(t, err, "%s", tc.what)
			continue
		}
		assert.Equalf(t, tc.want, errMessage(t, err), "%s", tc.what)
	}
}

package expr

import (
	"github.com/stretchr/testify/assert"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
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

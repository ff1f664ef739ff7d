package expr

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestEnvPlaceholdersUsedAcrossExpressions(t *testing.T) {
	// A conditional update: the condition uses #s and :old, the update
	// :new; together they use everything, so nothing is unused.
	env := NewEnv(map[string]string{"#s": "state"}, item(t, `{":old":{"S":"A"},":new":{"S":"B"}}`))
	if _, err := env.Condition("#s = :old"); err != nil {
		t.Fatal(err)
	}
	if err := env.CheckUnused(); err == nil {
		t.Fatal("CheckUnused passed before the update used :new")
	}
	if _, err := env.Update("SET #s = :new"); err != nil {
		t.Fatal(err)
	}
	if err := env.CheckUnused(); err != nil {
		t.Fatalf("CheckUnused: %v", err)
	}
}

func TestEnvWithoutPlaceholders(t *testing.T) {
	env := NewEnv(nil, nil)
	if _, err := env.Condition("attribute_exists(a)"); err != nil {
		t.Fatal(err)
	}
	if err := env.CheckUnused(); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Condition("a = :v"); errMessage(t, err) != "Invalid ConditionExpression: An expression attribute value used in expression is not defined; attribute value: :v" {
		t.Fatalf("got %v", err)
	}
}

func TestEnvRejectsBadInputsBeforeParsing(t *testing.T) {
	env := NewEnv(nil, map[string]types.AttributeValue{":v": &types.AttributeValueMemberNS{}})
	_, err := env.Condition("this is not parsed")
	want := "ExpressionAttributeValues contains invalid value: One or more parameter values were invalid: An number set  may not be empty for key :v"
	if got := errMessage(t, err); got != want {
		t.Fatalf("got %q", got)
	}
	if got := errMessage(t, env.CheckUnused()); got != want {
		t.Fatalf("CheckUnused got %q", got)
	}
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
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("javaSetOrder(%v) = %v; want %v", tt.in, got, tt.want)
				break
			}
		}
	}
}

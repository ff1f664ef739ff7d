package journey

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTimeIsStoredFixedWidthAndNullWhenUnset(t *testing.T) {
	at := At(time.Date(2025, 11, 1, 20, 32, 5, 500_000_999, time.FixedZone("CET", 3600)))
	av, err := at.MarshalDynamoDBAttributeValue()
	assert.False(t, err != nil || av.(*types.AttributeValueMemberS).Value != "2025-11-01T19:32:05.500000Z", "stored as %v, %v", av, err)
	av, _ = (Time{}).MarshalDynamoDBAttributeValue()
	assert.False(t, av.(*types.AttributeValueMemberNULL) == nil, "zero time stored as %v", av)
	b, _ := json.Marshal(struct{ A, B Time }{A: at})
	assert.Equal(t, `{"A":"2025-11-01T19:32:05.500000Z","B":null}`, string(b), "JSON %s", b)
	var back struct{ A, B Time }
	err = json.Unmarshal(b, &back)
	assert.False(t, err != nil || !back.A.Equal(at.Time) || !back.B.IsZero(), "read back %v, %v", back, err)
	// The seed's key examples write whole seconds ("2025-11-01T20:30:00Z").
	var short Time
	if err := short.UnmarshalDynamoDBAttributeValue(&types.AttributeValueMemberS{Value: "2025-11-01T20:30:00Z"}); err != nil ||
		short.String() != "2025-11-01T20:30:00.000000Z" {
		assert.Fail(t, fmt.Sprintf("RFC 3339 time read as %v, %v", short, err))
	}
	err = short.UnmarshalDynamoDBAttributeValue(&types.AttributeValueMemberN{Value: "1"})
	assert.Error(t, err, "a number read as a time")
	err = json.Unmarshal([]byte(`"yesterday"`), &short)
	assert.Error(t, err, "text read as a time")
}

func TestPlainJSONKeepsNumbersExactAndRefusesSets(t *testing.T) {
	item := map[string]types.AttributeValue{
		"n": &types.AttributeValueMemberN{Value: "12345678901234567890.5"},
		"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberBOOL{Value: true},
			&types.AttributeValueMemberNULL{Value: true}}},
	}
	j, err := itemToJSON(item)
	require.NoError(t, err)
	b, _ := json.Marshal(j)
	var m map[string]any
	require.NoError(t, decodeJSON(b, &m))
	back, err := jsonToItem(m)
	assert.False(t, err != nil || back["n"].(*types.AttributeValueMemberN).Value != "12345678901234567890.5", "number came back as %v, %v", back["n"], err)
	_, err = itemToJSON(map[string]types.AttributeValue{"ss": &types.AttributeValueMemberSS{Value: []string{"a"}}})
	assert.False(t, err == nil || !strings.Contains(err.Error(), "ss"), "a string set: %v", err)
	_, err = jsonToItem(map[string]any{"n": json.Number("12a")})
	assert.Error(t, err, "a bad number was accepted")
}

package journey

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTimeIsStoredFixedWidthAndNullWhenUnset(t *testing.T) {
	at := At(time.Date(2025, 11, 1, 20, 32, 5, 500_000_999, time.FixedZone("CET", 3600)))
	av, err := at.MarshalDynamoDBAttributeValue()
	require.NoError(t, err)
	require.IsType(t, &types.AttributeValueMemberS{}, av, "a time is stored as a string")
	assert.Equal(t, "2025-11-01T19:32:05.500000Z", av.(*types.AttributeValueMemberS).Value, "UTC, six fractional digits")
	av, _ = (Time{}).MarshalDynamoDBAttributeValue()
	assert.IsType(t, &types.AttributeValueMemberNULL{}, av, "the zero time is stored as NULL")
	b, _ := json.Marshal(struct{ A, B Time }{A: at})
	assert.Equal(t, `{"A":"2025-11-01T19:32:05.500000Z","B":null}`, string(b), "JSON %s", b)
	var back struct{ A, B Time }
	err = json.Unmarshal(b, &back)
	require.NoError(t, err)
	assert.True(t, back.A.Equal(at.Time), "A read back as %v, want %v", back.A, at)
	assert.True(t, back.B.IsZero(), "null read back as %v, want the zero time", back.B)
	// The seed's key examples write whole seconds ("2025-11-01T20:30:00Z").
	var short Time
	require.NoError(t, short.UnmarshalDynamoDBAttributeValue(&types.AttributeValueMemberS{Value: "2025-11-01T20:30:00Z"}))
	assert.Equal(t, "2025-11-01T20:30:00.000000Z", short.String(), "an RFC 3339 time read back")
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
	require.NoError(t, err)
	require.IsType(t, &types.AttributeValueMemberN{}, back["n"], "a number comes back a number")
	assert.Equal(t, "12345678901234567890.5", back["n"].(*types.AttributeValueMemberN).Value, "the number's digits")
	_, err = itemToJSON(map[string]types.AttributeValue{"ss": &types.AttributeValueMemberSS{Value: []string{"a"}}})
	require.Error(t, err, "a string set has no plain JSON form")
	assert.Contains(t, err.Error(), "ss", "the error names the attribute")
	_, err = jsonToItem(map[string]any{"n": json.Number("12a")})
	assert.Error(t, err, "a bad number was accepted")
}

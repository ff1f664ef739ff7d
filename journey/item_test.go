package journey

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestTimeIsStoredFixedWidthAndNullWhenUnset(t *testing.T) {
	at := At(time.Date(2025, 11, 1, 20, 32, 5, 500_000_999, time.FixedZone("CET", 3600)))
	av, err := at.MarshalDynamoDBAttributeValue()
	if err != nil || av.(*types.AttributeValueMemberS).Value != "2025-11-01T19:32:05.500000Z" {
		t.Errorf("stored as %v, %v", av, err)
	}
	if av, _ := (Time{}).MarshalDynamoDBAttributeValue(); av.(*types.AttributeValueMemberNULL) == nil {
		t.Errorf("zero time stored as %v", av)
	}
	b, _ := json.Marshal(struct{ A, B Time }{A: at})
	if string(b) != `{"A":"2025-11-01T19:32:05.500000Z","B":null}` {
		t.Errorf("JSON %s", b)
	}
	var back struct{ A, B Time }
	if err := json.Unmarshal(b, &back); err != nil || !back.A.Equal(at.Time) || !back.B.IsZero() {
		t.Errorf("read back %v, %v", back, err)
	}
	// The seed's key examples write whole seconds ("2025-11-01T20:30:00Z").
	var short Time
	if err := short.UnmarshalDynamoDBAttributeValue(&types.AttributeValueMemberS{Value: "2025-11-01T20:30:00Z"}); err != nil ||
		short.String() != "2025-11-01T20:30:00.000000Z" {
		t.Errorf("RFC 3339 time read as %v, %v", short, err)
	}
	if err := short.UnmarshalDynamoDBAttributeValue(&types.AttributeValueMemberN{Value: "1"}); err == nil {
		t.Error("a number read as a time")
	}
	if err := json.Unmarshal([]byte(`"yesterday"`), &short); err == nil {
		t.Error("text read as a time")
	}
}

func TestPlainJSONKeepsNumbersExactAndRefusesSets(t *testing.T) {
	item := map[string]types.AttributeValue{
		"n": &types.AttributeValueMemberN{Value: "12345678901234567890.5"},
		"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberBOOL{Value: true},
			&types.AttributeValueMemberNULL{Value: true}}},
	}
	j, err := itemToJSON(item)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(j)
	var m map[string]any
	if err := decodeJSON(b, &m); err != nil {
		t.Fatal(err)
	}
	back, err := jsonToItem(m)
	if err != nil || back["n"].(*types.AttributeValueMemberN).Value != "12345678901234567890.5" {
		t.Errorf("number came back as %v, %v", back["n"], err)
	}
	_, err = itemToJSON(map[string]types.AttributeValue{"ss": &types.AttributeValueMemberSS{Value: []string{"a"}}})
	if err == nil || !strings.Contains(err.Error(), "ss") {
		t.Errorf("a string set: %v", err)
	}
	if _, err := jsonToItem(map[string]any{"n": json.Number("12a")}); err == nil {
		t.Error("a bad number was accepted")
	}
}

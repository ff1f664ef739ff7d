package table

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestMarshalUnmarshalRoundTrip(t *testing.T) {
	in := thing{PK: "a", SK: "b", Name: "n", Count: 5}
	item, err := Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := item["gsi1pk"]; ok {
		t.Fatal("omitempty index key was stored: it would put the item in the sparse index")
	}
	var out thing
	if err := Unmarshal(item, &out); err != nil || out != in {
		t.Fatalf("round trip = %+v, %v", out, err)
	}
	ptr, err := Marshal(&in)
	if err != nil || len(ptr) != len(item) {
		t.Fatalf("pointer: %v, %v", ptr, err)
	}
}

func TestMarshalPassesItemsThrough(t *testing.T) {
	item := Item{"pk": &types.AttributeValueMemberS{Value: "a"}}
	got, err := Marshal(item)
	if err != nil || got["pk"] != item["pk"] {
		t.Fatalf("Marshal(Item) = %v, %v", got, err)
	}
	got, err = Marshal(Key(item))
	if err != nil || got["pk"] != item["pk"] {
		t.Fatalf("Marshal(Key) = %v, %v", got, err)
	}
	var out Item
	if err := Unmarshal(item, &out); err != nil || out["pk"] != item["pk"] {
		t.Fatalf("Unmarshal into *Item = %v, %v", out, err)
	}
}

func TestMarshalRejectsNonRecords(t *testing.T) {
	for name, v := range map[string]any{
		"nil":         nil,
		"nil pointer": (*thing)(nil),
		"int":         42,
		"string":      "s",
		"slice":       []int{1},
		"channel":     make(chan int),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Marshal(v)
			mustInputError(t, err)
		})
	}
}

func TestUnmarshalNeedsNonNilPointer(t *testing.T) {
	item := Item{"pk": &types.AttributeValueMemberS{Value: "a"}}
	var th thing
	mustInputError(t, Unmarshal(item, th))
	mustInputError(t, Unmarshal(item, nil))
	mustInputError(t, Unmarshal(item, (*thing)(nil)))
	mustInputError(t, Unmarshal(item, (*Item)(nil)))
	if err := Unmarshal(Item{"count": &types.AttributeValueMemberS{Value: "x"}}, &th); err == nil {
		t.Fatal("a string unmarshaled into an int field")
	}
}

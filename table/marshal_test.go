package table

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMarshalUnmarshalRoundTrip(t *testing.T) {
	in := thing{PK: "a", SK: "b", Name: "n", Count: 5}
	item, err := Marshal(in)
	require.NoError(t, err)
	require.NotContains(t, item, "gsi1pk", "an omitempty index key stored would put the item in the sparse index")
	var out thing
	require.NoError(t, Unmarshal(item, &out))
	require.Equal(t, in, out, "round trip")
	ptr, err := Marshal(&in)
	require.NoError(t, err, "pointer")
	require.Len(t, ptr, len(item), "pointer")
}

func TestMarshalPassesItemsThrough(t *testing.T) {
	item := Item{"pk": &types.AttributeValueMemberS{Value: "a"}}
	got, err := Marshal(item)
	require.NoError(t, err, "Marshal(Item)")
	require.Same(t, item["pk"], got["pk"], "Marshal(Item)")
	got, err = Marshal(Key(item))
	require.NoError(t, err, "Marshal(Key)")
	require.Same(t, item["pk"], got["pk"], "Marshal(Key)")
	var out Item
	require.NoError(t, Unmarshal(item, &out), "Unmarshal into *Item")
	require.Same(t, item["pk"], out["pk"], "Unmarshal into *Item")
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
	assert.Error(t, Unmarshal(Item{"count": &types.AttributeValueMemberS{Value: "x"}}, &th), "a string unmarshaled into an int field")
}

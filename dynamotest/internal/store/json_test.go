package store

import (
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest/internal/wire"
	"github.com/tablekit/tablekit/dynamotest/internal/wire/wiretest"
)

// AppendJSON must write what the wire codec writes for the decoded item, so
// a client cannot tell which path answered: read back through the codec, it
// is the item itself.
func TestAppendJSONReadsBackAsTheItem(t *testing.T) {
	var sampled dynamodb.GetItemOutput
	wiretest.Sample(&sampled) // every type, nested, with escapes and non-BMP runes
	require.False(t, len(sampled.Item) == 0, "wiretest.Sample left the item empty")
	payload := strings.Repeat("x", 1000)
	items := map[string]Item{
		"sampled":       sampled.Item,
		"verbatim":      {"pk": s("USER#1"), "sk": s("ITEM#000001"), "data": s(payload), "n": n("42"), "ss": &types.AttributeValueMemberSS{Value: []string{"a", "é"}}},
		"quote in name": {`a"b`: s("plain")},
		"control char":  {"pk": s("x"), "m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"k": s("line\nbreak")}}},
		"binary only":   {"b": b("\x00\xff"), "bs": &types.AttributeValueMemberBS{Value: [][]byte{{0}, {}}}},
		"empty":         {},
	}
	for name, item := range items {
		t.Run(name, func(t *testing.T) {
			body := append([]byte(`{"Item":`), AppendJSON(nil, Encode(item, 100))...)
			body = append(body, '}')
			var got dynamodb.GetItemOutput
			err := wire.Unmarshal(body, &got)
			require.NoErrorf(t, err, "AppendJSON wrote invalid JSON: %v\n%s", err, body)
			var want dynamodb.GetItemOutput
			err = wire.Unmarshal(wire.Marshal(&dynamodb.GetItemOutput{Item: item}), &want)
			require.NoError(t, err)
			require.Falsef(t, !reflect.DeepEqual(got.Item, want.Item), "AppendJSON reads back as\n%#v\nthe codec's JSON as\n%#v", got.Item, want.Item)
		})
	}
}

// The verbatim flag is what lets AppendJSON copy strings: it must be set for
// an item of plain strings and cleared by any string that needs escaping,
// however deep.
func TestEncodeFlagsItemsWhoseStringsAreVerbatim(t *testing.T) {
	for _, c := range []struct {
		item Item
		want bool
	}{
		{Item{"pk": s("a"), "n": n("1.5"), "b": b("\"\\\x00")}, true},
		{Item{"pk": s("naïve")}, true},
		{Item{"pk": s("a\"b")}, false},
		{Item{"a\\b": s("x")}, false},
		{Item{"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"k": s("\t")}}}}}, false},
		{Item{"ss": &types.AttributeValueMemberSS{Value: []string{"ok", "\x01"}}}, false},
		{Item{"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"\x7f\"": n("1")}}}, false},
	} {
		d := decoder{s: Encode(c.item, 0)}
		_, _, _, flags := d.header()
		got := flags&flagVerbatim != 0
		assert.EqualValuesf(t, c.want, got, "verbatim flag of %#v = %v, want %v", c.item, got, c.want)
	}
}

package table

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// A cursor is the key of the last item of a page, bound to the query it came
// from and authenticated, so that a client holding it can only continue that
// query: base64url(version | HMAC-SHA256(key, binding | payload)[:16] | payload)
// where payload is the key as JSON and binding names the table, index,
// partition value, sort condition and direction (or the scan segment).
const (
	cursorVersion = 1
	cursorMACLen  = 16
)

// cursorKey is the key attributes a cursor carries: the table's key and, on
// an index, the index key, which together form DynamoDB's ExclusiveStartKey.
type cursorSpec struct {
	binding string
	attrs   []Attribute
}

func (t *Table) cursorMAC(binding string, payload []byte) []byte {
	m, _ := t.macs.Get().(hash.Hash)
	if m == nil {
		m = hmac.New(sha256.New, t.opts.CursorKey)
	}
	defer func() {
		m.Reset()
		t.macs.Put(m)
	}()
	m.Write([]byte(binding))
	m.Write([]byte{0})
	m.Write(payload)
	return m.Sum(nil)[:cursorMACLen]
}

// encodeCursor makes the cursor that resumes after item.
func (t *Table) encodeCursor(spec cursorSpec, item Item) (string, error) {
	key := map[string][2]string{}
	for _, a := range spec.attrs {
		v, ok := item[a.Name]
		if !ok {
			return "", fmt.Errorf("table: cannot build cursor: item lacks key attribute %s (is it projected?)", a.Name)
		}
		switch v := v.(type) {
		case *types.AttributeValueMemberS:
			key[a.Name] = [2]string{"S", v.Value}
		case *types.AttributeValueMemberN:
			key[a.Name] = [2]string{"N", v.Value}
		case *types.AttributeValueMemberB:
			key[a.Name] = [2]string{"B", base64.StdEncoding.EncodeToString(v.Value)}
		default:
			return "", fmt.Errorf("table: cannot build cursor: key attribute %s is %s", a.Name, typeName(v))
		}
	}
	payload, err := json.Marshal(key)
	if err != nil {
		return "", err
	}
	buf := make([]byte, 0, 1+cursorMACLen+len(payload))
	buf = append(buf, cursorVersion)
	buf = append(buf, t.cursorMAC(spec.binding, payload)...)
	buf = append(buf, payload...)
	return base64.RawURLEncoding.EncodeToString(buf), nil
}

// decodeCursor checks a cursor against the query it is used with and
// returns the ExclusiveStartKey it carries. Any failure is ErrInvalidCursor,
// reported before a request is sent.
func (t *Table) decodeCursor(spec cursorSpec, cursor string) (Item, error) {
	bad := func(reason string) error {
		shown := cursor
		if len(shown) > 40 {
			shown = shown[:40] + "..."
		}
		return &InputError{Field: "cursor", Value: fmt.Sprintf("%q", shown), Reason: reason, Err: ErrInvalidCursor}
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(cursor)
	if err != nil {
		return nil, bad("not base64url")
	}
	if len(raw) < 1+cursorMACLen+2 || raw[0] != cursorVersion {
		return nil, bad("not a tablekit cursor")
	}
	mac, payload := raw[1:1+cursorMACLen], raw[1+cursorMACLen:]
	if !hmac.Equal(mac, t.cursorMAC(spec.binding, payload)) {
		return nil, bad("altered, or from another query (table, index, partition, sort condition or direction)")
	}
	var key map[string][2]string
	dec := json.NewDecoder(bytes.NewReader(payload))
	if err := dec.Decode(&key); err != nil || len(key) != len(spec.attrs) {
		return nil, bad("malformed key")
	}
	item := Item{}
	for _, a := range spec.attrs {
		tv, ok := key[a.Name]
		typ := a.Type
		if typ == "" {
			// A tie-break attribute that is not a key attribute: its type
			// comes with the value (and the MAC vouches for it).
			typ = types.ScalarAttributeType(tv[0])
		}
		if !ok || tv[0] != string(typ) {
			return nil, bad("key does not match the query's key attributes")
		}
		switch typ {
		case types.ScalarAttributeTypeS:
			item[a.Name] = &types.AttributeValueMemberS{Value: tv[1]}
		case types.ScalarAttributeTypeN:
			item[a.Name] = &types.AttributeValueMemberN{Value: tv[1]}
		case types.ScalarAttributeTypeB:
			b, err := base64.StdEncoding.DecodeString(tv[1])
			if err != nil {
				return nil, bad("malformed key")
			}
			item[a.Name] = &types.AttributeValueMemberB{Value: b}
		default:
			return nil, bad("malformed key")
		}
	}
	return item, nil
}

// canonical renders a key value for a cursor binding: type and value, so
// "1" (S) and 1 (N) are different partitions.
func canonical(v types.AttributeValue) string {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return "S:" + v.Value
	case *types.AttributeValueMemberN:
		return "N:" + v.Value
	case *types.AttributeValueMemberB:
		return "B:" + base64.StdEncoding.EncodeToString(v.Value)
	}
	return typeName(v)
}

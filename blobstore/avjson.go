package blobstore

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Offloaded attributes other than S and B are stored as one value in
// DynamoDB's own JSON format ({"M":{"a":{"N":"1"}}}), so the object reads
// the same to anyone who knows DynamoDB and decodes back to an identical
// value: numbers stay strings, set members keep their order, binaries are
// base64.

func encodeAV(v types.AttributeValue) ([]byte, error) {
	var buf bytes.Buffer
	if err := writeAV(&buf, v, 0); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// maxDepth is DynamoDB's nesting limit for documents.
const maxDepth = 32

func writeAV(buf *bytes.Buffer, v types.AttributeValue, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("nested deeper than %d levels", maxDepth)
	}
	str := func(s string) {
		b, _ := json.Marshal(s) // a string always marshals
		buf.Write(b)
	}
	bin := func(b []byte) { str(base64.StdEncoding.EncodeToString(b)) }
	list := func(n int, each func(i int)) {
		buf.WriteByte('[')
		for i := range n {
			if i > 0 {
				buf.WriteByte(',')
			}
			each(i)
		}
		buf.WriteByte(']')
	}
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		buf.WriteString(`{"S":`)
		str(v.Value)
	case *types.AttributeValueMemberN:
		buf.WriteString(`{"N":`)
		str(v.Value)
	case *types.AttributeValueMemberB:
		buf.WriteString(`{"B":`)
		bin(v.Value)
	case *types.AttributeValueMemberBOOL:
		fmt.Fprintf(buf, `{"BOOL":%t`, v.Value)
	case *types.AttributeValueMemberNULL:
		fmt.Fprintf(buf, `{"NULL":%t`, v.Value)
	case *types.AttributeValueMemberSS:
		buf.WriteString(`{"SS":`)
		list(len(v.Value), func(i int) { str(v.Value[i]) })
	case *types.AttributeValueMemberNS:
		buf.WriteString(`{"NS":`)
		list(len(v.Value), func(i int) { str(v.Value[i]) })
	case *types.AttributeValueMemberBS:
		buf.WriteString(`{"BS":`)
		list(len(v.Value), func(i int) { bin(v.Value[i]) })
	case *types.AttributeValueMemberL:
		buf.WriteString(`{"L":[`)
		for i, e := range v.Value {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeAV(buf, e, depth+1); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case *types.AttributeValueMemberM:
		buf.WriteString(`{"M":{`)
		first := true
		for _, k := range sortedNames(v.Value) {
			if !first {
				buf.WriteByte(',')
			}
			first = false
			str(k)
			buf.WriteByte(':')
			if err := writeAV(buf, v.Value[k], depth+1); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	default:
		return fmt.Errorf("unsupported attribute value %T", v)
	}
	buf.WriteByte('}')
	return nil
}

func decodeAV(data []byte) (types.AttributeValue, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var raw map[string]json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, err
	}
	return rawToAV(raw, 0)
}

func rawToAV(raw map[string]json.RawMessage, depth int) (types.AttributeValue, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("nested deeper than %d levels", maxDepth)
	}
	if len(raw) != 1 {
		return nil, fmt.Errorf("want one type tag, got %d", len(raw))
	}
	for tag, body := range raw {
		switch tag {
		case "S", "N":
			var s string
			if err := json.Unmarshal(body, &s); err != nil {
				return nil, err
			}
			if tag == "S" {
				return &types.AttributeValueMemberS{Value: s}, nil
			}
			return &types.AttributeValueMemberN{Value: s}, nil
		case "B":
			b, err := unmarshalBinary(body)
			if err != nil {
				return nil, err
			}
			return &types.AttributeValueMemberB{Value: b}, nil
		case "BOOL", "NULL":
			var b bool
			if err := json.Unmarshal(body, &b); err != nil {
				return nil, err
			}
			if tag == "BOOL" {
				return &types.AttributeValueMemberBOOL{Value: b}, nil
			}
			return &types.AttributeValueMemberNULL{Value: b}, nil
		case "SS", "NS":
			var ss []string
			if err := json.Unmarshal(body, &ss); err != nil {
				return nil, err
			}
			if tag == "SS" {
				return &types.AttributeValueMemberSS{Value: ss}, nil
			}
			return &types.AttributeValueMemberNS{Value: ss}, nil
		case "BS":
			var parts []json.RawMessage
			if err := json.Unmarshal(body, &parts); err != nil {
				return nil, err
			}
			bs := make([][]byte, len(parts))
			for i, p := range parts {
				b, err := unmarshalBinary(p)
				if err != nil {
					return nil, err
				}
				bs[i] = b
			}
			return &types.AttributeValueMemberBS{Value: bs}, nil
		case "L":
			var elems []map[string]json.RawMessage
			if err := json.Unmarshal(body, &elems); err != nil {
				return nil, err
			}
			l := make([]types.AttributeValue, len(elems))
			for i, e := range elems {
				v, err := rawToAV(e, depth+1)
				if err != nil {
					return nil, err
				}
				l[i] = v
			}
			return &types.AttributeValueMemberL{Value: l}, nil
		case "M":
			var fields map[string]map[string]json.RawMessage
			if err := json.Unmarshal(body, &fields); err != nil {
				return nil, err
			}
			m := make(map[string]types.AttributeValue, len(fields))
			for k, e := range fields {
				v, err := rawToAV(e, depth+1)
				if err != nil {
					return nil, err
				}
				m[k] = v
			}
			return &types.AttributeValueMemberM{Value: m}, nil
		default:
			return nil, fmt.Errorf("unknown type tag %q", tag)
		}
	}
	panic("unreachable")
}

func unmarshalBinary(body json.RawMessage) ([]byte, error) {
	var s string
	if err := json.Unmarshal(body, &s); err != nil {
		return nil, err
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, err
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
}

func sortedNames(m map[string]types.AttributeValue) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

package store

import (
	"encoding/binary"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Stored items are kept encoded in one immutable string rather than as a
// map of interface values. A million items of 1 KB are then a million
// strings the garbage collector never scans, instead of tens of millions of
// small pointer-holding objects it marks on every cycle, and reading an item
// touches one contiguous block. Decoding builds a fresh map the caller
// owns: attribute names and string and number values are substrings of the
// encoding (strings are immutable, so sharing is safe), binaries are copied.
//
// Layout: attribute count, count of top-level S values, count of
// top-level N values (each 4 bytes little-endian; the counts let decoding
// allocate each kind in one block), then per attribute uvarint name length, name, value. A value
// is a tag byte and its body: S, N, B a uvarint length and bytes; BOOL and
// NULL the tag alone; SS, NS, BS a uvarint count and length-prefixed
// members; L a uvarint count and values; M a uvarint count and
// name-value pairs.

const (
	tagS     = 'S'
	tagN     = 'N'
	tagB     = 'B'
	tagTrue  = 't'
	tagFalse = 'f'
	tagNull  = '0'
	tagSS    = 's'
	tagNS    = 'n'
	tagBS    = 'b'
	tagL     = 'L'
	tagM     = 'M'
)

// Encode encodes an item. Values must be valid attribute values. sizeHint
// is the item's size by DynamoDB's rules (names plus values), from which the
// buffer is sized so that encoding allocates once.
func Encode(item Item, sizeHint int) string {
	b := make([]byte, headerBytes, headerBytes+sizeHint+6*len(item)+16)
	nS, nN := 0, 0
	for name, v := range item {
		switch v.(type) {
		case *types.AttributeValueMemberS:
			nS++
		case *types.AttributeValueMemberN:
			nN++
		}
		b = appendString(b, name)
		b = appendEncoded(b, v)
	}
	binary.LittleEndian.PutUint32(b[0:], uint32(len(item)))
	binary.LittleEndian.PutUint32(b[4:], uint32(nS))
	binary.LittleEndian.PutUint32(b[8:], uint32(nN))
	// The bytes are never written again: hand them over without a copy, as
	// strings.Builder does.
	return bytesToString(b)
}

// headerBytes holds the attribute count and the top-level S and N counts,
// fixed-width so that Encode fills them in after its single pass.
const headerBytes = 12

func (d *decoder) header() (n, nS, nN int) {
	u32 := func(i int) int {
		return int(uint32(d.s[i]) | uint32(d.s[i+1])<<8 | uint32(d.s[i+2])<<16 | uint32(d.s[i+3])<<24)
	}
	n, nS, nN = u32(0), u32(4), u32(8)
	d.pos = headerBytes
	return n, nS, nN
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendEncoded(b []byte, v types.AttributeValue) []byte {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return appendString(append(b, tagS), v.Value)
	case *types.AttributeValueMemberN:
		return appendString(append(b, tagN), v.Value)
	case *types.AttributeValueMemberB:
		b = binary.AppendUvarint(append(b, tagB), uint64(len(v.Value)))
		return append(b, v.Value...)
	case *types.AttributeValueMemberBOOL:
		if v.Value {
			return append(b, tagTrue)
		}
		return append(b, tagFalse)
	case *types.AttributeValueMemberNULL:
		return append(b, tagNull)
	case *types.AttributeValueMemberSS:
		b = binary.AppendUvarint(append(b, tagSS), uint64(len(v.Value)))
		for _, s := range v.Value {
			b = appendString(b, s)
		}
		return b
	case *types.AttributeValueMemberNS:
		b = binary.AppendUvarint(append(b, tagNS), uint64(len(v.Value)))
		for _, s := range v.Value {
			b = appendString(b, s)
		}
		return b
	case *types.AttributeValueMemberBS:
		b = binary.AppendUvarint(append(b, tagBS), uint64(len(v.Value)))
		for _, s := range v.Value {
			b = binary.AppendUvarint(b, uint64(len(s)))
			b = append(b, s...)
		}
		return b
	case *types.AttributeValueMemberL:
		b = binary.AppendUvarint(append(b, tagL), uint64(len(v.Value)))
		for _, e := range v.Value {
			b = appendEncoded(b, e)
		}
		return b
	case *types.AttributeValueMemberM:
		b = binary.AppendUvarint(append(b, tagM), uint64(len(v.Value)))
		for k, e := range v.Value {
			b = appendString(b, k)
			b = appendEncoded(b, e)
		}
		return b
	}
	return append(b, tagNull) // unreachable for validated values
}

// decoder reads an encoding. Encodings are produced by Encode only, so it
// does not guard against malformed input.
type decoder struct {
	s   string
	pos int
}

func (d *decoder) uvarint() int {
	var x uint64
	var shift uint
	for {
		c := d.s[d.pos]
		d.pos++
		x |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return int(x)
		}
		shift += 7
	}
}

func (d *decoder) str() string {
	n := d.uvarint()
	s := d.s[d.pos : d.pos+n]
	d.pos += n
	return s
}

// Attr decodes the top-level attribute name of an encoded item, or returns
// nil when the item has none. Strings and numbers share the encoding.
func Attr(data, name string) types.AttributeValue {
	if data == "" || name == "" {
		return nil
	}
	d := decoder{s: data}
	n, _, _ := d.header()
	for i := 0; i < n; i++ {
		if d.str() == name {
			return d.value()
		}
		d.skip()
	}
	return nil
}

// skip moves past one value.
func (d *decoder) skip() {
	tag := d.s[d.pos]
	d.pos++
	switch tag {
	case tagS, tagN, tagB:
		d.str()
	case tagSS, tagNS, tagBS:
		for i := d.uvarint(); i > 0; i-- {
			d.str()
		}
	case tagL:
		for i := d.uvarint(); i > 0; i-- {
			d.skip()
		}
	case tagM:
		for i := d.uvarint(); i > 0; i-- {
			d.str()
			d.skip()
		}
	}
}

// Decode returns a new map holding the encoded item; the caller owns it.
func Decode(data string) Item {
	if data == "" {
		return nil
	}
	d := decoder{s: data}
	n, nS, nN := d.header()
	ss := make([]types.AttributeValueMemberS, nS)
	ns := make([]types.AttributeValueMemberN, nN)
	item := make(Item, n)
	for i := 0; i < n; i++ {
		name := d.str()
		switch d.s[d.pos] {
		case tagS:
			d.pos++
			ss[0].Value = d.str()
			item[name] = &ss[0]
			ss = ss[1:]
		case tagN:
			d.pos++
			ns[0].Value = d.str()
			item[name] = &ns[0]
			ns = ns[1:]
		default:
			item[name] = d.value()
		}
	}
	return item
}

func (d *decoder) value() types.AttributeValue {
	tag := d.s[d.pos]
	d.pos++
	switch tag {
	case tagS:
		return &types.AttributeValueMemberS{Value: d.str()}
	case tagN:
		return &types.AttributeValueMemberN{Value: d.str()}
	case tagB:
		return &types.AttributeValueMemberB{Value: []byte(d.str())}
	case tagTrue:
		return &types.AttributeValueMemberBOOL{Value: true}
	case tagFalse:
		return &types.AttributeValueMemberBOOL{Value: false}
	case tagNull:
		return &types.AttributeValueMemberNULL{Value: true}
	case tagSS, tagNS:
		list := make([]string, d.uvarint())
		for i := range list {
			list[i] = d.str()
		}
		if tag == tagSS {
			return &types.AttributeValueMemberSS{Value: list}
		}
		return &types.AttributeValueMemberNS{Value: list}
	case tagBS:
		list := make([][]byte, d.uvarint())
		for i := range list {
			list[i] = []byte(d.str())
		}
		return &types.AttributeValueMemberBS{Value: list}
	case tagL:
		list := make([]types.AttributeValue, d.uvarint())
		for i := range list {
			list[i] = d.value()
		}
		return &types.AttributeValueMemberL{Value: list}
	case tagM:
		n := d.uvarint()
		m := make(map[string]types.AttributeValue, n)
		for i := 0; i < n; i++ {
			k := d.str()
			m[k] = d.value()
		}
		return &types.AttributeValueMemberM{Value: m}
	}
	return nil
}

// bytesToString returns b as a string without copying; b must never be
// modified afterwards.
func bytesToString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

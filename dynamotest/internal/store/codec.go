package store

import (
	"encoding/binary"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest/internal/wire"
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
// top-level N values (the counts let decoding allocate each kind in one
// block), flags and the item's size, each 4 bytes little-endian; then per
// attribute uvarint name length, name, value. A value
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

// Encode encodes an item. Values must be valid attribute values. size is
// the item's size by DynamoDB's rules (names plus values): the encoding
// keeps it (see Size) and is allocated once, to fit.
func Encode(item Item, size int) string {
	return bytesToString(appendEncoding(make([]byte, 0, encodedCap(item, size)), item, size))
}

// NewEntry encodes item as the entry at position key (see Key); size is as
// for Encode. The entry's Key and Data share one allocation, key first, so
// that a point lookup compares the key and finds the item's header in the
// same cache line.
func NewEntry(key string, item Item, size int) *Entry {
	b := make([]byte, 0, len(key)+encodedCap(item, size))
	b = append(b, key...)
	all := bytesToString(appendEncoding(b, item, size))
	return &Entry{Key: all[:len(key)], Data: all[len(key):], Size: size}
}

func encodedCap(item Item, size int) int { return headerBytes + size + 6*len(item) + 16 }

// appendEncoding appends the encoding of item to b. The bytes it appends
// are never written again once the caller turns them into a string, as
// strings.Builder does.
func appendEncoding(b []byte, item Item, size int) []byte {
	start := len(b)
	e := encoder{b: append(b, make([]byte, headerBytes)...), verbatim: true}
	nS, nN := 0, 0
	// Large values go last, so that decoding reads every name and length
	// from the first cache lines and never touches a large body: it only
	// takes a substring of it.
	var deferred [4]string
	large := deferred[:0]
	for name, v := range item {
		switch v.(type) {
		case *types.AttributeValueMemberS:
			nS++
		case *types.AttributeValueMemberN:
			nN++
		}
		if encodedLarge(v) {
			large = append(large, name)
			continue
		}
		e.string(name)
		e.value(v)
	}
	for _, name := range large {
		e.string(name)
		e.value(item[name])
	}
	var flags uint32
	if e.verbatim {
		flags |= flagVerbatim
	}
	h := e.b[start:]
	binary.LittleEndian.PutUint32(h[0:], uint32(len(item)))
	binary.LittleEndian.PutUint32(h[4:], uint32(nS))
	binary.LittleEndian.PutUint32(h[8:], uint32(nN))
	binary.LittleEndian.PutUint32(h[12:], flags)
	binary.LittleEndian.PutUint32(h[16:], uint32(size))
	return e.b
}

// headerBytes holds the attribute count, the top-level S and N counts, the
// flags and the item's size, fixed-width so that encoding fills them in
// after its single pass.
const headerBytes = 20

// flagVerbatim marks an item whose every string (names, S values, members
// of string sets, at any depth) is written in JSON unchanged: AppendJSON
// then copies them without looking at their bytes again.
const flagVerbatim = 1

// Size is the size by DynamoDB's rules of the encoded item, as given to
// Encode or NewEntry.
func Size(data string) int {
	if data == "" {
		return 0
	}
	d := decoder{s: data}
	return int(d.u32(16))
}

func (d *decoder) u32(i int) uint32 {
	return uint32(d.s[i]) | uint32(d.s[i+1])<<8 | uint32(d.s[i+2])<<16 | uint32(d.s[i+3])<<24
}

func (d *decoder) header() (n, nS, nN int, flags uint32) {
	d.pos = headerBytes
	return int(d.u32(0)), int(d.u32(4)), int(d.u32(8)), d.u32(12)
}

// encodedLarge reports whether v's encoding is long enough to be worth
// moving behind the other attributes: a scalar of more than a cache line,
// or any set, list or map.
func encodedLarge(v types.AttributeValue) bool {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return len(v.Value) > 64
	case *types.AttributeValueMemberB:
		return len(v.Value) > 64
	case *types.AttributeValueMemberN, *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		return false
	}
	return true
}

// encoder appends an item's encoding to b, noting whether every string in
// it is JSON-verbatim. Numbers always are (digits, sign, point, exponent)
// and binaries travel as base64, so only names and strings are checked.
type encoder struct {
	b        []byte
	verbatim bool
}

func (e *encoder) string(s string) {
	e.verbatim = e.verbatim && wire.Verbatim(s)
	e.bytes(s)
}

func (e *encoder) bytes(s string) {
	e.b = binary.AppendUvarint(e.b, uint64(len(s)))
	e.b = append(e.b, s...)
}

func (e *encoder) blob(b []byte) {
	e.b = binary.AppendUvarint(e.b, uint64(len(b)))
	e.b = append(e.b, b...)
}

func (e *encoder) tag(t byte, n int) {
	e.b = binary.AppendUvarint(append(e.b, t), uint64(n))
}

func (e *encoder) value(v types.AttributeValue) {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		e.b = append(e.b, tagS)
		e.string(v.Value)
	case *types.AttributeValueMemberN:
		e.b = append(e.b, tagN)
		e.bytes(v.Value)
	case *types.AttributeValueMemberB:
		e.b = append(e.b, tagB)
		e.blob(v.Value)
	case *types.AttributeValueMemberBOOL:
		if v.Value {
			e.b = append(e.b, tagTrue)
		} else {
			e.b = append(e.b, tagFalse)
		}
	case *types.AttributeValueMemberSS:
		e.tag(tagSS, len(v.Value))
		for _, s := range v.Value {
			e.string(s)
		}
	case *types.AttributeValueMemberNS:
		e.tag(tagNS, len(v.Value))
		for _, s := range v.Value {
			e.bytes(s)
		}
	case *types.AttributeValueMemberBS:
		e.tag(tagBS, len(v.Value))
		for _, s := range v.Value {
			e.blob(s)
		}
	case *types.AttributeValueMemberL:
		e.tag(tagL, len(v.Value))
		for _, x := range v.Value {
			e.value(x)
		}
	case *types.AttributeValueMemberM:
		e.tag(tagM, len(v.Value))
		for k, x := range v.Value {
			e.string(k)
			e.value(x)
		}
	default: // NULL, and nothing else in a validated item
		e.b = append(e.b, tagNull)
	}
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
	n, _, _, _ := d.header()
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
	n, nS, nN, _ := d.header()
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

// stringBytes returns s's bytes without copying, for a reader that never
// writes to them (base64's encoder).
func stringBytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// EntryFromData is NewEntry for an item already encoded (read back from
// disk, say): the entry's Key and Data share one allocation, key first, as
// NewEntry lays them out, and the size is the one the encoding keeps.
func EntryFromData(key, data string) *Entry {
	b := make([]byte, 0, len(key)+len(data))
	b = append(b, key...)
	b = append(b, data...)
	all := bytesToString(b)
	return &Entry{Key: all[:len(key)], Data: all[len(key):], Size: Size(data)}
}

// LoadEntry builds the entry of an encoded item read from disk: b is the
// encoding, which the caller may overwrite once LoadEntry returns (it is
// copied once, into the entry); skName is the sort key attribute ("" for
// none), whose value positions the entry.
func LoadEntry(b []byte, skName string) *Entry {
	view := bytesToString(b) // read only here, before the copy
	var pos string
	if skName != "" {
		pos = Key(Attr(view, skName), nil, nil)
	}
	return EntryFromData(pos, view)
}

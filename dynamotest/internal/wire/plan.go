package wire

import (
	"reflect"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
)

// codec encodes and decodes one Go type.
type codec struct {
	// enc appends v's JSON to e. v need not be addressable.
	enc func(e *encoder, v reflect.Value)
	// dec reads one JSON value into v, which is settable. A JSON null has
	// already been handled by the caller: dec never sees one.
	dec func(d *decoder, v reflect.Value) error
	// unsupported names the type when the codec cannot represent it; such a
	// value encodes as null and decodes by skipping. Tests assert that no
	// operation's input or output reaches one.
	unsupported string
	// fields are a struct's members on the wire, in declaration order.
	fields []*field
}

// field is one struct member on the wire.
type field struct {
	name  string
	key   []byte // `"Name":`, ready to append
	index int
	codec *codec
	// omit reports whether the field is left out of the encoding: nil
	// pointers, slices and maps, and empty strings (enums), as the SDK's own
	// serializers do. Numbers and booleans that are not pointers always
	// travel, as DynamoDB always sends Count and ScannedCount.
	omit func(v reflect.Value) bool
}

var (
	attributeValueType = reflect.TypeFor[types.AttributeValue]()
	itemType           = reflect.TypeFor[map[string]types.AttributeValue]()
	timeType           = reflect.TypeFor[time.Time]()
	bytesType          = reflect.TypeFor[[]byte]()
	metadataType       = reflect.TypeFor[middleware.Metadata]()
)

// memberNames lists the members whose wire name is not their Go field name.
// DynamoDB's model spells these in lower camel case; the SDK's codegen
// capitalises them in Go. (Exception messages, "message" in most of the
// model, are written by AppendError.)
var memberNames = map[reflect.Type]map[string]string{
	reflect.TypeFor[types.ThrottlingReason]():    {"Reason": "reason", "Resource": "resource"},
	reflect.TypeFor[types.ThrottlingException](): {"ThrottlingReasons": "throttlingReasons"},
}

// plans caches one codec per Go type. Like encoding/json's cache it holds
// only what is derived from the types themselves, so sharing it between
// handlers is invisible to them.
var plans sync.Map // reflect.Type -> *codec

// codecFor returns the cached codec for t, building it on first use.
func codecFor(t reflect.Type) *codec {
	if c, ok := plans.Load(t); ok {
		return c.(*codec)
	}
	b := builder{building: map[reflect.Type]*codec{}}
	c := b.build(t)
	actual, _ := plans.LoadOrStore(t, c)
	return actual.(*codec)
}

// builder builds the codecs of a type graph; building tracks the types in
// progress so a recursive type refers to its own codec instead of looping.
type builder struct {
	building map[reflect.Type]*codec
}

func (b *builder) build(t reflect.Type) *codec {
	if c, ok := plans.Load(t); ok {
		return c.(*codec)
	}
	if c, ok := b.building[t]; ok {
		return c
	}
	c := &codec{}
	b.building[t] = c
	switch {
	case t == attributeValueType:
		c.enc = encodeAttributeValueField
		c.dec = decodeAttributeValueField
		return c
	case t == itemType:
		c.enc = encodeItemField
		c.dec = decodeItemField
		return c
	case t == timeType:
		c.enc = encodeTime
		c.dec = decodeTime
		return c
	case t == bytesType:
		c.enc = encodeBytes
		c.dec = decodeBytes
		return c
	}
	switch t.Kind() {
	case reflect.String:
		c.enc = encodeString
		c.dec = decodeString
	case reflect.Bool:
		c.enc = encodeBool
		c.dec = decodeBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		bits := t.Bits()
		c.enc = encodeInt
		c.dec = func(d *decoder, v reflect.Value) error { return decodeInt(d, v, bits) }
	case reflect.Float32, reflect.Float64:
		bits := t.Bits()
		c.enc = func(e *encoder, v reflect.Value) { e.float(v.Float(), bits) }
		c.dec = func(d *decoder, v reflect.Value) error { return decodeFloat(d, v, bits) }
	case reflect.Pointer:
		b.pointer(c, t)
	case reflect.Slice:
		b.slice(c, t)
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			b.unsupported(c, t)
			break
		}
		b.mapOf(c, t)
	case reflect.Struct:
		b.structOf(c, t)
	default:
		b.unsupported(c, t)
	}
	return c
}

func (b *builder) unsupported(c *codec, t reflect.Type) {
	c.unsupported = t.String()
	c.enc = func(e *encoder, _ reflect.Value) { e.buf = append(e.buf, "null"...) }
	c.dec = func(d *decoder, _ reflect.Value) error { return d.skip() }
}

func (b *builder) pointer(c *codec, t reflect.Type) {
	elem := b.build(t.Elem())
	et := t.Elem()
	c.enc = func(e *encoder, v reflect.Value) {
		if v.IsNil() {
			e.buf = append(e.buf, "null"...)
			return
		}
		elem.enc(e, v.Elem())
	}
	c.dec = func(d *decoder, v reflect.Value) error {
		p := reflect.New(et)
		if err := elem.dec(d, p.Elem()); err != nil {
			return err
		}
		v.Set(p)
		return nil
	}
}

func (b *builder) slice(c *codec, t reflect.Type) {
	elem := b.build(t.Elem())
	c.enc = func(e *encoder, v reflect.Value) {
		if v.IsNil() {
			e.buf = append(e.buf, "null"...)
			return
		}
		e.buf = append(e.buf, '[')
		for i := range v.Len() {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			elem.enc(e, v.Index(i))
		}
		e.buf = append(e.buf, ']')
	}
	c.dec = func(d *decoder, v reflect.Value) error {
		if err := d.enter('['); err != nil {
			return d.container(err, kindList, d.elem, "")
		}
		s := reflect.MakeSlice(t, 0, 4)
		for i := 0; ; i++ {
			if more, err := d.more(i, ']'); !more {
				if err != nil {
					return err
				}
				break
			}
			s = reflect.Append(s, reflect.Zero(t.Elem()))
			d.elem = true
			if err := d.value(elem, s.Index(s.Len()-1)); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	}
}

func (b *builder) mapOf(c *codec, t reflect.Type) {
	elem := b.build(t.Elem())
	kt, et := t.Key(), t.Elem()
	c.enc = func(e *encoder, v reflect.Value) {
		if v.IsNil() {
			e.buf = append(e.buf, "null"...)
			return
		}
		e.buf = append(e.buf, '{')
		first := true
		for iter := v.MapRange(); iter.Next(); {
			if !first {
				e.buf = append(e.buf, ',')
			}
			first = false
			e.string(iter.Key().String())
			e.buf = append(e.buf, ':')
			elem.enc(e, iter.Value())
		}
		e.buf = append(e.buf, '}')
	}
	java := javaName(et)
	c.dec = func(d *decoder, v reflect.Value) error {
		if err := d.enter('{'); err != nil {
			return d.container(err, kindMap, d.elem, java)
		}
		m := reflect.MakeMap(t)
		for i := 0; ; i++ {
			if more, err := d.more(i, '}'); !more {
				if err != nil {
					return err
				}
				break
			}
			k, err := d.key()
			if err != nil {
				return err
			}
			ev := reflect.New(et).Elem()
			d.elem = true
			if err := d.value(elem, ev); err != nil {
				return err
			}
			m.SetMapIndex(reflect.ValueOf(k).Convert(kt), ev)
		}
		v.Set(m)
		return nil
	}
}

func (b *builder) structOf(c *codec, t reflect.Type) {
	var fields []*field
	byName := map[string]*field{}
	for i := range t.NumField() {
		sf := t.Field(i)
		// ResultMetadata is the client's bookkeeping and ErrorCodeOverride
		// is carried by "__type", not by a member.
		if !sf.IsExported() || sf.Type == metadataType || sf.Name == "ErrorCodeOverride" {
			continue
		}
		name := sf.Name
		if n, ok := memberNames[t][sf.Name]; ok {
			name = n
		}
		f := &field{
			name:  name,
			key:   append(appendString(nil, name), ':'),
			index: i,
			codec: b.build(sf.Type),
			omit:  omitFunc(sf.Type),
		}
		fields = append(fields, f)
		byName[f.name] = f
		byName[sf.Name] = f // tolerate the Go spelling too
	}
	c.fields = fields
	c.enc = func(e *encoder, v reflect.Value) {
		e.buf = append(e.buf, '{')
		first := true
		for _, f := range fields {
			fv := v.Field(f.index)
			if f.omit(fv) {
				continue
			}
			if !first {
				e.buf = append(e.buf, ',')
			}
			first = false
			e.buf = append(e.buf, f.key...)
			f.codec.enc(e, fv)
		}
		e.buf = append(e.buf, '}')
	}
	java := javaName(t)
	c.dec = func(d *decoder, v reflect.Value) error {
		if err := d.enter('{'); err != nil {
			return d.container(err, kindStruct, d.elem, java)
		}
		for i := 0; ; i++ {
			if more, err := d.more(i, '}'); !more {
				if err != nil {
					return err
				}
				break
			}
			k, err := d.keyBytes()
			if err != nil {
				return err
			}
			f := byName[string(k)]
			if f == nil {
				if err := d.skip(); err != nil {
					return err
				}
				continue
			}
			d.elem = false
			if err := d.value(f.codec, v.Field(f.index)); err != nil {
				return err
			}
		}
		return nil
	}
}

// javaName is the Java type DynamoDB's messages give a value of Go type t:
// its model class, java.lang.String, or a list of either.
func javaName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "java.lang.String"
	case reflect.Slice:
		return "java.util.List<" + javaName(t.Elem()) + ">"
	case reflect.Map:
		return "java.util.Map<java.lang.String, " + javaName(t.Elem()) + ">"
	}
	return javaPackage + t.Name()
}

func omitFunc(t reflect.Type) func(reflect.Value) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		return reflect.Value.IsNil
	case reflect.String:
		return func(v reflect.Value) bool { return v.Len() == 0 }
	}
	return func(reflect.Value) bool { return false }
}

// unsupportedTypes lists every type reachable from t that the codec cannot
// represent.
func unsupportedTypes(t reflect.Type) []string {
	var out []string
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		if seen[t] {
			return
		}
		seen[t] = true
		if c := codecFor(t); c.unsupported != "" {
			out = append(out, c.unsupported)
			return
		}
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice:
			walk(t.Elem())
		case reflect.Map:
			walk(t.Elem())
		case reflect.Struct:
			for i := range t.NumField() {
				sf := t.Field(i)
				if sf.IsExported() && sf.Type != metadataType && sf.Name != "ErrorCodeOverride" {
					walk(sf.Type)
				}
			}
		}
	}
	walk(t)
	return out
}

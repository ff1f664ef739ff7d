// Package wiretest builds fully populated values of the SDK's DynamoDB types
// for tests of the wire codec and the HTTP handler: a member the codec drops,
// renames or mangles shows up as a difference.
package wiretest

import (
	"reflect"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
)

var (
	attributeValueType = reflect.TypeFor[types.AttributeValue]()
	timeType           = reflect.TypeFor[time.Time]()
	bytesType          = reflect.TypeFor[[]byte]()
	metadataType       = reflect.TypeFor[middleware.Metadata]()
)

// Sampled returns a pointer to a new value of t with every exported field
// set.
func Sampled(t reflect.Type) any {
	p := reflect.New(t)
	sample(p.Elem(), t.Name())
	return p.Interface()
}

// Sample sets every exported field reachable from ptr, a pointer to a
// struct, to a non-zero value derived from the field's name.
func Sample(ptr any) {
	v := reflect.ValueOf(ptr).Elem()
	sample(v, v.Type().Name())
}

// sample fills every exported field reachable from v with a non-zero value,
// so a member the codec drops or renames shows up as a difference.
func sample(v reflect.Value, name string) {
	switch v.Type() {
	case metadataType:
		return
	case attributeValueType:
		v.Set(reflect.ValueOf(sampleAttributeValue(2)))
		return
	case timeType:
		// DynamoDB's timestamps have millisecond precision.
		v.Set(reflect.ValueOf(time.UnixMilli(1795321456658).UTC()))
		return
	case bytesType:
		v.SetBytes([]byte("\x00\xffbytes of " + name))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(name + " \"é\"\n\t\\ \u2028 😀")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int32, reflect.Int64, reflect.Int:
		v.SetInt(int64(len(name)) * 1_000_003)
	case reflect.Float64:
		v.SetFloat(float64(len(name)) + 0.5)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		sample(p.Elem(), name)
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		sample(s.Index(0), name+"[0]")
		sample(s.Index(1), name+"[1]")
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for _, k := range []string{name + "-a", name + "-b"} {
			e := reflect.New(v.Type().Elem()).Elem()
			sample(e, k)
			m.SetMapIndex(reflect.ValueOf(k).Convert(v.Type().Key()), e)
		}
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if f.IsExported() && f.Name != "ErrorCodeOverride" {
				sample(v.Field(i), f.Name)
			}
		}
	default:
		panic("sample: unhandled " + v.Type().String())
	}
}

// sampleAttributeValue is a map holding every AttributeValue type, nested
// depth levels deep, with values that test the edges: numbers beyond float64
// precision, empty strings, binary with zero bytes, escapes and non-BMP runes.
func sampleAttributeValue(depth int) types.AttributeValue {
	m := map[string]types.AttributeValue{
		"S":        &types.AttributeValueMemberS{Value: "text \"quoted\" \\ é 😀 \x01"},
		"empty":    &types.AttributeValueMemberS{Value: ""},
		"N":        &types.AttributeValueMemberN{Value: "-12345678901234567890123456789012345678e-10"},
		"B":        &types.AttributeValueMemberB{Value: []byte{0, 1, 2, 0xfe, 0xff}},
		"BOOL":     &types.AttributeValueMemberBOOL{Value: true},
		"false":    &types.AttributeValueMemberBOOL{Value: false},
		"NULL":     &types.AttributeValueMemberNULL{Value: true},
		"SS":       &types.AttributeValueMemberSS{Value: []string{"a", "b"}},
		"NS":       &types.AttributeValueMemberNS{Value: []string{"1", "2.5"}},
		"BS":       &types.AttributeValueMemberBS{Value: [][]byte{{1}, {2, 3}}},
		"emptyM":   &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}},
		"emptyL":   &types.AttributeValueMemberL{Value: []types.AttributeValue{}},
		"key.with": &types.AttributeValueMemberS{Value: "dots and \u0000 in names"},
	}
	if depth > 0 {
		m["M"] = sampleAttributeValue(depth - 1)
		m["L"] = &types.AttributeValueMemberL{Value: []types.AttributeValue{
			&types.AttributeValueMemberN{Value: "0"},
			sampleAttributeValue(depth - 1),
		}}
	}
	return &types.AttributeValueMemberM{Value: m}
}

func sampled(t reflect.Type) any {
	p := reflect.New(t)
	sample(p.Elem(), t.Name())
	return p.Interface()
}

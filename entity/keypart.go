package entity

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

// keyPart is how one key attribute of the table or of an index is written
// for an entity's items.
type keyPart struct {
	attr table.Attribute // the key attribute; Name "" when the table or index has none
	// Exactly one of the three ways, or none (inherit):
	tmpl   *keys.Template // a string built from fields
	fields []*field       // tmpl's placeholders, in order
	own    *field         // the attribute is this field itself
	// inherit: written by something else (a table key, an own field).
	inherit bool
	// constant is tmpl's only key when it has no placeholders.
	constant types.AttributeValue
	// prefix is tmpl.Prefix(): the leading literals, for begins_with.
	prefix string
}

// declareKey builds the key part of attribute attr from pattern.
func (m *model) declareKey(option string, attr table.Attribute, pattern string, partition, inherit bool) (keyPart, error) {
	k := keyPart{attr: attr}
	if attr.Name == "" {
		if pattern != "" {
			return k, declError(m.name, option, "the table or index has no such key, but a template is given: "+strconv.Quote(pattern))
		}
		return k, nil
	}
	if pattern == "" {
		if !inherit {
			return k, declError(m.name, option, "a template for "+attr.Name+" is needed")
		}
		k.inherit = true
		return k, nil
	}
	if name, ok := strings.CutPrefix(pattern, "{"); ok && strings.HasSuffix(name, "}") && strings.TrimSuffix(name, "}") == attr.Name {
		f := m.fields[attr.Name]
		if f == nil {
			return k, declError(m.name, option, fmt.Sprintf("%s names attribute %q, which %s does not have", pattern, attr.Name, m.typ))
		}
		if want := ownKeyType(f); want != attr.Type {
			return k, declError(m.name, option, fmt.Sprintf("attribute %q is %s in the schema, but field %s (%s) is stored as %s",
				attr.Name, attr.Type, f.goName, f.typ, typeOr(want)))
		}
		k.own = f
		return k, nil
	}
	if attr.Type != types.ScalarAttributeTypeS {
		return k, declError(m.name, option, fmt.Sprintf("a template builds a string, and %s is %s in the schema", attr.Name, attr.Type))
	}
	var err error
	if partition {
		k.tmpl, err = keys.Partition(pattern, keys.WithDelimiter(m.delim))
	} else {
		k.tmpl, err = keys.Sort(pattern, keys.WithDelimiter(m.delim))
	}
	if err != nil {
		return k, &DeclarationError{Entity: m.name, Option: option, Reason: "bad template", Err: err}
	}
	samples := make([]any, 0, len(k.tmpl.Names()))
	for _, name := range k.tmpl.Names() {
		f := m.fields[name]
		if f == nil {
			return k, declError(m.name, option, fmt.Sprintf("template %s names %q, which is no attribute of %s", pattern, name, m.typ))
		}
		samples = append(samples, sampleValue(f))
		if _, err := k.tmpl.Prefix(samples...); errors.Is(err, keys.ErrType) {
			return k, declError(m.name, option, fmt.Sprintf("placeholder {%s} of %s does not take field %s of type %s", name, pattern, f.goName, f.typ))
		}
		k.fields = append(k.fields, f)
	}
	if len(k.fields) == 0 {
		c, err := k.tmpl.Build()
		if err != nil {
			return k, &DeclarationError{Entity: m.name, Option: option, Reason: "bad template", Err: err}
		}
		k.constant = &types.AttributeValueMemberS{Value: c}
	}
	k.prefix, _ = k.tmpl.Prefix()
	return k, nil
}

func typeOr(t types.ScalarAttributeType) string {
	if t == "" {
		return "no key type"
	}
	return string(t)
}

// ownKeyType is the key type a field is stored as, "" for none.
func ownKeyType(f *field) types.ScalarAttributeType {
	switch kindOf(f.typ) {
	case kindString:
		return types.ScalarAttributeTypeS
	case kindInt, kindUint, kindFloat:
		return types.ScalarAttributeTypeN
	case kindTime:
		if f.unixTime {
			return types.ScalarAttributeTypeN
		}
		return types.ScalarAttributeTypeS
	case kindBytes:
		return types.ScalarAttributeTypeB
	}
	return ""
}

// readsBack reports whether the part gives f's value back as it was
// written: not so for a string in a cased placeholder ({email:lower}),
// whose key holds the value in one case.
func (k *keyPart) readsBack(f *field) bool {
	if kindOf(f.typ) != kindString {
		return true
	}
	vals := make([]any, len(k.fields))
	for i, g := range k.fields {
		vals[i] = sampleValue(g)
		if g == f {
			vals[i] = "Xx"
		}
	}
	key, err := k.tmpl.Build(vals...)
	if err != nil {
		return false
	}
	parts, err := k.tmpl.Parse(key)
	return err == nil && parts.String(f.name) == "Xx"
}

// sampleValue is a value of f's kind, to test a placeholder takes it.
func sampleValue(f *field) any {
	switch kindOf(f.typ) {
	case kindString:
		return "x"
	case kindInt, kindUint:
		return 1
	case kindTime:
		return time.Unix(1, 0)
	}
	return struct{}{}
}

// keyValue is the value v's field f gives a template: a string, an int or
// a time.
func keyValue(f *field, v reflect.Value) any {
	fv := f.value(v)
	if !fv.IsValid() {
		return ""
	}
	switch fv.Kind() {
	case reflect.String:
		return fv.String()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return fv.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return fv.Uint()
	}
	return timeOf(fv)
}

// timeOf reads a time.Time field without fv.Interface, which would make
// the struct it is in escape to the heap on every call.
func timeOf(fv reflect.Value) time.Time {
	if fv.CanAddr() {
		return *(*time.Time)(unsafe.Pointer(fv.UnsafeAddr()))
	}
	return fv.Interface().(time.Time)
}

// present reports whether the part writes an attribute of its own.
func (k *keyPart) present() bool { return k.attr.Name != "" && !k.inherit }

// build returns the key attribute's value for v (a struct value).
func (k *keyPart) build(entity string, v reflect.Value) (types.AttributeValue, error) {
	switch {
	case k.constant != nil:
		return k.constant, nil
	case k.own != nil:
		return ownValue(entity, k.own, v)
	}
	var stack [8]any
	vals := stack[:0]
	for _, f := range k.fields {
		vals = append(vals, keyValue(f, v))
	}
	s, err := k.tmpl.Build(vals...)
	if err != nil {
		return nil, keyInputError(entity, k.attr.Name, err)
	}
	return &types.AttributeValueMemberS{Value: s}, nil
}

// buildString is build for template parts, as text.
func (k *keyPart) buildString(entity string, v reflect.Value) (string, error) {
	av, err := k.build(entity, v)
	if err != nil {
		return "", err
	}
	if s, ok := av.(*types.AttributeValueMemberS); ok {
		return s.Value, nil
	}
	return "", nil
}

// ownValue is the key value of an own-field key: the field as it is
// stored, refused when empty (DynamoDB refuses empty key strings).
func ownValue(entity string, f *field, v reflect.Value) (types.AttributeValue, error) {
	fv := f.value(v)
	if !fv.IsValid() {
		return nil, inputError(entity+"."+f.name, "", "missing key attribute", keys.ErrEmpty)
	}
	switch fv.Kind() {
	case reflect.String:
		if fv.Len() == 0 {
			return nil, inputError(entity+"."+f.name, `""`, "key attribute is empty", keys.ErrEmpty)
		}
		return &types.AttributeValueMemberS{Value: fv.String()}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return &types.AttributeValueMemberN{Value: strconv.FormatInt(fv.Int(), 10)}, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return &types.AttributeValueMemberN{Value: strconv.FormatUint(fv.Uint(), 10)}, nil
	}
	if fv.Kind() == reflect.Slice && fv.Len() == 0 || fv.Type() == timeType && timeOf(fv).IsZero() {
		return nil, inputError(entity+"."+f.name, "", "key attribute is empty", keys.ErrEmpty)
	}
	if f.unixTime {
		return &types.AttributeValueMemberN{Value: strconv.FormatInt(timeOf(fv).Unix(), 10)}, nil
	}
	av, err := attributevalue.Marshal(fv.Interface())
	if err != nil {
		return nil, inputError(entity+"."+f.name, "", "cannot marshal key attribute: "+err.Error(), nil)
	}
	return av, nil
}

// matches reports whether av could have been written by the part.
func (k *keyPart) matches(av types.AttributeValue) bool {
	switch {
	case k.attr.Name == "":
		return true
	case k.constant != nil:
		s, ok := av.(*types.AttributeValueMemberS)
		return ok && s.Value == k.constant.(*types.AttributeValueMemberS).Value
	case k.own != nil:
		return av != nil
	}
	s, ok := av.(*types.AttributeValueMemberS)
	return ok && k.tmpl.Match(s.Value)
}

// overlaps reports whether some value could be written by both parts (of
// one key attribute).
func (k *keyPart) overlaps(o *keyPart) bool {
	switch {
	case k.attr.Name == "" && o.attr.Name == "":
		return true
	case k.own != nil || o.own != nil || k.tmpl == nil || o.tmpl == nil:
		return true
	}
	return k.tmpl.Overlaps(o.tmpl)
}

func (k *keyPart) pattern() string {
	switch {
	case k.attr.Name == "":
		return ""
	case k.own != nil:
		return "{" + k.own.name + "}"
	case k.tmpl == nil:
		return "(" + k.attr.Name + ")"
	}
	return k.tmpl.Pattern()
}

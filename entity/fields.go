package entity

import (
	"reflect"
	"strings"
	"time"
)

// field is one attribute of an entity's struct, found the way
// attributevalue finds it: the dynamodbav tag's name, else the Go field
// name; "-" and unexported fields are skipped; the fields of untagged
// embedded structs are promoted.
type field struct {
	name      string // the attribute name
	goName    string
	index     []int
	typ       reflect.Type
	omitEmpty bool
	unixTime  bool // the unixtime tag option: a time stored as epoch seconds
	pos       int  // position among the struct's attributes
}

var timeType = reflect.TypeFor[time.Time]()

// structFields lists t's attributes by name.
func structFields(t reflect.Type) (map[string]*field, []*field) {
	byName := map[string]*field{}
	depth := map[string]int{}
	ambiguous := map[string]bool{}
	var order []*field
	for _, sf := range reflect.VisibleFields(t) {
		if !sf.IsExported() && !sf.Anonymous {
			continue
		}
		tag := sf.Tag.Get("dynamodbav")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		ft := sf.Type
		if sf.Anonymous && name == "" && (ft.Kind() == reflect.Struct || ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct) {
			continue // its fields are promoted; VisibleFields lists them
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		f := &field{name: name, goName: sf.Name, index: sf.Index, typ: ft}
		for _, o := range strings.Split(opts, ",") {
			switch o {
			case "omitempty":
				f.omitEmpty = true
			case "unixtime":
				f.unixTime = true
			}
		}
		d := len(sf.Index)
		if prev, ok := depth[name]; ok {
			switch {
			case d > prev:
				continue // hidden by a shallower field
			case d == prev:
				ambiguous[name] = true
				continue
			}
		}
		depth[name] = d
		delete(ambiguous, name)
		byName[name] = f
	}
	for name := range ambiguous {
		delete(byName, name)
	}
	for _, sf := range reflect.VisibleFields(t) {
		if f, ok := byName[nameOf(sf)]; ok && equalIndex(f.index, sf.Index) {
			f.pos = len(order)
			order = append(order, f)
		}
	}
	return byName, order
}

func nameOf(sf reflect.StructField) string {
	name, _, _ := strings.Cut(sf.Tag.Get("dynamodbav"), ",")
	if name == "" {
		return sf.Name
	}
	return name
}

func equalIndex(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// value returns f's value in the struct v (addressable or not); the zero
// Value when an embedded pointer on the way is nil.
func (f *field) value(v reflect.Value) reflect.Value {
	if len(f.index) == 1 {
		return v.Field(f.index[0])
	}
	fv, err := v.FieldByIndexErr(f.index)
	if err != nil {
		return reflect.Value{}
	}
	return fv
}

// settable returns f's value in the addressable struct v, allocating
// embedded pointers on the way.
func (f *field) settable(v reflect.Value) reflect.Value {
	if len(f.index) == 1 {
		return v.Field(f.index[0])
	}
	return v.FieldByIndex(f.index)
}

// kind classifies a field for keys, timestamps and checks.
type kind uint8

const (
	kindOther kind = iota
	kindString
	kindInt
	kindUint
	kindFloat
	kindTime
	kindBytes
	kindBool
)

func kindOf(t reflect.Type) kind {
	if t == timeType {
		return kindTime
	}
	switch t.Kind() {
	case reflect.String:
		return kindString
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return kindInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return kindUint
	case reflect.Float32, reflect.Float64:
		return kindFloat
	case reflect.Bool:
		return kindBool
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return kindBytes
		}
	}
	return kindOther
}

func (k kind) String() string {
	return [...]string{"other", "string", "int", "uint", "float", "time.Time", "[]byte", "bool"}[k]
}

package entity

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
)

// rule is a declared Rule, resolved to its field.
type rule struct {
	f        *field // nil for a Check
	required bool
	enum     []string
	bounds   bool
	min, max float64
	check    func(any) error
}

func (m *model) declareRules(rs []Rule) ([]rule, error) {
	out := make([]rule, 0, len(rs))
	for _, r := range rs {
		if r.Check != nil {
			if r.checkType != nil && r.checkType != m.typ {
				return nil, declError(m.name, "Check", fmt.Sprintf("the check takes %s, the entity is %s", r.checkType, m.typ))
			}
			out = append(out, rule{check: r.Check})
			continue
		}
		f, err := m.field("Rules", r.Attribute)
		if err != nil {
			return nil, err
		}
		k := kindOf(f.typ)
		if len(r.Enum) > 0 && k != kindString {
			return nil, declError(m.name, "Enum", fmt.Sprintf("field %s is %s, not a string", f.goName, f.typ))
		}
		if r.HasBounds {
			switch {
			case k == kindInt || k == kindUint || k == kindFloat:
			case f.typ.Kind() == reflect.String || f.typ.Kind() == reflect.Slice || f.typ.Kind() == reflect.Map:
			default:
				return nil, declError(m.name, "Bounds", fmt.Sprintf("field %s is %s: bounds apply to numbers and to lengths of strings, slices and maps", f.goName, f.typ))
			}
			if r.Min > r.Max {
				return nil, declError(m.name, "Bounds", fmt.Sprintf("min %v is above max %v", r.Min, r.Max))
			}
		}
		out = append(out, rule{f: f, required: r.Required, enum: slices.Clone(r.Enum), bounds: r.HasBounds, min: r.Min, max: r.Max})
	}
	return out, nil
}

// validate checks every rule on v (the struct value).
func (m *model) validate(v reflect.Value) error {
	for i := range m.rules {
		r := &m.rules[i]
		if r.check != nil {
			if err := r.check(v.Interface()); err != nil {
				return inputError(m.name, "", err.Error(), ErrValidation)
			}
			continue
		}
		if err := r.value(m.name, r.f.value(v)); err != nil {
			return err
		}
	}
	return nil
}

// value checks one attribute's value (also a value an update sets).
func (r *rule) value(entity string, fv reflect.Value) error {
	field := entity + "." + r.f.name
	if !fv.IsValid() || fv.IsZero() {
		if r.required {
			return inputError(field, "", "is required", ErrValidation)
		}
		return nil
	}
	if len(r.enum) > 0 && !slices.Contains(r.enum, fv.String()) {
		return inputError(field, strconv.Quote(fv.String()), fmt.Sprintf("must be one of %q", r.enum), ErrValidation)
	}
	if r.bounds {
		var n float64
		switch fv.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			n = float64(fv.Int())
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			n = float64(fv.Uint())
		case reflect.Float32, reflect.Float64:
			n = fv.Float()
		default:
			n = float64(fv.Len())
		}
		if n < r.min || n > r.max {
			what := "value"
			if k := fv.Kind(); k == reflect.String || k == reflect.Slice || k == reflect.Map {
				what = "length"
			}
			return inputError(field, strconv.FormatFloat(n, 'g', -1, 64), fmt.Sprintf("%s must be between %v and %v", what, r.min, r.max), ErrValidation)
		}
	}
	return nil
}

// ruleFor returns the field rules of f.
func (m *model) rulesFor(f *field) []*rule {
	var out []*rule
	for i := range m.rules {
		if m.rules[i].f == f {
			out = append(out, &m.rules[i])
		}
	}
	return out
}

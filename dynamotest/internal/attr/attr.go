package attr

import (
	"bytes"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/table"
)

// Error is a value DynamoDB would reject; Message is DynamoDB's wording,
// which the engine returns in a ValidationException.
type Error struct {
	Message string
}

func (e *Error) Error() string { return e.Message }

// DynamoDB's messages for a union with no member set and with several.
const (
	EmptyMessage    = "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"
	MultipleMessage = "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"
)

// invalidTag marks the stand-ins Invalid returns.
const invalidTag = "tablekit.invalid"

// Invalid returns a stand-in for an AttributeValue a request carried that
// is not one: no member set, or several. The wire decoder keeps reading the
// request with it in its place, and Validate reports message for it where
// the operation checks its values: DynamoDB checks a request's members
// constraints, then which parameters it combines, before its attribute
// values (dynalite's tests written against DynamoDB, e.g. updateItem's
// "should return ValidationException if expression and non-expression",
// whose Key is {a: {}}).
func Invalid(message string) types.AttributeValue {
	return &types.UnknownUnionMember{Tag: invalidTag, Value: []byte(message)}
}

// MaxDepth is DynamoDB's limit on nesting lists and maps inside an item;
// the item itself counts as one level, so an attribute value may nest 31
// lists and maps (DynamoDB Local: 31 accepted, 32 rejected).
const MaxDepth = 32

// Type names as DynamoDB spells them in attribute_type and in messages.
const (
	TypeS    = "S"
	TypeN    = "N"
	TypeB    = "B"
	TypeBOOL = "BOOL"
	TypeNULL = "NULL"
	TypeM    = "M"
	TypeL    = "L"
	TypeSS   = "SS"
	TypeNS   = "NS"
	TypeBS   = "BS"
)

// TypeOf returns DynamoDB's name for v's type, or "" for nil and unknown members.
func TypeOf(v types.AttributeValue) string {
	return table.TypeOf(v)
}

// Compare orders two scalar values of the same type the way DynamoDB's
// comparators and sort keys do: S by UTF-8 bytes, B by bytes, N
// numerically. ok is false when the types differ or are not S, N or B.
func Compare(a, b types.AttributeValue) (c int, ok bool) {
	switch a := a.(type) {
	case *types.AttributeValueMemberS:
		if b, isS := b.(*types.AttributeValueMemberS); isS {
			return strings.Compare(a.Value, b.Value), true
		}
	case *types.AttributeValueMemberN:
		if b, isN := b.(*types.AttributeValueMemberN); isN {
			return CompareNumbers(a.Value, b.Value), true
		}
	case *types.AttributeValueMemberB:
		if b, isB := b.(*types.AttributeValueMemberB); isB {
			return bytes.Compare(a.Value, b.Value), true
		}
	}
	return 0, false
}

// Equal reports whether a and b are the same DynamoDB value: numbers are
// equal by value ("1.0" = "1"), sets regardless of order, lists element by
// element, maps key by key.
func Equal(a, b types.AttributeValue) bool {
	switch a := a.(type) {
	case *types.AttributeValueMemberS:
		b, ok := b.(*types.AttributeValueMemberS)
		return ok && a.Value == b.Value
	case *types.AttributeValueMemberN:
		b, ok := b.(*types.AttributeValueMemberN)
		return ok && CompareNumbers(a.Value, b.Value) == 0
	case *types.AttributeValueMemberB:
		b, ok := b.(*types.AttributeValueMemberB)
		return ok && bytes.Equal(a.Value, b.Value)
	case *types.AttributeValueMemberBOOL:
		b, ok := b.(*types.AttributeValueMemberBOOL)
		return ok && a.Value == b.Value
	case *types.AttributeValueMemberNULL:
		_, ok := b.(*types.AttributeValueMemberNULL)
		return ok
	case *types.AttributeValueMemberL:
		b, ok := b.(*types.AttributeValueMemberL)
		if !ok || len(a.Value) != len(b.Value) {
			return false
		}
		for i := range a.Value {
			if !Equal(a.Value[i], b.Value[i]) {
				return false
			}
		}
		return true
	case *types.AttributeValueMemberM:
		b, ok := b.(*types.AttributeValueMemberM)
		if !ok || len(a.Value) != len(b.Value) {
			return false
		}
		for k, av := range a.Value {
			bv, found := b.Value[k]
			if !found || !Equal(av, bv) {
				return false
			}
		}
		return true
	case *types.AttributeValueMemberSS:
		b, ok := b.(*types.AttributeValueMemberSS)
		return ok && sameSet(a.Value, b.Value, func(x string) string { return x })
	case *types.AttributeValueMemberNS:
		b, ok := b.(*types.AttributeValueMemberNS)
		return ok && sameSet(a.Value, b.Value, canonicalOrSelf)
	case *types.AttributeValueMemberBS:
		b, ok := b.(*types.AttributeValueMemberBS)
		return ok && sameSet(a.Value, b.Value, func(x []byte) string { return string(x) })
	}
	return false
}

// sameSet compares two sets as sets: members are unique in a valid set, so
// equal length plus every member of a found in b suffices; duplicates in
// unvalidated input are tolerated by counting.
func sameSet[T any](a, b []T, key func(T) string) bool {
	if len(a) != len(b) {
		return false
	}
	counts := make(map[string]int, len(a))
	for _, x := range a {
		counts[key(x)]++
	}
	for _, x := range b {
		k := key(x)
		if counts[k] == 0 {
			return false
		}
		counts[k]--
	}
	return true
}

func canonicalOrSelf(s string) string {
	if c, err := CanonicalNumber(s); err == nil {
		return c
	}
	return s
}

// Validate reports the first reason DynamoDB would reject v as an
// attribute value, in DynamoDB Local's words (its duplicate-set messages
// differ by set type; we keep them as they are): no type, NULL false, a
// bad number, an empty or duplicated set, nesting deeper than 32. Empty strings and binaries are
// allowed here: DynamoDB forbids them only in key attributes, which the
// engine checks.
func Validate(v types.AttributeValue) error {
	return validate(v, 0, MaxDepth-1)
}

// ValidateValue is Validate for an ExpressionAttributeValues entry, which
// stands alone rather than inside an item: DynamoDB allows it one more
// level of nesting. Whether the item it ends up in is too deep is checked
// when it is stored.
func ValidateValue(v types.AttributeValue) error {
	return validate(v, 0, MaxDepth)
}

// validate checks v, found inside depth lists and maps, allowing at most
// limit of them around any value.
func validate(v types.AttributeValue, depth, limit int) error {
	switch v := v.(type) {
	case *types.AttributeValueMemberS, *types.AttributeValueMemberB, *types.AttributeValueMemberBOOL:
		return nil
	case *types.AttributeValueMemberNULL:
		if !v.Value {
			return &Error{Message: "One or more parameter values were invalid: Null attribute value types must have the value of true"}
		}
		return nil
	case *types.AttributeValueMemberN:
		return ValidNumber(v.Value)
	case *types.AttributeValueMemberL:
		if depth >= limit {
			return errDepth
		}
		for _, e := range v.Value {
			if err := validate(e, depth+1, limit); err != nil {
				return err
			}
		}
		return nil
	case *types.AttributeValueMemberM:
		if depth >= limit {
			return errDepth
		}
		for _, e := range v.Value {
			if err := validate(e, depth+1, limit); err != nil {
				return err
			}
		}
		return nil
	case *types.AttributeValueMemberSS:
		if len(v.Value) == 0 {
			return &Error{Message: "One or more parameter values were invalid: An string set  may not be empty"}
		}
		if hasDuplicates(v.Value, func(s string) string { return s }) {
			return &Error{Message: "One or more parameter values were invalid: Input collection [" + strings.Join(v.Value, ", ") + "] contains duplicates"}
		}
		return nil
	case *types.AttributeValueMemberNS:
		if len(v.Value) == 0 {
			return &Error{Message: "One or more parameter values were invalid: An number set  may not be empty"}
		}
		for _, n := range v.Value {
			if err := ValidNumber(n); err != nil {
				return err
			}
		}
		if hasDuplicates(v.Value, canonicalOrSelf) {
			return &Error{Message: "Input collection contains duplicates"}
		}
		return nil
	case *types.AttributeValueMemberBS:
		if len(v.Value) == 0 {
			return &Error{Message: "One or more parameter values were invalid: Binary sets should not be empty"}
		}
		if hasDuplicates(v.Value, func(b []byte) string { return string(b) }) {
			return &Error{Message: "One or more parameter values were invalid: Input collection of type BS contains duplicates."}
		}
		return nil
	}
	if u, ok := v.(*types.UnknownUnionMember); ok && u.Tag == invalidTag {
		return &Error{Message: string(u.Value)}
	}
	return &Error{Message: EmptyMessage}
}

var errDepth = &Error{Message: "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"}

func hasDuplicates[T any](set []T, key func(T) string) bool {
	seen := make(map[string]struct{}, len(set))
	for _, x := range set {
		k := key(x)
		if _, dup := seen[k]; dup {
			return true
		}
		seen[k] = struct{}{}
	}
	return false
}

// Depth returns how many lists and maps nest inside v, v included.
func Depth(v types.AttributeValue) int {
	max := 0
	switch v := v.(type) {
	case *types.AttributeValueMemberL:
		for _, e := range v.Value {
			if d := Depth(e); d > max {
				max = d
			}
		}
	case *types.AttributeValueMemberM:
		for _, e := range v.Value {
			if d := Depth(e); d > max {
				max = d
			}
		}
	default:
		return 0
	}
	return max + 1
}

// ValidateItem validates every attribute of an item.
func ValidateItem(item map[string]types.AttributeValue) error {
	for _, v := range item {
		if err := Validate(v); err != nil {
			return err
		}
	}
	return nil
}

// Copy returns a deep copy of v, so that an item stored by the fake shares
// no memory with the caller's.
func Copy(v types.AttributeValue) types.AttributeValue {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return &types.AttributeValueMemberS{Value: v.Value}
	case *types.AttributeValueMemberN:
		return &types.AttributeValueMemberN{Value: v.Value}
	case *types.AttributeValueMemberB:
		return &types.AttributeValueMemberB{Value: bytes.Clone(v.Value)}
	case *types.AttributeValueMemberBOOL:
		return &types.AttributeValueMemberBOOL{Value: v.Value}
	case *types.AttributeValueMemberNULL:
		return &types.AttributeValueMemberNULL{Value: v.Value}
	case *types.AttributeValueMemberL:
		l := make([]types.AttributeValue, len(v.Value))
		for i, e := range v.Value {
			l[i] = Copy(e)
		}
		return &types.AttributeValueMemberL{Value: l}
	case *types.AttributeValueMemberM:
		return &types.AttributeValueMemberM{Value: CopyItem(v.Value)}
	case *types.AttributeValueMemberSS:
		return &types.AttributeValueMemberSS{Value: append([]string(nil), v.Value...)}
	case *types.AttributeValueMemberNS:
		return &types.AttributeValueMemberNS{Value: append([]string(nil), v.Value...)}
	case *types.AttributeValueMemberBS:
		bs := make([][]byte, len(v.Value))
		for i, b := range v.Value {
			bs[i] = bytes.Clone(b)
		}
		return &types.AttributeValueMemberBS{Value: bs}
	}
	return v
}

// CopyItem deep-copies an item (or a map value). nil stays nil.
func CopyItem(item map[string]types.AttributeValue) map[string]types.AttributeValue {
	if item == nil {
		return nil
	}
	out := make(map[string]types.AttributeValue, len(item))
	for k, v := range item {
		out[k] = Copy(v)
	}
	return out
}

// KeyBytes returns an identity for a key value (S, N or B): two values have
// the same bytes exactly when DynamoDB treats them as the same key, so
// numbers are canonicalized first ("1.0" and "1" are one key). The bytes
// carry a type tag, so S "1" and N "1" differ. They do not order keys; use
// Compare for that. Other types get a tag only and an invalid number its
// text, so the function never fails.
func KeyBytes(v types.AttributeValue) []byte {
	return AppendKeyBytes(nil, v)
}

// AppendKeyBytes appends KeyBytes(v) to b, so that a lookup can build the
// identity in a stack buffer and index a map with it without allocating.
func AppendKeyBytes(b []byte, v types.AttributeValue) []byte {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return append(append(b, 'S'), v.Value...)
	case *types.AttributeValueMemberN:
		return append(append(b, 'N'), canonicalOrSelf(v.Value)...)
	case *types.AttributeValueMemberB:
		return append(append(b, 'B'), v.Value...)
	}
	return append(append(b, '?'), TypeOf(v)...)
}

// KeyString is KeyBytes as a string, for use as a map key.
func KeyString(v types.AttributeValue) string {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return "S" + v.Value
	case *types.AttributeValueMemberN:
		return "N" + canonicalOrSelf(v.Value)
	case *types.AttributeValueMemberB:
		return "B" + string(v.Value)
	}
	return "?" + TypeOf(v)
}

package table

import (
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// MaxItemSize is DynamoDB's limit on one item: 400 KB, attribute names
// included. A write of a larger item fails with a ValidationException, so
// tablekit checks it before sending.
const MaxItemSize = 400 * 1024

// ItemSize returns the size of item in bytes as DynamoDB counts it for the
// 400 KB item limit and for capacity units
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html):
// each attribute costs the UTF-8 bytes of its name plus the size of its
// value.
//
// Value sizes:
//   - S: its UTF-8 bytes; B: its raw bytes (not the base64 text on the wire).
//   - N: about 1 byte per two significant digits plus 1 byte (exactly: see
//     numberSize); negative numbers 1 byte more.
//   - BOOL and NULL: 1 byte.
//   - M and L: 3 bytes of overhead plus, per element, 1 byte plus the
//     element's size (a map element also counts its name).
//   - SS, NS and BS: the sum of their members' sizes.
//
// The rules were checked against DynamoDB Local at the 400 KB boundary for
// every type: an item of exactly MaxItemSize is accepted, one byte more is
// refused.
func ItemSize(item Item) int {
	n := 0
	for name, v := range item {
		n += len(name) + valueSize(v)
	}
	return n
}

// valueSize is the size of one value without any attribute name.
func valueSize(v types.AttributeValue) int {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return len(v.Value)
	case *types.AttributeValueMemberN:
		return numberSize(v.Value)
	case *types.AttributeValueMemberB:
		return len(v.Value)
	case *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		return 1
	case *types.AttributeValueMemberSS:
		n := 0
		for _, s := range v.Value {
			n += len(s)
		}
		return n
	case *types.AttributeValueMemberNS:
		n := 0
		for _, s := range v.Value {
			n += numberSize(s)
		}
		return n
	case *types.AttributeValueMemberBS:
		n := 0
		for _, b := range v.Value {
			n += len(b)
		}
		return n
	case *types.AttributeValueMemberM:
		n := 3
		for name, e := range v.Value {
			n += 1 + len(name) + valueSize(e)
		}
		return n
	case *types.AttributeValueMemberL:
		n := 3
		for _, e := range v.Value {
			n += 1 + valueSize(e)
		}
		return n
	}
	return 0
}

// numberSize is the stored size of a number. DynamoDB keeps numbers as
// base-100 digits aligned on the decimal point (1.5 is 01|50, two digits;
// 12.5 is 12|50, also two), drops leading and trailing zero digit pairs,
// and adds one byte for the exponent and one more for a negative sign.
// That refines the documented "1 byte per two significant digits + 1" and
// matches DynamoDB Local 3.3 byte for byte at the 400 KB limit.
func numberSize(s string) int {
	neg := false
	digits := make([]byte, 0, len(s))
	point := -1 // digits before the decimal point
	exp := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '-' && i == 0:
			neg = true
		case c == '+' && i == 0:
		case c == '.':
			point = len(digits)
		case c >= '0' && c <= '9':
			digits = append(digits, c)
		case c == 'e' || c == 'E':
			e, err := strconv.Atoi(s[i+1:])
			if err == nil {
				exp = e
			}
			i = len(s)
		}
	}
	if point < 0 {
		point = len(digits)
	}
	first, last := -1, -1
	for i, c := range digits {
		if c != '0' {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return 1 // zero
	}
	// Powers of ten of the first and last significant digits.
	hi := point - 1 - first + exp
	lo := point - 1 - last + exp
	n := floorHalf(hi) - floorHalf(lo) + 1 + 1
	if neg {
		n++
	}
	return n
}

// floorHalf is the base-100 digit position of a power of ten.
func floorHalf(k int) int {
	if k < 0 {
		return -((-k + 1) / 2)
	}
	return k / 2
}

// TypeOf is DynamoDB's name for v's type ("S", "N", "B", "BOOL", "NULL",
// "M", "L", "SS", "NS", "BS"), the name error messages and the wire format
// use; "" for nil or a type the SDK does not define.
func TypeOf(v types.AttributeValue) string {
	switch v.(type) {
	case *types.AttributeValueMemberS:
		return "S"
	case *types.AttributeValueMemberN:
		return "N"
	case *types.AttributeValueMemberB:
		return "B"
	case *types.AttributeValueMemberBOOL:
		return "BOOL"
	case *types.AttributeValueMemberNULL:
		return "NULL"
	case *types.AttributeValueMemberM:
		return "M"
	case *types.AttributeValueMemberL:
		return "L"
	case *types.AttributeValueMemberSS:
		return "SS"
	case *types.AttributeValueMemberNS:
		return "NS"
	case *types.AttributeValueMemberBS:
		return "BS"
	}
	return ""
}

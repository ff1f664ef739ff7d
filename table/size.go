package table

import (
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
//   - N: 1 byte per two significant digits, rounded up, plus 1 byte; leading
//     and trailing zeros do not count.
//   - BOOL and NULL: 1 byte.
//   - M and L: 3 bytes of overhead plus, per element, 1 byte plus the
//     element's size (a map element also counts its name).
//   - SS, NS and BS: the sum of their members' sizes.
//
// The number rule is the documented approximation; the others are exact.
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

// numberSize counts significant digits: the sign, decimal point and exponent
// are not stored as digits, and DynamoDB trims leading and trailing zeros.
func numberSize(s string) int {
	digits := 0
	leading := true
	trailingZeros := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == 'e' || c == 'E' {
			break
		}
		if c < '0' || c > '9' {
			continue
		}
		if c == '0' {
			if leading {
				continue
			}
			trailingZeros++
		} else {
			leading = false
			trailingZeros = 0
		}
		digits++
	}
	digits -= trailingZeros
	return (digits+1)/2 + 1
}

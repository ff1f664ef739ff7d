package store

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest/internal/attr"
)

// An entry's position is its key values (sort key, then in an index the
// table's keys) encoded so that comparing the encodings byte by byte
// orders entries as DynamoDB orders the values: strings and binaries by
// their bytes, numbers numerically. Each value is encoded, then escaped
// (a 0x00 byte becomes 0x00 0xFF) and terminated by 0x00 0x01, so that a
// value that is a prefix of another sorts first and the next value's bytes
// never interfere: the usual order-preserving tuple encoding.
//
// The same value terminated by 0x00 0x00 (Before) sorts before every
// position starting with that value, and terminated by 0x00 0x02 (After)
// after every one: the bounds a Query range starts and stops at.

// Key encodes the position of an entry with these key values; nil values
// are left out (a table without a sort key has the empty position).
func Key(sort, tablePK, tableSK types.AttributeValue) string {
	if sort == nil && tablePK == nil && tableSK == nil {
		return ""
	}
	var buf [96]byte
	return string(AppendKey(buf[:0], sort, tablePK, tableSK))
}

// AppendKey appends Key(sort, tablePK, tableSK) to b, so that a lookup can
// build the position without allocating (see Collection.Lookup).
func AppendKey(b []byte, sort, tablePK, tableSK types.AttributeValue) []byte {
	for _, v := range [3]types.AttributeValue{sort, tablePK, tableSK} {
		if v != nil {
			b = appendValue(b, v)
			b = append(b, 0x00, 0x01)
		}
	}
	return b
}

// Before is a position just before every entry whose first key value is v.
func Before(v types.AttributeValue) string {
	return string(append(appendValue(nil, v), 0x00, 0x00))
}

// After is a position just after every entry whose first key value is v.
func After(v types.AttributeValue) string {
	return string(append(appendValue(nil, v), 0x00, 0x02))
}

func appendValue(b []byte, v types.AttributeValue) []byte {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return appendEscaped(b, v.Value)
	case *types.AttributeValueMemberB:
		return appendEscaped(b, string(v.Value))
	case *types.AttributeValueMemberN:
		return appendEscaped(b, numberKey(v.Value))
	}
	return b
}

func appendEscaped(b []byte, s string) []byte {
	for {
		i := strings.IndexByte(s, 0)
		if i < 0 {
			return append(b, s...)
		}
		b = append(b, s[:i]...)
		b = append(b, 0x00, 0xFF)
		s = s[i+1:]
	}
}

// Number encoding: zero is 0x80; a positive number 0.d1d2...dn × 10^e is
// 0xC0, e+0x8000 in two bytes, then its digits; a negative one is 0x40,
// the exponent's complement, the digits' nines-complement and 0xFF, so
// that larger magnitudes sort lower and -0.12 sorts after -0.123.
func numberKey(s string) string {
	c, err := attr.CanonicalNumber(s)
	if err != nil {
		c = s // never stored: keys are validated; keep the order total
	}
	neg := strings.HasPrefix(c, "-")
	if neg {
		c = c[1:]
	}
	intPart, frac, _ := strings.Cut(c, ".")
	var digits []byte
	exp := 0
	if intPart != "0" {
		exp = len(intPart)
		digits = append(digits, intPart...)
		digits = append(digits, frac...)
	} else {
		trimmed := strings.TrimLeft(frac, "0")
		exp = -(len(frac) - len(trimmed))
		digits = append(digits, trimmed...)
	}
	for len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	if len(digits) == 0 {
		return "\x80"
	}
	e := uint16(exp + 0x8000)
	out := make([]byte, 0, 4+len(digits))
	if !neg {
		out = append(out, 0xC0, byte(e>>8), byte(e))
		return string(append(out, digits...))
	}
	e = ^e
	out = append(out, 0x40, byte(e>>8), byte(e))
	for _, d := range digits {
		out = append(out, '9'-d+'0')
	}
	return string(append(out, 0xFF))
}

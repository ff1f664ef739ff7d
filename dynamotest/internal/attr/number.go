package attr

import (
	"bytes"
	"math/big"
	"strconv"
	"strings"
)

// DynamoDB numbers are decimals with up to 38 significant digits whose
// magnitude lies between 1E-130 and 9.9999999999999999999999999999999999999E+125
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.NamingRulesDataTypes.html).
const (
	MaxDigits = 38
	// In the form 0.d1d2... × 10^exp used below, 1E-130 has exp -129 and
	// the largest allowed magnitude has exp 126.
	minExp = -129
	maxExp = 126
)

// Messages for numbers DynamoDB will not store, as DynamoDB Local words
// them (the reference our conformance suite runs against; the service
// itself says "The parameter cannot be converted to a numeric value" and
// "Attempting to store more than 38 significant digits in a Number").
const (
	msgOverflow  = "Number overflow. Attempting to store a number with magnitude larger than supported range"
	msgUnderflow = "Number underflow. Attempting to store a number with magnitude smaller than supported range"
	msgPrecision = "DynamoDB only supports precision up to 38 digits"
	msgNotNumber = "A value provided cannot be converted into a number"
)

// decimal is a parsed number: value = (neg ? -1 : 1) × 0.digits × 10^exp.
// digits holds ASCII digits with no leading or trailing zeros; it is
// empty exactly when the value is zero, and then neg is false.
type decimal struct {
	neg    bool
	digits []byte
	exp    int
}

// exponent bound while parsing: far outside DynamoDB's range, and small
// enough that adding the position of the decimal point cannot overflow.
const expClamp = 1 << 40

// parseDecimal parses s in the syntax DynamoDB accepts (that of Java's
// BigDecimal: optional sign, digits with an optional point, optional
// exponent). buf is scratch space for the digits so that comparisons
// need not allocate. It checks syntax only, not DynamoDB's limits.
func parseDecimal(s string, buf []byte) (decimal, bool) {
	var d decimal
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		d.neg = s[i] == '-'
		i++
	}
	digits := buf[:0]
	sawDigit, sawPoint := false, false
	// intDigits is where the point sits relative to the first significant digit.
	intDigits := 0
	leading := true
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			sawDigit = true
			if leading && c == '0' {
				// Leading zeros before the point count for nothing; after
				// it each moves the point: 0.05 = 0.5 × 10^-1.
				if sawPoint {
					intDigits--
				}
				continue
			}
			if !sawPoint {
				intDigits++
			}
			leading = false
			digits = append(digits, c)
		case c == '.' && !sawPoint:
			sawPoint = true
		default:
			goto exponent
		}
	}
exponent:
	if !sawDigit {
		return decimal{}, false
	}
	exp := 0
	if i < len(s) {
		if s[i] != 'e' && s[i] != 'E' {
			return decimal{}, false
		}
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		if i == len(s) {
			return decimal{}, false
		}
		for ; i < len(s); i++ {
			c := s[i]
			if c < '0' || c > '9' {
				return decimal{}, false
			}
			if exp < expClamp {
				exp = exp*10 + int(c-'0')
			}
		}
		if eneg {
			exp = -exp
		}
	}
	for len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	if len(digits) == 0 {
		return decimal{}, true
	}
	d.digits = digits
	d.exp = intDigits + exp
	return d, true
}

// check applies DynamoDB's precision and magnitude limits.
func (d decimal) check() error {
	if len(d.digits) == 0 {
		return nil
	}
	if d.exp > maxExp {
		return &Error{Message: msgOverflow}
	}
	if d.exp < minExp {
		return &Error{Message: msgUnderflow}
	}
	if len(d.digits) > MaxDigits {
		return &Error{Message: msgPrecision}
	}
	return nil
}

// String renders d in plain notation without exponent, the form DynamoDB
// returns numbers in: no leading zeros, no trailing fractional zeros.
func (d decimal) String() string {
	if len(d.digits) == 0 {
		return "0"
	}
	var b strings.Builder
	n := len(d.digits)
	if d.neg {
		b.WriteByte('-')
	}
	switch {
	case d.exp <= 0:
		b.WriteString("0.")
		for i := 0; i < -d.exp; i++ {
			b.WriteByte('0')
		}
		b.Write(d.digits)
	case d.exp >= n:
		b.Write(d.digits)
		for i := n; i < d.exp; i++ {
			b.WriteByte('0')
		}
	default:
		b.Write(d.digits[:d.exp])
		b.WriteByte('.')
		b.Write(d.digits[d.exp:])
	}
	return b.String()
}

// cmp orders two decimals numerically.
func (d decimal) cmp(e decimal) int {
	ds, es := d.sign(), e.sign()
	if ds != es {
		if ds < es {
			return -1
		}
		return 1
	}
	if ds == 0 {
		return 0
	}
	c := cmpMagnitude(d, e)
	if d.neg {
		return -c
	}
	return c
}

func (d decimal) sign() int {
	switch {
	case len(d.digits) == 0:
		return 0
	case d.neg:
		return -1
	}
	return 1
}

// cmpMagnitude compares |d| and |e|, both non-zero: normalized digits make
// the exponent decide first and the digit strings next.
func cmpMagnitude(d, e decimal) int {
	if d.exp != e.exp {
		if d.exp < e.exp {
			return -1
		}
		return 1
	}
	return bytes.Compare(d.digits, e.digits)
}

// CanonicalNumber checks s against DynamoDB's number rules and returns its
// canonical text, so that "1.0", "1", "01" and "1e0" are one value.
func CanonicalNumber(s string) (string, error) {
	var buf [48]byte
	d, ok := parseDecimal(s, buf[:0])
	if !ok {
		return "", &Error{Message: msgNotNumber}
	}
	if err := d.check(); err != nil {
		return "", err
	}
	return d.String(), nil
}

// ValidNumber checks s against DynamoDB's number rules without building
// its canonical text.
func ValidNumber(s string) error {
	var buf [48]byte
	d, ok := parseDecimal(s, buf[:0])
	if !ok {
		return &Error{Message: msgNotNumber}
	}
	return d.check()
}

// CompareNumbers orders two number strings numerically. Strings that are
// not numbers order before all numbers and among themselves as text, so
// the order stays total even for unvalidated input.
func CompareNumbers(a, b string) int {
	if c, ok := compareIntegers(a, b); ok {
		return c
	}
	var abuf, bbuf [48]byte
	da, aok := parseDecimal(a, abuf[:0])
	db, bok := parseDecimal(b, bbuf[:0])
	switch {
	case aok && bok:
		return da.cmp(db)
	case aok:
		return 1
	case bok:
		return -1
	}
	return strings.Compare(a, b)
}

// compareIntegers is CompareNumbers' fast path for the common sort key: two
// integers in plain form ("-12", "0", "345"; no leading zeros, sign or
// point). ok is false for anything else.
func compareIntegers(a, b string) (int, bool) {
	an, aok := plainInteger(a)
	bn, bok := plainInteger(b)
	if !aok || !bok {
		return 0, false
	}
	if an != bn {
		if an {
			return -1, true
		}
		return 1, true
	}
	c := 0
	switch {
	case len(a) != len(b):
		c = -1
		if len(a) > len(b) {
			c = 1
		}
	default:
		c = strings.Compare(a, b)
	}
	if an {
		c = -c
	}
	return c, true
}

// plainInteger reports whether s is an integer without leading zeros (a
// lone "0" allowed, "-0" not) and whether it is negative.
func plainInteger(s string) (neg, ok bool) {
	if len(s) > 0 && s[0] == '-' {
		neg = true
		s = s[1:]
	}
	if len(s) == 0 || len(s) > MaxDigits+maxExp || (s[0] == '0' && (len(s) > 1 || neg)) {
		return false, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false, false
		}
	}
	return neg, true
}

// AddNumbers returns a+b exactly, or DynamoDB's error when the sum cannot
// be stored: DynamoDB does not round, so a sum needing more than 38
// significant digits fails (1e50 + 1 is an error, not 1e50).
func AddNumbers(a, b string) (string, error) {
	return addNumbers(a, b, false)
}

// SubtractNumbers returns a-b under the same rules as AddNumbers.
func SubtractNumbers(a, b string) (string, error) {
	return addNumbers(a, b, true)
}

func addNumbers(a, b string, negateB bool) (string, error) {
	var abuf, bbuf [48]byte
	da, ok := parseDecimal(a, abuf[:0])
	if !ok {
		return "", &Error{Message: msgNotNumber}
	}
	db, ok := parseDecimal(b, bbuf[:0])
	if !ok {
		return "", &Error{Message: msgNotNumber}
	}
	if err := da.check(); err != nil {
		return "", err
	}
	if err := db.check(); err != nil {
		return "", err
	}
	if negateB && len(db.digits) > 0 {
		db.neg = !db.neg
	}
	if len(da.digits) == 0 {
		return db.String(), nil
	}
	if len(db.digits) == 0 {
		return da.String(), nil
	}
	// As integers: value = coef × 10^(exp - len(digits)).
	ca, ea := da.coefficient()
	cb, eb := db.coefficient()
	// Both exponents are within DynamoDB's range, so aligning them costs
	// at most a few hundred digits.
	if ea > eb {
		ca.Mul(ca, pow10(ea-eb))
		ea = eb
	} else if eb > ea {
		cb.Mul(cb, pow10(eb-ea))
	}
	ca.Add(ca, cb)
	sum := fromCoefficient(ca, ea)
	if err := sum.check(); err != nil {
		return "", err
	}
	return sum.String(), nil
}

func (d decimal) coefficient() (*big.Int, int) {
	c, _ := new(big.Int).SetString(string(d.digits), 10)
	if d.neg {
		c.Neg(c)
	}
	return c, d.exp - len(d.digits)
}

func pow10(n int) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// fromCoefficient builds the decimal c × 10^e.
func fromCoefficient(c *big.Int, e int) decimal {
	if c.Sign() == 0 {
		return decimal{}
	}
	var d decimal
	d.neg = c.Sign() < 0
	s := new(big.Int).Abs(c).String()
	n := len(s)
	s = strings.TrimRight(s, "0")
	d.digits = []byte(s)
	d.exp = e + n
	return d
}

// NumberFloat returns the number as a float64 for callers that only need
// an approximation (sizes, TTL seconds).
func NumberFloat(s string) (float64, bool) {
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

// CompareIntNumber orders the integer n against the number text s without
// allocating; size(...) results meet numbers this way. Text that is not a
// number orders after every integer.
func CompareIntNumber(n int, s string) int {
	var nbuf [24]byte
	var sbuf [48]byte
	txt := strconv.AppendInt(nbuf[:0], int64(n), 10)
	var d decimal
	if len(txt) > 0 && txt[0] == '-' {
		d.neg = true
		txt = txt[1:]
	}
	d.exp = len(txt)
	for len(txt) > 0 && txt[len(txt)-1] == '0' {
		txt = txt[:len(txt)-1]
	}
	d.digits = txt
	if len(txt) == 0 {
		d = decimal{}
	}
	e, ok := parseDecimal(s, sbuf[:0])
	if !ok {
		return -1
	}
	return d.cmp(e)
}

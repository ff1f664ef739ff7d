package expr

import (
	"encoding/base64"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/table"
)

// Error is an expression DynamoDB would reject. Message is DynamoDB's
// wording, including its prefix ("Invalid ConditionExpression: ...") where
// DynamoDB gives one; the engine returns it in a ValidationException.
type Error struct {
	Message string
}

func (e *Error) Error() string { return e.Message }

// Expression kinds, as DynamoDB names them in "Invalid <kind>: ..." messages.
const (
	kindCondition  = "ConditionExpression"
	kindFilter     = "FilterExpression"
	kindKey        = "KeyConditionExpression"
	kindUpdate     = "UpdateExpression"
	kindProjection = "ProjectionExpression"
)

// Messages DynamoDB (Local) gives when an update meets the item.
const (
	msgMissingAttr = "The provided expression refers to an attribute that does not exist in the item"
	msgBadOperand  = "An operand in the update expression has an incorrect data type"
	msgInvalidPath = "The document path provided in the update expression is invalid for update"
)

// DynamoDB's limits on expressions
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html#limits-expression-parameters:
// 4 KB of expression, 255 bytes per placeholder, 2 MB of substitution
// variables, 300 operators, 100 IN operands; the attribute-name limit is
// the Attributes section's 64 KB), with the boundaries and words of
// DynamoDB Local, which checks each map's 2 MB apart: a map of exactly
// 2 MB is accepted, one byte more refused.
const (
	maxExprSize          = 4096 // bytes in one expression
	maxPathDepth         = 32   // elements of a document path
	maxInOperands        = 100  // values after IN
	maxOperators         = 300  // operators and functions in one expression
	maxListIndex         = 1<<31 - 1
	maxPlaceholderSize   = 255     // bytes in a #name or :value key
	maxAttributeNameSize = 65535   // bytes in a name an ExpressionAttributeNames key stands for
	maxSubstitutionSize  = 2 << 20 // bytes in one map: its keys, with its names or values' sizes
)

const (
	validTypeNames  = "{N,BS,L,B,NULL,M,S,SS,NS,BOOL}"
	redundantParens = "The expression has redundant parentheses;"
)

// pathString renders a document path as DynamoDB does in messages:
// [a, b, [1]].
func pathString(p path) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, e := range p {
		if i > 0 {
			b.WriteString(", ")
		}
		if e.isIndex {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(e.index))
			b.WriteByte(']')
		} else {
			b.WriteString(e.name)
		}
	}
	b.WriteByte(']')
	return b.String()
}

// shortType is the type name DynamoDB uses in "operand type: N" messages.
func shortType(v types.AttributeValue) string {
	if t := table.TypeOf(v); t != "" {
		return t
	}
	return "UNKNOWN"
}

// longType is the type name DynamoDB uses in ADD and DELETE messages
// ("operand type: STRING").
func longType(v types.AttributeValue) string {
	switch v.(type) {
	case *types.AttributeValueMemberS:
		return "STRING"
	case *types.AttributeValueMemberN:
		return "NUMBER"
	case *types.AttributeValueMemberB:
		return "BINARY"
	case *types.AttributeValueMemberBOOL:
		return "BOOLEAN"
	case *types.AttributeValueMemberNULL:
		return "NULL"
	case *types.AttributeValueMemberM:
		return "MAP"
	case *types.AttributeValueMemberL:
		return "LIST"
	case *types.AttributeValueMemberSS:
		return "STRING_SET"
	case *types.AttributeValueMemberNS:
		return "NUMBER_SET"
	case *types.AttributeValueMemberBS:
		return "BINARY_SET"
	}
	return "UNKNOWN"
}

// avString renders a value as DynamoDB does in BETWEEN messages:
// "AttributeValue: {N:1}".
func avString(v types.AttributeValue) string {
	var b strings.Builder
	b.WriteString("AttributeValue: {")
	writeAV(&b, v)
	b.WriteByte('}')
	return b.String()
}

func writeAV(b *strings.Builder, v types.AttributeValue) {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		b.WriteString("S:" + v.Value)
	case *types.AttributeValueMemberN:
		b.WriteString("N:" + v.Value)
	case *types.AttributeValueMemberB:
		// DynamoDB Local prints the Java buffer holding the bytes.
		n := strconv.Itoa(len(v.Value))
		b.WriteString("B:java.nio.HeapByteBuffer[pos=0 lim=" + n + " cap=" + n + "]")
	case *types.AttributeValueMemberBOOL:
		b.WriteString("BOOL:" + strconv.FormatBool(v.Value))
	case *types.AttributeValueMemberNULL:
		b.WriteString("NULL:" + strconv.FormatBool(v.Value))
	case *types.AttributeValueMemberSS:
		b.WriteString("SS:[" + strings.Join(v.Value, ", ") + "]")
	case *types.AttributeValueMemberNS:
		b.WriteString("NS:[" + strings.Join(v.Value, ", ") + "]")
	case *types.AttributeValueMemberBS:
		parts := make([]string, len(v.Value))
		for i, x := range v.Value {
			parts[i] = base64.StdEncoding.EncodeToString(x)
		}
		b.WriteString("BS:[" + strings.Join(parts, ", ") + "]")
	case *types.AttributeValueMemberL:
		b.WriteString("L:[")
		for i, e := range v.Value {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('{')
			writeAV(b, e)
			b.WriteByte('}')
		}
		b.WriteByte(']')
	case *types.AttributeValueMemberM:
		keys := make([]string, 0, len(v.Value))
		for k := range v.Value {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("M:{")
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(k + "={")
			writeAV(b, v.Value[k])
			b.WriteByte('}')
		}
		b.WriteByte('}')
	}
}

// javaSetOrder orders placeholder names the way DynamoDB, a Java service,
// lists them in "unused in expressions: keys: {#c, #b}": the iteration
// order of a java.util.HashSet, which follows String.hashCode. Within a
// bucket Java keeps insertion order, which a Go map cannot tell us; we
// put shorter names first, then lexical order.
func javaSetOrder(keys []string) {
	capacity := 16
	for float64(len(keys)) > 0.75*float64(capacity) {
		capacity *= 2
	}
	// A counting sort by bucket, each key's bucket computed once, then the
	// few keys of a bucket by length and text: linear in the keys, where
	// sorting half a million unused names by a comparison that hashed both
	// sides took a second.
	buckets := make([]int, len(keys))
	start := make([]int, capacity+1)
	for i, k := range keys {
		buckets[i] = javaBucket(k, capacity)
		start[buckets[i]+1]++
	}
	for b := 1; b <= capacity; b++ {
		start[b] += start[b-1]
	}
	sorted := make([]string, len(keys))
	next := slices.Clone(start[:capacity])
	for i, k := range keys {
		sorted[next[buckets[i]]] = k
		next[buckets[i]]++
	}
	for b := range capacity {
		if bucket := sorted[start[b]:start[b+1]]; len(bucket) > 1 {
			slices.SortFunc(bucket, func(x, y string) int {
				if len(x) != len(y) {
					return len(x) - len(y)
				}
				return strings.Compare(x, y)
			})
		}
	}
	copy(keys, sorted)
}

// javaBucket is the bucket of a java.util.HashSet of the capacity that
// holds s: its String.hashCode, spread as HashMap spreads it.
func javaBucket(s string, capacity int) int {
	var h int32
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			h = 31*h + int32(0xD800+(r>>10))
			h = 31*h + int32(0xDC00+(r&0x3FF))
			continue
		}
		h = 31*h + int32(r)
	}
	u := uint32(h)
	return int((u ^ u>>16) & uint32(capacity-1))
}

package expr

import (
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest/internal/attr"
	"github.com/tablekit/tablekit/table"
)

// Env holds one request's ExpressionAttributeNames and
// ExpressionAttributeValues and records which of them the request's
// expressions use, so that CheckUnused can reject the rest as DynamoDB
// does. Parse every expression of the request through the same Env, then
// call CheckUnused. An Env is not safe for concurrent use; the parsed
// expressions it returns are, and may be evaluated any number of times.
type Env struct {
	names      map[string]string
	values     map[string]types.AttributeValue
	usedNames  map[string]struct{}
	usedValues map[string]struct{}
	checked    bool
	inputErr   error
	// translated: the expressions are translations of the legacy
	// parameters (Expected, QueryFilter, ScanFilter), which the request
	// did not write and DynamoDB's expression size limit does not bound.
	translated bool
}

// Translated marks the Env's expressions as translations of a request's
// legacy parameters: their text is the fake's, not the caller's, so the
// limits DynamoDB documents for expression parameters (4 KB of text, 300
// operators, 100 IN operands; the Developer Guide's "Expression
// parameters" quotas) do not apply to it. A ScanFilter of 200 conditions
// or an IN list of 400 values is not an expression, and DynamoDB Local
// serves both.
func (e *Env) Translated() { e.translated = true }

// NewEnv returns an Env over a request's placeholders. nil maps mean the
// request did not send them; empty non-nil maps are an error DynamoDB
// reports ("ExpressionAttributeValues must not be empty").
func NewEnv(names map[string]string, values map[string]types.AttributeValue) *Env {
	return &Env{names: names, values: values}
}

// CheckInputs validates the placeholder maps themselves: keys must look
// like "#name" and ":value", names must not be empty, and every value must
// be a valid attribute value (no empty sets, no bad numbers). Every parse
// method calls it first, so callers need not, but may to fail early.
func (e *Env) CheckInputs() error {
	if e.checked {
		return e.inputErr
	}
	e.checked = true
	e.inputErr = e.checkInputs()
	return e.inputErr
}

func (e *Env) checkInputs() error {
	// The names first, then the values; of the values, every key before
	// any value (DynamoDB Local, and dynalite's AWS-written "should return
	// ValidationException for invalid ExpressionAttributeNames" beside an
	// empty ExpressionAttributeValues). Within each check the least key
	// that fails is reported, found in one pass over the map (sorting a
	// map of half a million keys to report its first bad one cost more
	// than the request's every other check).
	if e.names != nil && len(e.names) == 0 {
		return &Error{Message: "ExpressionAttributeNames must not be empty"}
	}
	if msg, size := scanMap(e.names, func(name string) int { return len(name) }, checkName); msg != "" {
		return &Error{Message: msg}
	} else if size > maxSubstitutionSize {
		return &Error{Message: "ExpressionAttributeNames exceeds max size"}
	}
	if e.values != nil && len(e.values) == 0 {
		return &Error{Message: "ExpressionAttributeValues must not be empty"}
	}
	if msg, _ := scanMap(e.values, nil, checkValueKey, checkValue); msg != "" {
		return &Error{Message: msg}
	}
	if table.ItemSize(e.values) > maxSubstitutionSize {
		return &Error{Message: "ExpressionAttributeValues exceeds max size"}
	}
	return nil
}

// scanMap checks a placeholder map in one pass: for each check in turn,
// what it says of the least key (in byte order) it fails, the first
// check's first; "" when every key passes every check. It is the answer
// of checking the keys in sorted order, without sorting; a key above a
// check's least failure so far is not checked again. With size, it also
// sums the map's size as DynamoDB counts it against its 2 MB: each key's
// bytes and its value's size.
func scanMap[V any](m map[string]V, size func(V) int, checks ...func(k string, v V) string) (msg string, total int) {
	var least, msgs [2]string
	for k, v := range m {
		if size != nil {
			total += len(k) + size(v)
		}
		for i, check := range checks {
			if msgs[i] != "" && k >= least[i] {
				continue
			}
			if why := check(k, v); why != "" {
				least[i], msgs[i] = k, why
			}
		}
	}
	for _, msg := range msgs {
		if msg != "" {
			return msg, total
		}
	}
	return "", total
}

// checkName checks one ExpressionAttributeNames entry: the key's length
// and syntax, then the name's (DynamoDB Local's words; a key both too long
// and badly formed is too long).
func checkName(k, name string) string {
	if len(k) > maxPlaceholderSize {
		return "ExpressionAttributeNames contains invalid key: The expression attribute map contains a key that is too long; size of key: " + strconv.Itoa(len(k))
	}
	if !validPlaceholder(k, '#') {
		return `ExpressionAttributeNames contains invalid key: Syntax error; key: "` + k + `"`
	}
	if name == "" {
		return "ExpressionAttributeNames contains invalid value: Empty attribute name for key " + k
	}
	if len(name) > maxAttributeNameSize {
		return "ExpressionAttributeNames contains invalid value: Attribute name is too large, must be less than 65536 bytes for key " + k
	}
	return ""
}

// checkValueKey checks one ExpressionAttributeValues key (DynamoDB
// Local's words: its too-long message gives no size for a value's key).
func checkValueKey(k string, _ types.AttributeValue) string {
	if len(k) > maxPlaceholderSize {
		return "ExpressionAttributeValues contains invalid key: The expression attribute map contains a key that is too long;"
	}
	if !validPlaceholder(k, ':') {
		return `ExpressionAttributeValues contains invalid key: Syntax error; key: "` + k + `"`
	}
	return ""
}

func checkValue(k string, v types.AttributeValue) string {
	if err := attr.ValidateValue(v); err != nil {
		return "ExpressionAttributeValues contains invalid value: " + err.Error() + " for key " + k
	}
	return ""
}

func validPlaceholder(k string, prefix byte) bool {
	if len(k) < 2 || k[0] != prefix {
		return false
	}
	for i := 1; i < len(k); i++ {
		if !isWordChar(k[i]) {
			return false
		}
	}
	return true
}

// sortedInto appends m's keys to dst, sorted, so that a caller with a
// small map can keep them in a stack buffer.
func sortedInto[V any](dst []string, m map[string]V) []string {
	for k := range m {
		dst = append(dst, k)
	}
	slices.Sort(dst)
	return dst
}

// CheckUnused reports placeholders that no expression parsed through this
// Env used, in DynamoDB's words: "Value provided in
// ExpressionAttributeValues unused in expressions: keys: {:v}". Names are
// checked before values.
func (e *Env) CheckUnused() error {
	if err := e.CheckInputs(); err != nil {
		return err
	}
	if unused := unusedKeys(e.names, e.usedNames); unused != nil {
		return &Error{Message: "Value provided in ExpressionAttributeNames unused in expressions: keys: {" + strings.Join(unused, ", ") + "}"}
	}
	if unused := unusedKeys(e.values, e.usedValues); unused != nil {
		return &Error{Message: "Value provided in ExpressionAttributeValues unused in expressions: keys: {" + strings.Join(unused, ", ") + "}"}
	}
	return nil
}

func unusedKeys[V any](all map[string]V, used map[string]struct{}) []string {
	if len(all) <= len(used) {
		return nil // every key used (used holds only keys of all)
	}
	unused := make([]string, 0, len(all)-len(used))
	for k := range all {
		if _, ok := used[k]; !ok {
			unused = append(unused, k)
		}
	}
	if unused != nil {
		javaSetOrder(unused)
	}
	return unused
}

func (e *Env) name(placeholder string) (string, bool) {
	n, ok := e.names[placeholder]
	if ok {
		if e.usedNames == nil {
			e.usedNames = make(map[string]struct{})
		}
		e.usedNames[placeholder] = struct{}{}
	}
	return n, ok
}

func (e *Env) value(placeholder string) (types.AttributeValue, bool) {
	v, ok := e.values[placeholder]
	if ok {
		if e.usedValues == nil {
			e.usedValues = make(map[string]struct{})
		}
		e.usedValues[placeholder] = struct{}{}
	}
	return v, ok
}

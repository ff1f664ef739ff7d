package expr

import (
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest/internal/attr"
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
	// empty ExpressionAttributeValues).
	if e.names != nil && len(e.names) == 0 {
		return &Error{Message: "ExpressionAttributeNames must not be empty"}
	}
	for _, k := range sortedKeys(e.names) {
		if !validPlaceholder(k, '#') {
			return &Error{Message: `ExpressionAttributeNames contains invalid key: Syntax error; key: "` + k + `"`}
		}
		if e.names[k] == "" {
			return &Error{Message: "ExpressionAttributeNames contains invalid value: Empty attribute name for key " + k}
		}
	}
	if e.values != nil && len(e.values) == 0 {
		return &Error{Message: "ExpressionAttributeValues must not be empty"}
	}
	keys := sortedKeys(e.values)
	for _, k := range keys {
		if !validPlaceholder(k, ':') {
			return &Error{Message: `ExpressionAttributeValues contains invalid key: Syntax error; key: "` + k + `"`}
		}
	}
	for _, k := range keys {
		if err := attr.ValidateValue(e.values[k]); err != nil {
			return &Error{Message: "ExpressionAttributeValues contains invalid value: " + err.Error() + " for key " + k}
		}
	}
	return nil
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

func sortedKeys[V any](m map[string]V) []string {
	return sortedInto(make([]string, 0, len(m)), m)
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
	var unused []string
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

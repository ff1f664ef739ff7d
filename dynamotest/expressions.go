package dynamotest

import (
	"errors"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest/internal/attr"
	"github.com/tablekit/tablekit/dynamotest/internal/expr"
)

// Every condition, update, projection, filter and key condition the fake
// evaluates goes through this file: one request's placeholders are bound
// once (newExprs), each expression is compiled by internal/expr, and
// expr's errors become ValidationExceptions with DynamoDB's wording.

type exprs struct {
	env    *expr.Env
	names  map[string]string
	values map[string]types.AttributeValue
	used   bool
	// t is the table the expressions read, whose key attributes
	// conditions, filters and projections may only read whole (see
	// wholeKeys); nil before onTable.
	t *dbTable
}

// onTable sets the table the expressions read.
func (x *exprs) onTable(t *dbTable) *exprs {
	x.t = t
	return x
}

// wholeKeys refuses a path into a key attribute (pk.a, sk[0]) of the
// table or of one of its secondary indexes: key values are scalars, and
// DynamoDB rejects such a path even where it would only find nothing.
func (x *exprs) wholeKeys(nested []string) error { return x.keyPaths(nested, true) }

// keyPaths is wholeKeys; with tableKeys false it checks only the index
// keys (an update's target in a table key is refused later, as an update
// of the key: "Cannot update attribute").
func (x *exprs) keyPaths(nested []string, tableKeys bool) error {
	if x.t == nil {
		return nil
	}
	for _, n := range nested {
		kind := ""
		switch {
		case x.t.isKeyAttr(n):
			if tableKeys {
				kind = "Key"
			}
		case x.t.isIndexKeyAttr(n):
			kind = "IndexKey"
		}
		if kind != "" {
			return validationf("Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: %s: %s", kind, n)
		}
	}
	return nil
}

// newExprs binds a request's ExpressionAttributeNames and Values. The
// values are validated and copied with numbers in canonical form, so an
// update that stores one stores the fake's own copy.
func newExprs(names map[string]string, values map[string]types.AttributeValue) (*exprs, error) {
	own, err := ownValues(values)
	if err != nil {
		return nil, err
	}
	return &exprs{env: expr.NewEnv(names, own), names: names, values: own}, nil
}

func exprError(err error) error {
	var ee *expr.Error
	if errors.As(err, &ee) {
		return validationf("%s", ee.Message)
	}
	var ae *attr.Error
	if errors.As(err, &ae) {
		return validationf("%s", ae.Message)
	}
	return validationf("%s", err.Error())
}

// done reports placeholders that no expression used, as DynamoDB does.
func (x *exprs) done() error {
	if !x.used {
		return unusedWithoutExpressions(x.names, x.values)
	}
	if err := x.env.CheckUnused(); err != nil {
		return exprError(err)
	}
	return nil
}

// inputs checks the placeholder maps on their own (every parse does so
// first; a request without expressions to parse calls this).
func (x *exprs) inputs() error {
	if err := x.env.CheckInputs(); err != nil {
		return exprError(err)
	}
	return nil
}

// keyConditionShape checks a key condition as far as it goes without a key
// schema (nil s: nothing to check).
func (x *exprs) keyConditionShape(s *string) error {
	if s == nil {
		return nil
	}
	x.used = true
	if err := x.env.KeyConditionShape(*s); err != nil {
		return exprError(err)
	}
	return nil
}

type condition struct{ c *expr.Condition }

// filter compiles a FilterExpression (nil when s is nil). keys are the key
// attributes of the table or index a Query reads, which a filter may not
// name; nil for a Scan, whose filter may.
func (x *exprs) filter(s *string, keys ...string) (*condition, error) {
	if s == nil {
		return nil, nil
	}
	x.used = true
	c, err := x.env.Filter(*s)
	if err != nil {
		return nil, exprError(err)
	}
	// A key attribute of the Query's table or index is refused before a
	// path into any key attribute (dynalite's AWS-written "should return
	// ValidationException if hash key in FilterExpression":
	// "attribute_exists(a.b) AND b = :b" names the key a).
	for _, n := range c.TopLevelNames() {
		for _, k := range keys {
			if k != "" && n == k {
				return nil, validationf("Filter Expression can only contain non-primary key attributes: Primary key attribute: %s", k)
			}
		}
	}
	if err := x.wholeKeys(c.NestedNames()); err != nil {
		return nil, err
	}
	return &condition{c}, nil
}

// condition compiles a ConditionExpression or FilterExpression; nil s
// gives a nil condition, which every item satisfies.
func (x *exprs) condition(s *string) (*condition, error) {
	if s == nil {
		return nil, nil
	}
	x.used = true
	c, err := x.env.Condition(*s)
	if err != nil {
		return nil, exprError(err)
	}
	if err := x.wholeKeys(c.NestedNames()); err != nil {
		return nil, err
	}
	return &condition{c}, nil
}

func (c *condition) eval(item map[string]types.AttributeValue) (bool, error) {
	if c == nil {
		return true, nil
	}
	ok, err := c.c.Eval(item)
	if err != nil {
		return false, exprError(err)
	}
	return ok, nil
}

type update struct{ u *expr.Update }

func (x *exprs) update(s *string) (*update, error) {
	if s == nil {
		return nil, nil
	}
	x.used = true
	u, err := x.env.Update(*s)
	if err != nil {
		return nil, exprError(err)
	}
	if err := x.keyPaths(u.Updated(true).NestedNames(), false); err != nil {
		return nil, err
	}
	// A value read from a path into a key attribute is refused as a
	// condition's would be, before the update meets the item (dynalite's
	// AWS-written "should return ValidationException if trying to update
	// index map": "set e = list_append(a, b), f = d[1]", d an index key,
	// is refused for d[1], not for appending to the string keys a and b).
	if err := x.wholeKeys(u.ReadNestedNames()); err != nil {
		return nil, err
	}
	return &update{u}, nil
}

// apply returns the updated item as a new map; item is untouched. A nil
// item is one that does not exist yet.
func (u *update) apply(item map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {
	if u == nil {
		return item, nil
	}
	out, err := u.u.Apply(item)
	if err != nil {
		return nil, exprError(err)
	}
	return out, nil
}

// pick copies the parts of item the update changed (UPDATED_OLD, old true,
// reads the item before the update; UPDATED_NEW after it): whole top-level
// attributes, and for a nested path only that part, as DynamoDB returns
// them. nil when item holds none of them, or there is no update.
func (u *update) pick(item map[string]types.AttributeValue, old bool) map[string]types.AttributeValue {
	if u == nil || item == nil {
		return nil
	}
	out := u.u.Updated(old).Apply(item)
	if len(out) == 0 {
		return nil
	}
	return copyItem(out)
}

// names lists the top-level attributes the update sets or removes.
func (u *update) names() []string {
	if u == nil {
		return nil
	}
	return u.u.TopLevelNames()
}

type projection struct{ p *expr.Projection }

func (x *exprs) projection(s *string) (*projection, error) {
	if s == nil {
		return nil, nil
	}
	x.used = true
	p, err := x.env.Projection(*s)
	if err != nil {
		return nil, exprError(err)
	}
	if err := x.wholeKeys(p.NestedNames()); err != nil {
		return nil, err
	}
	return &projection{p}, nil
}

// names lists the top-level attributes the projection reads.
func (p *projection) names() []string { return p.p.TopLevelNames() }

// apply returns the projected attributes of an item the caller owns (the
// result shares its values).
func (p *projection) apply(item map[string]types.AttributeValue) map[string]types.AttributeValue {
	if p == nil {
		return item
	}
	return p.p.Apply(item)
}

func (x *exprs) keyCondition(s string, hashKey, rangeKey string) (*keyCond, error) {
	x.used = true
	kc, err := x.env.KeyCondition(s, hashKey, rangeKey)
	if err != nil {
		return nil, exprError(err)
	}
	out := &keyCond{hashName: hashKey, rangeName: rangeKey, hash: kc.Hash, hashOp: keyOp(kc.HashOp)}
	if kc.Range != nil {
		out.values = kc.Range.Values
		out.op = keyOp(kc.Range.Op)
	}
	return out, nil
}

// keyOp is the engine's name for an expression's key-condition operator.
func keyOp(op expr.RangeOp) rangeOp {
	switch op {
	case expr.EQ:
		return rangeEQ
	case expr.LT:
		return rangeLT
	case expr.LE:
		return rangeLE
	case expr.GT:
		return rangeGT
	case expr.GE:
		return rangeGE
	case expr.Between:
		return rangeBetween
	case expr.BeginsWith:
		return rangeBeginsWith
	}
	return rangeNone
}

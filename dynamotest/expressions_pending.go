//go:build !dynamotest_expr

package dynamotest

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest/internal/attr"
)

// Until internal/expr lands, requests that carry expressions fail with a
// ValidationException saying so; everything else works.

type exprs struct {
	names  map[string]string
	values map[string]types.AttributeValue
	used   bool
}

func newExprs(names map[string]string, values map[string]types.AttributeValue) (*exprs, error) {
	own, err := ownValues(values)
	if err != nil {
		return nil, err
	}
	return &exprs{names: names, values: own}, nil
}

var errNoExpr = validationf("dynamotest: expressions are not implemented yet")

func (x *exprs) done() error {
	if !x.used {
		return unusedWithoutExpressions(x.names, x.values)
	}
	return nil
}

type condition struct{}

func (x *exprs) condition(s *string) (*condition, error) {
	if s == nil {
		return nil, nil
	}
	return nil, errNoExpr
}

func (c *condition) eval(item map[string]types.AttributeValue) (bool, error) { return true, nil }

type update struct{}

func (x *exprs) update(s *string) (*update, error) {
	if s == nil {
		return nil, nil
	}
	return nil, errNoExpr
}

func (u *update) apply(item map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {
	return item, nil
}

func (u *update) names() []string { return nil }

type projection struct{}

func (x *exprs) projection(s *string) (*projection, error) {
	if s == nil {
		return nil, nil
	}
	return nil, errNoExpr
}

func (p *projection) apply(item map[string]types.AttributeValue) map[string]types.AttributeValue {
	return attr.CopyItem(item)
}

func (x *exprs) keyCondition(s string, hashKey, rangeKey string) (*keyCond, error) {
	return nil, errNoExpr
}

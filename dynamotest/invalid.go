package dynamotest

import (
	"regexp"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest/internal/attr"
)

// An AttributeValue with no member set, or several, can only come over the
// wire (wire.UnmarshalDeferred reads it as attr.Invalid). DynamoDB checks
// an item operation's member constraints first, then whether it mixes
// expression and legacy parameters, and only then its attribute values,
// before anything else (the table included): dynalite's tests written
// against DynamoDB, e.g. getItem's "should return ValidationException if
// expression and non-expression" and "... for unsupported datatype in Key"
// on a table that does not exist, and DynamoDB Local on an existing table.
// refuseInvalid answers such a request in that order; the operation never
// runs, so nothing is read or written. Its values are checked in the order
// DynamoDB checks them, the first bad one reported (in a map, Go's order).

// refusesInvalid reports whether refuseInvalid answers requests like in.
func refusesInvalid(in any) bool {
	switch in.(type) {
	case *dynamodb.GetItemInput, *dynamodb.PutItemInput, *dynamodb.UpdateItemInput, *dynamodb.DeleteItemInput,
		*dynamodb.QueryInput, *dynamodb.ScanInput, *dynamodb.BatchGetItemInput, *dynamodb.BatchWriteItemInput:
		return true
	}
	return false
}

// refuseInvalid is the error for in, a request refusesInvalid names that
// holds at least one attr.Invalid, or nil when the operation is to report
// it itself.
func (db *DB) refuseInvalid(in any) error {
	exists := func(name *string) bool { return db.table(aws.ToString(name)) != nil }
	var (
		v      invalidValues
		values map[string]types.AttributeValue // ExpressionAttributeValues
	)
	switch in := in.(type) {
	case *dynamodb.GetItemInput:
		if err := getItemViolations(in, exists(in.TableName)); err != nil {
			return err
		}
		if err := expressionParams(in.ExpressionAttributeNames, nil, param{"ProjectionExpression", in.ProjectionExpression != nil},
			param{"AttributesToGet", in.AttributesToGet != nil}); err != nil {
			return err
		}
		v.item(in.Key)
	case *dynamodb.PutItemInput:
		if err := putItemViolations(in, exists(in.TableName)); err != nil {
			return err
		}
		if err := expressionParams(in.ExpressionAttributeNames, in.ExpressionAttributeValues,
			param{"ConditionExpression", in.ConditionExpression != nil}, param{"Expected", in.Expected != nil}); err != nil {
			return err
		}
		v.item(in.Item)
		v.expected(in.Expected)
		values = in.ExpressionAttributeValues
	case *dynamodb.DeleteItemInput:
		if err := deleteItemViolations(in, exists(in.TableName)); err != nil {
			return err
		}
		if err := expressionParams(in.ExpressionAttributeNames, in.ExpressionAttributeValues,
			param{"ConditionExpression", in.ConditionExpression != nil}, param{"Expected", in.Expected != nil}); err != nil {
			return err
		}
		v.item(in.Key)
		v.expected(in.Expected)
		values = in.ExpressionAttributeValues
	case *dynamodb.UpdateItemInput:
		if err := updateItemViolations(in, exists(in.TableName)); err != nil {
			return err
		}
		if err := expressionParams(in.ExpressionAttributeNames, in.ExpressionAttributeValues,
			param{"UpdateExpression", in.UpdateExpression != nil}, param{"ConditionExpression", in.ConditionExpression != nil},
			param{"AttributeUpdates", in.AttributeUpdates != nil}, param{"Expected", in.Expected != nil}); err != nil {
			return err
		}
		v.item(in.Key)
		for _, name := range sortedNames(in.AttributeUpdates) {
			v.value(in.AttributeUpdates[name].Value)
		}
		v.expected(in.Expected)
		values = in.ExpressionAttributeValues
	case *dynamodb.QueryInput:
		if err := queryViolations(in, exists(in.TableName)); err != nil {
			return err
		}
		// KeyConditions beside no KeyConditionExpression is no mix
		// (dynalite's validateExpressionParams special case).
		if err := expressionParams(in.ExpressionAttributeNames, in.ExpressionAttributeValues,
			param{"ProjectionExpression", in.ProjectionExpression != nil}, param{"FilterExpression", in.FilterExpression != nil},
			param{"KeyConditionExpression", in.KeyConditionExpression != nil},
			param{"AttributesToGet", in.AttributesToGet != nil}, param{"QueryFilter", in.QueryFilter != nil},
			param{"ConditionalOperator", in.ConditionalOperator != ""},
			param{"KeyConditions", in.KeyConditions != nil && in.KeyConditionExpression != nil}); err != nil {
			return err
		}
		v.conditions(in.QueryFilter)
		v.startKey(in.ExclusiveStartKey)
		v.conditions(in.KeyConditions)
		values = in.ExpressionAttributeValues
	case *dynamodb.ScanInput:
		if err := scanViolations(in, exists(in.TableName)); err != nil {
			return err
		}
		if err := expressionParams(in.ExpressionAttributeNames, in.ExpressionAttributeValues,
			param{"ProjectionExpression", in.ProjectionExpression != nil}, param{"FilterExpression", in.FilterExpression != nil},
			param{"AttributesToGet", in.AttributesToGet != nil}, param{"ScanFilter", in.ScanFilter != nil},
			param{"ConditionalOperator", in.ConditionalOperator != ""}); err != nil {
			return err
		}
		v.conditions(in.ScanFilter)
		v.startKey(in.ExclusiveStartKey)
		values = in.ExpressionAttributeValues
	case *dynamodb.BatchGetItemInput:
		if err := batchGetItemViolations(in); err != nil {
			return err
		}
		for _, name := range sortedNames(in.RequestItems) {
			ka := in.RequestItems[name]
			if err := expressionParams(ka.ExpressionAttributeNames, nil, param{"ProjectionExpression", ka.ProjectionExpression != nil},
				param{"AttributesToGet", ka.AttributesToGet != nil}); err != nil {
				return err
			}
			for _, key := range ka.Keys {
				v.item(key)
			}
		}
	case *dynamodb.BatchWriteItemInput:
		if err := batchWriteItemViolations(in); err != nil {
			return err
		}
		for _, name := range sortedNames(in.RequestItems) {
			for _, w := range in.RequestItems[name] {
				if w.PutRequest != nil {
					v.item(w.PutRequest.Item)
				}
				if w.DeleteRequest != nil {
					v.item(w.DeleteRequest.Key)
				}
			}
		}
	}
	if v.err != nil {
		return attrError(v.err)
	}
	// The bad value is among ExpressionAttributeValues, which the
	// operation checks with its expressions and reports in its own words
	// ("ExpressionAttributeValues contains invalid value: ... for key :v"),
	// after its other expression inputs: let it run.
	if v.item(values); v.err != nil {
		return nil
	}
	// Not reached: refusesInvalid's requests hold their values where v looks.
	return validationf("%s", attr.EmptyMessage)
}

// param is one of a request's expression or legacy parameters, and
// whether the request sets it.
type param struct {
	name string
	set  bool
}

// expressionParams is DynamoDB's check of how a request combines its
// parameters, before its attribute values: expressions beside legacy
// parameters, names without an expression, values without an expression
// that takes values (dynalite's validateExpressionParams, which its
// AWS-written tests pin; DynamoDB Local words them the same). params lists
// the expression parameters, then the legacy ones (names ending in
// "Expression" are the former).
func expressionParams(names map[string]string, values map[string]types.AttributeValue, params ...param) error {
	var exprs, legacy, valueExprs []string
	valuesUsable := false // an expression that takes values is set
	for _, p := range params {
		isExpr := strings.HasSuffix(p.name, "Expression")
		if isExpr && p.name != "ProjectionExpression" {
			valueExprs = append(valueExprs, p.name)
			valuesUsable = valuesUsable || p.set
		}
		switch {
		case !p.set:
		case isExpr:
			exprs = append(exprs, p.name)
		default:
			legacy = append(legacy, p.name)
		}
	}
	switch {
	case len(exprs) > 0 && len(legacy) > 0:
		return mixed(legacy, exprs)
	case names != nil && len(exprs) == 0:
		return validationf("ExpressionAttributeNames can only be specified when using expressions")
	case values != nil && len(valueExprs) > 0 && !valuesUsable:
		verb := "is"
		if len(valueExprs) > 1 {
			verb = "are"
		}
		return validationf("ExpressionAttributeValues can only be specified when using expressions: %s %s null", strings.Join(valueExprs, " and "), verb)
	}
	return nil
}

// invalidValues keeps the first reason a request's attribute values are
// refused.
type invalidValues struct{ err error }

func (v *invalidValues) value(av types.AttributeValue) {
	if v.err == nil && av != nil {
		v.err = attr.Validate(av)
	}
}

func (v *invalidValues) item(m map[string]types.AttributeValue) {
	for _, name := range sortedNames(m) {
		v.value(m[name])
	}
}

// startKey checks an ExclusiveStartKey's values. DynamoDB puts "The
// provided starting key is invalid: " before what it finds, except before
// a number's or a set's duplicates fault (dynalite's AWS-written query and
// scan tests: "... for unsupported datatype in ExclusiveStartKey", "... for
// invalid values in ExclusiveStartKey without provided message"; DynamoDB
// Local reports every one bare).
func (v *invalidValues) startKey(m map[string]types.AttributeValue) {
	if v.err != nil {
		return
	}
	if v.item(m); v.err != nil && !bareStartKeyFault.MatchString(v.err.Error()) {
		v.err = &attr.Error{Message: "The provided starting key is invalid: " + v.err.Error()}
	}
}

var bareStartKeyFault = regexp.MustCompile(`number|numeric|digits|precision|duplicates`)

func (v *invalidValues) list(l []types.AttributeValue) {
	for _, av := range l {
		v.value(av)
	}
}

func (v *invalidValues) expected(exp map[string]types.ExpectedAttributeValue) {
	for _, name := range sortedNames(exp) {
		v.value(exp[name].Value)
		v.list(exp[name].AttributeValueList)
	}
}

// conditions checks legacy conditions' values, then each condition as
// far as it goes without a table (legacyShapes): DynamoDB refuses a
// ScanFilter's wrong number of values before an ExclusiveStartKey's empty
// value (dynalite's AWS-written "should return ValidationException for
// incorrect number of ScanFilter arguments").
func (v *invalidValues) conditions(conds map[string]types.Condition) {
	for _, name := range sortedNames(conds) {
		v.list(conds[name].AttributeValueList)
	}
	if v.err == nil {
		v.err = legacyShapes(conds)
	}
}

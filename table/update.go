package table

import (
	"context"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Update applies update to the item with key. Without IfExists (or a
// condition that requires the item) DynamoDB creates a missing item, as
// UpdateItem does. ReturnOld and ReturnNew are mutually exclusive: DynamoDB
// returns one image per call.
func (t *Table) Update(ctx context.Context, key Key, update expression.UpdateBuilder, opts ...func(*WriteOptions)) error {
	if err := t.ready(ctx); err != nil {
		return err
	}
	if err := t.checkKey("key", key); err != nil {
		return err
	}
	o := writeOptions(opts)
	if err := checkReturnPtrs(o, true); err != nil {
		return err
	}
	if o.ReturnOld != nil && o.ReturnNew != nil {
		return inputErr("options", "ReturnOld and ReturnNew", "UpdateItem returns either the old or the new item, not both")
	}
	wc, err := t.condition(o)
	if err != nil {
		return err
	}
	e, err := buildExpr("update", builders{condition: wc.cond, update: &update})
	if err != nil {
		return err
	}
	if err := t.checkUpdateTargets("update", e.updateTargets()); err != nil {
		return err
	}
	in := &dynamodb.UpdateItemInput{
		TableName:                 aws.String(t.Name()),
		Key:                       key,
		UpdateExpression:          e.Update(),
		ConditionExpression:       e.Condition(),
		ExpressionAttributeNames:  e.Names(),
		ExpressionAttributeValues: e.Values(),
	}
	if wc.cond != nil {
		in.ReturnValuesOnConditionCheckFailure = returnValuesOnFailure(wc.wantCurrentItem(o))
	}
	switch {
	case o.ReturnOld != nil:
		in.ReturnValues = types.ReturnValueAllOld
	case o.ReturnNew != nil:
		in.ReturnValues = types.ReturnValueAllNew
	}
	res, err := t.db.UpdateItem(ctx, in)
	if err != nil {
		return t.writeError("update", key, wc, o, err)
	}
	if o.ReturnOld != nil {
		return decodeReturned(res.Attributes, o.ReturnOld)
	}
	return decodeReturned(res.Attributes, o.ReturnNew)
}

// checkUpdateTargets refuses an update expression (whose targets are
// given, see updateTargets) that sets, removes, adds
// to or deletes from a table key attribute: DynamoDB rejects it ("Cannot
// update attribute pk. This attribute is part of the key"), so the caller
// hears it before a request is sent. Index key attributes may change.
func (t *Table) checkUpdateTargets(field string, targets []string) error {
	for _, name := range targets {
		for _, a := range t.keyAttrs() {
			if name == a.Name {
				return inputErr(field, name, "an update cannot change a key attribute; put a new item and delete the old one")
			}
		}
	}
	return nil
}

// updateTargets lists the top-level attribute names an update expression,
// as the expression package renders it ("SET #0 = :0, #1.#2 = :1\nREMOVE
// #3\n"), writes to.
func updateTargets(update string, names map[string]string) []string {
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(update), "\n") {
		clause, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
		for _, action := range splitTopLevel(rest) {
			target := strings.TrimSpace(action)
			switch strings.ToUpper(clause) {
			case "SET":
				target, _, _ = strings.Cut(target, "=")
			case "ADD", "DELETE":
				target, _, _ = strings.Cut(target, " ")
			}
			target = strings.TrimSpace(target)
			if i := strings.IndexAny(target, ".["); i >= 0 {
				target = target[:i]
			}
			if n, ok := names[target]; ok {
				target = n
			}
			out = append(out, target)
		}
	}
	return out
}

// splitTopLevel splits on commas outside parentheses, so the arguments of
// list_append(a, b) stay with their action.
func splitTopLevel(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}

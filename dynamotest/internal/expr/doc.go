// Package expr implements DynamoDB's expression language for the fake:
// condition and filter expressions, key conditions, update expressions and
// projections, with the #name and :value placeholders of a request.
//
// Each expression is lexed and parsed once, by hand-written recursive
// descent, into a small tree; evaluation walks the tree against an item
// without copying it. Errors are *Error values carrying DynamoDB's own
// wording, checked against DynamoDB Local, so that a test which asserts
// on a ValidationException message passes against the fake and the real
// service alike.
//
// A request's expressions share one Env, which records the placeholders
// they use:
//
//	env := expr.NewEnv(in.ExpressionAttributeNames, in.ExpressionAttributeValues)
//	cond, err := env.Condition(*in.ConditionExpression)
//	upd, err := env.Update(*in.UpdateExpression)
//	err = env.CheckUnused() // "Value provided in ExpressionAttributeValues unused ..."
//	ok, _ := cond.Eval(old)
//	updated, err := upd.Apply(old)
//
// Where DynamoDB's documentation is silent, DynamoDB Local is the
// reference: every expected outcome and message in the tests, and the
// 1,051 cases in testdata/ddblocal_cases.jsonl, were replayed against it
// with testdata/replay_ddblocal.py. That includes which error wins when an
// expression has several (syntax first, then names, repeated clauses,
// overlapping paths, placeholders, the rest), and Local's wording where it
// differs from the service's.
//
// The grammar follows DynamoDB's documentation and DynamoDB Local: keywords (AND, BETWEEN, SET, ...) are case-insensitive,
// function names are not; names start with a letter; reserved words may
// not be used bare; precedence from loosest is OR, AND, NOT, then
// comparisons, BETWEEN, IN and functions.
package expr

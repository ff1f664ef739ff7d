package datamodel

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"

	"github.com/tablekit/tablekit/table"
)

// EnforceOptions tune Enforce.
type EnforceOptions struct {
	// Region and Account build the ARNs a request is checked against.
	// Defaults: us-east-1 and 123456789012.
	Region, Account string
	// Principal names the caller in denials. Default
	// arn:aws:sts::<Account>:assumed-role/tablekit/service.
	Principal string
}

// AccessDeniedError is the error Enforce returns for a refused call,
// shaped like DynamoDB's: its ErrorCode is AccessDeniedException, and it
// arrives wrapped in a *smithy.OperationError as the SDK's errors do.
type AccessDeniedError struct {
	Principal, Action, Resource string
}

func (e *AccessDeniedError) Error() string {
	return fmt.Sprintf("AccessDeniedException: %s", e.ErrorMessage())
}

// ErrorCode is DynamoDB's error code for a request IAM refused.
func (e *AccessDeniedError) ErrorCode() string { return "AccessDeniedException" }

// ErrorMessage is the wording AWS uses.
func (e *AccessDeniedError) ErrorMessage() string {
	return fmt.Sprintf("User: %s is not authorized to perform: %s on resource: %s because no identity-based policy allows the %s action",
		e.Principal, e.Action, e.Resource, e.Action)
}

// ErrorFault says the caller is at fault.
func (e *AccessDeniedError) ErrorFault() smithy.ErrorFault { return smithy.FaultClient }

var _ smithy.APIError = (*AccessDeniedError)(nil)

// Enforce wraps api so that every call is first checked against policy as
// IAM would: an explicit Deny wins, otherwise some Allow statement must
// match the action and the resource (the table's ARN, or the index's for
// a Query or Scan with IndexName; each table of a batch; each action of a
// transaction by its own IAM action). A refused call sends nothing and
// fails with an *AccessDeniedError. It lets tests and examples prove that
// a generated least-privilege policy is enough for a store's flows.
func Enforce(api table.API, policy Policy, opts ...func(*EnforceOptions)) table.API {
	o := EnforceOptions{Region: "us-east-1", Account: "123456789012"}
	for _, f := range opts {
		f(&o)
	}
	if o.Principal == "" {
		o.Principal = "arn:aws:sts::" + o.Account + ":assumed-role/tablekit/service"
	}
	return &enforcer{api: api, policy: policy, o: o}
}

type enforcer struct {
	api    table.API
	policy Policy
	o      EnforceOptions
}

// grant is one action on one resource that a request needs.
type grant struct{ action, resource string }

func (e *enforcer) table(name *string) string {
	return TableARN(e.o.Region, e.o.Account, aws.ToString(name))
}

func (e *enforcer) onTable(action string, name *string) grant {
	return grant{"dynamodb:" + action, e.table(name)}
}

func (e *enforcer) onIndex(action string, name, index *string) grant {
	if index == nil {
		return e.onTable(action, name)
	}
	return grant{"dynamodb:" + action, IndexARN(e.o.Region, e.o.Account, aws.ToString(name), aws.ToString(index))}
}

// allow checks every access a request needs and returns the denial for
// the first that the policy does not allow.
func (e *enforcer) allow(op string, needs ...grant) error {
	for _, n := range needs {
		if !e.allowed(n) {
			return &smithy.OperationError{ServiceID: "DynamoDB", OperationName: op,
				Err: &AccessDeniedError{Principal: e.o.Principal, Action: n.action, Resource: n.resource}}
		}
	}
	return nil
}

func (e *enforcer) allowed(n grant) bool {
	allowed := false
	for _, st := range e.policy.Statement {
		if !matchAny(st.Action, n.action, true) || !matchAny(st.Resource, n.resource, false) {
			continue
		}
		if st.Effect == "Deny" {
			return false
		}
		allowed = true
	}
	return allowed
}

func matchAny(patterns []string, s string, fold bool) bool {
	for _, p := range patterns {
		if fold {
			if glob(strings.ToLower(p), strings.ToLower(s)) {
				return true
			}
		} else if glob(p, s) {
			return true
		}
	}
	return false
}

// glob matches IAM wildcards: * any run of characters, ? any one.
func glob(pattern, s string) bool {
	px, sx := 0, 0
	star, mark := -1, 0
	for sx < len(s) {
		switch {
		case px < len(pattern) && (pattern[px] == '?' || pattern[px] == s[sx]):
			px++
			sx++
		case px < len(pattern) && pattern[px] == '*':
			star, mark = px, sx
			px++
		case star >= 0:
			px = star + 1
			mark++
			sx = mark
		default:
			return false
		}
	}
	for px < len(pattern) && pattern[px] == '*' {
		px++
	}
	return px == len(pattern)
}

func (e *enforcer) CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	if err := e.allow("CreateTable", e.onTable("CreateTable", in.TableName)); err != nil {
		return nil, err
	}
	return e.api.CreateTable(ctx, in, optFns...)
}

func (e *enforcer) DeleteTable(ctx context.Context, in *dynamodb.DeleteTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DeleteTableOutput, error) {
	if err := e.allow("DeleteTable", e.onTable("DeleteTable", in.TableName)); err != nil {
		return nil, err
	}
	return e.api.DeleteTable(ctx, in, optFns...)
}

func (e *enforcer) DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	if err := e.allow("DescribeTable", e.onTable("DescribeTable", in.TableName)); err != nil {
		return nil, err
	}
	return e.api.DescribeTable(ctx, in, optFns...)
}

// ListTables is authorized on resource "*", as IAM does.
func (e *enforcer) ListTables(ctx context.Context, in *dynamodb.ListTablesInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ListTablesOutput, error) {
	if err := e.allow("ListTables", grant{"dynamodb:ListTables", "*"}); err != nil {
		return nil, err
	}
	return e.api.ListTables(ctx, in, optFns...)
}

func (e *enforcer) UpdateTimeToLive(ctx context.Context, in *dynamodb.UpdateTimeToLiveInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error) {
	if err := e.allow("UpdateTimeToLive", e.onTable("UpdateTimeToLive", in.TableName)); err != nil {
		return nil, err
	}
	return e.api.UpdateTimeToLive(ctx, in, optFns...)
}

func (e *enforcer) DescribeTimeToLive(ctx context.Context, in *dynamodb.DescribeTimeToLiveInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error) {
	if err := e.allow("DescribeTimeToLive", e.onTable("DescribeTimeToLive", in.TableName)); err != nil {
		return nil, err
	}
	return e.api.DescribeTimeToLive(ctx, in, optFns...)
}

func (e *enforcer) GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	if err := e.allow("GetItem", e.onTable("GetItem", in.TableName)); err != nil {
		return nil, err
	}
	return e.api.GetItem(ctx, in, optFns...)
}

func (e *enforcer) PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	if err := e.allow("PutItem", e.onTable("PutItem", in.TableName)); err != nil {
		return nil, err
	}
	return e.api.PutItem(ctx, in, optFns...)
}

func (e *enforcer) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	if err := e.allow("UpdateItem", e.onTable("UpdateItem", in.TableName)); err != nil {
		return nil, err
	}
	return e.api.UpdateItem(ctx, in, optFns...)
}

func (e *enforcer) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	if err := e.allow("DeleteItem", e.onTable("DeleteItem", in.TableName)); err != nil {
		return nil, err
	}
	return e.api.DeleteItem(ctx, in, optFns...)
}

func (e *enforcer) Query(ctx context.Context, in *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	if err := e.allow("Query", e.onIndex("Query", in.TableName, in.IndexName)); err != nil {
		return nil, err
	}
	return e.api.Query(ctx, in, optFns...)
}

func (e *enforcer) Scan(ctx context.Context, in *dynamodb.ScanInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	if err := e.allow("Scan", e.onIndex("Scan", in.TableName, in.IndexName)); err != nil {
		return nil, err
	}
	return e.api.Scan(ctx, in, optFns...)
}

func (e *enforcer) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	var needs []grant
	for _, name := range sortedKeys(in.RequestItems) {
		needs = append(needs, e.onTable("BatchGetItem", aws.String(name)))
	}
	if err := e.allow("BatchGetItem", needs...); err != nil {
		return nil, err
	}
	return e.api.BatchGetItem(ctx, in, optFns...)
}

func (e *enforcer) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	var needs []grant
	for _, name := range sortedKeys(in.RequestItems) {
		needs = append(needs, e.onTable("BatchWriteItem", aws.String(name)))
	}
	if err := e.allow("BatchWriteItem", needs...); err != nil {
		return nil, err
	}
	return e.api.BatchWriteItem(ctx, in, optFns...)
}

func (e *enforcer) TransactGetItems(ctx context.Context, in *dynamodb.TransactGetItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactGetItemsOutput, error) {
	var needs []grant
	for _, it := range in.TransactItems {
		if it.Get != nil {
			needs = append(needs, e.onTable("GetItem", it.Get.TableName))
		}
	}
	if err := e.allow("TransactGetItems", needs...); err != nil {
		return nil, err
	}
	return e.api.TransactGetItems(ctx, in, optFns...)
}

func (e *enforcer) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	var needs []grant
	for _, it := range in.TransactItems {
		switch {
		case it.Put != nil:
			needs = append(needs, e.onTable("PutItem", it.Put.TableName))
		case it.Update != nil:
			needs = append(needs, e.onTable("UpdateItem", it.Update.TableName))
		case it.Delete != nil:
			needs = append(needs, e.onTable("DeleteItem", it.Delete.TableName))
		case it.ConditionCheck != nil:
			needs = append(needs, e.onTable("ConditionCheckItem", it.ConditionCheck.TableName))
		}
	}
	if err := e.allow("TransactWriteItems", needs...); err != nil {
		return nil, err
	}
	return e.api.TransactWriteItems(ctx, in, optFns...)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

package dynamotest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"hash/crc32"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"

	"github.com/tablekit/tablekit/dynamotest/internal/wire"
	"github.com/tablekit/tablekit/iam"
	"github.com/tablekit/tablekit/table"
)

// Region and Account are where the fake's tables live: the region and
// account of every ARN it describes and of the resources an Enforced
// fake authorizes requests against.
const (
	Region  = fakeRegion
	Account = fakeAccount
)

// Env is the iam.Env of the fake's resources, for generating the policy
// an Enforced fake checks: iam.Runtime(dynamotest.Env, svc).
var Env = iam.Env{Partition: "aws", Region: Region, Account: Account}

// EnforceOptions tune Enforce.
type EnforceOptions struct {
	// Principal names the caller in denials; default iam.DefaultPrincipal.
	Principal string
	// Observe, when set, is told every authorization decision, allowed or
	// not, in request order within a call: how a test records which
	// actions a store's flows really take.
	Observe func(iam.Request, iam.Decision)
}

// Enforced is a fake whose every request is first authorized by an IAM
// policy, as AWS authorizes a caller's requests: the action
// ("dynamodb:Query") on the resource the request names (the table's ARN,
// the index's for a Query or Scan with IndexName, the stream's for the
// Streams API), in the fake's Region and Account. A batch needs its action
// on every table it names; a transaction needs each inner action's own
// IAM action (PutItem, UpdateItem, DeleteItem, ConditionCheckItem,
// GetItem) on its table, as IAM authorizes them. A refused request
// changes nothing and fails with an *iam.AccessDeniedError, DynamoDB's
// AccessDeniedException; over HTTP (Handler) it is answered 400 with
// __type com.amazon.coral.service#AccessDeniedException and AWS's message.
//
// PartiQL (ExecuteStatement, BatchExecuteStatement, ExecuteTransaction)
// is authorized per statement as IAM authorizes it: dynamodb:PartiQLSelect,
// PartiQLInsert, PartiQLUpdate or PartiQLDelete on the table or index the
// statement names, with the condition keys dynamodb:EnclosingOperation and
// dynamodb:FullTableScan (ConditionEnclosingOperation,
// ConditionFullTableScan).
//
// Every request also carries dynamodb:LeadingKeys, the partition key value
// of each item it touches (ConditionLeadingKeys: a batch is authorized
// item by item), and aws:SecureTransport, "false" over plain HTTP
// (ConditionSecureTransport). Enforce refuses a policy with a Deny on any
// other condition key: the fake could not evaluate it, and would allow
// what IAM denies.
//
// Enforced serves what the DB serves: table.API, PartiQL, tagging,
// UpdateTable, continuous backups, DescribeLimits and the Streams API.
// The DB itself is not restricted: tests set it up, move its clock and
// read its counters through it.
type Enforced struct {
	db     *DB
	policy iam.Policy
	o      EnforceOptions
	denied atomic.Int64
}

var _ table.API = (*Enforced)(nil)

// ErrNilDB is returned by Enforce for a nil db.
var ErrNilDB = errors.New("dynamotest: nil DB")

// Enforce returns db behind policy. The policy is validated first
// (iam.Policy.Validate), so one that would be enforced loosely is refused.
func Enforce(db *DB, policy iam.Policy, opts ...func(*EnforceOptions)) (*Enforced, error) {
	if db == nil {
		return nil, ErrNilDB
	}
	if err := policy.Validate(); err != nil {
		return nil, err
	}
	if err := checkDenyConditions(policy); err != nil {
		return nil, err
	}
	var o EnforceOptions
	for _, fn := range opts {
		if fn != nil {
			fn(&o)
		}
	}
	if o.Principal == "" {
		o.Principal = iam.DefaultPrincipal
	}
	return &Enforced{db: db, policy: policy, o: o}, nil
}

// DB is the unrestricted fake behind e.
func (e *Enforced) DB() *DB { return e.db }

// Denied counts the requests e has refused.
func (e *Enforced) Denied() int { return int(e.denied.Load()) }

// authorize checks every request op with input in needs. A nil input is
// let through unchecked: the DB refuses it with DynamoDB's validation
// error, and it names no resource to authorize. secure is whether the
// request came over TLS (aws:SecureTransport); a call in process counts
// as secure, as an SDK client's calls to DynamoDB are.
func (e *Enforced) authorize(op string, in any, secure bool) error {
	reqs, ok := requestsFor(Env, op, in, e.db.partitionKey)
	if !ok {
		return nil
	}
	reqs = withLeadingKeys(reqs, in, e.db)
	for i := range reqs {
		reqs[i].Context = with(reqs[i].Context, ConditionSecureTransport, strconv.FormatBool(secure))
	}
	for _, r := range reqs {
		d := e.policy.Evaluate(r)
		if e.o.Observe != nil {
			e.o.Observe(r, d)
		}
		if d != iam.Allowed {
			e.denied.Add(1)
			return &iam.AccessDeniedError{Principal: e.o.Principal, Action: r.Action, Resource: r.Resource, Explicit: d == iam.ExplicitDeny}
		}
	}
	return nil
}

// requestsFor lists the authorization requests of one call: op's input in
// (an SDK input type) against env's ARNs. ok is false for a nil input and
// for PartiQL that does not parse (the DB refuses it, reading nothing).
// pk names a table's (or index's) partition key, for PartiQL's
// dynamodb:FullTableScan.
func requestsFor(env iam.Env, op string, in any, pk func(table, index string) (string, bool)) (reqs []iam.Request, ok bool) {
	dyn := func(action, resource string) iam.Request {
		return iam.Request{Action: "dynamodb:" + action, Resource: resource}
	}
	onTable := func(action string, name *string) iam.Request { return dyn(action, env.TableARN(aws.ToString(name))) }
	onIndex := func(action string, name, index *string) iam.Request {
		if index == nil {
			return onTable(action, name)
		}
		return dyn(action, env.IndexARN(aws.ToString(name), aws.ToString(index)))
	}
	onTables := func(action string, names []string) []iam.Request {
		sort.Strings(names)
		out := make([]iam.Request, 0, len(names))
		for _, n := range names {
			out = append(out, dyn(action, env.TableARN(n)))
		}
		return out
	}
	// onARN authorizes on a resource ARN as given (tagging, streams).
	onARN := func(action string, arn *string) iam.Request { return dyn(action, aws.ToString(arn)) }
	one := func(r iam.Request) ([]iam.Request, bool) { return []iam.Request{r}, true }

	switch in := in.(type) {
	case *dynamodb.CreateTableInput:
		if in != nil {
			// A CreateTable that tags its table needs dynamodb:TagResource
			// on it too (tag on create), as DynamoDB authorizes it; even
			// an empty Tags list asks for it.
			if in.Tags != nil {
				return []iam.Request{onTable(op, in.TableName), onTable("TagResource", in.TableName)}, true
			}
			return one(onTable(op, in.TableName))
		}
	case *dynamodb.DeleteTableInput:
		if in != nil {
			return one(onTable(op, in.TableName))
		}
	case *dynamodb.DescribeTableInput:
		if in != nil {
			return one(onTable(op, in.TableName))
		}
	case *dynamodb.UpdateTableInput:
		if in != nil {
			return one(onTable(op, in.TableName))
		}
	case *dynamodb.UpdateTimeToLiveInput:
		if in != nil {
			return one(onTable(op, in.TableName))
		}
	case *dynamodb.DescribeTimeToLiveInput:
		if in != nil {
			return one(onTable(op, in.TableName))
		}
	case *dynamodb.UpdateContinuousBackupsInput:
		if in != nil {
			return one(onTable(op, in.TableName))
		}
	case *dynamodb.DescribeContinuousBackupsInput:
		if in != nil {
			return one(onTable(op, in.TableName))
		}
	case *dynamodb.ListTablesInput, *dynamodb.DescribeLimitsInput:
		// Account-wide actions, authorized on resource "*" as IAM does.
		return one(dyn(op, "*"))
	case *dynamodb.TagResourceInput:
		if in != nil {
			return one(onARN(op, in.ResourceArn))
		}
	case *dynamodb.UntagResourceInput:
		if in != nil {
			return one(onARN(op, in.ResourceArn))
		}
	case *dynamodb.ListTagsOfResourceInput:
		if in != nil {
			return one(onARN(op, in.ResourceArn))
		}
	case *dynamodb.GetItemInput:
		if in != nil {
			return one(onTable(op, in.TableName))
		}
	case *dynamodb.PutItemInput:
		if in != nil {
			return one(onTable(op, in.TableName))
		}
	case *dynamodb.UpdateItemInput:
		if in != nil {
			return one(onTable(op, in.TableName))
		}
	case *dynamodb.DeleteItemInput:
		if in != nil {
			return one(onTable(op, in.TableName))
		}
	case *dynamodb.QueryInput:
		if in != nil {
			return one(onIndex(op, in.TableName, in.IndexName))
		}
	case *dynamodb.ScanInput:
		if in != nil {
			return one(onIndex(op, in.TableName, in.IndexName))
		}
	case *dynamodb.BatchGetItemInput:
		if in != nil {
			return onTables(op, mapKeys(in.RequestItems)), true
		}
	case *dynamodb.BatchWriteItemInput:
		if in != nil {
			return onTables(op, mapKeys(in.RequestItems)), true
		}
	case *dynamodb.TransactGetItemsInput:
		if in != nil {
			for _, it := range in.TransactItems {
				if it.Get != nil {
					reqs = append(reqs, onTable("GetItem", it.Get.TableName))
				}
			}
			return reqs, true
		}
	case *dynamodb.TransactWriteItemsInput:
		if in != nil {
			for _, it := range in.TransactItems {
				switch {
				case it.Put != nil:
					reqs = append(reqs, onTable("PutItem", it.Put.TableName))
				case it.Update != nil:
					reqs = append(reqs, onTable("UpdateItem", it.Update.TableName))
				case it.Delete != nil:
					reqs = append(reqs, onTable("DeleteItem", it.Delete.TableName))
				case it.ConditionCheck != nil:
					reqs = append(reqs, onTable("ConditionCheckItem", it.ConditionCheck.TableName))
				}
			}
			return reqs, true
		}
	case *dynamodb.ExecuteStatementInput:
		if in != nil {
			return partiQLRequests(env, pk, "", types.ParameterizedStatement{Statement: in.Statement, Parameters: in.Parameters})
		}
	case *dynamodb.BatchExecuteStatementInput:
		if in != nil {
			sts := make([]types.ParameterizedStatement, len(in.Statements))
			for i, st := range in.Statements {
				sts[i] = types.ParameterizedStatement{Statement: st.Statement, Parameters: st.Parameters}
			}
			return partiQLRequests(env, pk, "", sts...)
		}
	case *dynamodb.ExecuteTransactionInput:
		if in != nil {
			return partiQLRequests(env, pk, "ExecuteTransaction", in.TransactStatements...)
		}
	case *dynamodbstreams.ListStreamsInput:
		if in != nil {
			// Every stream of the table, or of every table without one.
			name := aws.ToString(in.TableName)
			if name == "" {
				name = "*"
			}
			return one(dyn(op, env.StreamARN(name, "*")))
		}
	case *dynamodbstreams.DescribeStreamInput:
		if in != nil {
			return one(onARN(op, in.StreamArn))
		}
	case *dynamodbstreams.GetShardIteratorInput:
		if in != nil {
			return one(onARN(op, in.StreamArn))
		}
	case *dynamodbstreams.GetRecordsInput:
		if in != nil {
			// An iterator belongs to one stream: GetRecords is authorized
			// on it. One the fake cannot read is refused by the fake.
			it, err := parseShardIterator(aws.ToString(in.ShardIterator))
			if err != nil {
				return nil, false
			}
			return one(dyn(op, it.arn))
		}
	default:
		// An operation Enforced does not describe: authorized on "*", so
		// only a policy allowing it everywhere lets it through.
		return one(dyn(op, "*"))
	}
	return nil, false
}

// The condition keys DynamoDB sets on PartiQL requests.
const (
	// ConditionEnclosingOperation is "ExecuteTransaction" for a statement
	// of a transaction (and absent otherwise): a policy allows PartiQL
	// only inside transactions with StringEquals on it.
	ConditionEnclosingOperation = "dynamodb:EnclosingOperation"
	// ConditionFullTableScan is "true" for a SELECT that reads the whole
	// table or index (its WHERE clause fixes no partition key with =),
	// "false" for one that does not; a policy denies the scans with
	// {"Bool": {"dynamodb:FullTableScan": "true"}}.
	ConditionFullTableScan = "dynamodb:FullTableScan"
)

// partiQLRequests authorizes PartiQL statements as IAM does (the
// developer guide's "IAM security policies with PartiQL for DynamoDB"):
// dynamodb:PartiQLSelect, PartiQLInsert, PartiQLUpdate or PartiQLDelete,
// by the statement's verb, on the table or on the index a SELECT names
// ("Table"."Index"). There is no dynamodb:ExecuteStatement action to
// grant. The reference names no action for EXISTS(SELECT ...), a
// transaction's condition check: it reads the item, so it is authorized
// as PartiQLSelect. Every statement of a batch or transaction must be
// allowed; one refused refuses the whole request (a batch is never half
// authorized here, which is never looser than DynamoDB).
func partiQLRequests(env iam.Env, pk func(table, index string) (string, bool), enclosing string, sts ...types.ParameterizedStatement) ([]iam.Request, bool) {
	reqs := make([]iam.Request, 0, len(sts))
	for _, ps := range sts {
		st, err := parseStatement(aws.ToString(ps.Statement), ps.Parameters)
		if err != nil {
			return nil, false
		}
		action := map[string]string{"SELECT": "PartiQLSelect", "EXISTS": "PartiQLSelect",
			"INSERT": "PartiQLInsert", "UPDATE": "PartiQLUpdate", "DELETE": "PartiQLDelete"}[st.verb]
		if action == "" {
			return nil, false // parseStatement accepts no other verb
		}
		r := iam.Request{Action: "dynamodb:" + action, Resource: env.TableARN(st.table)}
		if st.index != "" {
			r.Resource = env.IndexARN(st.table, st.index)
		}
		ctx := map[string]string{}
		if enclosing != "" {
			ctx[ConditionEnclosingOperation] = enclosing
		}
		if key, ok := pk(st.table, st.index); ok {
			v, fixed := st.p.eqs[key]
			if st.verb == "INSERT" {
				v, fixed = st.item[key], st.item[key] != nil
			}
			if st.verb == "SELECT" {
				ctx[ConditionFullTableScan] = strconv.FormatBool(!fixed)
			}
			if text, ok := keyText(v); ok && fixed {
				ctx[ConditionLeadingKeys] = text
			}
		}
		if len(ctx) > 0 {
			r.Context = ctx
		}
		reqs = append(reqs, r)
	}
	return reqs, true
}

// partitionKey names the partition key of table, or of its index, if the
// DB has them.
func (db *DB) partitionKey(table, index string) (string, bool) {
	t := db.table(table)
	if t == nil {
		return "", false
	}
	if index == "" {
		return t.pk.name, true
	}
	t.mu.RLock()
	defer t.mu.RUnlock()
	if ix := t.index(index); ix != nil {
		return ix.pk.name, true
	}
	return "", false
}

func mapKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// Handler serves e over DynamoDB's JSON protocol, as NewHandler serves a
// DB (opts are NewHandler's), with every request authorized first: a
// refused one is answered as DynamoDB answers it (HTTP 400,
// com.amazon.coral.service#AccessDeniedException) and never reaches the
// fake. Streams requests on the same endpoint are authorized the same way.
func (e *Enforced) Handler(opts ...func(*HandlerOptions)) http.Handler {
	inner := NewHandler(e.db, opts...)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			inner.ServeHTTP(w, r)
			return
		}
		target := r.Header.Get("X-Amz-Target")
		in, op, streams := wireInput(target)
		if in == nil {
			// Unknown to the fake: the inner handler answers
			// UnknownOperationException. Authorize it first anyway.
			if err := e.authorize(op, struct{}{}, r.TLS != nil); err != nil {
				writeDenied(w, err)
				return
			}
			inner.ServeHTTP(w, r)
			return
		}
		// Read what authorization needs; a body past DynamoDB's 16 MB
		// request limit goes on to the inner handler, which refuses it.
		const limit = 16 << 20
		head, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(head), r.Body), r.Body}
		if err != nil || len(head) > limit {
			inner.ServeHTTP(w, r)
			return
		}
		body := head
		if len(bytes.TrimSpace(body)) == 0 {
			body = []byte("{}")
		}
		if streams {
			err = json.Unmarshal(body, in)
		} else {
			err = wire.Unmarshal(body, in)
		}
		if err != nil {
			inner.ServeHTTP(w, r) // the inner handler answers SerializationException
			return
		}
		if err := e.authorize(op, in, r.TLS != nil); err != nil {
			writeDenied(w, err)
			return
		}
		inner.ServeHTTP(w, r)
	})
}

// wireInput returns a new input value for a request's X-Amz-Target, the
// operation's name, and whether it is a Streams operation; in is nil for
// an operation the fake does not serve.
func wireInput(target string) (in any, op string, streams bool) {
	if name, ok := strings.CutPrefix(target, streamsTargetPrefix); ok {
		switch name {
		case "ListStreams":
			return new(dynamodbstreams.ListStreamsInput), name, true
		case "DescribeStream":
			return new(dynamodbstreams.DescribeStreamInput), name, true
		case "GetShardIterator":
			return new(dynamodbstreams.GetShardIteratorInput), name, true
		case "GetRecords":
			return new(dynamodbstreams.GetRecordsInput), name, true
		}
		return nil, name, true
	}
	name, _ := strings.CutPrefix(target, targetPrefix)
	if f, ok := wireInputs[name]; ok {
		return f(), name, false
	}
	return nil, name, false
}

var wireInputs = map[string]func() any{
	"CreateTable":               func() any { return new(dynamodb.CreateTableInput) },
	"DeleteTable":               func() any { return new(dynamodb.DeleteTableInput) },
	"DescribeTable":             func() any { return new(dynamodb.DescribeTableInput) },
	"UpdateTable":               func() any { return new(dynamodb.UpdateTableInput) },
	"ListTables":                func() any { return new(dynamodb.ListTablesInput) },
	"UpdateTimeToLive":          func() any { return new(dynamodb.UpdateTimeToLiveInput) },
	"DescribeTimeToLive":        func() any { return new(dynamodb.DescribeTimeToLiveInput) },
	"UpdateContinuousBackups":   func() any { return new(dynamodb.UpdateContinuousBackupsInput) },
	"DescribeContinuousBackups": func() any { return new(dynamodb.DescribeContinuousBackupsInput) },
	"DescribeLimits":            func() any { return new(dynamodb.DescribeLimitsInput) },
	"TagResource":               func() any { return new(dynamodb.TagResourceInput) },
	"UntagResource":             func() any { return new(dynamodb.UntagResourceInput) },
	"ListTagsOfResource":        func() any { return new(dynamodb.ListTagsOfResourceInput) },
	"GetItem":                   func() any { return new(dynamodb.GetItemInput) },
	"PutItem":                   func() any { return new(dynamodb.PutItemInput) },
	"UpdateItem":                func() any { return new(dynamodb.UpdateItemInput) },
	"DeleteItem":                func() any { return new(dynamodb.DeleteItemInput) },
	"Query":                     func() any { return new(dynamodb.QueryInput) },
	"Scan":                      func() any { return new(dynamodb.ScanInput) },
	"BatchGetItem":              func() any { return new(dynamodb.BatchGetItemInput) },
	"BatchWriteItem":            func() any { return new(dynamodb.BatchWriteItemInput) },
	"TransactGetItems":          func() any { return new(dynamodb.TransactGetItemsInput) },
	"TransactWriteItems":        func() any { return new(dynamodb.TransactWriteItemsInput) },
	"ExecuteStatement":          func() any { return new(dynamodb.ExecuteStatementInput) },
	"BatchExecuteStatement":     func() any { return new(dynamodb.BatchExecuteStatementInput) },
	"ExecuteTransaction":        func() any { return new(dynamodb.ExecuteTransactionInput) },
}

// writeDenied answers a refused request as DynamoDB does.
func writeDenied(w http.ResponseWriter, err error) {
	status, body := errorResponse(err, nil)
	h := w.Header()
	h.Set("Content-Type", "application/x-amz-json-1.0")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE(body)), 10))
	w.WriteHeader(status)
	w.Write(body)
}

func (e *Enforced) CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	if err := e.authorize("CreateTable", in, true); err != nil {
		return nil, err
	}
	return e.db.CreateTable(ctx, in, optFns...)
}

func (e *Enforced) DeleteTable(ctx context.Context, in *dynamodb.DeleteTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DeleteTableOutput, error) {
	if err := e.authorize("DeleteTable", in, true); err != nil {
		return nil, err
	}
	return e.db.DeleteTable(ctx, in, optFns...)
}

func (e *Enforced) DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	if err := e.authorize("DescribeTable", in, true); err != nil {
		return nil, err
	}
	return e.db.DescribeTable(ctx, in, optFns...)
}

func (e *Enforced) UpdateTable(ctx context.Context, in *dynamodb.UpdateTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateTableOutput, error) {
	if err := e.authorize("UpdateTable", in, true); err != nil {
		return nil, err
	}
	return e.db.UpdateTable(ctx, in, optFns...)
}

func (e *Enforced) ListTables(ctx context.Context, in *dynamodb.ListTablesInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ListTablesOutput, error) {
	if err := e.authorize("ListTables", orEmpty(in), true); err != nil {
		return nil, err
	}
	return e.db.ListTables(ctx, in, optFns...)
}

func (e *Enforced) UpdateTimeToLive(ctx context.Context, in *dynamodb.UpdateTimeToLiveInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error) {
	if err := e.authorize("UpdateTimeToLive", in, true); err != nil {
		return nil, err
	}
	return e.db.UpdateTimeToLive(ctx, in, optFns...)
}

func (e *Enforced) DescribeTimeToLive(ctx context.Context, in *dynamodb.DescribeTimeToLiveInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error) {
	if err := e.authorize("DescribeTimeToLive", in, true); err != nil {
		return nil, err
	}
	return e.db.DescribeTimeToLive(ctx, in, optFns...)
}

func (e *Enforced) UpdateContinuousBackups(ctx context.Context, in *dynamodb.UpdateContinuousBackupsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateContinuousBackupsOutput, error) {
	if err := e.authorize("UpdateContinuousBackups", in, true); err != nil {
		return nil, err
	}
	return e.db.UpdateContinuousBackups(ctx, in, optFns...)
}

func (e *Enforced) DescribeContinuousBackups(ctx context.Context, in *dynamodb.DescribeContinuousBackupsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeContinuousBackupsOutput, error) {
	if err := e.authorize("DescribeContinuousBackups", in, true); err != nil {
		return nil, err
	}
	return e.db.DescribeContinuousBackups(ctx, in, optFns...)
}

func (e *Enforced) DescribeLimits(ctx context.Context, in *dynamodb.DescribeLimitsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeLimitsOutput, error) {
	if err := e.authorize("DescribeLimits", orEmpty(in), true); err != nil {
		return nil, err
	}
	return e.db.DescribeLimits(ctx, in, optFns...)
}

func (e *Enforced) TagResource(ctx context.Context, in *dynamodb.TagResourceInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TagResourceOutput, error) {
	if err := e.authorize("TagResource", in, true); err != nil {
		return nil, err
	}
	return e.db.TagResource(ctx, in, optFns...)
}

func (e *Enforced) UntagResource(ctx context.Context, in *dynamodb.UntagResourceInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UntagResourceOutput, error) {
	if err := e.authorize("UntagResource", in, true); err != nil {
		return nil, err
	}
	return e.db.UntagResource(ctx, in, optFns...)
}

func (e *Enforced) ListTagsOfResource(ctx context.Context, in *dynamodb.ListTagsOfResourceInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ListTagsOfResourceOutput, error) {
	if err := e.authorize("ListTagsOfResource", in, true); err != nil {
		return nil, err
	}
	return e.db.ListTagsOfResource(ctx, in, optFns...)
}

func (e *Enforced) GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	if err := e.authorize("GetItem", in, true); err != nil {
		return nil, err
	}
	return e.db.GetItem(ctx, in, optFns...)
}

func (e *Enforced) PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	if err := e.authorize("PutItem", in, true); err != nil {
		return nil, err
	}
	return e.db.PutItem(ctx, in, optFns...)
}

func (e *Enforced) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	if err := e.authorize("UpdateItem", in, true); err != nil {
		return nil, err
	}
	return e.db.UpdateItem(ctx, in, optFns...)
}

func (e *Enforced) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	if err := e.authorize("DeleteItem", in, true); err != nil {
		return nil, err
	}
	return e.db.DeleteItem(ctx, in, optFns...)
}

func (e *Enforced) Query(ctx context.Context, in *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	if err := e.authorize("Query", in, true); err != nil {
		return nil, err
	}
	return e.db.Query(ctx, in, optFns...)
}

func (e *Enforced) Scan(ctx context.Context, in *dynamodb.ScanInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	if err := e.authorize("Scan", in, true); err != nil {
		return nil, err
	}
	return e.db.Scan(ctx, in, optFns...)
}

func (e *Enforced) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	if err := e.authorize("BatchGetItem", in, true); err != nil {
		return nil, err
	}
	return e.db.BatchGetItem(ctx, in, optFns...)
}

func (e *Enforced) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	if err := e.authorize("BatchWriteItem", in, true); err != nil {
		return nil, err
	}
	return e.db.BatchWriteItem(ctx, in, optFns...)
}

func (e *Enforced) TransactGetItems(ctx context.Context, in *dynamodb.TransactGetItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactGetItemsOutput, error) {
	if err := e.authorize("TransactGetItems", in, true); err != nil {
		return nil, err
	}
	return e.db.TransactGetItems(ctx, in, optFns...)
}

func (e *Enforced) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	if err := e.authorize("TransactWriteItems", in, true); err != nil {
		return nil, err
	}
	return e.db.TransactWriteItems(ctx, in, optFns...)
}

func (e *Enforced) ExecuteStatement(ctx context.Context, in *dynamodb.ExecuteStatementInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ExecuteStatementOutput, error) {
	if err := e.authorize("ExecuteStatement", in, true); err != nil {
		return nil, err
	}
	return e.db.ExecuteStatement(ctx, in, optFns...)
}

func (e *Enforced) BatchExecuteStatement(ctx context.Context, in *dynamodb.BatchExecuteStatementInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchExecuteStatementOutput, error) {
	if err := e.authorize("BatchExecuteStatement", in, true); err != nil {
		return nil, err
	}
	return e.db.BatchExecuteStatement(ctx, in, optFns...)
}

func (e *Enforced) ExecuteTransaction(ctx context.Context, in *dynamodb.ExecuteTransactionInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ExecuteTransactionOutput, error) {
	if err := e.authorize("ExecuteTransaction", in, true); err != nil {
		return nil, err
	}
	return e.db.ExecuteTransaction(ctx, in, optFns...)
}

func (e *Enforced) ListStreams(ctx context.Context, in *dynamodbstreams.ListStreamsInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.ListStreamsOutput, error) {
	if err := e.authorize("ListStreams", orEmpty(in), true); err != nil {
		return nil, err
	}
	return e.db.ListStreams(ctx, in, optFns...)
}

func (e *Enforced) DescribeStream(ctx context.Context, in *dynamodbstreams.DescribeStreamInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.DescribeStreamOutput, error) {
	if err := e.authorize("DescribeStream", in, true); err != nil {
		return nil, err
	}
	return e.db.DescribeStream(ctx, in, optFns...)
}

func (e *Enforced) GetShardIterator(ctx context.Context, in *dynamodbstreams.GetShardIteratorInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetShardIteratorOutput, error) {
	if err := e.authorize("GetShardIterator", in, true); err != nil {
		return nil, err
	}
	return e.db.GetShardIterator(ctx, in, optFns...)
}

func (e *Enforced) GetRecords(ctx context.Context, in *dynamodbstreams.GetRecordsInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error) {
	if err := e.authorize("GetRecords", in, true); err != nil {
		return nil, err
	}
	return e.db.GetRecords(ctx, in, optFns...)
}

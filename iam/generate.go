package iam

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tablekit/tablekit/access"
	"github.com/tablekit/tablekit/table"
)

// Service is what one service's runtime policy is made from: the tables
// it uses, each with the access patterns its store declares (the store's
// Patterns function, the same declaration capacity planning reads), and
// the S3 objects it reads and writes.
type Service struct {
	Tables  []Table
	Objects []Objects
}

// Table is one table a service uses, and how: its actions come from the
// patterns, so a store's policy follows its declared access patterns and
// a test running the store's flows under that policy (dynamotest.Enforce)
// fails if the store makes a call its patterns do not declare.
type Table struct {
	Schema   table.Schema
	Patterns []access.Pattern
}

// Objects is the part of one bucket a service uses: the keys under Prefix
// and the S3 actions it takes on them.
type Objects struct {
	Bucket string
	// Prefix is the key prefix of the service's objects, ending in "/". It
	// may hold * where ids vary ("journeys/*/backup/"); the object
	// statements cover Prefix followed by anything, and ListBucket is
	// allowed only with an s3:prefix under it.
	Prefix string
	// Actions are the S3 actions taken there: S3GetObject (Get, Head and
	// presigned GETs), S3PutObject (Put and presigned PUTs),
	// S3DeleteObject and S3ListBucket (List).
	Actions []string
}

// The S3 actions a blobstore.Store's calls need.
const (
	S3GetObject    = "s3:GetObject"
	S3PutObject    = "s3:PutObject"
	S3DeleteObject = "s3:DeleteObject"
	S3ListBucket   = "s3:ListBucket"
)

// S3Prefix is the condition key of a ListBucket request's prefix.
const S3Prefix = "s3:prefix"

// ErrInvalidService: a Service the generator cannot bind to exact
// resources (a wildcard table name, a pattern on an index the schema does
// not have, an object prefix without a bucket).
var ErrInvalidService = fmt.Errorf("iam: invalid service description")

// Statement ids of the generated policies.
const (
	SidTable   = "Table"   // item actions on the table
	SidIndexes = "Indexes" // Query/Scan on the named indexes
	SidObjects = "Objects" // object actions under a prefix
	SidList    = "List"    // ListBucket with an s3:prefix condition
	SidAdmin   = "Admin"   // table creation and changes
	SidStream  = "Stream"  // reading a table's stream
	SidLeases  = "Leases"  // a stream consumer's lease table
	SidSource  = "Source"  // describing the consumed table
)

// Runtime is the least-privilege policy a service runs with: on each
// table, the item actions its patterns use (transactions by their inner
// actions, as IAM authorizes them: there is no TransactWriteItems action);
// Query or Scan only on the indexes its patterns read, each index by name;
// the object actions under each prefix, and ListBucket restricted to that
// prefix by an s3:prefix condition. Every ARN names env's region and
// account and one table: never a wildcard. Table creation and changes are
// not here but in Admin.
func Runtime(env Env, svc Service) (Policy, error) {
	if err := env.Check(); err != nil {
		return Policy{}, err
	}
	p := Policy{Version: Version}
	for ti, t := range svc.Tables {
		name := t.Schema.Name
		if name == "" || strings.ContainsAny(name, "*?") {
			return Policy{}, fmt.Errorf("%w: table name %q: a runtime policy names one table", ErrInvalidService, name)
		}
		tableActions := map[string]bool{}
		indexActions := map[string]map[string]bool{}
		for _, ap := range t.Patterns {
			if ap.Index != "" {
				if _, ok := t.Schema.Index(ap.Index); !ok {
					return Policy{}, fmt.Errorf("%w: pattern %q reads index %q, which table %s does not have", ErrInvalidService, ap.Name, ap.Index, name)
				}
			}
			if !ap.Operation.IsRequest() {
				return Policy{}, fmt.Errorf("%w: pattern %q: operation %q is not a request", ErrInvalidService, ap.Name, ap.Operation)
			}
			for _, a := range actionsOf(ap) {
				if ap.Index == "" {
					tableActions[a] = true
					continue
				}
				if indexActions[ap.Index] == nil {
					indexActions[ap.Index] = map[string]bool{}
				}
				indexActions[ap.Index][a] = true
			}
		}
		if len(tableActions) > 0 {
			p.Statement = append(p.Statement, Statement{Sid: numbered(SidTable, ti), Effect: Allow,
				Action: sortedSet(tableActions), Resource: Strings{env.TableARN(name)}})
		}
		// One statement per distinct action set, so an index only queried
		// is never also scannable.
		bySet := map[string][]string{}
		sets := map[string][]string{}
		for ix, acts := range indexActions {
			list := sortedSet(acts)
			k := strings.Join(list, ",")
			sets[k] = list
			bySet[k] = append(bySet[k], env.IndexARN(name, ix))
		}
		keys := make([]string, 0, len(bySet))
		for k := range bySet {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for i, k := range keys {
			res := bySet[k]
			sort.Strings(res)
			p.Statement = append(p.Statement, Statement{Sid: numbered(SidIndexes, ti*10+i), Effect: Allow, Action: sets[k], Resource: res})
		}
	}
	for i, o := range svc.Objects {
		if o.Bucket == "" || o.Prefix == "" || !strings.HasSuffix(o.Prefix, "/") {
			return Policy{}, fmt.Errorf("%w: objects %+v: a bucket and a prefix ending in / are required", ErrInvalidService, o)
		}
		var objActions []string
		list := false
		for _, a := range o.Actions {
			switch a {
			case S3GetObject, S3PutObject, S3DeleteObject:
				objActions = append(objActions, a)
			case S3ListBucket:
				list = true
			default:
				return Policy{}, fmt.Errorf("%w: objects in %s/%s: action %q is not one a blob store takes", ErrInvalidService, o.Bucket, o.Prefix, a)
			}
		}
		sort.Strings(objActions)
		if len(objActions) > 0 {
			p.Statement = append(p.Statement, Statement{Sid: numbered(SidObjects, i), Effect: Allow,
				Action: objActions, Resource: Strings{env.ObjectARN(o.Bucket, o.Prefix+"*")}})
		}
		if list {
			p.Statement = append(p.Statement, Statement{Sid: numbered(SidList, i), Effect: Allow,
				Action: Strings{S3ListBucket}, Resource: Strings{env.BucketARN(o.Bucket)},
				Condition: Condition{StringLike: {S3Prefix: Strings{o.Prefix + "*"}}}})
		}
	}
	return p, p.Validate()
}

// numbered is sid for the first statement of its kind, sid2, sid3, ...
// after it (statement ids must be unique within a policy).
func numbered(sid string, i int) string {
	if i == 0 {
		return sid
	}
	return fmt.Sprintf("%s%d", sid, i+1)
}

// actionsOf lists the IAM actions one access pattern's requests need.
// Transactions are authorized per action inside them (PutItem, UpdateItem,
// DeleteItem, ConditionCheckItem; GetItem for TransactGetItems).
func actionsOf(ap access.Pattern) []string {
	switch ap.Operation {
	case access.TransactGetItems:
		return []string{"dynamodb:GetItem"}
	case access.TransactWriteItems:
		if len(ap.Items) == 0 {
			// Undeclared contents: every action a write transaction may hold.
			return []string{"dynamodb:ConditionCheckItem", "dynamodb:DeleteItem", "dynamodb:PutItem", "dynamodb:UpdateItem"}
		}
		var out []string
		for _, it := range ap.Items {
			op := it.Operation
			if op == "" {
				op = access.PutItem
			}
			if op == access.ConditionCheck {
				out = append(out, "dynamodb:ConditionCheckItem")
			} else {
				out = append(out, "dynamodb:"+string(op))
			}
		}
		return out
	}
	return []string{"dynamodb:" + string(ap.Operation)}
}

// AdminActions are what creating and changing a table takes:
// Schema.EnsureTable (DescribeTable, CreateTable, the TTL pair, point-in-
// time recovery), UpdateTable (capacity, streams: changes.EnableStream)
// and tagging. DeleteTable is in no generated policy.
var AdminActions = []string{
	"dynamodb:CreateTable",
	"dynamodb:DescribeContinuousBackups",
	"dynamodb:DescribeTable",
	"dynamodb:DescribeTimeToLive",
	"dynamodb:ListTagsOfResource",
	"dynamodb:TagResource",
	"dynamodb:UntagResource",
	"dynamodb:UpdateContinuousBackups",
	"dynamodb:UpdateTable",
	"dynamodb:UpdateTimeToLive",
}

// Admin is the policy of whoever creates and changes tables (a deployment
// pipeline, an operator): AdminActions on exactly the named tables. A
// service that creates its table at start-up with EnsureTable needs it
// beside its Runtime policy; one whose tables come from infrastructure
// code does not.
func Admin(env Env, tableNames ...string) (Policy, error) {
	if err := env.Check(); err != nil {
		return Policy{}, err
	}
	if len(tableNames) == 0 {
		return Policy{}, fmt.Errorf("%w: Admin needs a table", ErrInvalidService)
	}
	var res []string
	for _, n := range tableNames {
		if n == "" || strings.ContainsAny(n, "*?") {
			return Policy{}, fmt.Errorf("%w: table name %q: an admin policy names its tables", ErrInvalidService, n)
		}
		res = append(res, env.TableARN(n))
	}
	sort.Strings(res)
	p := Policy{Version: Version, Statement: []Statement{{Sid: SidAdmin, Effect: Allow, Action: append(Strings(nil), AdminActions...), Resource: res}}}
	return p, p.Validate()
}

// StreamActions are what reading a table's stream takes
// (changes.Consumer): the stream's shards, iterators and records.
var StreamActions = []string{"dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator", "dynamodb:ListStreams"}

// LeaseActions are what a changes.Consumer does to its lease table: read a
// lease, then take, renew, checkpoint and release it by conditional
// updates.
var LeaseActions = []string{"dynamodb:GetItem", "dynamodb:UpdateItem"}

// StreamConsumer is the policy of a changes.Consumer of tableName's stream
// keeping its leases in leaseTable: StreamActions on the table's streams
// (every stream label, so the consumer follows the table when its stream
// is turned off and on), DescribeTable on the table (to find its latest
// stream) and LeaseActions on the lease table. Creating the lease table is
// Admin's (Admin(env, leaseTable)).
func StreamConsumer(env Env, tableName, leaseTable string) (Policy, error) {
	if err := env.Check(); err != nil {
		return Policy{}, err
	}
	for _, n := range []string{tableName, leaseTable} {
		if n == "" || strings.ContainsAny(n, "*?") {
			return Policy{}, fmt.Errorf("%w: table name %q: a consumer policy names its tables", ErrInvalidService, n)
		}
	}
	p := Policy{Version: Version, Statement: []Statement{
		{Sid: SidStream, Effect: Allow, Action: append(Strings(nil), StreamActions...), Resource: Strings{env.StreamARN(tableName, "*")}},
		{Sid: SidSource, Effect: Allow, Action: Strings{"dynamodb:DescribeTable"}, Resource: Strings{env.TableARN(tableName)}},
		{Sid: SidLeases, Effect: Allow, Action: append(Strings(nil), LeaseActions...), Resource: Strings{env.TableARN(leaseTable)}},
	}}
	return p, p.Validate()
}

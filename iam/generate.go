package iam

import (
	"fmt"
	"slices"
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
	// Maintenance are the S3 actions only an operator's calls take there
	// (an orphan sweep's ListBucket and DeleteObject, an export's
	// PutObject): Operator grants them beside Actions, Runtime and
	// ReadOnly do not.
	Maintenance []string
	// KMSKeyID names the customer managed KMS key the bucket encrypts
	// its objects with by default (SSE-KMS), by key id or key ARN (an
	// alias is refused: IAM authorizes the key's ARN). S3 asks KMS on the
	// caller's behalf, so the caller needs the key too: ObjectKeyActions
	// for what it puts and gets, only through S3 (kms:ViaService). ""
	// means SSE-S3 or no default encryption: nothing to grant.
	KMSKeyID string
	// Lifecycle says the deployment sets the bucket's lifecycle rules
	// (blobstore.ApplyLifecycle; journey.Store.Setup): Admin grants LifecycleActions on
	// the bucket. Leave it false for a bucket the service shares, whose
	// rules (one configuration a bucket) belong to its owner.
	Lifecycle bool
}

// The S3 actions a blobstore.Store's calls need.
const (
	S3GetObject    = "s3:GetObject"
	S3PutObject    = "s3:PutObject"
	S3DeleteObject = "s3:DeleteObject"
	S3ListBucket   = "s3:ListBucket"

	// S3AbortMultipartUpload is granted with S3PutObject: a Put larger
	// than one part is a multipart upload (blobstore's S3), which is
	// aborted when a part fails; without it the abort is denied and the
	// parts stay, billed, until a lifecycle rule removes them.
	S3AbortMultipartUpload = "s3:AbortMultipartUpload"
)

// S3Prefix is the condition key of a ListBucket request's prefix.
const S3Prefix = "s3:prefix"

// ErrInvalidService: a Service the generator cannot bind to exact
// resources (a wildcard table name, a pattern on an index the schema does
// not have, an object prefix without a bucket).
var ErrInvalidService = fmt.Errorf("iam: invalid service description")

// Statement ids of the generated policies.
const (
	SidTable     = "Table"     // item actions on the table
	SidIndexes   = "Indexes"   // Query/Scan on the named indexes
	SidObjects   = "Objects"   // object actions under a prefix
	SidList      = "List"      // ListBucket with an s3:prefix condition
	SidAdmin     = "Admin"     // table creation and changes
	SidKey       = "Key"       // the customer managed key of the tables
	SidObjectKey = "ObjectKey" // the KMS keys of SSE-KMS buckets, through S3
	SidLifecycle = "Lifecycle" // buckets' lifecycle rules
	SidStream    = "Stream"    // reading a table's stream
	SidLeases    = "Leases"    // a stream consumer's lease table
	SidSource    = "Source"    // describing the consumed table
)

// Runtime is the least-privilege policy a service runs with: on each
// table, the item actions its patterns use (transactions by their inner
// actions, as IAM authorizes them: there is no TransactWriteItems action);
// Query or Scan only on the indexes its patterns read, each index by name;
// the object actions under each prefix, and ListBucket restricted to that
// prefix by an s3:prefix condition; for a table encrypted with a customer
// managed key, KeyUseActions on that key's ARN through DynamoDB only, and
// for a bucket encrypted with one (Objects.KMSKeyID), ObjectKeyActions
// through S3 only. Every ARN names env's region and account and one table:
// never a wildcard. Patterns marked Maintenance (a backfill, an orphan
// sweep, an import) and the objects' Maintenance actions are not here but
// in Operator; table creation and changes are in Admin.
func Runtime(env Env, svc Service) (Policy, error) {
	return generate(env, svc, runtimeRole)
}

// Operator is the policy of whoever runs a service's maintenance calls
// (tablekit's CLI: a backfill, an orphan sweep, an export or import): the
// runtime policy's grants, which those calls and the operator's own reads
// and repairs use, plus the patterns marked Maintenance and the objects'
// Maintenance actions. The service itself runs with Runtime, so a bug or
// a compromise in it cannot scan the table or delete objects wholesale.
func Operator(env Env, svc Service) (Policy, error) {
	return generate(env, svc, operatorRole)
}

// ReadOnly is the policy of a dashboard or an auditor: the reads of the
// service's runtime patterns alone (GetItem, Query, BatchGetItem; a
// TransactGetItems as GetItem), on the table and the indexes they read,
// and GetObject and ListBucket where the service reads objects. No write,
// no Scan. The journey design's "Read-Only Access" (GetItem, Query on the
// table) is this policy for journey's table, with its index and objects.
func ReadOnly(env Env, svc Service) (Policy, error) {
	return generate(env, svc, readOnlyRole)
}

// role selects what a generated policy grants.
type role int

const (
	runtimeRole role = iota
	operatorRole
	readOnlyRole
)

// keeps reports whether the policy of role grants pattern ap.
func (r role) keeps(ap access.Pattern) bool {
	switch r {
	case operatorRole:
		return true
	case readOnlyRole:
		return !ap.Maintenance && readOnlyOp(ap.Operation)
	}
	return !ap.Maintenance
}

// readOnlyOp reports whether a request of op only reads items by key.
func readOnlyOp(op access.Op) bool {
	switch op {
	case access.GetItem, access.Query, access.BatchGetItem, access.TransactGetItems:
		return true
	}
	return false
}

// objectActions are the S3 actions the policy of role grants on o.
func (r role) objectActions(o Objects) []string {
	switch r {
	case operatorRole:
		out := append([]string(nil), o.Actions...)
		for _, a := range o.Maintenance {
			if !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
		return out
	case readOnlyRole:
		var out []string
		for _, a := range o.Actions {
			if a == S3GetObject || a == S3ListBucket {
				out = append(out, a)
			}
		}
		return out
	}
	return o.Actions
}

func generate(env Env, svc Service, r role) (Policy, error) {
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
			if ap.Operation == access.TransactWriteItems && len(ap.Items) == 0 {
				// Granting every action a transaction may hold would give
				// a store that only puts the right to delete.
				return Policy{}, fmt.Errorf("%w: pattern %q: a write transaction must declare its items (Pattern.Items), whose actions the policy grants", ErrInvalidService, ap.Name)
			}
			if !r.keeps(ap) {
				continue
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
	keys, err := customerKeys(env, svc.Tables)
	if err != nil {
		return Policy{}, err
	}
	if len(keys) > 0 {
		p.Statement = append(p.Statement, keyStatement(env, keys, KeyUseActions))
	}
	var objectKeys []objectKey
	for i, o := range svc.Objects {
		if o.Bucket == "" || o.Prefix == "" || !strings.HasSuffix(o.Prefix, "/") {
			return Policy{}, fmt.Errorf("%w: objects %+v: a bucket and a prefix ending in / are required", ErrInvalidService, o)
		}
		var objActions []string
		list := false
		for _, a := range append(append([]string(nil), o.Actions...), o.Maintenance...) {
			switch a {
			case S3GetObject, S3PutObject, S3DeleteObject, S3ListBucket:
			default:
				return Policy{}, fmt.Errorf("%w: objects in %s/%s: action %q is not one a blob store takes", ErrInvalidService, o.Bucket, o.Prefix, a)
			}
		}
		for _, a := range r.objectActions(o) {
			switch a {
			case S3GetObject, S3PutObject, S3DeleteObject:
				objActions = append(objActions, a)
			case S3ListBucket:
				list = true
			}
		}
		if slices.Contains(objActions, S3PutObject) {
			objActions = append(objActions, S3AbortMultipartUpload)
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
		if o.KMSKeyID != "" {
			k, err := objectKeyOf(env, o, objActions)
			if err != nil {
				return Policy{}, err
			}
			objectKeys = append(objectKeys, k)
		}
	}
	p.Statement = append(p.Statement, objectKeyStatements(env, objectKeys)...)
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
// DeleteItem, ConditionCheckItem, by the pattern's Items, which Runtime
// requires of a write transaction; GetItem for TransactGetItems).
func actionsOf(ap access.Pattern) []string {
	switch ap.Operation {
	case access.TransactGetItems:
		return []string{"dynamodb:GetItem"}
	case access.TransactWriteItems:
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
// Schema.EnsureTable (DescribeTable, CreateTable with the schema's Tags,
// which DynamoDB authorizes as dynamodb:TagResource too, the TTL pair,
// point-in-time recovery, ListTagsOfResource to compare an existing
// table's tags) and UpdateTable (capacity, encryption key, deletion
// protection, streams: changes.EnableStream). DeleteTable is in no
// generated policy, and no tablekit call tags an existing table or
// removes a tag (TagResource on an existing table, UntagResource: the
// infrastructure tool's, whose role has its own policy).
var AdminActions = []string{
	"dynamodb:CreateTable",
	"dynamodb:DescribeContinuousBackups",
	"dynamodb:DescribeTable",
	"dynamodb:DescribeTimeToLive",
	"dynamodb:ListTagsOfResource",
	"dynamodb:TagResource",
	"dynamodb:UpdateContinuousBackups",
	"dynamodb:UpdateTable",
	"dynamodb:UpdateTimeToLive",
}

// KMSActions are the permissions DynamoDB needs on a customer managed key
// from the principal that creates a table encrypted with it, or switches
// a table to it (the DynamoDB developer guide, "Encryption at rest: how it
// works", key policy for a customer managed key): DynamoDB creates a grant
// for the table on that principal's behalf and uses the key through it.
// The principals that only read and write items need none of them.
var KMSActions = []string{
	"kms:CreateGrant",
	"kms:Decrypt",
	"kms:DescribeKey",
	"kms:Encrypt",
	"kms:GenerateDataKey*",
	"kms:ReEncrypt*",
}

// KeyUseActions are what a principal that reads and writes items of a
// table encrypted with a customer managed key needs on the key: DynamoDB
// decrypts the table key with kms:Decrypt on behalf of the principal
// accessing the table (the AWS KMS developer guide, "How Amazon DynamoDB
// uses AWS KMS", whose CloudTrail example names that principal). Whether
// the identity policy must grant it depends on the key policy; granting
// it here, through DynamoDB only, works with a key policy that delegates
// to IAM.
var KeyUseActions = []string{"kms:Decrypt"}

// customerKeys lists the ARNs of the customer managed keys of tables,
// sorted and without repeats.
func customerKeys(env Env, tables []Table) ([]string, error) {
	var keys []string
	for _, t := range tables {
		if e := t.Schema.Provisioning.Encryption; e.KMS && e.KMSKeyID != "" {
			arn, err := env.KeyARN(e.KMSKeyID)
			if err != nil {
				return nil, fmt.Errorf("%w: table %s: %w", ErrInvalidService, t.Schema.Name, err)
			}
			if !slices.Contains(keys, arn) {
				keys = append(keys, arn)
			}
		}
	}
	sort.Strings(keys)
	return keys, nil
}

// keyStatement allows actions on keys only when DynamoDB makes the
// request (kms:ViaService): the key cannot be used directly.
func keyStatement(env Env, keys, actions []string) Statement {
	return Statement{Sid: SidKey, Effect: Allow, Action: append(Strings(nil), actions...), Resource: keys,
		Condition: Condition{StringEquals: {KMSViaService: Strings{"dynamodb." + env.Region + ".amazonaws.com"}}}}
}

// The KMS actions S3 takes on a caller's behalf with an SSE-KMS bucket's
// key (the Amazon S3 user guide, "Using server-side encryption with AWS
// KMS keys"): kms:GenerateDataKey to encrypt what it puts, kms:Decrypt to
// read it back and to complete a multipart upload (whose parts it
// decrypts), which blobstore's S3 store uses past one part.
const (
	KMSGenerateDataKey = "kms:GenerateDataKey"
	KMSDecrypt         = "kms:Decrypt"
)

// objectKey is one SSE-KMS key and what the objects under it need.
type objectKey struct {
	arn     string
	actions []string
}

// objectKeyOf is the key of o's bucket with the KMS actions its object
// actions need: GenerateDataKey and Decrypt for a put, Decrypt for a get.
func objectKeyOf(env Env, o Objects, objActions []string) (objectKey, error) {
	arn, err := env.KeyARN(o.KMSKeyID)
	if err != nil {
		return objectKey{}, fmt.Errorf("%w: objects in %s/%s: %w", ErrInvalidService, o.Bucket, o.Prefix, err)
	}
	k := objectKey{arn: arn}
	if slices.Contains(objActions, S3PutObject) {
		k.actions = append(k.actions, KMSGenerateDataKey, KMSDecrypt)
	}
	if slices.Contains(objActions, S3GetObject) && !slices.Contains(k.actions, KMSDecrypt) {
		k.actions = append(k.actions, KMSDecrypt)
	}
	return k, nil
}

// objectKeyStatements allow, through S3 only, each key's actions on that
// key: one statement per distinct action set, keys sorted.
func objectKeyStatements(env Env, keys []objectKey) []Statement {
	bySet := map[string][]string{}
	sets := map[string][]string{}
	for _, k := range keys {
		if len(k.actions) == 0 {
			continue
		}
		acts := append([]string(nil), k.actions...)
		sort.Strings(acts)
		set := strings.Join(acts, ",")
		sets[set] = acts
		if !slices.Contains(bySet[set], k.arn) {
			bySet[set] = append(bySet[set], k.arn)
		}
	}
	order := make([]string, 0, len(bySet))
	for set := range bySet {
		order = append(order, set)
	}
	sort.Strings(order)
	var out []Statement
	for i, set := range order {
		res := bySet[set]
		sort.Strings(res)
		out = append(out, Statement{Sid: numbered(SidObjectKey, i), Effect: Allow, Action: sets[set], Resource: res,
			Condition: Condition{StringEquals: {KMSViaService: Strings{"s3." + env.Region + ".amazonaws.com"}}}})
	}
	return out
}

// LifecycleActions are what setting a bucket's lifecycle rules takes
// (blobstore.ApplyLifecycle on s3blob's Store: PutBucketLifecycleConfiguration).
// tablekit never reads the configuration back, so
// s3:GetLifecycleConfiguration is not granted.
var LifecycleActions = []string{S3PutLifecycleConfiguration}

// S3PutLifecycleConfiguration is the action of setting a bucket's
// lifecycle rules (PutBucketLifecycleConfiguration).
const S3PutLifecycleConfiguration = "s3:PutLifecycleConfiguration"

// LeadingKeys is DynamoDB's condition key of the partition key value a
// request names (its fine-grained access control).
const LeadingKeys = "dynamodb:LeadingKeys"

// Condition keys of the admin policy's KMS statement.
const (
	// KMSViaService limits a key's use to requests DynamoDB makes on the
	// principal's behalf: the key cannot be used directly.
	KMSViaService = "kms:ViaService"
)

// Admin is the policy of whoever creates and changes svc's tables (a
// deployment pipeline, an operator): AdminActions on exactly its tables;
// for a table whose schema names a customer managed key
// (Schema.Provisioning.Encryption.KMSKeyID), KMSActions on that key's ARN,
// only through DynamoDB (kms:ViaService); and LifecycleActions on each
// bucket whose Objects set Lifecycle. The AWS managed key
// (Encryption.KMS without a key id) needs no statement: its key policy
// lets every principal of the account use it through DynamoDB. A key
// named by alias is refused: IAM authorizes a key's use on its key ARN,
// so name the key by id or ARN. A service that creates its table at
// start-up with EnsureTable needs Admin beside its Runtime policy; one
// whose tables come from infrastructure code does not.
func Admin(env Env, svc Service) (Policy, error) {
	if err := env.Check(); err != nil {
		return Policy{}, err
	}
	if len(svc.Tables) == 0 {
		return Policy{}, fmt.Errorf("%w: Admin needs a table", ErrInvalidService)
	}
	var tables, buckets []string
	for _, t := range svc.Tables {
		n := t.Schema.Name
		if n == "" || strings.ContainsAny(n, "*?") {
			return Policy{}, fmt.Errorf("%w: table name %q: an admin policy names its tables", ErrInvalidService, n)
		}
		tables = append(tables, env.TableARN(n))
	}
	keys, err := customerKeys(env, svc.Tables)
	if err != nil {
		return Policy{}, err
	}
	for _, o := range svc.Objects {
		if !o.Lifecycle {
			continue
		}
		if o.Bucket == "" || strings.ContainsAny(o.Bucket, "*?") {
			return Policy{}, fmt.Errorf("%w: bucket %q: an admin policy names its buckets", ErrInvalidService, o.Bucket)
		}
		if arn := env.BucketARN(o.Bucket); !slices.Contains(buckets, arn) {
			buckets = append(buckets, arn)
		}
	}
	sort.Strings(tables)
	p := Policy{Version: Version, Statement: []Statement{{Sid: SidAdmin, Effect: Allow, Action: append(Strings(nil), AdminActions...), Resource: tables}}}
	if len(keys) > 0 {
		p.Statement = append(p.Statement, keyStatement(env, keys, KMSActions))
	}
	if len(buckets) > 0 {
		sort.Strings(buckets)
		p.Statement = append(p.Statement, Statement{Sid: SidLifecycle, Effect: Allow, Action: append(Strings(nil), LifecycleActions...), Resource: buckets})
	}
	return p, p.Validate()
}

// StreamActions are what reading a table's stream takes
// (changes.Consumer): the stream's shards, iterators and records. The
// consumer finds the stream with DescribeTable (LatestStreamArn), never
// ListStreams, so that is not granted.
var StreamActions = []string{"dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator"}

// LeaseActions are what a changes.Consumer does to its lease table: read a
// lease, then take, renew, checkpoint and release it by conditional
// updates.
var LeaseActions = []string{"dynamodb:GetItem", "dynamodb:UpdateItem"}

// StreamConsumer is the policy of a changes.Consumer of the source table's
// stream keeping its leases in leaseTable under the partition key value
// leaseKey (changes.LeaseKey of the source table and the consumer group):
// StreamActions on the table's streams (every stream label, so the
// consumer follows the table when its stream is turned off and on),
// DescribeTable on the table (to find its latest stream), LeaseActions on
// the lease table only for items in the group's partition (dynamodb:
// LeadingKeys, so one group cannot read or take another's leases though
// every consumer shares the table) and, when the source is encrypted with
// a customer managed key, KeyUseActions on that key through DynamoDB (a
// stream is encrypted with its table's key). Creating the lease table is
// Admin's (its Service's Tables holding changes.LeaseSchema(leaseTable)).
func StreamConsumer(env Env, source table.Schema, leaseTable, leaseKey string) (Policy, error) {
	if err := env.Check(); err != nil {
		return Policy{}, err
	}
	tableName := source.Name
	for _, n := range []string{tableName, leaseTable} {
		if n == "" || strings.ContainsAny(n, "*?") {
			return Policy{}, fmt.Errorf("%w: table name %q: a consumer policy names its tables", ErrInvalidService, n)
		}
	}
	if leaseKey == "" || strings.ContainsAny(leaseKey, "*?") {
		return Policy{}, fmt.Errorf("%w: lease key %q: a consumer policy names its group's partition (changes.LeaseKey)", ErrInvalidService, leaseKey)
	}
	p := Policy{Version: Version, Statement: []Statement{
		{Sid: SidStream, Effect: Allow, Action: append(Strings(nil), StreamActions...), Resource: Strings{env.StreamARN(tableName, "*")}},
		{Sid: SidSource, Effect: Allow, Action: Strings{"dynamodb:DescribeTable"}, Resource: Strings{env.TableARN(tableName)}},
		{Sid: SidLeases, Effect: Allow, Action: append(Strings(nil), LeaseActions...), Resource: Strings{env.TableARN(leaseTable)},
			Condition: Condition{ForAllValuesStringEquals: {LeadingKeys: Strings{leaseKey}}}},
	}}
	keys, err := customerKeys(env, []Table{{Schema: source}})
	if err != nil {
		return Policy{}, err
	}
	if len(keys) > 0 {
		p.Statement = append(p.Statement, keyStatement(env, keys, KeyUseActions))
	}
	return p, p.Validate()
}

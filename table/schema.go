package table

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Attribute is a key attribute: its name and scalar type (S, N or B).
type Attribute struct {
	Name string
	Type types.ScalarAttributeType
}

// Index is a secondary index: a global one unless Local is set.
// SortKey.Name == "" means the index has no sort key; Projection "" means
// ALL.
type Index struct {
	Name             string
	PartitionKey     Attribute
	SortKey          Attribute
	Projection       types.ProjectionType
	NonKeyAttributes []string // for Projection INCLUDE
	// Local makes the index a local secondary index: it shares the
	// table's partition key (PartitionKey must be the table's) and has a
	// sort key of its own; the table must have a sort key, and holds at
	// most MaxLocalIndexes of them. DynamoDB creates local indexes with
	// the table only (no UpdateTable adds one), reads them strongly
	// consistent on request (global ones only eventually), charges their
	// writes to the table's capacity, and caps each partition key value
	// of a table that has one (its items and their local index entries)
	// at 10 GB: a write that would pass it fails with
	// ItemCollectionSizeLimitExceededException.
	Local bool
}

// MaxLocalIndexes is DynamoDB's limit of local secondary indexes per table.
const MaxLocalIndexes = 5

// Schema describes a table as CreateTable needs it: its keys, global
// secondary indexes, TTL attribute and stream. How a service uses the
// table (its access patterns and rates) is declared apart, with package
// access.
type Schema struct {
	Name         string
	PartitionKey Attribute
	SortKey      Attribute // Name == "" for a table without a sort key
	Indexes      []Index
	TTLAttribute string
	// Stream is the view of the table's DynamoDB Stream its consumers need
	// (changes.Consumer): KEYS_ONLY, NEW_IMAGE, OLD_IMAGE or
	// NEW_AND_OLD_IMAGES. "" means none is required: a table that streams
	// anyway is not drift. Create makes the table with it; EnsureTable
	// turns it on for an existing table that has none (as it does TTL)
	// and reports a table streaming another view as drift, which it does
	// not change: a new view starts a new stream, and the consumers would
	// lose their place in the old one.
	Stream types.StreamViewType
	// Provisioning: capacity, encryption, backups and deletion protection
	// (see provisioning.go). The zero value is on-demand with DynamoDB's
	// defaults.
	Provisioning Provisioning
	// Tags are the tags the table carries, key to value (the jobs
	// design's Name = photoeditor-{env}-jobs; see tags.go for DynamoDB's
	// limits, which Validate applies). Create tags the table in its
	// CreateTable request. EnsureTable and Check report a tag an existing
	// table lacks, or carries with another value, as drift (setting
	// "Tag <key>") and change nothing: tagging an existing table is the
	// operator's call (TagResource, from the infrastructure tool). Tags
	// the table carries beyond these are not drift. A Name tag equal to
	// the table's name follows it through WithName.
	Tags map[string]string
}

// WithName returns a copy of s for a table with another name, as services
// do per environment ("photoeditor-dev-jobs", "photoeditor-prod-jobs").
func (s Schema) WithName(name string) Schema {
	if s.Tags != nil {
		tags := maps.Clone(s.Tags)
		if tags[NameTag] == s.Name {
			tags[NameTag] = name
		}
		s.Tags = tags
	}
	s.Name = name
	s.Indexes = append([]Index(nil), s.Indexes...)
	return s
}

// NameTag is the tag key AWS consoles show as a resource's name; the
// jobs design tags its table Name = photoeditor-{env}-jobs.
const NameTag = "Name"

// Index returns the index called name.
func (s Schema) Index(name string) (Index, bool) {
	for _, ix := range s.Indexes {
		if ix.Name == name {
			return ix, true
		}
	}
	return Index{}, false
}

// Validate checks the schema the way CreateTable would, and more: names are
// set, key types are S, N or B, one attribute never has two types, index
// names are unique, projections are well formed.
func (s Schema) Validate() error {
	// DynamoDB table names: 3 to 255 of [a-zA-Z0-9_.-].
	if len(s.Name) < 3 || len(s.Name) > 255 || !validName(s.Name) {
		return inputErr("schema.Name", fmt.Sprintf("%q", s.Name), "table names are 3 to 255 characters of a-z, A-Z, 0-9, '_', '-' and '.'")
	}
	attrTypes := map[string]types.ScalarAttributeType{}
	check := func(field string, a Attribute, required bool) error {
		if a.Name == "" {
			if required || a.Type != "" {
				return inputErr(field+".Name", `""`, "key attribute name is empty")
			}
			return nil
		}
		switch a.Type {
		case "S", "N", "B":
		default:
			return inputErr(field+".Type", fmt.Sprintf("%q", a.Type), "key attribute type must be S, N or B")
		}
		if t, ok := attrTypes[a.Name]; ok && t != a.Type {
			return inputErr(field, a.Name, fmt.Sprintf("attribute declared as both %s and %s", t, a.Type))
		}
		attrTypes[a.Name] = a.Type
		return nil
	}
	if err := check("schema.PartitionKey", s.PartitionKey, true); err != nil {
		return err
	}
	if err := check("schema.SortKey", s.SortKey, false); err != nil {
		return err
	}
	if s.SortKey.Name != "" && s.SortKey.Name == s.PartitionKey.Name {
		return inputErr("schema.SortKey", s.SortKey.Name, "sort key must differ from the partition key")
	}
	seen := map[string]bool{}
	locals := 0
	for i, ix := range s.Indexes {
		field := fmt.Sprintf("schema.Indexes[%d]", i)
		if len(ix.Name) < 3 || len(ix.Name) > 255 || !validName(ix.Name) {
			return inputErr(field+".Name", fmt.Sprintf("%q", ix.Name), "index names are 3 to 255 characters of a-z, A-Z, 0-9, '_', '-' and '.'")
		}
		if seen[ix.Name] {
			return inputErr(field+".Name", ix.Name, "duplicate index name")
		}
		seen[ix.Name] = true
		if err := check(field+".PartitionKey", ix.PartitionKey, true); err != nil {
			return err
		}
		if err := check(field+".SortKey", ix.SortKey, false); err != nil {
			return err
		}
		if ix.Local {
			if err := s.validateLocal(field, ix, &locals); err != nil {
				return err
			}
		}
		switch ix.Projection {
		case "", types.ProjectionTypeAll, types.ProjectionTypeKeysOnly:
			if len(ix.NonKeyAttributes) > 0 {
				return inputErr(field+".NonKeyAttributes", fmt.Sprint(ix.NonKeyAttributes), "only an INCLUDE projection lists non-key attributes")
			}
		case types.ProjectionTypeInclude:
			if len(ix.NonKeyAttributes) == 0 {
				return inputErr(field+".NonKeyAttributes", "[]", "an INCLUDE projection needs at least one attribute")
			}
		default:
			return inputErr(field+".Projection", string(ix.Projection), "projection must be ALL, KEYS_ONLY or INCLUDE")
		}
	}
	if err := s.Provisioning.validate(s); err != nil {
		return err
	}
	if err := s.validateTags(); err != nil {
		return err
	}
	if s.Stream != "" && !validStreamView(s.Stream) {
		return inputErr("schema.Stream", string(s.Stream), "a stream view is KEYS_ONLY, NEW_IMAGE, OLD_IMAGE or NEW_AND_OLD_IMAGES")
	}
	if s.TTLAttribute != "" {
		if _, isKey := attrTypes[s.TTLAttribute]; isKey {
			return inputErr("schema.TTLAttribute", s.TTLAttribute, "the TTL attribute cannot be a key attribute")
		}
	}
	return nil
}

// validateLocal checks what CreateTable refuses of a local secondary index
// (DynamoDB's rules, as the fake says them): on a table with a sort key,
// keyed by the table's partition key and a sort key of its own, at most
// MaxLocalIndexes. locals counts the local indexes seen so far.
func (s Schema) validateLocal(field string, ix Index, locals *int) error {
	if *locals++; *locals > MaxLocalIndexes {
		return inputErr(field+".Local", ix.Name, fmt.Sprintf("a table has at most %d local secondary indexes", MaxLocalIndexes))
	}
	if s.SortKey.Name == "" {
		return inputErr(field+".Local", ix.Name, "local secondary indexes need a table with a sort key")
	}
	// Its type is the table's by the one-type-per-attribute rule above.
	if ix.PartitionKey.Name != s.PartitionKey.Name {
		return inputErr(field+".PartitionKey", ix.PartitionKey.Name, fmt.Sprintf("a local secondary index has the table's partition key (%s %s)", s.PartitionKey.Name, s.PartitionKey.Type))
	}
	if ix.SortKey.Name == "" {
		return inputErr(field+".SortKey", `""`, "a local secondary index needs a sort key")
	}
	return nil
}

func validName(s string) bool {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// CreateTableInput is the CreateTable request for the schema: on-demand
// (PAY_PER_REQUEST) billing unless Provisioning.Capacity is set, with
// Provisioning's encryption and deletion protection. (Point-in-time
// recovery is a separate call, made by Create.)
func (s Schema) CreateTableInput() *dynamodb.CreateTableInput {
	var defs []types.AttributeDefinition
	defined := map[string]bool{}
	define := func(a Attribute) {
		if a.Name != "" && !defined[a.Name] {
			defined[a.Name] = true
			defs = append(defs, types.AttributeDefinition{AttributeName: aws.String(a.Name), AttributeType: a.Type})
		}
	}
	keySchema := func(pk, sk Attribute) []types.KeySchemaElement {
		define(pk)
		ks := []types.KeySchemaElement{{AttributeName: aws.String(pk.Name), KeyType: types.KeyTypeHash}}
		if sk.Name != "" {
			define(sk)
			ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(sk.Name), KeyType: types.KeyTypeRange})
		}
		return ks
	}
	in := &dynamodb.CreateTableInput{
		TableName:   aws.String(s.Name),
		BillingMode: types.BillingModePayPerRequest,
		KeySchema:   keySchema(s.PartitionKey, s.SortKey),
	}
	for _, ix := range s.Indexes {
		p := ix.Projection
		if p == "" {
			p = types.ProjectionTypeAll
		}
		proj := &types.Projection{ProjectionType: p}
		if p == types.ProjectionTypeInclude {
			proj.NonKeyAttributes = append([]string(nil), ix.NonKeyAttributes...)
		}
		if ix.Local {
			in.LocalSecondaryIndexes = append(in.LocalSecondaryIndexes, types.LocalSecondaryIndex{
				IndexName:  aws.String(ix.Name),
				KeySchema:  keySchema(ix.PartitionKey, ix.SortKey),
				Projection: proj,
			})
			continue
		}
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{
			IndexName:  aws.String(ix.Name),
			KeySchema:  keySchema(ix.PartitionKey, ix.SortKey),
			Projection: proj,
		})
	}
	in.AttributeDefinitions = defs
	if s.Stream != "" {
		in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: s.Stream}
	}
	s.Provisioning.provision(in)
	in.Tags = s.tagList()
	return in
}

// Create creates the table (with its stream, when Stream is set), waits
// until it and its indexes are ACTIVE, enables TTL on TTLAttribute and
// point-in-time recovery when Provisioning asks for it. A table that
// already exists is ErrAlreadyExists (use EnsureTable to accept it).
func (s Schema) Create(ctx context.Context, db API) error {
	if err := s.Validate(); err != nil {
		return err
	}
	if err := checkClient(ctx, db); err != nil {
		return err
	}
	out, err := db.CreateTable(ctx, s.CreateTableInput())
	if err != nil {
		return wrapError("create table", s.Name, "", err)
	}
	if err := s.finish(ctx, db); err != nil {
		return err
	}
	return s.enableRecovery(ctx, db, out.TableDescription)
}

// finish waits for ACTIVE and turns TTL on.
func (s Schema) finish(ctx context.Context, db API) error {
	if _, err := waitActive(ctx, db, s.Name); err != nil {
		return err
	}
	if s.TTLAttribute == "" {
		return nil
	}
	ttl, err := db.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(s.Name)})
	if err != nil {
		return wrapError("describe time to live", s.Name, "", err)
	}
	if d := ttl.TimeToLiveDescription; d != nil && deref(d.AttributeName) == s.TTLAttribute &&
		(d.TimeToLiveStatus == types.TimeToLiveStatusEnabled || d.TimeToLiveStatus == types.TimeToLiveStatusEnabling) {
		return nil
	}
	_, err = db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName: aws.String(s.Name),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{
			AttributeName: aws.String(s.TTLAttribute),
			Enabled:       aws.Bool(true),
		},
	})
	return wrapError("update time to live", s.Name, "", err)
}

// EnsureTable creates the table if it is missing (with its Provisioning,
// Stream and Tags) and otherwise checks that the existing one has the schema's
// keys and indexes (ErrSchemaMismatch if not) and its Provisioning, tags and
// stream view (a *DriftError listing every difference if not; nothing is
// changed: no TagResource, no UpdateTable for capacity or keys), turns on a missing stream, waits for the table to be ACTIVE
// and makes sure TTL is enabled. It is what a service calls at start-up.
func (s Schema) EnsureTable(ctx context.Context, db API) error {
	if err := s.Validate(); err != nil {
		return err
	}
	if err := checkClient(ctx, db); err != nil {
		return err
	}
	created := false
	out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(s.Name)})
	if err != nil {
		if !errors.Is(wrapError("", "", "", err), ErrTableNotFound) {
			return wrapError("describe table", s.Name, "", err)
		}
		err = s.Create(ctx, db)
		if !errors.Is(err, ErrAlreadyExists) {
			return err
		}
		// Someone else created it between our DescribeTable and CreateTable.
		if out, err = db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(s.Name)}); err != nil {
			return wrapError("describe table", s.Name, "", err)
		}
		// Its creator tagged it in its CreateTable; ListTagsOfResource is
		// eventually consistent and may not show the tags yet, so they
		// are not compared.
		created = true
	}
	if err := s.matches(out.Table); err != nil {
		return err
	}
	if err := s.drift(ctx, db, out.Table, !created); err != nil {
		return err
	}
	if s.Stream != "" && !streaming(out.Table) {
		if _, err := s.enableStream(ctx, db); err != nil {
			return err
		}
	}
	return s.finish(ctx, db)
}

// keyDrifts lists every way an existing table's keys and indexes differ
// from s: the table's key attributes and types, and per index of s whether
// it is there, its keys and its projection. No update fixes the table's own
// keys, so EnsureTable refuses any of these (ErrSchemaMismatch).
func (s Schema) keyDrifts(d *types.TableDescription) []Drift {
	attrTypes := map[string]types.ScalarAttributeType{}
	for _, a := range d.AttributeDefinitions {
		attrTypes[deref(a.AttributeName)] = a.AttributeType
	}
	var drifts []Drift
	keys := func(what string, ks []types.KeySchemaElement, pk, sk Attribute) {
		want := fmt.Sprintf("%s %s", pk.Name, pk.Type)
		if sk.Name != "" {
			want += fmt.Sprintf(", %s %s", sk.Name, sk.Type)
		}
		got := ""
		for i, k := range ks {
			if i > 0 {
				got += ", "
			}
			got += fmt.Sprintf("%s %s", deref(k.AttributeName), attrTypes[deref(k.AttributeName)])
		}
		if got != want {
			drifts = append(drifts, Drift{Setting: what + " keys", Want: "(" + want + ")", Got: "(" + got + ")"})
		}
	}
	keys("table", d.KeySchema, s.PartitionKey, s.SortKey)
	for _, ix := range s.Indexes {
		found, local := describedIndex(d, ix.Name)
		if found == nil {
			drifts = append(drifts, Drift{Setting: "index " + ix.Name, Want: "present", Got: "missing"})
			continue
		}
		if local != ix.Local {
			drifts = append(drifts, Drift{Setting: "index " + ix.Name, Want: indexKind(ix.Local), Got: indexKind(local)})
			continue
		}
		keys("index "+ix.Name, found.keySchema, ix.PartitionKey, ix.SortKey)
		// DynamoDB always describes the projection; a description without
		// one (a hand-written double) says nothing to compare.
		want := cmp.Or(ix.Projection, types.ProjectionTypeAll)
		if found.projection != nil && found.projection.ProjectionType != want {
			got := found.projection.ProjectionType
			drifts = append(drifts, Drift{Setting: "index " + ix.Name + " projection", Want: string(want), Got: string(got)})
		}
	}
	return drifts
}

// indexDescription is what keyDrifts compares of a described index, global
// or local.
type indexDescription struct {
	keySchema  []types.KeySchemaElement
	projection *types.Projection
}

// describedIndex finds the index called name in d, global or local (local
// reports which); nil when d has none of that name.
func describedIndex(d *types.TableDescription, name string) (found *indexDescription, local bool) {
	for _, g := range d.GlobalSecondaryIndexes {
		if deref(g.IndexName) == name {
			return &indexDescription{g.KeySchema, g.Projection}, false
		}
	}
	for _, l := range d.LocalSecondaryIndexes {
		if deref(l.IndexName) == name {
			return &indexDescription{l.KeySchema, l.Projection}, true
		}
	}
	return nil, false
}

func indexKind(local bool) string {
	if local {
		return "local secondary index"
	}
	return "global secondary index"
}

// matches fails with ErrSchemaMismatch, naming every difference, when the
// existing table's keys or indexes are not s's.
func (s Schema) matches(d *types.TableDescription) error {
	if d == nil {
		return &Error{Op: "ensure table", Table: s.Name, Err: ErrSchemaMismatch, Cause: errors.New("DescribeTable returned no table")}
	}
	if drifts := s.keyDrifts(d); len(drifts) > 0 {
		// Not a *DriftError: ErrDrift means settings an operator may let
		// stand, and a table with other keys is never usable.
		return &Error{Op: "ensure table", Table: s.Name, Err: ErrSchemaMismatch, Cause: errors.New(strings.TrimSpace(formatDrifts(drifts)))}
	}
	return nil
}

// waitActive polls DescribeTable until the table and all its indexes are
// ACTIVE, backing off from 50 ms to 2 s between polls, until ctx ends.
func waitActive(ctx context.Context, db API, name string) (*types.TableDescription, error) {
	delay := 50 * time.Millisecond
	for {
		out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err != nil && !errors.Is(wrapError("", "", "", err), ErrTableNotFound) {
			return nil, wrapError("describe table", name, "", err)
		}
		// Right after CreateTable an eventually consistent DescribeTable may
		// still say ResourceNotFound; keep polling.
		if err == nil && out.Table != nil && active(out.Table) {
			return out.Table, nil
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, &Error{Op: "wait for table", Table: name, Cause: fmt.Errorf("table not active: %w", ctx.Err())}
		case <-t.C:
		}
		delay = min(delay*2, 2*time.Second)
	}
}

func active(d *types.TableDescription) bool {
	if d.TableStatus != types.TableStatusActive {
		return false
	}
	for _, ix := range d.GlobalSecondaryIndexes {
		if ix.IndexStatus != types.IndexStatusActive {
			return false
		}
	}
	return true
}

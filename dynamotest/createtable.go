package dynamotest

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest/internal/store"
)

// namePattern reports whether name holds only the characters DynamoDB
// allows in table and index names, [a-zA-Z0-9_.-]+, at least one. A loop
// rather than a regular expression: every Query on an index checks one.
func namePattern(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return name != ""
}

const maxGSIs = 20

// checkName checks a table or index name on its own (see violations.name).
func checkName(field, name string) error {
	var v violations
	v.name(field, name)
	return v.err()
}

// CreateTable creates a table, ACTIVE at once (DynamoDB takes a few seconds
// in CREATING; waiters see ACTIVE on their first call here).
func (db *DB) CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, _ ...func(*dynamodb.Options)) (res *dynamodb.CreateTableOutput, err error) {
	defer acknowledged(db, &res, &err)
	in = orEmpty(in)
	name := aws.ToString(in.TableName)
	if _, err := db.stats.begin(ctx, opCreateTable, name); err != nil {
		return nil, err
	}
	t, err := db.newTable(in)
	if err != nil {
		return nil, err
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	old := db.tableMap()
	if _, exists := old[name]; exists {
		return nil, &types.ResourceInUseException{Message: aws.String("Table already exists: " + name)}
	}
	next := make(map[string]*dbTable, len(old)+1)
	for k, v := range old {
		next[k] = v
	}
	next[name] = t
	// A persistent DB logs the table before anyone can write to it: a
	// write that finds it in the map waits for this lock.
	db.attach(t)
	t.mu.Lock()
	t.changed()
	db.tables.Store(&next)
	db.streams.add(t.stream)
	t.mu.Unlock()
	return &dynamodb.CreateTableOutput{TableDescription: t.describe()}, nil
}

// newTable validates a CreateTable request and builds the empty table.
func (db *DB) newTable(in *dynamodb.CreateTableInput) (*dbTable, error) {
	name := aws.ToString(in.TableName)
	if err := checkName("tableName", name); err != nil {
		return nil, err
	}
	defs := make(map[string]types.ScalarAttributeType, len(in.AttributeDefinitions))
	for _, d := range in.AttributeDefinitions {
		n := aws.ToString(d.AttributeName)
		switch d.AttributeType {
		case types.ScalarAttributeTypeS, types.ScalarAttributeTypeN, types.ScalarAttributeTypeB:
		default:
			return nil, constraint(string(d.AttributeType), "attributeDefinitions.member.attributeType", "Member must satisfy enum value set: [B, N, S]")
		}
		if _, dup := defs[n]; dup {
			return nil, invalidParam("Cannot have two attributes with the same name. Attribute name: %s", n)
		}
		defs[n] = d.AttributeType
	}
	used := map[string]bool{}
	pk, sk, err := keyAttrs("", in.KeySchema, defs, used)
	if err != nil {
		return nil, err
	}

	billing := in.BillingMode
	if billing == "" {
		billing = types.BillingModeProvisioned
	}
	var throughput *types.ProvisionedThroughput
	switch billing {
	case types.BillingModePayPerRequest:
		if in.ProvisionedThroughput != nil {
			return nil, invalidParam("Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")
		}
	case types.BillingModeProvisioned:
		if err := checkThroughput(in.ProvisionedThroughput); err != nil {
			return nil, err
		}
		throughput = in.ProvisionedThroughput
	default:
		return nil, constraint(string(billing), "billingMode", "Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]")
	}

	now := db.now()
	t := &dbTable{
		name:       name,
		arn:        "arn:aws:dynamodb:us-east-1:000000000000:table/" + name,
		id:         fmt.Sprintf("%08x-0000-4000-8000-%012x", store.Hash(name)>>32, now.UnixNano()&0xffffffffffff),
		created:    now,
		billing:    billing,
		throughput: throughput,
		attrDefs:   append([]types.AttributeDefinition(nil), in.AttributeDefinitions...),
		keySchema:  append([]types.KeySchemaElement(nil), in.KeySchema...),
		pk:         pk,
		sk:         sk,
		items:      store.New(),

		collectionLimit: db.collectionLimit,
	}
	if err := t.setProvisioning(in.SSESpecification, in.DeletionProtectionEnabled, in.TableClass); err != nil {
		return nil, err
	}
	if on, err := checkStreamSpec(in.StreamSpecification); err != nil {
		return nil, err
	} else if on {
		t.stream = newStream(t, in.StreamSpecification.StreamViewType, db.now)
	}

	if in.Tags != nil {
		if err := checkTags(in.Tags); err != nil {
			return nil, err
		}
		if err := t.addTags(in.Tags); err != nil {
			return nil, err
		}
	}

	if len(in.GlobalSecondaryIndexes) > maxGSIs {
		return nil, validationf("One or more parameter values were invalid: GlobalSecondaryIndex count exceeds the per-table limit of %d", maxGSIs)
	}
	for _, g := range in.GlobalSecondaryIndexes {
		ix, err := newIndex(t, g, defs, used, billing)
		if err != nil {
			return nil, err
		}
		if t.index(ix.name) != nil {
			return nil, invalidParam("Duplicate index name: %s", ix.name)
		}
		t.indexes = append(t.indexes, ix)
	}
	if err := t.addLocalIndexes(in.LocalSecondaryIndexes, defs, used); err != nil {
		return nil, err
	}

	for n := range defs {
		if !used[n] {
			return nil, invalidParam("Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions")
		}
	}
	if db.lag > 0 {
		t.lagged = newLagged(t, db.lag, db.now)
	}
	return t, nil
}

func checkThroughput(p *types.ProvisionedThroughput) error {
	if p == nil || p.ReadCapacityUnits == nil || p.WriteCapacityUnits == nil {
		return invalidParam("ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED")
	}
	if *p.ReadCapacityUnits < 1 || *p.WriteCapacityUnits < 1 {
		return constraint(fmt.Sprint(*p.ReadCapacityUnits), "provisionedThroughput.readCapacityUnits", "Member must have value greater than or equal to 1")
	}
	return nil
}

// keyAttrs checks a key schema (HASH, then optionally RANGE, each defined
// in AttributeDefinitions) and marks its attributes used.
func keyAttrs(index string, ks []types.KeySchemaElement, defs map[string]types.ScalarAttributeType, used map[string]bool) (pk, sk keyAttr, err error) {
	where := ""
	if index != "" {
		where = " for index " + index
	}
	switch {
	case len(ks) == 0:
		return pk, sk, constraint("[]", "keySchema", "Member must have length greater than or equal to 1")
	case len(ks) > 2:
		return pk, sk, constraint(showKeySchema(ks), "keySchema", "Member must have length less than or equal to 2")
	}
	if ks[0].KeyType != types.KeyTypeHash {
		return pk, sk, validationf("Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
	}
	if len(ks) == 2 {
		if ks[1].KeyType != types.KeyTypeRange {
			return pk, sk, validationf("Invalid KeySchema: The second KeySchemaElement is not a RANGE key type")
		}
		if aws.ToString(ks[0].AttributeName) == aws.ToString(ks[1].AttributeName) {
			return pk, sk, validationf("Both the Hash Key and the Range Key element in the KeySchema have the same name")
		}
	}
	for i, e := range ks {
		n := aws.ToString(e.AttributeName)
		typ, ok := defs[n]
		if !ok {
			return pk, sk, invalidParam("Some index key attributes are not defined in AttributeDefinitions. Keys: [%s], AttributeDefinitions: [%s]%s", keyNames(ks), names(defs), where)
		}
		used[n] = true
		if i == 0 {
			pk = keyAttr{name: n, typ: typ}
		} else {
			sk = keyAttr{name: n, typ: typ}
		}
	}
	return pk, sk, nil
}

func keyNames(ks []types.KeySchemaElement) string {
	var out []string
	for _, e := range ks {
		out = append(out, aws.ToString(e.AttributeName))
	}
	return strings.Join(out, ", ")
}

func showKeySchema(ks []types.KeySchemaElement) string {
	var out []string
	for _, e := range ks {
		out = append(out, fmt.Sprintf("KeySchemaElement(attributeName=%s, keyType=%s)", aws.ToString(e.AttributeName), e.KeyType))
	}
	return "[" + strings.Join(out, ", ") + "]"
}

func newIndex(t *dbTable, g types.GlobalSecondaryIndex, defs map[string]types.ScalarAttributeType, used map[string]bool, billing types.BillingMode) (*dbIndex, error) {
	ix, err := buildIndex(t, "globalSecondaryIndexes", aws.ToString(g.IndexName), g.KeySchema, g.Projection, defs, used)
	if err != nil {
		return nil, err
	}
	name := ix.name
	switch billing {
	case types.BillingModePayPerRequest:
		if g.ProvisionedThroughput != nil {
			return nil, invalidParam("One or more parameter values were invalid: ProvisionedThroughput should not be specified for index: %s when BillingMode is PAY_PER_REQUEST", name)
		}
	default:
		if err := checkThroughput(g.ProvisionedThroughput); err != nil {
			return nil, err
		}
		ix.throughput = g.ProvisionedThroughput
	}
	return ix, nil
}

// maxLSIs is DynamoDB's limit of local secondary indexes per table.
const maxLSIs = 5

// addLocalIndexes checks and adds a CreateTable request's local secondary
// indexes, with DynamoDB's (DynamoDB Local's) messages: the table has a
// sort key, each index the table's partition key and a sort key of its
// own, names unique among all the table's indexes.
func (t *dbTable) addLocalIndexes(lsis []types.LocalSecondaryIndex, defs map[string]types.ScalarAttributeType, used map[string]bool) error {
	if len(lsis) == 0 {
		return nil
	}
	if t.sk.name == "" {
		return validationf("One or more parameter values were invalid: Local Secondary indices are not allowed on hash tables, only hash and range tables")
	}
	if len(lsis) > maxLSIs {
		return validationf("One or more parameter values were invalid: Cannot have more than %d local secondary indexes per table", maxLSIs)
	}
	for _, l := range lsis {
		name := aws.ToString(l.IndexName)
		if len(l.KeySchema) > 0 && aws.ToString(l.KeySchema[0].AttributeName) != t.pk.name {
			return validationf("One or more parameter values were invalid: Local Secondary indices must have the same hash key as the main table")
		}
		if len(l.KeySchema) == 1 {
			return validationf("One or more parameter values were invalid: Local secondary indices must have a range key")
		}
		ix, err := buildIndex(t, "localSecondaryIndexes", name, l.KeySchema, l.Projection, defs, used)
		if err != nil {
			return err
		}
		if other := t.index(name); other != nil {
			if other.local {
				return validationf("One or more parameter values were invalid: Two local secondary indices have the same name")
			}
			return validationf("One or more parameter values were invalid: Local Secondary Indices AND Global Secondary Indices must have different names")
		}
		ix.local = true
		t.indexes = append(t.indexes, ix)
	}
	t.collections = map[string]int64{}
	return nil
}

// buildIndex checks what global and local secondary indexes share (name,
// key schema, projection) and builds the empty index. field names the
// request member, for messages.
func buildIndex(t *dbTable, field, name string, keySchema []types.KeySchemaElement, projection *types.Projection,
	defs map[string]types.ScalarAttributeType, used map[string]bool) (*dbIndex, error) {
	if err := checkName(field+".member.indexName", name); err != nil {
		return nil, err
	}
	pk, sk, err := keyAttrs(name, keySchema, defs, used)
	if err != nil {
		return nil, err
	}
	ix := &dbIndex{
		name:      name,
		arn:       t.arn + "/index/" + name,
		pk:        pk,
		sk:        sk,
		keySchema: append([]types.KeySchemaElement(nil), keySchema...),
		items:     store.New(),
	}
	if projection == nil {
		return nil, constraint("null", field+".member.projection", "Member must not be null")
	}
	ix.projection = types.Projection{ProjectionType: projection.ProjectionType}
	switch projection.ProjectionType {
	case types.ProjectionTypeAll, types.ProjectionTypeKeysOnly:
		if len(projection.NonKeyAttributes) > 0 {
			return nil, invalidParam("ProjectionType is %s, but NonKeyAttributes is specified", projection.ProjectionType)
		}
	case types.ProjectionTypeInclude:
		if len(projection.NonKeyAttributes) == 0 {
			return nil, invalidParam("ProjectionType is INCLUDE, but NonKeyAttributes is not specified")
		}
		ix.projection.NonKeyAttributes = append([]string(nil), projection.NonKeyAttributes...)
	default:
		return nil, invalidParam("Unknown ProjectionType: %s", projection.ProjectionType)
	}
	if projection.ProjectionType != types.ProjectionTypeAll {
		ix.keep = map[string]bool{t.pk.name: true, pk.name: true}
		if t.sk.name != "" {
			ix.keep[t.sk.name] = true
		}
		if sk.name != "" {
			ix.keep[sk.name] = true
		}
		for _, n := range ix.projection.NonKeyAttributes {
			ix.keep[n] = true
		}
	}
	return ix, nil
}

// describe renders the table's description. The caller holds no lock; the
// counts are read under a read lock.
func (t *dbTable) describe() *types.TableDescription {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.describeLocked(types.TableStatusActive)
}

func (t *dbTable) describeLocked(status types.TableStatus) *types.TableDescription {
	d := &types.TableDescription{
		TableName:             aws.String(t.name),
		TableArn:              aws.String(t.arn),
		TableId:               aws.String(t.id),
		TableStatus:           status,
		CreationDateTime:      aws.Time(t.created),
		AttributeDefinitions:  append([]types.AttributeDefinition(nil), t.attrDefs...),
		KeySchema:             append([]types.KeySchemaElement(nil), t.keySchema...),
		ItemCount:             aws.Int64(int64(t.items.Len())),
		TableSizeBytes:        aws.Int64(t.items.Bytes()),
		ProvisionedThroughput: describeThroughput(t.throughput),
		BillingModeSummary: &types.BillingModeSummary{
			BillingMode: t.billing,
		},
		DeletionProtectionEnabled: aws.Bool(t.deletionProtection),
	}
	t.describeStream(d)
	t.describeEncryption(d)
	if t.tableClass != "" {
		d.TableClassSummary = &types.TableClassSummary{TableClass: t.tableClass}
	}
	if t.billing == types.BillingModePayPerRequest {
		since := t.created
		if !t.billingChanged.IsZero() {
			since = t.billingChanged
		}
		d.BillingModeSummary.LastUpdateToPayPerRequestDateTime = aws.Time(since)
	}
	for _, ix := range t.indexes {
		p := ix.projection
		p.NonKeyAttributes = append([]string(nil), p.NonKeyAttributes...)
		if ix.local {
			d.LocalSecondaryIndexes = append(d.LocalSecondaryIndexes, types.LocalSecondaryIndexDescription{
				IndexName:      aws.String(ix.name),
				IndexArn:       aws.String(ix.arn),
				KeySchema:      append([]types.KeySchemaElement(nil), ix.keySchema...),
				Projection:     &p,
				ItemCount:      aws.Int64(int64(ix.items.Len())),
				IndexSizeBytes: aws.Int64(ix.items.Bytes()),
			})
			continue
		}
		indexStatus, backfilling := types.IndexStatusActive, (*bool)(nil)
		if ix.creating.Load() {
			indexStatus, backfilling = types.IndexStatusCreating, aws.Bool(true)
		}
		d.GlobalSecondaryIndexes = append(d.GlobalSecondaryIndexes, types.GlobalSecondaryIndexDescription{
			IndexName:             aws.String(ix.name),
			IndexArn:              aws.String(ix.arn),
			IndexStatus:           indexStatus,
			Backfilling:           backfilling,
			KeySchema:             append([]types.KeySchemaElement(nil), ix.keySchema...),
			Projection:            &p,
			ItemCount:             aws.Int64(int64(ix.items.Len())),
			IndexSizeBytes:        aws.Int64(ix.items.Bytes()),
			ProvisionedThroughput: describeThroughput(ix.throughput),
		})
	}
	return d
}

func describeThroughput(p *types.ProvisionedThroughput) *types.ProvisionedThroughputDescription {
	d := &types.ProvisionedThroughputDescription{
		ReadCapacityUnits:      aws.Int64(0),
		WriteCapacityUnits:     aws.Int64(0),
		NumberOfDecreasesToday: aws.Int64(0),
	}
	if p != nil {
		d.ReadCapacityUnits = aws.Int64(aws.ToInt64(p.ReadCapacityUnits))
		d.WriteCapacityUnits = aws.Int64(aws.ToInt64(p.WriteCapacityUnits))
	}
	return d
}

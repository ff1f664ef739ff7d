package dynamotest

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest/internal/store"
)

// UpdateTable changes a table's settings: its billing mode and provisioned
// throughput, its global secondary indexes (one created, deleted or
// re-provisioned per call, as DynamoDB allows), and its stream
// (StreamSpecification). Other settings fail with a ValidationException
// that says so.
//
// A new global secondary index is backfilled from the table's items at
// once, and goes from CREATING to ACTIVE on the fake's terms: the
// UpdateTable output and the next DescribeTable report it CREATING (with
// Backfilling), later calls ACTIVE; moving the clock (Advance, SetTime)
// finishes it too. Until then a Query or Scan of it is refused, as DynamoDB
// refuses reads of a backfilling index. Writes keep it in step throughout.
// A deleted index is gone at once; the output reports it DELETING.
//
// Enabling a stream on a table that had one starts a new stream, with a new
// label and ARN; the old one stays readable until its records age out, as
// in DynamoDB.
func (db *DB) UpdateTable(ctx context.Context, in *dynamodb.UpdateTableInput, _ ...func(*dynamodb.Options)) (res *dynamodb.UpdateTableOutput, err error) {
	defer acknowledged(db, &res, &err)
	in = orEmpty(in)
	name := aws.ToString(in.TableName)
	if _, err := db.stats.begin(ctx, opUpdateTable, name); err != nil {
		return nil, err
	}
	if err := checkName("tableName", name); err != nil {
		return nil, err
	}
	if in.SSESpecification != nil || in.ReplicaUpdates != nil ||
		in.TableClass != "" || in.DeletionProtectionEnabled != nil || in.OnDemandThroughput != nil ||
		in.WarmThroughput != nil || in.MultiRegionConsistency != "" || in.GlobalTableWitnessUpdates != nil {
		return nil, validationf("dynamotest: UpdateTable supports BillingMode, ProvisionedThroughput, GlobalSecondaryIndexUpdates and StreamSpecification")
	}
	if in.StreamSpecification == nil && in.BillingMode == "" && in.ProvisionedThroughput == nil && len(in.GlobalSecondaryIndexUpdates) == 0 {
		return nil, validationf("At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates or SSESpecification or ReplicaUpdates is required")
	}
	if len(in.GlobalSecondaryIndexUpdates) > 1 {
		return nil, &types.LimitExceededException{Message: aws.String("Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table")}
	}
	var streamOn bool
	if in.StreamSpecification != nil {
		on, err := checkStreamSpec(in.StreamSpecification)
		if err != nil {
			return nil, err
		}
		streamOn = on
	}
	t := db.table(name)
	if t == nil {
		return nil, tableNotFound(name)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.deleted {
		return nil, tableNotFound(name)
	}

	// Everything is checked before anything changes.
	billing, throughput, err := t.nextBilling(in)
	if err != nil {
		return nil, err
	}
	var change *indexChange
	if len(in.GlobalSecondaryIndexUpdates) == 1 {
		if change, err = t.planIndexUpdate(in.GlobalSecondaryIndexUpdates[0], in.AttributeDefinitions, billing); err != nil {
			return nil, err
		}
	} else if in.AttributeDefinitions != nil {
		return nil, validationf("One or more parameter values were invalid: AttributeDefinitions can only be specified when creating a global secondary index")
	}
	if in.StreamSpecification != nil {
		switch {
		case streamOn && t.stream != nil:
			return nil, validationf("Table already has an enabled stream: TableName: %s", name)
		case !streamOn && t.stream == nil:
			return nil, validationf("Table already has stream disabled: TableName: %s", name)
		}
	}

	if billing != t.billing {
		t.billing, t.billingChanged = billing, db.now()
	}
	t.throughput = throughput
	if billing == types.BillingModePayPerRequest {
		for _, ix := range t.indexes {
			ix.throughput = nil
		}
	}
	var deleted *dbIndex
	if change != nil {
		deleted = change.apply(t)
	}
	if in.StreamSpecification != nil {
		if streamOn {
			t.stream = newStream(t, in.StreamSpecification.StreamViewType, db.now)
			db.streams.add(t.stream)
		} else {
			t.stopStream()
		}
	}
	t.changed()
	status := types.TableStatusActive
	if change != nil || in.ProvisionedThroughput != nil || in.BillingMode != "" {
		status = types.TableStatusUpdating
	}
	desc := t.describeLocked(status)
	if deleted != nil {
		p := deleted.projection
		desc.GlobalSecondaryIndexes = append(desc.GlobalSecondaryIndexes, types.GlobalSecondaryIndexDescription{
			IndexName:   aws.String(deleted.name),
			IndexArn:    aws.String(deleted.arn),
			IndexStatus: types.IndexStatusDeleting,
			KeySchema:   deleted.keySchema,
			Projection:  &p,
		})
	}
	return &dynamodb.UpdateTableOutput{TableDescription: desc}, nil
}

// nextBilling checks BillingMode and ProvisionedThroughput against the
// table's current ones and returns what they will be.
func (t *dbTable) nextBilling(in *dynamodb.UpdateTableInput) (types.BillingMode, *types.ProvisionedThroughput, error) {
	billing := t.billing
	switch in.BillingMode {
	case "":
	case types.BillingModePayPerRequest, types.BillingModeProvisioned:
		billing = in.BillingMode
	default:
		return "", nil, constraint(string(in.BillingMode), "billingMode", "Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]")
	}
	switch billing {
	case types.BillingModePayPerRequest:
		if in.ProvisionedThroughput != nil {
			return "", nil, invalidParam("Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")
		}
		return billing, nil, nil
	}
	if in.ProvisionedThroughput == nil {
		if t.billing != types.BillingModeProvisioned {
			return "", nil, invalidParam("ProvisionedThroughput must be specified when BillingMode is PROVISIONED")
		}
		return billing, t.throughput, nil
	}
	if err := checkThroughput(in.ProvisionedThroughput); err != nil {
		return "", nil, err
	}
	if t.billing == types.BillingModeProvisioned && t.throughput != nil && in.BillingMode == "" && len(in.GlobalSecondaryIndexUpdates) == 0 &&
		aws.ToInt64(t.throughput.ReadCapacityUnits) == aws.ToInt64(in.ProvisionedThroughput.ReadCapacityUnits) &&
		aws.ToInt64(t.throughput.WriteCapacityUnits) == aws.ToInt64(in.ProvisionedThroughput.WriteCapacityUnits) {
		r, w := aws.ToInt64(t.throughput.ReadCapacityUnits), aws.ToInt64(t.throughput.WriteCapacityUnits)
		return "", nil, validationf("The provisioned throughput for the table will not change. The requested value equals the current value. "+
			"Current ReadCapacityUnits provisioned for the table: %d. Requested ReadCapacityUnits: %d. "+
			"Current WriteCapacityUnits provisioned for the table: %d. Requested WriteCapacityUnits: %d. "+
			"Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.", r, r, w, w)
	}
	p := *in.ProvisionedThroughput
	return billing, &p, nil
}

// indexChange is one checked GlobalSecondaryIndexUpdates entry.
type indexChange struct {
	create     *dbIndex
	defs       []types.AttributeDefinition // the table's definitions after a create
	delete     string
	update     *dbIndex
	throughput *types.ProvisionedThroughput
}

// planIndexUpdate checks one GlobalSecondaryIndexUpdates entry. The caller
// holds t.mu.
func (t *dbTable) planIndexUpdate(u types.GlobalSecondaryIndexUpdate, attrDefs []types.AttributeDefinition, billing types.BillingMode) (*indexChange, error) {
	n := 0
	for _, set := range []bool{u.Create != nil, u.Delete != nil, u.Update != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return nil, validationf("One or more parameter values were invalid: One of GlobalSecondaryIndexUpdate.Create, Update or Delete must be specified")
	}
	switch {
	case u.Delete != nil:
		name := aws.ToString(u.Delete.IndexName)
		ix := t.index(name)
		if ix == nil || ix.local {
			return nil, &types.ResourceNotFoundException{Message: aws.String("Requested resource not found: Index: " + name + " not found for table: " + t.name)}
		}
		if attrDefs != nil {
			return nil, validationf("One or more parameter values were invalid: AttributeDefinitions can only be specified when creating a global secondary index")
		}
		return &indexChange{delete: name}, nil
	case u.Update != nil:
		name := aws.ToString(u.Update.IndexName)
		ix := t.index(name)
		if ix == nil || ix.local {
			return nil, &types.ResourceNotFoundException{Message: aws.String("Requested resource not found: Index: " + name + " not found for table: " + t.name)}
		}
		if billing != types.BillingModeProvisioned {
			return nil, invalidParam("ProvisionedThroughput cannot be specified for index: %s when BillingMode is PAY_PER_REQUEST", name)
		}
		if err := checkThroughput(u.Update.ProvisionedThroughput); err != nil {
			return nil, err
		}
		p := *u.Update.ProvisionedThroughput
		return &indexChange{update: ix, throughput: &p}, nil
	}
	c := u.Create
	if len(t.indexes) >= maxGSIs+maxLSIs {
		return nil, validationf("One or more parameter values were invalid: GlobalSecondaryIndex count exceeds the per-table limit of %d", maxGSIs)
	}
	// The new index's key attributes must be defined, consistently with
	// the table's definitions.
	defs := map[string]types.ScalarAttributeType{}
	for _, d := range t.attrDefs {
		defs[aws.ToString(d.AttributeName)] = d.AttributeType
	}
	merged := append([]types.AttributeDefinition(nil), t.attrDefs...)
	for _, d := range attrDefs {
		n := aws.ToString(d.AttributeName)
		if old, ok := defs[n]; ok {
			if old != d.AttributeType {
				return nil, invalidParam("Cannot change the type of attribute %s from %s to %s", n, old, d.AttributeType)
			}
			continue
		}
		switch d.AttributeType {
		case types.ScalarAttributeTypeS, types.ScalarAttributeTypeN, types.ScalarAttributeTypeB:
		default:
			return nil, constraint(string(d.AttributeType), "attributeDefinitions.member.attributeType", "Member must satisfy enum value set: [B, N, S]")
		}
		defs[n] = d.AttributeType
		merged = append(merged, d)
	}
	if t.index(aws.ToString(c.IndexName)) != nil {
		return nil, validationf("One or more parameter values were invalid: Index with name: %s already exists", aws.ToString(c.IndexName))
	}
	gsis := 0
	for _, ix := range t.indexes {
		if !ix.local {
			gsis++
		}
	}
	if gsis >= maxGSIs {
		return nil, validationf("One or more parameter values were invalid: GlobalSecondaryIndex count exceeds the per-table limit of %d", maxGSIs)
	}
	used := map[string]bool{}
	ix, err := newIndex(t, types.GlobalSecondaryIndex{IndexName: c.IndexName, KeySchema: c.KeySchema, Projection: c.Projection,
		ProvisionedThroughput: c.ProvisionedThroughput}, defs, used, billing)
	if err != nil {
		return nil, err
	}
	for _, d := range attrDefs {
		if n := aws.ToString(d.AttributeName); !used[n] && !t.isKeyAttr(n) && !t.indexKey(n) {
			return nil, invalidParam("Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions")
		}
	}
	return &indexChange{create: ix, defs: merged}, nil
}

// indexKey reports whether name is a key attribute of one of the table's
// indexes.
func (t *dbTable) indexKey(name string) bool {
	for _, ix := range t.indexes {
		if ix.pk.name == name || ix.sk.name == name {
			return true
		}
	}
	return false
}

// apply carries out a checked change and returns the index it deleted, if
// any. A new index is backfilled from every item now (items whose key
// attributes have another type stay out of it, as DynamoDB's backfill
// leaves them) and starts CREATING. The caller holds t.mu.
func (c *indexChange) apply(t *dbTable) (deleted *dbIndex) {
	switch {
	case c.create != nil:
		ix := c.create
		t.backfill(ix)
		ix.creating.Store(true)
		t.indexes = append(t.indexes, ix)
		t.attrDefs = c.defs
		if t.lagged != nil {
			t.lagged.view.addIndex(ix)
		}
	case c.delete != "":
		for i, ix := range t.indexes {
			if ix.name == c.delete {
				t.indexes = append(t.indexes[:i:i], t.indexes[i+1:]...)
				if t.lagged != nil {
					t.lagged.view.dropIndex(ix.name)
				}
				return ix
			}
		}
	case c.update != nil:
		c.update.throughput = c.throughput
	}
	return nil
}

// backfill puts an entry for each of t's items into ix, a new index.
func (t *dbTable) backfill(ix *dbIndex) {
	t.items.AscendPartitions(0, "", func(p *store.Partition) bool {
		p.Ascend("", func(e *store.Entry) bool {
			item := e.Item()
			if id, ie := t.indexEntry(ix, item, e.Data, e.Size, true); ie != nil {
				ix.items.Put(item[ix.pk.name], id, ie)
			}
			return true
		})
		return true
	})
}

// finishIndexes makes every CREATING index ACTIVE: the fake's clock moved,
// and DynamoDB's backfill would have finished.
func (db *DB) finishIndexes() {
	for _, name := range db.tableNames() {
		if t := db.table(name); t != nil {
			t.mu.RLock()
			for _, ix := range t.indexes {
				ix.creating.Store(false)
			}
			t.mu.RUnlock()
		}
	}
}

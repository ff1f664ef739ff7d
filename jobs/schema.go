package jobs

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/entity"

	"github.com/tablekit/tablekit/table"
)

// The seed's two global secondary indexes, both projecting ALL.
const (
	// IndexUserCreatedAt is GSI1, "User Job History": userId, createdAt.
	IndexUserCreatedAt = "userId-createdAt-index"
	// IndexStatusCreatedAt is GSI2, "Status-Based Queries (Admin)": status, createdAt.
	IndexStatusCreatedAt = "status-createdAt-index"
)

// DefaultTableName is the table a Store uses unless Options.TableName says
// otherwise: the seed's name in the dev environment.
const DefaultTableName = "photoeditor-dev-jobs"

// TableNameForEnv is the seed's table name for env: photoeditor-{env}-jobs.
func TableNameForEnv(env string) string {
	return "photoeditor-" + env + "-jobs"
}

// Schema is the seed's table named tableName (see TableNameForEnv): jobId
// (S) partition key, no sort key,
// TTL on ttl, and the two indexes keyed on createdAt (N, Unix ms), with
// the seed's "PITR: Enabled" and "Encryption: AWS-managed KMS"
// (table.RecoveryAndKMS; Provisioning replaces them for a store) and its
// Terraform's tag Name = the table's name (DefaultTags; the option Tags
// replaces them). How the store uses it (the seed's access patterns, with
// typical item sizes and rates) is declared by Patterns.
func Schema(tableName string) table.Schema {
	createdAt := table.Attribute{Name: attrCreatedAt, Type: types.ScalarAttributeTypeN}
	return table.Schema{
		Name:         tableName,
		PartitionKey: table.Attribute{Name: attrJobID, Type: types.ScalarAttributeTypeS},
		Indexes: []table.Index{
			{
				Name:         IndexUserCreatedAt,
				PartitionKey: table.Attribute{Name: attrUserID, Type: types.ScalarAttributeTypeS},
				SortKey:      createdAt,
				Projection:   types.ProjectionTypeAll,
			},
			{
				Name:         IndexStatusCreatedAt,
				PartitionKey: table.Attribute{Name: attrStatus, Type: types.ScalarAttributeTypeS},
				SortKey:      createdAt,
				Projection:   types.ProjectionTypeAll,
			},
		},
		TTLAttribute: attrTTL,
		Provisioning: table.RecoveryAndKMS(),
		Tags:         DefaultTags(tableName),
	}
}

// DefaultTags are the tags the seed's Terraform gives the table named
// tableName: Name = the table's name (its common tags are the service's
// own, merged in by its infrastructure tool, and are not drift).
func DefaultTags(tableName string) map[string]string {
	return map[string]string{table.NameTag: tableName}
}

// declareJobs declares the seed's job item with package entity: the key is
// the item's own jobId, both indexes its own attributes (userId and
// status, sorted by createdAt in Unix ms), the TTL its ttl attribute
// (expired jobs are gone for reads); attributes a newer writer added stay
// in record.Extra. Results offloaded by the store's Offloader (off; nil
// without a blob store) are restored on reads.
func declareJobs(t *table.Table, clock func() time.Time, off *blobstore.Offloader) (*entity.Entity[record], error) {
	reg, err := entity.NewRegistry(t, entity.NoTypeAttribute(), entity.NoSpans(), entity.Clock(clock))
	if err != nil {
		return nil, err
	}
	opts := []func(*entity.Options){
		entity.Key("{"+attrJobID+"}", ""),
		entity.Index(IndexUserCreatedAt, "{"+attrUserID+"}", "{"+attrCreatedAt+"}"),
		entity.Index(IndexStatusCreatedAt, "{"+attrStatus+"}", "{"+attrCreatedAt+"}"),
		entity.TTL(attrTTL, 0), entity.Extra("Extra"), entity.OffloadWith(off),
	}
	// Backfill's Offloader may move any attribute but the keys and ttl.
	for name := range knownAttrs {
		switch name {
		case attrJobID, attrUserID, attrStatus, attrCreatedAt, attrTTL:
		default:
			opts = append(opts, entity.Offload(name))
		}
	}
	return entity.New[record](reg, "job", opts...)
}

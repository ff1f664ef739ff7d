package jobs

import (
	"sync"
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

// The seed's production plan ("Provisioned (Production - Planned)"): base
// 25 RCU and 10 WCU, auto-scaling 25-100 RCU and 10-50 WCU at 70% target
// utilization.
const (
	ProductionReadCapacity     = 25
	ProductionWriteCapacity    = 10
	ProductionMaxReadCapacity  = 100
	ProductionMaxWriteCapacity = 50
	ProductionTargetPercent    = 70
)

// ProductionCapacity is the seed's production plan as provisioned
// capacity: base 25 RCU and 10 WCU, auto-scaled within 25-100 RCU and
// 10-50 WCU at 70% target utilization, for the table and both indexes
// (every job write is also written to both; an index that could not grow
// with the table would throttle its writes). docs/costs.md prices it
// beside on-demand (datamodel.Estimate.Provisioned): at the seed's 100k
// jobs a month its base capacity costs many times what on-demand bills;
// it buys a table that never waits for on-demand's scaling.
func ProductionCapacity() table.Capacity {
	return table.AutoScaled(ProductionReadCapacity, ProductionMaxReadCapacity,
		ProductionWriteCapacity, ProductionMaxWriteCapacity, ProductionTargetPercent)
}

// ProductionProvisioning is the seed's production table: point-in-time
// recovery and AWS managed KMS encryption (table.RecoveryAndKMS), on
// ProductionCapacity. A production store opens with
// jobs.Provisioning(jobs.ProductionProvisioning()); the default stays
// on demand, the seed's dev and staging billing. EnsureTable creates the
// table so (the auto-scaling targets themselves are applied by the
// infrastructure tool: table.Capacity.AutoScaling) and accepts capacity
// the scaler moved within the range.
func ProductionProvisioning() table.Provisioning {
	p := table.RecoveryAndKMS()
	c := ProductionCapacity()
	p.Capacity = &c
	return p
}

// The seed's "Backups: On-demand backups retained 1 year (compliance
// requirement)". Point-in-time recovery (Schema) restores any second of
// the last 35 days; the year is AWS Backup's job, not this package's: a
// backup plan's lifecycle deletes each backup after its retention on AWS's
// schedule, a vault lock can make the backups immutable for that year, and
// no service or operator credential needs dynamodb:DeleteBackup. A
// library sweep would have to run on someone's schedule to keep the
// promise and hold the very permission that can break it. cmd/datamodel
// writes the plan for the table as docs/jobs/aws-backup-plan.json.
const (
	// BackupRetention is how long each backup is kept: a year.
	BackupRetention = 365 * 24 * time.Hour
	// BackupSchedule takes one backup a month, on the 1st at 05:00 UTC
	// (AWS Backup's cron syntax): twelve backups kept at any time, the
	// daily history in between being point-in-time recovery's.
	BackupSchedule = "cron(0 5 1 * ? *)"
	// BackupVault is the AWS Backup vault the backups go to: the
	// account's default vault unless the service names its own (one with
	// a vault lock for compliance).
	BackupVault = "Default"
)

// DefaultTags are the tags the seed's Terraform gives the table named
// tableName: Name = the table's name (its common tags are the service's
// own, merged in by its infrastructure tool, and are not drift).
func DefaultTags(tableName string) map[string]string {
	return map[string]string{table.NameTag: tableName}
}

// decoders is the job's declaration without a store, for JobFromChange:
// on an Offline registry, which decodes as the store's does (without
// renames or a blob store, which are a store's) and sends nothing.
var decoders = sync.OnceValues(func() (*entity.Entity[record], error) {
	reg, err := entity.Offline(Schema(DefaultTableName), registryOptions(time.Now)...)
	if err != nil {
		return nil, err
	}
	return declareJobs(reg, nil, nil)
})

// registryOptions are the registry's options, on the table or Offline.
func registryOptions(clock func() time.Time) []func(*entity.RegistryOptions) {
	return []func(*entity.RegistryOptions){entity.NoTypeAttribute(), entity.NoSpans(), entity.Clock(clock)}
}

// declareJobs declares the seed's job item with package entity: the key is
// the item's own jobId, both indexes its own attributes (userId and
// status, sorted by createdAt in Unix ms), the TTL its ttl attribute
// (expired jobs are gone for reads); attributes a newer writer added stay
// in record.Extra. Results offloaded by the store's Offloader (off; nil
// without a blob store) are restored on reads. Each of the store's renames
// is the entity's (entity.Rename): every read takes the new name first.
func declareJobs(reg *entity.Registry, off *blobstore.Offloader, rs renames) (*entity.Entity[record], error) {
	opts := []func(*entity.Options){
		entity.Key("{"+attrJobID+"}", ""),
		entity.Index(IndexUserCreatedAt, "{"+attrUserID+"}", "{"+attrCreatedAt+"}"),
		entity.Index(IndexStatusCreatedAt, "{"+attrStatus+"}", "{"+attrCreatedAt+"}"),
		entity.TTL(attrTTL, 0), entity.Extra("Extra"), entity.OffloadWith(off),
	}
	for _, r := range rs {
		opts = append(opts, entity.RenameAttribute(r.From, r.To))
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

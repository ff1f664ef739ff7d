package journey

import (
	"context"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/table"
)

// DefaultTableName is the seed's table.
const DefaultTableName = "TransformationSystem"

// IndexGSI1 is the seed's one global secondary index, on GSI1PK and GSI1SK
// (both S), projecting every attribute.
const IndexGSI1 = "GSI1"

// Schema is the seed's table under name (DefaultTableName when ""): PK and
// SK (S) and GSI1 on GSI1PK and GSI1SK (S, projection ALL), with the
// seed's point-in-time recovery and encryption at rest with AWS KMS
// (table.RecoveryAndKMS; Provisioning replaces them for a store), and TTL
// on ttl, which only log summaries carry (the seed has no TTL; its
// summaries are copies of what the S3 log files keep, and expire after
// Options.LogSummaryRetention). How the store uses it is declared by
// Patterns.
func Schema(name string) table.Schema {
	if name == "" {
		name = DefaultTableName
	}
	s := func(a string) table.Attribute { return table.Attribute{Name: a, Type: types.ScalarAttributeTypeS} }
	return table.Schema{
		Name:         name,
		PartitionKey: s(attrPK),
		SortKey:      s(attrSK),
		TTLAttribute: attrTTL,
		Indexes: []table.Index{{
			Name:         IndexGSI1,
			PartitionKey: s(attrGSI1PK),
			SortKey:      s(attrGSI1SK),
			Projection:   types.ProjectionTypeAll,
		}},
		Provisioning: table.RecoveryAndKMS(),
	}
}

// journeyPartition is every item's PK: JOURNEY#{journeyId}.
const journeyPartition = "JOURNEY#{journeyId}"

// jobIndexPartition is a job's GSI1PK, shared by the job and its log
// summaries (the seed gives both the same).
const jobIndexPartition = "JOB#{jobId}"

// The store's item kinds declared with package entity, as the seed lays
// them out: the registry writes each item's EntityType (the seed's names
// are the entity names), the keys come from the templates below, and ids
// held only in keys are KeyOnly (parsed back on reads). The entity itself
// is the seed's Data map, a field of each item type; CreatedAt and
// UpdatedAt are the store's strings (keys.TimeLayout).
//
//	entity      PK                   SK                                                       GSI1PK            GSI1SK
//	JobReport   JOURNEY#{journeyId}  REPORT#{jobId}#{reportType}#{generatedAt:time}#{reportId}  REPORTS#{jobId}   {generatedAt:time}
//	LogEntry    JOURNEY#{journeyId}  LOG#{jobId}#{stepName}#{timestamp:time}#{logId}             JOB#{jobId}       {timestamp:time}
//	JobExecution JOURNEY#{journeyId} JOB#{order:02d}#{stageId}#{execution:03d}#{startedAt:time}  JOB#{jobId}       {startedAt:time}
//	StageDefinition JOURNEY#{journeyId} STAGE#{order:02d}#{stageId}                             (none)
//	SecondBrainRule JOURNEY#{journeyId} RULE#{stageId}#{index:03d}#{ruleId}                     (none)
//	Journey     JOURNEY#{journeyId}  METADATA                                                 JOURNEYS          {listedAt:time} (sparse)
//
// A journey's listedAt is its creation time when it is listed; the rule
// library and an import's claim are not (no GSI1 keys). See
// docs/systems/journey.md.
type entities struct {
	reg      *entity.Registry
	journeys *entity.Entity[journeyItem]
	reports  *entity.Entity[reportItem]
	logs     *entity.Entity[logItem]
	jobs     *entity.Entity[jobItem]
	stages   *entity.Entity[stageItem]
	rules    *entity.Entity[ruleItem]
}

// decoders are the declarations without a store, for the package's
// functions that read items given to them (JobFromChange): an Offline
// registry, which decodes as the store's does and sends nothing.
var decoders = sync.OnceValues(func() (entities, error) {
	reg, err := entity.Offline(Schema(""), registryOptions(time.Now)...)
	if err != nil {
		return entities{}, err
	}
	return declare(reg)
})

// registryOptions are the registry's options, on the table or Offline.
func registryOptions(clock func() time.Time) []func(*entity.RegistryOptions) {
	return []func(*entity.RegistryOptions){entity.TypeAttribute(attrEntityType), entity.NoSpans(), entity.Clock(clock)}
}

func declare(reg *entity.Registry) (entities, error) {
	e := entities{reg: reg}
	var err error
	e.journeys, err = entity.New[journeyItem](e.reg, EntityJourney,
		entity.Key(journeyPartition, metadataSK),
		entity.SparseIndex(IndexGSI1, journeysIndexPartition, journeysIndexSort),
		entity.KeyOnly("journeyId", "listedAt"))
	if err != nil {
		return e, err
	}
	e.reports, err = entity.New[reportItem](e.reg, EntityReport,
		entity.Key(journeyPartition, reportSortKey),
		entity.Index(IndexGSI1, reportsIndexPartition, reportIndexSort),
		entity.KeyOnly("journeyId", "jobId", "reportType", "generatedAt", "reportId"))
	if err != nil {
		return e, err
	}
	e.logs, err = entity.New[logItem](e.reg, EntityLog,
		entity.Key(journeyPartition, logSortKey),
		entity.Index(IndexGSI1, jobIndexPartition, logIndexSort),
		entity.KeyOnly("journeyId", "jobId", "stepName", "timestamp", "logId"))
	if err != nil {
		return e, err
	}
	e.jobs, err = entity.New[jobItem](e.reg, EntityJob,
		entity.Key(journeyPartition, jobSortKey),
		entity.Index(IndexGSI1, jobIndexPartition, jobIndexSort),
		entity.KeyOnly("journeyId", "order", "stageId", "execution", "startedAt", "jobId"))
	if err != nil {
		return e, err
	}
	e.stages, err = entity.New[stageItem](e.reg, EntityStage,
		entity.Key(journeyPartition, stageSortKey),
		entity.KeyOnly("journeyId", "order", "stageId"))
	if err != nil {
		return e, err
	}
	e.rules, err = entity.New[ruleItem](e.reg, EntityRule,
		entity.Key(journeyPartition, ruleSortKey),
		entity.KeyOnly("journeyId", "stageId", "index", "ruleId"))
	return e, err
}

// decode decodes an item of one kind read by other means (a transaction,
// an update's new image, a partition's items, a change's image) with its
// declaration e, and converts it with to: every kind is decoded so.
func decode[I, V any](ctx context.Context, e *entity.Entity[I], item table.Item, to func(I) (V, error)) (V, error) {
	it, err := e.Decode(ctx, item)
	if err != nil {
		var zero V
		return zero, err
	}
	return to(it)
}

// decodeOffline is decode without a store (decoders), kind choosing the
// declaration.
func decodeOffline[I, V any](item table.Item, kind func(entities) *entity.Entity[I], to func(I) (V, error)) (V, error) {
	ents, err := decoders()
	if err != nil {
		var zero V
		return zero, err
	}
	return decode(context.Background(), kind(ents), item, to)
}

// appendDecoded decodes item (decode) and appends its value to dst.
func appendDecoded[I, V any](ctx context.Context, dst *[]V, e *entity.Entity[I], item table.Item, to func(I) (V, error)) error {
	v, err := decode(ctx, e, item, to)
	if err == nil {
		*dst = append(*dst, v)
	}
	return err
}

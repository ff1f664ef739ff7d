package tasks

import (
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/table"
)

// IndexGSI1 is the seed's one global secondary index: GSI1PK, GSI1SK,
// projecting ALL so Claim takes the payload from the index entry (the
// payload never changes, so the index's eventual consistency cannot hand
// out a stale one) instead of a second read.
const IndexGSI1 = "GSI1"

// Schema is the seed's single table named name: PK and SK (S), GSI1 on
// GSI1PK and GSI1SK (S), and TTL on ttl (finished tasks expire after
// Options.Retention). Patterns declares how the store uses it: the
// seed's access patterns and the ones this package adds (leases, reclaim),
// each with its item size and the rate of the seed's plan of 500 tasks per
// second.
func Schema(name string) table.Schema {
	s := func(n string) table.Attribute { return table.Attribute{Name: n, Type: types.ScalarAttributeTypeS} }
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
	}
}

// entities are the store's items declared with package entity, on a
// registry whose type attribute is the seed's "type" (so an item's kind
// is what it says it is, on every read): the task's META item, its event
// items and the idempotency map, and the items this package adds: the
// WORKER claim items and the CONFIG item. Their keys are the seed's
// templates (taskPK, metaSK, eventSK, idemPK, taskSK) and the package's
// (workerPK, configPK), their ttl the store's to set (a live or DEAD task
// has none), and the store starts its own spans.
// META's GSI1 keys are its own attributes, GSI1PK and GSI1SK, in a sparse
// index: which template they follow depends on the status (see metaItem),
// so the store computes them (queueKeys) and every move sets or removes
// them in the same conditional write, without reading the item.
type entities struct {
	tasks  *entity.Entity[metaItem]
	events *entity.Entity[eventItem]
	idem   *entity.Entity[idemItem]
	claims *entity.Entity[claimItem]
	config *entity.Entity[configItem]
	// task is a task's partition: META and its events, read together
	// by History.
	task *entity.Collection
}

// newEntities declares the store's entities on t, with the store's clock.
func newEntities(t *table.Table, clock func() time.Time) (*entities, error) {
	reg, err := entity.NewRegistry(t, registryOptions(clock)...)
	if err != nil {
		return nil, err
	}
	return declare(reg)
}

// decoders are the declarations without a store, for EventFromChange:
// an Offline registry, which decodes as the store's does and sends
// nothing.
var decoders = sync.OnceValues(func() (*entities, error) {
	reg, err := entity.Offline(Schema(DefaultTableName), registryOptions(time.Now)...)
	if err != nil {
		return nil, err
	}
	return declare(reg)
})

// registryOptions are the registry's options, on the table or Offline.
func registryOptions(clock func() time.Time) []func(*entity.RegistryOptions) {
	return []func(*entity.RegistryOptions){entity.TypeAttribute(attrType), entity.NoSpans(), entity.Clock(clock)}
}

func declare(reg *entity.Registry) (*entities, error) {
	var e entities
	var err error
	if e.tasks, err = entity.New[metaItem](reg, typeTask,
		entity.Key(taskPK.Pattern(), metaSK.Pattern()),
		entity.SparseIndex(IndexGSI1, "{"+attrGSI1PK+"}", "{"+attrGSI1SK+"}"), entity.TTL(attrTTL, 0)); err != nil {
		return nil, err
	}
	if e.events, err = entity.New[eventItem](reg, typeEvent,
		entity.Key(taskPK.Pattern(), eventSK.Pattern()), entity.TTL(attrTTL, 0)); err != nil {
		return nil, err
	}
	if e.idem, err = entity.New[idemItem](reg, typeIdempotency,
		entity.Key(idemPK.Pattern(), taskSK.Pattern()), entity.KeyOnly("key"), entity.TTL(attrTTL, 0)); err != nil {
		return nil, err
	}
	if e.task, err = entity.NewCollection(reg, "task", "", e.tasks, e.events); err != nil {
		return nil, err
	}
	// A claim item's partition names the worker by its "worker"
	// attribute: workerPK's text, with the attribute's name.
	if e.claims, err = entity.New[claimItem](reg, typeClaim,
		entity.Key("WORKER#{worker}", taskSK.Pattern()), entity.TTL(attrTTL, 0)); err != nil {
		return nil, err
	}
	if e.config, err = entity.New[configItem](reg, typeConfig,
		entity.Key(configPK.Pattern(), configSK.Pattern())); err != nil {
		return nil, err
	}
	return &e, nil
}

package pipeline

import (
	"errors"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/table"
)

// Attribute and index names of the seed's table.
const (
	attrPK     = "pk"
	attrSK     = "sk"
	attrSiKey1 = "siKey1"
	attrCount  = "count"
	// attrState is a pipeline's state (pipelineItem.State): a disabled
	// one takes no new executions.
	attrState = "state"

	// IndexGSI1 is the seed's GSI-1: partition siKey1, sort pk.
	IndexGSI1 = "GSI-1"

	// DefaultTableName is used when Options.TableName is empty; the seed
	// does not name its table.
	DefaultTableName = "pipelines"
)

// Schema returns the pipeline table called name: pk and sk (strings), and
// GSI-1 on siKey1 with pk as its sort key, projecting every attribute
// because "list pipelines" and "list executions" return whole records.
// Patterns declares the seed's access patterns, as this package serves them.
func Schema(name string) table.Schema {
	s := func(n string) table.Attribute { return table.Attribute{Name: n, Type: types.ScalarAttributeTypeS} }
	return table.Schema{
		Name:         name,
		PartitionKey: s(attrPK),
		SortKey:      s(attrSK),
		Indexes: []table.Index{{
			Name:         IndexGSI1,
			PartitionKey: s(attrSiKey1),
			SortKey:      s(attrPK),
			Projection:   types.ProjectionTypeAll,
		}},
	}
}

// The table's items, declared once with package entity: each kind's keys,
// in the seed's notation (delimiter ":"), and its stored attributes. Ids
// live in the keys only (KeyOnly): the seed stores none of them as
// attributes, and reads give them back parsed from pk, sk or siKey1.
//
//	entity            pk                   sk                        siKey1
//	pipeline          P:<pipelineId>       PV:current                P
//	version           P:<pipelineId>       PV:<version:010d>         (none)
//	execution         PE:<executionId>     PE:P                      P:<pipelineId>
//	execution ref     P:<pipelineId>       PE:<executionId>          (none)
//	group membership  P:<pipelineId>       G:<groupId>               G:<groupId>
//	tag               T:<key>[#<parent>]   T:<value>:P:<pipelineId>  (none)
//	tag aggregate     TA:<key>             TA:<value path>           TD
//
// GSI-1 sorts by pk, so its sort key is the table's pk: "" below.
type entities struct {
	reg        *entity.Registry
	current    *entity.Entity[pipelineItem]
	versions   *entity.Entity[pipelineItem]
	executions *entity.Entity[executionItem]
	refs       *entity.Entity[executionRef]
	groups     *entity.Entity[groupItem]
	tags       *entity.Entity[tagItem]
	aggregates *entity.Entity[aggregateItem]
}

// newEntities declares the items on the store's table t.
func newEntities(t *table.Table, clock func() time.Time) (entities, error) {
	reg, err := entity.NewRegistry(t, registryOptions(clock)...)
	if err != nil {
		return entities{}, err
	}
	return declare(reg)
}

// decoders are the declarations without a store, for the package's
// functions that read items given to them (ExecutionFromChange,
// PipelineFromChange): an Offline registry, which decodes as the store's
// does and sends nothing.
var decoders = sync.OnceValues(func() (entities, error) {
	reg, err := entity.Offline(Schema(DefaultTableName), registryOptions(time.Now)...)
	if err != nil {
		return entities{}, err
	}
	return declare(reg)
})

// registryOptions are the registry's options, on the table or Offline.
func registryOptions(clock func() time.Time) []func(*entity.RegistryOptions) {
	return []func(*entity.RegistryOptions){entity.NoTypeAttribute(), entity.NoSpans(), entity.Clock(clock)}
}

func declare(reg *entity.Registry) (entities, error) {
	e := entities{reg: reg}
	d := entity.Delimiter(":")
	var errs [7]error
	e.current, errs[0] = entity.New[pipelineItem](e.reg, "pipeline", d, entity.Key("P:{pipelineId}", currentSK),
		entity.Index(IndexGSI1, pipelinesPartition, ""), entity.KeyOnly("pipelineId"))
	e.versions, errs[1] = entity.New[pipelineItem](e.reg, "version", d, entity.Key("P:{pipelineId}", "PV:{version:010d}"),
		entity.KeyOnly("pipelineId"))
	e.executions, errs[2] = entity.New[executionItem](e.reg, "execution", d, entity.Key("PE:{executionId}", executionSK),
		entity.Index(IndexGSI1, "P:{pipelineId}", ""), entity.KeyOnly("executionId", "pipelineId"))
	e.refs, errs[3] = entity.New[executionRef](e.reg, "executionRef", d, entity.Key("P:{pipelineId}", "PE:{executionId}"),
		entity.KeyOnly("pipelineId", "executionId"))
	e.groups, errs[4] = entity.New[groupItem](e.reg, "group", d, entity.Key("P:{pipelineId}", "G:{groupId}"),
		entity.Index(IndexGSI1, "G:{groupId}", ""), entity.KeyOnly("pipelineId", "groupId"))
	e.tags, errs[5] = entity.New[tagItem](e.reg, "tag", d, entity.Key("T:{tagKey}", "T:{value}:P:{pipelineId}"),
		entity.KeyOnly("tagKey", "value", "pipelineId"))
	e.aggregates, errs[6] = entity.New[aggregateItem](e.reg, "tagAggregate", d, entity.Key("TA:{key}", "TA:{value}"),
		entity.Index(IndexGSI1, aggregatesPartition, ""), entity.KeyOnly("key", "value"))
	return e, errors.Join(errs[:]...)
}

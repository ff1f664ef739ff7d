package pipeline

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/table"
)

// Attribute and index names of seed 004's table.
const (
	attrPK     = "pk"
	attrSK     = "sk"
	attrSiKey1 = "siKey1"
	attrCount  = "count"

	// IndexGSI1 is the seed's GSI-1: partition siKey1, sort pk.
	IndexGSI1 = "GSI-1"

	// DefaultTableName is used when Options.TableName is empty; the seed
	// does not name its table.
	DefaultTableName = "pipelines"
)

// Schema returns the pipeline table called name: pk and sk (strings), and
// GSI-1 on siKey1 with pk as its sort key, projecting every attribute
// because "list pipelines" and "list executions" return whole records. The
// access patterns are the seed's, as this package serves them.
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
		AccessPatterns: []table.AccessPattern{
			{Name: "create a new pipeline", Operation: table.OpTransactWriteItems, Transactional: true,
				Partition: "P:{pipelineId}",
				// A typical pipeline: four tag levels, two groups.
				Items: []table.ItemAccess{
					{Operation: table.OpPutItem, Size: 2048, Partition: "P:{pipelineId}", IndexWrites: []table.IndexWrite{{Index: IndexGSI1, Partition: "P"}}},
					{Operation: table.OpPutItem, Size: 2048, Partition: "P:{pipelineId}"},
					{Operation: table.OpPutItem, Size: 60, Count: 4, Partition: "T:{key}[#{parent}]"},
					{Operation: table.OpUpdateItem, Size: 100, Count: 4, Partition: "TA:{key}", IndexWrites: []table.IndexWrite{{Index: IndexGSI1, Partition: "TD"}}},
					{Operation: table.OpPutItem, Size: 100, Count: 2, Partition: "P:{pipelineId}", IndexWrites: []table.IndexWrite{{Index: IndexGSI1, Partition: "G:{groupId}"}}},
				},
				Description:  "current item, version 1, one tag item and one aggregate ADD per tag level, one item per group",
				KeyCondition: "pk = P:{pipelineId} AND sk = PV:current; pk = P:{pipelineId} AND sk = PV:{version}; pk = T:{key}[#{parent}] AND sk = T:{value}:P:{pipelineId}; pk = TA:{key} AND sk = TA:{value}",
				ItemSize:     2048, ItemsPerRequest: 12, RatePerSecond: 1},
			{Name: "update an existing pipeline", Operation: table.OpTransactWriteItems, Transactional: true,
				Partition: "P:{pipelineId}",
				// A typical update: one tag level removed, one added, one group left, one joined.
				Items: []table.ItemAccess{
					{Operation: table.OpPutItem, Size: 2048, Partition: "P:{pipelineId}", IndexWrites: []table.IndexWrite{{Index: IndexGSI1, Partition: "P"}}},
					{Operation: table.OpPutItem, Size: 2048, Partition: "P:{pipelineId}"},
					{Operation: table.OpDeleteItem, Size: 60, Partition: "T:{key}[#{parent}]"},
					{Operation: table.OpPutItem, Size: 60, Partition: "T:{key}[#{parent}]"},
					{Operation: table.OpUpdateItem, Size: 100, Count: 2, Partition: "TA:{key}", IndexWrites: []table.IndexWrite{{Index: IndexGSI1, Partition: "TD"}}},
					{Operation: table.OpDeleteItem, Size: 100, Partition: "P:{pipelineId}", IndexWrites: []table.IndexWrite{{Index: IndexGSI1, Partition: "G:{groupId}"}}},
					{Operation: table.OpPutItem, Size: 100, Partition: "P:{pipelineId}", IndexWrites: []table.IndexWrite{{Index: IndexGSI1, Partition: "G:{groupId}"}}},
				},
				Description:  "new version item, current item replaced if version is unchanged, tag items and aggregates adjusted for the tags added and removed, group items added and removed",
				KeyCondition: "pk = P:{pipelineId} AND sk = PV:current (version = :read); pk = P:{pipelineId} AND sk = PV:{version+1}",
				ItemSize:     2048, ItemsPerRequest: 8, RatePerSecond: 5},
			{Name: "get an existing pipeline", Operation: table.OpGetItem,
				Partition:    "P:{pipelineId}",
				KeyCondition: "pk = P:{pipelineId} AND sk = PV:current",
				ItemSize:     2048, ItemsPerRequest: 1, RatePerSecond: 50, Consistent: true},
			{Name: "list pipelines", Operation: table.OpQuery, Index: IndexGSI1,
				Partition:    "P",
				KeyCondition: "siKey1 = P",
				ItemSize:     2048, ItemsPerRequest: 25, RatePerSecond: 5},
			{Name: "get a specific pipeline version", Operation: table.OpGetItem,
				Partition:    "P:{pipelineId}",
				KeyCondition: "pk = P:{pipelineId} AND sk = PV:{version:010d}",
				ItemSize:     2048, ItemsPerRequest: 1, RatePerSecond: 5},
			{Name: "list existing pipeline versions", Operation: table.OpQuery,
				Partition:    "P:{pipelineId}",
				Description:  "base table, not GSI-1: versions carry no siKey1 (see the package doc)",
				KeyCondition: "pk = P:{pipelineId} AND sk BETWEEN PV:0000000001 AND PV:9999999999",
				ItemSize:     2048, ItemsPerRequest: 10, RatePerSecond: 1},
			{Name: "create a pipeline execution", Operation: table.OpTransactWriteItems, Transactional: true,
				Partition: "PE:{executionId}",
				Items: []table.ItemAccess{
					{Operation: table.OpConditionCheck, Size: 2048, Partition: "P:{pipelineId}"},
					{Operation: table.OpPutItem, Size: 300, Partition: "PE:{executionId}", IndexWrites: []table.IndexWrite{{Index: IndexGSI1, Partition: "P:{pipelineId}"}}},
				},
				Description:  "execution item, conditional on the pipeline version existing",
				KeyCondition: "pk = PE:{executionId} AND sk = PE:P",
				ItemSize:     300, ItemsPerRequest: 2, RatePerSecond: 20},
			{Name: "list pipeline executions", Operation: table.OpQuery, Index: IndexGSI1,
				Partition:    "P:{pipelineId}",
				KeyCondition: "siKey1 = P:{pipelineId} AND begins_with(pk, PE:)",
				ItemSize:     300, ItemsPerRequest: 25, RatePerSecond: 5},
			{Name: "get a specific pipeline execution", Operation: table.OpGetItem,
				Partition:    "PE:{executionId}",
				KeyCondition: "pk = PE:{executionId} AND sk = PE:P",
				ItemSize:     300, ItemsPerRequest: 1, RatePerSecond: 20},
			{Name: "list pipelines of a group", Operation: table.OpQuery, Index: IndexGSI1,
				Partition:    "G:{groupId}",
				KeyCondition: "siKey1 = G:{groupId}",
				Description:  "membership items, then one BatchGetItem of the pipelines' current items",
				ItemSize:     100, ItemsPerRequest: 25, RatePerSecond: 2},
			{Name: "list tags", Operation: table.OpQuery, Index: IndexGSI1,
				Partition:    "TD",
				KeyCondition: "siKey1 = TD",
				Description:  "every tag aggregate, by key; zero counts filtered out",
				ItemSize:     100, ItemsPerRequest: 100, RatePerSecond: 2},
			{Name: "list tag keys", Operation: table.OpQuery, Index: IndexGSI1,
				Partition:    "TD",
				KeyCondition: "siKey1 = TD AND pk > TA:{previous key}",
				Description:  "one query per key for one item (two read: table looks one ahead), skipping the key's values",
				ItemSize:     100, ItemsPerRequest: 2, RatePerSecond: 2},
			{Name: "list values of a tag key", Operation: table.OpQuery,
				Partition:    "TA:{key}",
				KeyCondition: "pk = TA:{key} AND begins_with(sk, TA:)",
				Description:  "zero counts filtered out",
				ItemSize:     100, ItemsPerRequest: 50, RatePerSecond: 2},
			{Name: "list pipelines by tags", Operation: table.OpQuery,
				Partition:    "T:{key}[#{parent}]",
				Description:  "one query per requested tag, in parallel, intersected in pipelineId order",
				KeyCondition: "pk = T:{key}[#{parent}] AND sk BETWEEN T:{value}:P:{after} AND T:{value}:P;",
				ItemSize:     60, ItemsPerRequest: 100, RatePerSecond: 10},
			{Name: "get the page of pipelines matching tags", Operation: table.OpBatchGetItem,
				Partition:    "P:{pipelineId}",
				KeyCondition: "pk = P:{pipelineId} AND sk = PV:current",
				ItemSize:     2048, ItemsPerRequest: 25, RatePerSecond: 10},
		},
	}
}

package pipeline

import (
	"time"

	"github.com/tablekit/tablekit/access"
)

// The seed states no traffic. The peak rates below are a busy service's;
// the averages the bill uses assume it is busy a working day (8 of 24
// hours) and idle otherwise: a third of each peak. The rare delete runs
// at one steady rate.
const busyFraction = 8.0 / 24

// Entities are the items the table keeps, for datamodel's storage
// estimate. Nothing expires: executions, versions and tags stay until
// the pipeline is deleted. The current item, executions and group
// memberships carry siKey1 (GSI-1, ALL); versions and tag items do not.
// Version 1, written with the pipeline, is left out (one per pipeline
// beside one per update).
func Entities() []access.Entity {
	gsi := []string{IndexGSI1}
	pp := "P:{pipelineId}"
	return []access.Entity{
		{Name: entityPipeline, Size: 2048, CreatedBy: "create a new pipeline", Indexes: gsi, Partition: pp, Sort: currentSK},
		{Name: entityVersion, Size: 2048, CreatedBy: "update an existing pipeline", Partition: pp, Sort: "PV:{version:010d}", Parent: entityPipeline, PerParent: 5},
		{Name: entityExecution, Size: 400, CreatedBy: "create a pipeline execution", Indexes: gsi, Partition: "PE:{executionId}", Sort: executionSK,
			Parent: entityPipeline, PerParent: 20},
		{Name: entityExecutionRef, Size: 70, CreatedBy: "create a pipeline execution", Partition: pp, Sort: "PE:{executionId}", Parent: entityPipeline, PerParent: 20},
		{Name: entityTag, Size: 60, CreatedBy: "create a new pipeline", PerRequest: 4, Partition: "T:{key}[#{parent}]", Sort: "T:{value}:P:{pipelineId}",
			Parent: entityPipeline, PerParent: 4},
		{Name: entityGroup, Size: 100, CreatedBy: "create a new pipeline", PerRequest: 2, Indexes: gsi, Partition: pp, Sort: "G:{groupId}",
			Parent: entityPipeline, PerParent: 2},
		{Name: entityTagAggregate, Size: 100, Count: 1000, Indexes: gsi, Partition: "TA:{key}", Sort: "TA:{value}"},
	}
}

// Patterns are the ways the store reads and writes its table, with the
// typical item sizes and request rates package datamodel turns into
// capacity, cost, hot-partition estimates and the IAM policy
// (cmd/datamodel writes them under docs/pipeline/).
func Patterns() []access.Pattern {
	ps := []access.Pattern{
		{Name: "create a new pipeline", Operation: access.TransactWriteItems, Transactional: true,
			Partition: "P:{pipelineId}",
			// A typical pipeline: four tag levels, two groups.
			Items: []access.Item{
				{Operation: access.PutItem, Size: 2048, Partition: "P:{pipelineId}", IndexWrites: []access.IndexWrite{{Index: IndexGSI1, Partition: "P"}}},
				{Operation: access.PutItem, Size: 2048, Partition: "P:{pipelineId}"},
				{Operation: access.PutItem, Size: 60, Count: 4, Partition: "T:{key}[#{parent}]"},
				{Operation: access.UpdateItem, Size: 100, Count: 4, Partition: "TA:{key}", IndexWrites: []access.IndexWrite{{Index: IndexGSI1, Partition: "TD"}}},
				{Operation: access.PutItem, Size: 100, Count: 2, Partition: "P:{pipelineId}", IndexWrites: []access.IndexWrite{{Index: IndexGSI1, Partition: "G:{groupId}"}}},
			},
			Description:  "current item, version 1, one tag item and one aggregate ADD per tag level, one item per group",
			KeyCondition: "pk = P:{pipelineId} AND sk = PV:current; pk = P:{pipelineId} AND sk = PV:{version}; pk = T:{key}[#{parent}] AND sk = T:{value}:P:{pipelineId}; pk = TA:{key} AND sk = TA:{value}",
			ItemSize:     2048, ItemsPerRequest: 12, RatePerSecond: 1, AveragePerSecond: 1 * busyFraction},
		{Name: "update an existing pipeline", Operation: access.TransactWriteItems, Transactional: true,
			Partition: "P:{pipelineId}",
			// A typical update: one tag level removed (the last pipeline to
			// carry it: its count is ADDed down to zero here and removed
			// after the transaction, "remove a zero tag count"), one added,
			// one group left, one joined.
			Items: []access.Item{
				{Operation: access.PutItem, Size: 2048, Partition: "P:{pipelineId}", IndexWrites: []access.IndexWrite{{Index: IndexGSI1, Partition: "P"}}},
				{Operation: access.PutItem, Size: 2048, Partition: "P:{pipelineId}"},
				{Operation: access.DeleteItem, Size: 60, Partition: "T:{key}[#{parent}]"},
				{Operation: access.PutItem, Size: 60, Partition: "T:{key}[#{parent}]"},
				{Operation: access.UpdateItem, Size: 100, Count: 2, Partition: "TA:{key}", IndexWrites: []access.IndexWrite{{Index: IndexGSI1, Partition: "TD"}}},
				{Operation: access.DeleteItem, Size: 100, Partition: "P:{pipelineId}", IndexWrites: []access.IndexWrite{{Index: IndexGSI1, Partition: "G:{groupId}"}}},
				{Operation: access.PutItem, Size: 100, Partition: "P:{pipelineId}", IndexWrites: []access.IndexWrite{{Index: IndexGSI1, Partition: "G:{groupId}"}}},
			},
			Description:  "new version item, current item replaced if version is unchanged, tag items and aggregates adjusted for the tags added and removed, group items added and removed",
			KeyCondition: "pk = P:{pipelineId} AND sk = PV:current (version = :read); pk = P:{pipelineId} AND sk = PV:{version+1}",
			ItemSize:     2048, ItemsPerRequest: 8, RatePerSecond: 5, AveragePerSecond: 5 * busyFraction},
		{Name: "read the pipeline an update is based on", Operation: access.GetItem,
			Partition:    "P:{pipelineId}",
			Description:  "Update reads the current item (strongly consistent) before its transaction: the tags and groups it diffs against are the ones its version condition guards",
			KeyCondition: "pk = P:{pipelineId} AND sk = PV:current",
			ItemSize:     2048, ItemsPerRequest: 1, RatePerSecond: 5, AveragePerSecond: 5 * busyFraction, Consistent: true},
		{Name: "read the current version for a new execution", Operation: access.GetItem,
			Partition:    "P:{pipelineId}",
			Description:  "Executions.Create of version 0 (the current one) reads the current item first (strongly consistent) to learn its version",
			KeyCondition: "pk = P:{pipelineId} AND sk = PV:current",
			ItemSize:     2048, ItemsPerRequest: 1, RatePerSecond: 20, AveragePerSecond: 20 * busyFraction, Consistent: true},
		{Name: "remove a zero tag count", Operation: access.DeleteItem,
			Partition:    "TA:{key}",
			Description:  "after an update or delete, the aggregate of a tag level no pipeline carries any more, conditional on its count being zero (a transaction cannot see that its ADD -1 made zero)",
			KeyCondition: "pk = TA:{key} AND sk = TA:{value} (count = 0)",
			IndexWrites:  []access.IndexWrite{{Index: IndexGSI1, Partition: "TD"}},
			ItemSize:     100, ItemsPerRequest: 1, RatePerSecond: 5, AveragePerSecond: 5 * busyFraction},
		{Name: "get an existing pipeline", Operation: access.GetItem,
			Partition:    "P:{pipelineId}",
			KeyCondition: "pk = P:{pipelineId} AND sk = PV:current",
			ItemSize:     2048, ItemsPerRequest: 1, RatePerSecond: 50, AveragePerSecond: 50 * busyFraction, Consistent: true},
		{Name: "list pipelines", Operation: access.Query, Index: IndexGSI1,
			Partition:    "P",
			KeyCondition: "siKey1 = P",
			ItemSize:     2048, ItemsPerRequest: 25, RatePerSecond: 5, AveragePerSecond: 5 * busyFraction},
		{Name: "get a specific pipeline version", Operation: access.GetItem,
			Partition:    "P:{pipelineId}",
			KeyCondition: "pk = P:{pipelineId} AND sk = PV:{version:010d}",
			ItemSize:     2048, ItemsPerRequest: 1, RatePerSecond: 5, AveragePerSecond: 5 * busyFraction},
		{Name: "list existing pipeline versions", Operation: access.Query,
			Partition:    "P:{pipelineId}",
			Description:  "base table, not GSI-1: versions carry no siKey1 (see the package doc); padded keys a page at a time, the seed's unpadded ones whole, merged by number",
			KeyCondition: "pk = P:{pipelineId} AND sk BETWEEN PV:{after+1:010d} AND PV:0999999999; pk = P:{pipelineId} AND sk BETWEEN PV:1 AND PV:9999999999",
			ItemSize:     2048, ItemsPerRequest: 10, RatePerSecond: 1, AveragePerSecond: 1 * busyFraction},
		{Name: "create a pipeline execution", Operation: access.TransactWriteItems, Transactional: true,
			Partition: "PE:{executionId}",
			Items: []access.Item{
				{Operation: access.ConditionCheck, Size: 2048, Count: 2, Partition: "P:{pipelineId}"},
				{Operation: access.PutItem, Size: 300, Partition: "PE:{executionId}", IndexWrites: []access.IndexWrite{{Index: IndexGSI1, Partition: "P:{pipelineId}"}}},
				{Operation: access.PutItem, Size: 70, Partition: "P:{pipelineId}"},
			},
			Description:  "execution item and its reference in the pipeline's partition, conditional on the pipeline version existing and the pipeline not being deleted",
			KeyCondition: "pk = PE:{executionId} AND sk = PE:P",
			ItemSize:     300, ItemsPerRequest: 3, RatePerSecond: 20, AveragePerSecond: 20 * busyFraction},
		{Name: "move a pipeline execution", Operation: access.UpdateItem,
			Partition:    "PE:{executionId}",
			Description:  "start, succeed or fail: one UpdateItem conditional on the state it starts from, the current item returned on refusal; the execution's GSI-1 entry (ALL) is rewritten",
			KeyCondition: "pk = PE:{executionId} AND sk = PE:P (state = :from)",
			IndexWrites:  []access.IndexWrite{{Index: IndexGSI1, Partition: "P:{pipelineId}"}},
			ItemSize:     400, ItemsPerRequest: 1, RatePerSecond: 40, AveragePerSecond: 40 * busyFraction},
		{Name: "delete a pipeline", Operation: access.BatchWriteItem, Maintenance: true,
			Partition:    "P:{pipelineId}",
			Description:  "mark the current item (UpdateItem), executions (found by their references in the partition and on GSI-1) by BatchWriteItem, per tag level a transaction deleting the tag item and decrementing its count, zero counts by DeleteItem, the partition by BatchWriteItem, the current item last (DeleteItem)",
			KeyCondition: "pk = P:{pipelineId} AND begins_with(sk, PE:); siKey1 = P:{pipelineId} AND begins_with(pk, PE:); pk = P:{pipelineId}",
			ItemSize:     2048, ItemsPerRequest: 10, RatePerSecond: 0.01, AveragePerSecond: 0.01},
		{Name: "list pipeline executions", Operation: access.Query, Index: IndexGSI1,
			Partition:    "P:{pipelineId}",
			KeyCondition: "siKey1 = P:{pipelineId} AND begins_with(pk, PE:)",
			ItemSize:     300, ItemsPerRequest: 25, RatePerSecond: 5, AveragePerSecond: 5 * busyFraction},
		{Name: "get a specific pipeline execution", Operation: access.GetItem,
			Partition:    "PE:{executionId}",
			KeyCondition: "pk = PE:{executionId} AND sk = PE:P",
			ItemSize:     300, ItemsPerRequest: 1, RatePerSecond: 20, AveragePerSecond: 20 * busyFraction},
		{Name: "list pipelines of a group", Operation: access.Query, Index: IndexGSI1,
			Partition:    "G:{groupId}",
			KeyCondition: "siKey1 = G:{groupId}",
			Description:  "membership items, then one BatchGetItem of the pipelines' current items",
			ItemSize:     100, ItemsPerRequest: 25, RatePerSecond: 2, AveragePerSecond: 2 * busyFraction},
		{Name: "list tags", Operation: access.Query, Index: IndexGSI1,
			Partition:    "TD",
			KeyCondition: "siKey1 = TD",
			Description:  "every tag aggregate, by key; zero counts filtered out",
			ItemSize:     100, ItemsPerRequest: 100, RatePerSecond: 2, AveragePerSecond: 2 * busyFraction},
		{Name: "list tag keys", Operation: access.Query, Index: IndexGSI1,
			Partition:    "TD",
			KeyCondition: "siKey1 = TD AND pk > TA:{previous key}",
			Description:  "one query per key for one item (two read: table looks one ahead), skipping the key's values",
			ItemSize:     100, ItemsPerRequest: 2, RatePerSecond: 2, AveragePerSecond: 2 * busyFraction},
		{Name: "list values of a tag key", Operation: access.Query,
			Partition:    "TA:{key}",
			KeyCondition: "pk = TA:{key} AND begins_with(sk, TA:)",
			Description:  "zero counts filtered out",
			ItemSize:     100, ItemsPerRequest: 50, RatePerSecond: 2, AveragePerSecond: 2 * busyFraction},
		{Name: "list pipelines by tags", Operation: access.Query,
			Partition:    "T:{key}[#{parent}]",
			Description:  "one query per requested tag, in parallel, intersected in pipelineId order",
			KeyCondition: "pk = T:{key}[#{parent}] AND sk BETWEEN T:{value}:P:{after} AND T:{value}:P;",
			ItemSize:     60, ItemsPerRequest: 100, RatePerSecond: 10, AveragePerSecond: 10 * busyFraction},
		{Name: "get the page of pipelines matching tags", Operation: access.BatchGetItem,
			Partition:    "P:{pipelineId}",
			KeyCondition: "pk = P:{pipelineId} AND sk = PV:current",
			ItemSize:     2048, ItemsPerRequest: 25, RatePerSecond: 10, AveragePerSecond: 10 * busyFraction},
	}
	for i := range ps {
		ps[i].Entities = append([]string(nil), patternEntities[ps[i].Name]...)
		ps[i].Latency = latencies[ps[i].Name]
	}
	return ps
}

// Entity names, for Entities and the patterns that read and write them.
// Everything belongs to a pipeline: its versions, execution references
// and group memberships in its partition; executions in partitions of
// their own (PE:, read by execution id) listed by pipeline on GSI-1; tag
// items in their tag's partition (T:, read by tag). Tag aggregates are
// per tag, no pipeline's.
const (
	entityPipeline     = "Pipeline (current item)"
	entityVersion      = "Pipeline version"
	entityExecution    = "Execution"
	entityExecutionRef = "Execution reference"
	entityTag          = "Tag item"
	entityGroup        = "Group membership"
	entityTagAggregate = "Tag aggregate"
)

// patternEntities are the entities each pattern reads or writes.
var patternEntities = map[string][]string{
	"create a new pipeline":                        {entityPipeline, entityVersion, entityTag, entityTagAggregate, entityGroup},
	"update an existing pipeline":                  {entityPipeline, entityVersion, entityTag, entityTagAggregate, entityGroup},
	"read the pipeline an update is based on":      {entityPipeline},
	"read the current version for a new execution": {entityPipeline},
	"remove a zero tag count":                      {entityTagAggregate},
	"get an existing pipeline":                     {entityPipeline},
	"list pipelines":                               {entityPipeline},
	"get a specific pipeline version":              {entityVersion},
	"list existing pipeline versions":              {entityVersion},
	"create a pipeline execution":                  {entityExecution, entityExecutionRef, entityPipeline},
	"move a pipeline execution":                    {entityExecution},
	"delete a pipeline":                            {entityPipeline, entityVersion, entityExecution, entityExecutionRef, entityTag, entityTagAggregate, entityGroup},
	"list pipeline executions":                     {entityExecution},
	"get a specific pipeline execution":            {entityExecution},
	"list pipelines of a group":                    {entityGroup},
	"list tags":                                    {entityTagAggregate},
	"list tag keys":                                {entityTagAggregate},
	"list values of a tag key":                     {entityTagAggregate},
	"list pipelines by tags":                       {entityTag},
	"get the page of pipelines matching tags":      {entityPipeline},
}

// latencies are the patterns' latency targets (p99, the data-modeling method's "latency
// SLO"): 10 ms for a GetItem, 20 ms for a page of a partition or of
// GSI-1 and for a single conditional write, 50 ms for a transaction or a
// BatchGetItem of a page of pipelines, and a second a request for a
// pipeline's deletion, which runs in the background.
var latencies = map[string]time.Duration{
	"create a new pipeline":                        50 * time.Millisecond,
	"update an existing pipeline":                  50 * time.Millisecond,
	"read the pipeline an update is based on":      10 * time.Millisecond,
	"read the current version for a new execution": 10 * time.Millisecond,
	"remove a zero tag count":                      20 * time.Millisecond,
	"get an existing pipeline":                     10 * time.Millisecond,
	"list pipelines":                               20 * time.Millisecond,
	"get a specific pipeline version":              10 * time.Millisecond,
	"list existing pipeline versions":              20 * time.Millisecond,
	"create a pipeline execution":                  50 * time.Millisecond,
	"move a pipeline execution":                    20 * time.Millisecond,
	"delete a pipeline":                            time.Second,
	"list pipeline executions":                     20 * time.Millisecond,
	"get a specific pipeline execution":            10 * time.Millisecond,
	"list pipelines of a group":                    20 * time.Millisecond,
	"list tags":                                    20 * time.Millisecond,
	"list tag keys":                                20 * time.Millisecond,
	"list values of a tag key":                     20 * time.Millisecond,
	"list pipelines by tags":                       20 * time.Millisecond,
	"get the page of pipelines matching tags":      50 * time.Millisecond,
}

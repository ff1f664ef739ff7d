package main

import (
	"github.com/tablekit/tablekit/datamodel"
	"github.com/tablekit/tablekit/pipeline"
)

// pipelineModel is the pipeline design's pipeline table.
func pipelineModel() datamodel.Model {
	return datamodel.Model{
		Store:    "pipeline",
		Design:   "../systems/pipeline.md",
		Package:  "github.com/tablekit/tablekit/pipeline",
		Schema:   pipeline.Schema(pipeline.DefaultTableName),
		Patterns: pipeline.Patterns(),
		Entities: pipeline.Entities(),
		Popularity: map[string]datamodel.Popularity{
			"P:{pipelineId}":     {Exponent: 1, Why: "popular pipelines run, and are read, far more often than the rest: Zipf's law with exponent 1"},
			"PE:{executionId}":   {Exponent: 0, Why: "an execution is written once and read by the caller that started it"},
			"T:{key}[#{parent}]": {Keys: 20, Exponent: 1, Why: "the seed's tags are a few keys (env, team, owner, ...) on most pipelines: 20 keys, the commonest on nearly every pipeline"},
			"TA:{key}":           {Keys: 20, Exponent: 1, Why: "the same 20 tag keys, their counts moved with their tag items"},
		},
		Prose: datamodel.Prose{
			Alternatives: map[string]string{
				"capacity": "the declared rates are the design's estimates, not measured traffic: on demand until a month of it shows the steady floor a provisioned plan would be sized to",
			},
			Philosophy:        "One table for the pipeline module (the pipeline design (docs/systems/pipeline.md)): a pipeline's current definition and its immutable versions share the pipeline's partition; executions, groups, tags and tag aggregates are their own partitions; GSI-1 (partition `siKey1`, sort `pk`) lists pipelines, a pipeline's executions, a group's members and the tag aggregates. Keys use the seed's `:` delimiter.",
			Aggregates:        "Pipeline + versions: an item collection (`P:{pipelineId}`): the current item (`PV:current`) is read on every get, versions only when asked, and an update writes a new version and replaces the current one in one transaction conditioned on the version read (optimistic locking). Tags are a separate inverted index of items (`T:{key}` partitions) so a tag query reads only matching pipelines; aggregates (`TA:{key}`) count them with `ADD`.",
			Purpose:           "Pipelines, their versions and executions, groups, tags and tag counts.",
			AggregateBoundary: "a pipeline with its versions; an execution; a tag key's items; a tag key's aggregates.",
			PartitionKey:      "`pk`: `P:{pipelineId}`, `PE:{executionId}`, `G:{groupId}`, `T:{key}[#{parent}]`, `TA:{key}` - high cardinality except the tag partitions, whose size follows the tag's popularity.",
			SortKey:           "`sk`: `PV:current`, `PV:{version:010d}`, `PE:P`, `T:{value}:P:{pipelineId}`, `TA:{value}`.",
			SortKeyTaxonomy: []string{
				"`PV:current`: the pipeline's current definition (`siKey1 P`)",
				"`PV:{version:010d}`: immutable versions, in order",
				"`PE:P` under `PE:{executionId}`: an execution (`siKey1 P:{pipelineId}`)",
				"`T:{value}:P:{pipelineId}` under `T:{key}[#{parent}]`: a pipeline carrying a tag, one item per hierarchy level",
				"`TA:{value}` under `TA:{key}`: how many pipelines carry the tag (`siKey1 TD`)",
			},
			BoundedReads: "versions by `sk BETWEEN`, tags by `sk` prefix per value and pipeline id after the cursor, every list paged with opaque cursors.",
			Indexes: map[string]datamodel.IndexProse{
				pipeline.IndexGSI1: {
					Purpose:      "list pipelines (`P`), a pipeline's executions (`P:{pipelineId}`), a group's pipelines (`G:{groupId}`) and all tag aggregates (`TD`).",
					PartitionKey: "`siKey1`, overloaded; `P` and `TD` are single values for all pipelines and all aggregates (see the hot-partition analysis).",
					SortKey:      "`pk`, so each listing is ordered by id and pages by it.",
					Projection:   "list pipelines and list executions return whole records; ALL avoids a BatchGetItem per page.",
					Sparse:       "versions and tag items carry no `siKey1` and stay out",
				},
			},
			TradeOffs: []string{
				"**Versions on the base table, not GSI-1**: the seed's version rows would otherwise appear in \"list pipelines\"; a key condition on `sk` reads exactly a pipeline's versions.",
				"**Tag aggregates kept, not deleted, at zero**: deleting would race with a concurrent `ADD +1`; a zero row is one small item and is filtered from listings.",
				"**One item per tag level** lets `region=usa` find `usa/northwest/seattle` with one Query per tag, at the price of a few more items per write.",
				"**Transactions with optimistic locking** for updates: a lost race writes nothing and returns a typed conflict error.",
			},
			// Where the design departs from the data-modeling method's consolidation
			// rules (computed in dynamodb_requirement.md), and why.
			Relationships: map[string]string{
				"Pipeline version":    "the pipeline design keys versions under the pipeline (`pk = P:{pipelineId}`, `sk = PV:{version}`): every read of a version names the pipeline, and none wants the current item with it, so the sort key keeps them apart at no cost to the current item's reads. One version per update, listed a page at a time.",
				"Execution reference": "a reference exists so that deleting a pipeline finds its executions in the pipeline's own partition (`begins_with(sk, PE:)`); only that delete reads it.",
				"Group membership":    "the pipeline design puts a pipeline's group items in its partition so an update or a delete rewrites them with the pipeline; a group's pipelines are listed by group id through GSI-1 (`siKey1 = G:{groupId}`), the read the pipeline's partition cannot serve.",
			},
			Declined: map[string]string{
				"Execution reference": "read only inside a pipeline's deletion (a Query of the pipeline's partition for `PE:` keys), which is declared as its BatchWriteItem",
			},
			Denormalization: []string{
				"**Taken: the current version twice** (`PV:current` beside `PV:{version}`): Get is one GetItem of the current item; both are written in the same transaction.",
				"**Taken: tag aggregates** (`TA:{key}`, counts per tag value): listing tag keys and values reads the counts, kept by every pipeline write that adds or removes a tag, instead of querying every tag item.",
				"**Declined: a pipeline's executions listed on the pipeline item**: executions are unbounded, so they stay their own items, found through GSI1 (`siKey1 = P:{pipelineId}`).",
			},
			Integration: "input and output files live in S3 under the execution's prefix (the seed's `exections` spelling kept); clients upload and download with presigned URLs, and the execution item records their keys.",
		},
		Items: []datamodel.Sample{
			{{"pk", "P:01HF3Q0Z8W6T4X1N5R2K7M9C3D"}, {"sk", "PV:current"}, {"siKey1", "P"}, {"version", "3"}, {"name", "daily-sap-import"}},
			{{"pk", "P:01HF3Q0Z8W6T4X1N5R2K7M9C3D"}, {"sk", "PV:0000000003"}, {"version", "3"}, {"name", "daily-sap-import"}},
			{{"pk", "PE:01HF3R2A9X7U5Y2P6S3L8N0D4E"}, {"sk", "PE:P"}, {"siKey1", "P:01HF3Q0Z8W6T4X1N5R2K7M9C3D"}, {"version", "3"}, {"status", "RUNNING"}},
			{{"pk", "P:01HF3Q0Z8W6T4X1N5R2K7M9C3D"}, {"sk", "G:/usa/northwest"}, {"siKey1", "G:/usa/northwest"}},
			{{"pk", "T:source"}, {"sk", "T:sap:P:01HF3Q0Z8W6T4X1N5R2K7M9C3D"}},
			{{"pk", "T:region#usa"}, {"sk", "T:northwest:P:01HF3Q0Z8W6T4X1N5R2K7M9C3D"}},
			{{"pk", "TA:region"}, {"sk", "TA:usa/northwest"}, {"siKey1", "TD"}, {"count", "12"}},
		},
	}
}

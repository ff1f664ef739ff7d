// Package datamodel turns a store's table.Schema and its declared access
// patterns ([]access.Pattern) into what the data-modelling method of
// docs/systems/datamodel.md ("the seed" below) asks of every table: capacity and
// on-demand cost per access pattern, a hot-partition analysis, the
// dynamodb_data_model.md document, and a least-privilege IAM policy; and it
// checks its own estimates on dynamotest.
//
// # Declaring access patterns
//
// Each store declares its access patterns in its patterns.go, as a
// package-level Patterns function returning []access.Pattern (package
// access, a leaf that table.Schema does not depend on): operation, index, key condition, item size, items per request, request
// rate, consistency. Four optional fields say what capacity estimation
// needs beyond that:
//
//   - Partition: the partition key value the requests hit, a constant
//     ("STATUS#PENDING", "JOURNEYS") or a template ("TASK#{taskId}").
//   - Partitions: how many write shards the pattern's constant key values
//     are split over (the seed's write sharding); a service that configures
//     its own sets it with WithPartitions.
//   - IndexWrites: the GSI entries each written item costs, with Move for a
//     write that changes the item's index key (a delete and a put) and the
//     index partition values written.
//   - Items: the items of a request whose items differ (a transaction that
//     creates a task, appends its event and writes an idempotency item),
//     each with its operation, size, count, partition and index writes.
//
// # Estimates
//
// EstimateSchema applies DynamoDB's rules, the same ones dynamotest's
// accounting follows: reads in 4 KB units, half for eventually consistent
// reads, double for transactional ones, Query and Scan rounding the sum of
// the items they read; writes in 1 KB units, double in a transaction, plus
// one write per GSI entry (the item's size for ALL and, as an upper
// bound, INCLUDE projections; one unit for KEYS_ONLY) and two where the
// index key moves. Each pattern declares a peak rate (RatePerSecond) and
// an average (AveragePerSecond): capacity and the hot-partition analysis
// use the peaks, the bill the averages (a pattern without an average is
// billed at its peak and named in the document); a service substitutes
// its own with WithRates and WithAverages. Storage is derived from the
// store's entities (access.Entity, WithEntities): items created at the
// creating pattern's average rate, kept for their Retention (TTL) or,
// when nothing deletes them, counted after a horizon (WithHorizon, a year
// by default), each billed at its size plus DynamoDB's 100-byte overhead
// in the table and in every GSI that holds it. Monthly cost uses the
// seed's prices (RRU $0.125 and WRU $0.625 per million, storage $0.25 per
// GB-month, 2,592,000 seconds a month). Estimate.Provisioned prices a provisioned plan
// (table.Capacity, auto-scaling included) on the same estimate at
// DynamoDB's provisioned prices, which the seed does not give. The load on every constant key value (per shard) is
// summed over the patterns that touch it, templates being per entity; a value past 3,000 RCU or 1,000 WCU per
// second is hot, and PartitionLoad.Remedy names the seed's write sharding
// with the smallest shard count that fits. A per-entity template's load is
// not spread evenly: Popularity (WithPopularity, Model.Popularity) declares
// how its requests fall on its values, Zipf's law over N values with an
// exponent (DefaultPopularity: exponent 1 over the items of the entity it
// keys), and Estimate.Skewed is the load on each template's hottest value,
// hot past the same limits (adaptive capacity can isolate a hot item, never
// past them); a sharded constant's shards can be declared skewed the same way.
// Model.Alternatives prices the method's other choices beside the design:
// capacity mode (on demand, the model's Plans, a plan sized to the load),
// each GSI against an application-written copy, large bodies (Offloads)
// in S3 or inline, and a parent-child pair in one table or two.
//
// # Documents and policies
//
// A Model is a schema and its patterns plus the prose only a store's authors can write
// (design philosophy, aggregate decisions, trade-offs) and representative
// items; Render produces the seed's dynamodb_data_model.md from it, every
// figure computed, GSI tables derived from the items by each index's keys
// and projection. The prose lives with the Model rather than in the
// stores, so a store's patterns stay a plain declaration; cmd/datamodel
// keeps one Model per tablekit store and writes docs/<store>/.
// CheckItems holds the representative items to what the store declares:
// 5 to 10 of them, each with the keys of a declared entity
// (access.Entity's Partition and Sort templates) and only index
// partitions its patterns read or write; cmd/datamodel writes no document
// for a model that fails it.
//
// PolicyFor is the runtime IAM policy of a schema and its patterns
// (package iam's Runtime for that one table): the item actions its
// patterns use on the table, transactions by their inner actions as IAM
// authorizes them, and Query or Scan only on the indexes its patterns
// read, each by name, in one region and account (iam.Placeholders by
// default), with the S3 statements of the objects it is given
// (PolicyOptions.Objects; Model.Objects for a Model, which cmd/datamodel
// takes from the store's iam/policies description). The document's
// validation checklist lists every statement by what it is on. Table
// creation is iam.Admin's policy; cmd/datamodel writes all of them under
// docs/<store>/. dynamotest.Enforce runs a store under a
// policy and answers what it does not allow with AccessDeniedException.
//
// # The requirements checklist
//
// RenderRequirements writes the data-modeling method's dynamodb_requirement.md: every
// pattern with its rates and latency target, the entities and their
// relationships, the access correlation of each parent-child pair (the
// share of the reads, at the patterns' average rates, that need both),
// the identifying-relationship check (does every read of the child name
// its parent's partition key; does a GSI serve what that key would), the
// consolidation review by the seed's thresholds (consolidate above 50%
// overlap with a bounded identifying child, keep separate below 30% or
// when unbounded), and the validation checklist. Checklist computes each
// box from the declaration; an unticked box names what is missing, and a
// design that departs from the framework needs its reason in
// Prose.Relationships.
//
// # Checking the estimates
//
// Measure replays each declared pattern on a fresh dynamotest fake, with
// items of the declared sizes and counts carrying the declared index keys,
// and reports the capacity consumed next to the estimate; Render includes
// the comparison in the document's validation section. The replay follows
// the declaration, so it checks the arithmetic against DynamoDB's rules as
// the fake implements them; whether a declaration matches what a store's
// code sends is for the store's own tests (and Enforce) to show.
package datamodel

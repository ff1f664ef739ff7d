package datamodel

import (
	"fmt"

	"github.com/tablekit/tablekit/access"
	"github.com/tablekit/tablekit/iam"
	"github.com/tablekit/tablekit/table"
)

// Model is what the data-model document of one store is made from: the
// store's declared schema (keys, GSIs, access patterns with sizes and
// rates) and the short prose only its authors can write. The prose lives
// with the model, on the datamodel side (cmd/datamodel keeps one Model
// per store), so the stores' schemas stay plain declarations; every
// figure in the document comes from the schema.
type Model struct {
	// Store names the store ("journey"): the document's folder under docs/.
	Store string
	// Package is the Go import path of the store, for the document's
	// provenance line.
	Package string
	// Design is a link (relative to the documents) to the description of
	// the system the table serves, which both documents name in their
	// opening lines; "the seed" in the prose means that system's original
	// design. Empty: no link.
	Design string
	// Schema is the table as CreateTable needs it, and Patterns how the
	// store uses it (the store's Patterns function).
	Schema   table.Schema
	Patterns []access.Pattern
	// Entities are the items the table keeps (the store's Entities
	// function), from which storage is derived.
	Entities []access.Entity
	// Attributes lists, by pattern name, the attributes a pattern needs
	// (the seed's "Attributes Needed"; the per-pattern projected
	// attributes a GSI must keep); a pattern not listed needs the whole
	// item.
	Attributes map[string][]string
	// Estimate options: the service's own rates, averages, shards.
	Options []func(*Options)
	// Popularity is how requests fall on the values of the table's
	// per-entity keys (and on a sharded constant's shards), by template,
	// from the system's design where it says so (Options.Popularity: for
	// this table only, not OtherTables).
	Popularity map[string]Popularity
	// Plans are provisioned capacity plans priced beside on demand (a
	// store's production preset); Offloads the large bodies the design
	// keeps in S3 or inline, priced both ways (Alternatives).
	Plans    []Plan
	Offloads []Offload
	// Objects are the S3 objects the store reads and writes (the Objects
	// of its iam/policies description): its runtime policy, and the
	// document's checklist, hold their statements beside the table's.
	Objects []iam.Objects
	// OtherTables are other stores' tables the store's own calls use
	// (jobs with jobs.Work: the tasks table its jobs' work is queued on),
	// each with what the store sends it. The runtime policy grants them
	// beside the store's table, and the document and costs.md add their
	// cost to the store's.
	OtherTables []OtherTable

	Prose Prose
	// Items are representative items (5-10), attribute name to the value
	// shown; the GSI tables are derived from them by the GSIs' keys and
	// projections, so a sparse index shows only the items it holds.
	Items []Sample
}

// OtherTable is another store's table a model's store calls: its schema,
// the patterns the model's store sends it, at the model's rates, and the
// items those patterns keep there (for their storage).
type OtherTable struct {
	Schema   table.Schema
	Patterns []access.Pattern
	Entities []access.Entity
}

// Estimate is EstimateSchema of the other table's schema, patterns and
// entities with opts.
func (o OtherTable) Estimate(opts ...func(*Options)) (*Estimate, error) {
	return EstimateSchema(o.Schema, o.Patterns, append([]func(*Options){WithEntities(o.Entities)}, opts...)...)
}

// Sample is one representative item: attribute names and the values
// shown, in the order they should appear.
type Sample [][2]string

// get returns the value of attribute name, and whether the item has it.
func (s Sample) get(name string) (string, bool) {
	for _, f := range s {
		if f[0] == name {
			return f[1], true
		}
	}
	return "", false
}

// Prose is the hand-written part of a data-model document, one field per
// section or bullet of the seed's dynamodb_data_model.md template.
// Markdown is allowed; empty fields are left out.
type Prose struct {
	Philosophy        string
	Aggregates        string
	Purpose           string
	AggregateBoundary string
	PartitionKey      string
	SortKey           string
	// SortKeyTaxonomy lists the sort key prefixes and what each holds.
	SortKeyTaxonomy []string
	BoundedReads    string
	Indexes         map[string]IndexProse
	TradeOffs       []string
	// Denormalization lists the method's denormalization ideas for this
	// design: copies of data kept beside the items that read them (taken,
	// with what keeps them true) and the ones considered and declined,
	// with why.
	Denormalization []string
	// Alternatives says, by Alternative.Key ("capacity", "gsi:GSI1",
	// "offload:<What>", "split:<child>"), why the design chose as it did
	// where the priced alternatives alone do not say it.
	Alternatives map[string]string
	// Integration describes what lives outside DynamoDB (S3 bodies,
	// streams) and how the two stay consistent.
	Integration string
	// Relationships justifies, by child entity name, a design that
	// departs from what the data-modeling method's consolidation framework computes for
	// the child and its parent (an item collection below 30% access
	// overlap, a child kept apart above 50%), or that keeps a GSI an
	// identifying relationship would make unnecessary. The checklist
	// leaves its boxes unticked for a departure without one.
	Relationships map[string]string
	// Declined names, by entity, the reads or writes the model leaves out
	// on purpose (the data-modeling method: "unless USER explicitly declines"): an entity
	// written and never read back (an audit trail), or read and written
	// by another service.
	Declined map[string]string
}

// IndexProse is the prose of one GSI's section.
type IndexProse struct {
	Purpose, PartitionKey, SortKey, Projection, Sparse string
}

// Estimate is EstimateSchema of the model's schema, patterns and entities
// with its options.
func (m Model) Estimate() (*Estimate, error) {
	return EstimateSchema(m.Schema, m.Patterns, append([]func(*Options){WithEntities(m.Entities), WithPopularity(m.Popularity)}, m.Options...)...)
}

// OtherEstimates are the estimates of the model's OtherTables, in their
// order, with the model's options.
func (m Model) OtherEstimates() ([]*Estimate, error) {
	var out []*Estimate
	for _, o := range m.OtherTables {
		est, err := o.Estimate(m.Options...)
		if err != nil {
			return nil, err
		}
		out = append(out, est)
	}
	return out, nil
}

// designLine is the sentence that names the system's design document, with
// a leading space, or "" when Design is empty.
func (m Model) designLine() string {
	if m.Design == "" {
		return ""
	}
	return fmt.Sprintf(" The system this table serves is described in [%s](%s); \"the seed\" below is its original design.", m.Design, m.Design)
}

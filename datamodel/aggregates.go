package datamodel

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/tablekit/tablekit/access"
)

// The data-modeling method's thresholds for grouping a child with its parent: consolidate
// (one item collection) above 50% access overlap, keep separate below 30%,
// weigh cost against complexity between; and its item-collection
// framework's bands (above 70% an item collection, above 90% a candidate
// for a single-item aggregate).
const (
	consolidateAbove = 0.5
	separateBelow    = 0.3
	collectionAbove  = 0.7
	singleItemAbove  = 0.9
)

// The method's size constraints on an aggregate: "Will combined size
// exceed 100KB? → Force item collection or separate", and an item
// collection's "Combined entity size stays under 300KB".
const (
	SingleItemMaxBytes = 100 * 1024
	CollectionMaxBytes = 300 * 1024
)

// size is the aggregate's combined size the constraints apply to: its
// bound when the child is bounded, else its typical size.
func (r relationship) size() int {
	if r.bounded() {
		return r.maxBytes
	}
	return r.typicalBytes
}

// sizeFlag is what the method's size constraints say of the pair as the
// design keeps it: "" when within them.
func (r relationship) sizeFlag() string {
	switch {
	case r.samePartition && r.size() > CollectionMaxBytes:
		return fmt.Sprintf("⚠️ an item collection of %s, over the method's 300 KB", kb(r.size()))
	case r.size() > SingleItemMaxBytes:
		return fmt.Sprintf("over %s: never a single item (the method forces an item collection or separate items)", kb(SingleItemMaxBytes))
	}
	return ""
}

// verdict is what the data-modeling method's consolidation rules say of a parent-child
// pair.
type verdict string

const (
	consolidate verdict = "consolidate" // one item collection
	separate    verdict = "separate"    // each in its own partition
	consider    verdict = "consider"    // 30-50%: cost against complexity
)

// relationship is the data-modeling method's analysis of one parent-child pair of
// entities, computed from the declared patterns (their Entities, average
// rates and partitions) and entities (Parent, PerParent, MaxPerParent,
// Partition, Size).
type relationship struct {
	parent, child access.Entity

	// Reads a second, at the patterns' average rates, of the read
	// patterns that need the parent and not the child, the child and not
	// the parent, and both; with the patterns (as "#n Name").
	parentOnly, childOnly, both     float64
	parentRefs, childRefs, bothRefs []string

	// Writes a second of each, and the write patterns that write both.
	parentWrites, childWrites float64
	relatedWrites             []string

	// The item collection they make: typical and largest bytes (max 0
	// when MaxPerParent is 0: unbounded).
	typicalBytes, maxBytes int

	// The identifying-relationship check: whether the child lives in its
	// parent's partition, whether every read of the child names the
	// parent's key (and the reads that do not), and the reads of the
	// child through a GSI.
	samePartition  bool
	parentKeyKnown bool
	withoutParent  []string
	indexReads     []string

	// What the data-modeling method's consolidation rules say, and why; and the model's
	// justification (Prose.Relationships) of a design that departs.
	verdict       verdict
	reasons       []string
	justification string
}

// correlation is the share of the reads naming either entity that need
// both; NaN when no read names either.
func (r relationship) correlation() float64 {
	total := r.parentOnly + r.childOnly + r.both
	if total == 0 {
		return math.NaN()
	}
	return r.both / total
}

// bounded reports whether a parent's children are bounded in number.
func (r relationship) bounded() bool { return r.child.MaxPerParent > 0 }

// departs reports whether the design (the child in its parent's partition
// or not) goes against the framework's verdict.
func (r relationship) departs() bool {
	return (r.verdict == consolidate && !r.samePartition) || (r.verdict == separate && r.samePartition)
}

// needsIdentifying reports the data-modeling method's "No/Yes/Yes": the child cannot
// exist without its parent (declared), every read of it names the
// parent's key, and yet it lives in a partition of its own and is read
// through a GSI, which an identifying relationship would make
// unnecessary.
func (r relationship) needsIdentifying() bool {
	return r.parentKeyKnown && !r.samePartition && len(r.indexReads) > 0
}

// name is "Parent → Child".
func (r relationship) name() string { return r.parent.Name + " → " + r.child.Name }

// cardinality is "1:1" for a child at most one per parent, else "1:Many".
func (r relationship) cardinality() string {
	if r.child.MaxPerParent == 1 {
		return "1:1"
	}
	return "1:Many"
}

var placeholder = regexp.MustCompile(`\{[^{}]+\}`)

// placeholders lists the {name} parts of a key template.
func placeholders(template string) []string { return placeholder.FindAllString(template, -1) }

// names reports whether template carries every placeholder of key (a
// constant key carries none, so any template names it).
func names(template, key string) bool {
	have := placeholders(template)
	for _, p := range placeholders(key) {
		if !slices.Contains(have, p) {
			return false
		}
	}
	return true
}

// relationships analyses every declared parent-child pair of the model,
// in the order of its entities.
func relationships(m Model, e *Estimate) []relationship {
	byName := map[string]access.Entity{}
	for _, en := range m.Entities {
		byName[en.Name] = en
	}
	var out []relationship
	for _, child := range m.Entities {
		parent, ok := byName[child.Parent]
		if child.Parent == "" || !ok || child.Parent == child.Name {
			continue
		}
		r := relationship{parent: parent, child: child, justification: strings.TrimSpace(m.Prose.Relationships[child.Name])}
		r.typicalBytes = parent.Size + child.PerParent*child.Size
		if child.MaxPerParent > 0 {
			r.maxBytes = parent.Size + child.MaxPerParent*child.Size
		}
		r.samePartition = child.Partition != "" && child.Partition == parent.Partition
		r.parentKeyKnown = parent.Partition != ""
		for i, pe := range e.Patterns {
			ap := pe.Pattern
			ref := fmt.Sprintf("#%d %s", i+1, ap.Name)
			hasP, hasC := slices.Contains(ap.Entities, parent.Name), slices.Contains(ap.Entities, child.Name)
			rate := averageOf(ap)
			if !isRead(ap.Operation) {
				if hasP {
					r.parentWrites += rate
				}
				if hasC {
					r.childWrites += rate
				}
				if hasP && hasC {
					r.relatedWrites = append(r.relatedWrites, ref)
				}
				continue
			}
			switch {
			case hasP && hasC:
				r.both += rate
				r.bothRefs = append(r.bothRefs, ref)
			case hasP:
				r.parentOnly += rate
				r.parentRefs = append(r.parentRefs, ref)
			case hasC:
				r.childOnly += rate
				r.childRefs = append(r.childRefs, ref)
			}
			if hasC {
				if parent.Partition == "" || ap.Partition == "" || !names(ap.Partition, parent.Partition) {
					r.parentKeyKnown = false
					r.withoutParent = append(r.withoutParent, ref)
				}
				if ap.Index != "" {
					r.indexReads = append(r.indexReads, ref)
				}
			}
		}
		r.verdict, r.reasons = judge(r)
		out = append(out, r)
	}
	return out
}

// judge applies the data-modeling method's consolidation rules: consolidate when more
// than 50% of the reads overlap, the child belongs to the parent, its
// number is bounded and the parent's key is known to every read of it;
// keep separate below 30% overlap or when the children are unbounded;
// weigh cost against complexity otherwise.
func judge(r relationship) (verdict, []string) {
	c := r.correlation()
	var why []string
	pct := "no read names either"
	if !math.IsNaN(c) {
		pct = fmt.Sprintf("%s%% access overlap", num(math.Round(c*1000)/10))
	}
	why = append(why, pct)
	if r.bounded() {
		why = append(why, fmt.Sprintf("bounded (at most %s per %s)", num(float64(r.child.MaxPerParent)), r.parent.Name))
	} else {
		why = append(why, "unbounded growth")
	}
	if r.parentKeyKnown {
		why = append(why, "identifying (every read of it names the parent's key)")
	} else {
		why = append(why, "not identifying (reads without the parent's key)")
	}
	switch {
	case math.IsNaN(c):
		return consider, why
	case c < separateBelow || !r.bounded():
		return separate, why
	case c > consolidateAbove && r.parentKeyKnown:
		return consolidate, why
	}
	return consider, why
}

// collectionDecision is the data-modeling method's item-collection framework for a pair:
// the design it suggests at this correlation and size.
func collectionDecision(r relationship) string {
	c := r.correlation()
	switch {
	case math.IsNaN(c):
		return "no reads to decide from"
	case c > singleItemAbove && r.bounded() && r.maxBytes <= SingleItemMaxBytes:
		return "single-item aggregate candidate (>90% correlation, bounded under 100 KB)"
	case c > collectionAbove && r.bounded():
		return "item collection (>70% correlation, bounded)"
	case c >= consolidateAbove:
		return "analyze operational coupling (50-70% correlation)"
	case r.samePartition && r.parentKeyKnown:
		return "separate by correlation (<50%), but an identifying relationship makes it a strong item-collection candidate"
	}
	return "separate aggregates (<50% correlation)"
}

// design says where the design keeps the child.
func (r relationship) design() string {
	switch {
	case r.child.Partition == "" || r.parent.Partition == "":
		return "unknown: a partition is not declared"
	case r.samePartition:
		return "item collection: the child in its parent's partition (`" + r.child.Partition + "`)"
	}
	return "own partition (`" + r.child.Partition + "`, the parent's is `" + r.parent.Partition + "`)"
}

// pct renders a share of reads.
func pct(part, total float64) string {
	if total == 0 {
		return "0%"
	}
	return num(math.Round(part/total*1000)/10) + "%"
}

// refs renders pattern references, or "none".
func refs(rs []string) string {
	if len(rs) == 0 {
		return "none"
	}
	return strings.Join(rs, ", ")
}

// kb renders a byte count in KB.
func kb(b int) string { return num(math.Round(float64(b)/1024*10)/10) + " KB" }

// aggregateAnalysis renders the data-modeling method's "Enhanced Aggregate Analysis": per
// parent-child pair, the access correlation and the reads behind it, the
// size of the collection they would make, their update patterns, the
// identifying-relationship check and the decision.
func (r *renderer) aggregateAnalysis() {
	r.p("## Enhanced Aggregate Analysis\n\n")
	if len(r.rels) == 0 {
		r.p("_Does not apply: %s._\n\n", r.noRelationships())
		return
	}
	r.p("Computed from the declared patterns (the entities each reads or writes, at its average rate: the share of the month's reads) and entities (parent, number per parent, partition, size).\n\n")
	for _, rel := range r.rels {
		total := rel.both + rel.parentOnly + rel.childOnly
		r.p("### %s + %s Item Collection Analysis\n\n", cell(rel.parent.Name), cell(rel.child.Name))
		corr := "no read names either entity"
		if total > 0 {
			corr = pct(rel.both, total) + " of the reads that need either need both"
		}
		r.bullet("Access Correlation", corr)
		r.p("- **Query Patterns**:\n")
		r.p("  - %s only: %s of reads/s (%s)\n", cell(rel.parent.Name), pct(rel.parentOnly, total), refs(rel.parentRefs))
		r.p("  - %s only: %s (%s)\n", cell(rel.child.Name), pct(rel.childOnly, total), refs(rel.childRefs))
		r.p("  - Both together: %s (%s)\n", pct(rel.both, total), refs(rel.bothRefs))
		size := fmt.Sprintf("%s %s + %s × %s %s = %s typical", cell(rel.parent.Name), kb(rel.parent.Size), num(float64(rel.child.PerParent)), kb(rel.child.Size), cell(rel.child.Name), kb(rel.typicalBytes))
		if rel.bounded() {
			size += fmt.Sprintf(", at most %s (%s per parent)", kb(rel.maxBytes), num(float64(rel.child.MaxPerParent)))
		} else {
			size += ", unbounded growth (no maximum per parent)"
		}
		if f := rel.sizeFlag(); f != "" {
			size += "; " + f
		}
		r.bullet("Size Constraints", size)
		upd := fmt.Sprintf("%s written %s/s, %s %s/s on average", cell(rel.parent.Name), num(rel.parentWrites), cell(rel.child.Name), num(rel.childWrites))
		if len(rel.relatedWrites) > 0 {
			upd += "; related: written together by " + strings.Join(rel.relatedWrites, ", ")
		} else {
			upd += "; independent: no write writes both"
		}
		r.bullet("Update Patterns", upd)
		known := "Yes: every read of it names the parent's key"
		if !rel.parentKeyKnown {
			known = "No: " + refs(rel.withoutParent) + " read it without the parent's key"
		}
		gsi := "No: it lives in its parent's partition"
		if !rel.samePartition {
			gsi = "No: no read of it goes through a GSI"
			if len(rel.indexReads) > 0 {
				gsi = "Yes: " + strings.Join(rel.indexReads, ", ") + " through a GSI"
			}
		}
		check := fmt.Sprintf("child independence: No (%s belongs to %s); always have the parent's key when querying it: %s; own partition + GSI: %s", cell(rel.child.Name), cell(rel.parent.Name), known, gsi)
		switch {
		case rel.samePartition:
			check += " → identifying relationship in place ✅"
		case rel.needsIdentifying():
			check += " → No/Yes/Yes: an identifying relationship (partition key = the parent's) would remove the GSI ⚠️"
		default:
			check += " → a partition of its own is what its reads need"
		}
		r.bullet("Identifying Relationship", check)
		r.bullet("Decision", rel.design())
		just := fmt.Sprintf("the data-modeling method's rules say **%s** (%s); its item-collection framework: %s.", rel.verdict, strings.Join(rel.reasons, ", "), collectionDecision(rel))
		if rel.departs() || rel.needsIdentifying() {
			if rel.justification != "" {
				just += " The design departs from it: " + rel.justification
			} else {
				just += " ⚠️ The design departs from it and the model gives no reason."
			}
		} else if rel.justification != "" {
			just += " " + rel.justification
		}
		r.bullet("Justification", just)
		r.p("\n")
	}
}

// noRelationships says why the aggregate sections do not apply.
func (r *renderer) noRelationships() string { return noRelationships(r.m) }

func noRelationships(m Model) string {
	switch n := len(m.Entities); n {
	case 0:
		return "the model declares no entities"
	case 1:
		return fmt.Sprintf("one entity (%s), a single-item aggregate: no parent-child pair to correlate, consolidate or key by its parent", m.Entities[0].Name)
	default:
		return fmt.Sprintf("none of the %d entities declares a parent (Entity.Parent): each is an aggregate root of its own", n)
	}
}

// consolidation renders the data-modeling method's "Table Consolidation Analysis".
func (r *renderer) consolidation() {
	r.p("## Table Consolidation Analysis\n\n")
	r.p("One table (`%s`) holds all %d entities of the store, so no two tables are left to consolidate. ", r.s.Name, len(r.m.Entities))
	if len(r.rels) == 0 {
		r.p("The candidate review does not apply: %s.\n\n", r.noRelationships())
		return
	}
	r.p("Within it, the framework decides whether a child shares its parent's partition (one item collection) or keeps its own:\n\n")
	r.p("### Consolidation Candidates Review\n\n")
	r.p("| Parent | Child | Relationship | Access Overlap | Partition Key Alignment | Size | Framework | Design | Justification |\n")
	r.p("|---|---|---|---|---|---|---|---|---|\n")
	for _, rel := range r.rels {
		overlap := "no reads"
		if c := rel.correlation(); !math.IsNaN(c) {
			overlap = num(math.Round(c*1000)/10) + "%"
		}
		align := "child keyed by the parent's key"
		if !rel.parentKeyKnown {
			align = "reads without the parent's key"
		}
		size := "unbounded"
		if rel.bounded() {
			size = "≤ " + kb(rel.maxBytes)
		}
		if rel.samePartition && rel.size() > CollectionMaxBytes {
			size += " ⚠️ over 300 KB"
		}
		mark := "✅"
		if rel.departs() {
			mark = "⚠️"
		}
		design := "item collection"
		if !rel.samePartition {
			design = "own partition"
		}
		just := rel.justification
		if just == "" {
			just = "as the framework decides"
			if rel.departs() {
				just = "none given"
			}
		}
		r.p("| %s | %s | %s | %s | %s | %s | %s | %s %s | %s |\n", cell(rel.parent.Name), cell(rel.child.Name), rel.cardinality(), overlap, align, size, rel.verdict, mark, design, cell(just))
	}
	r.p("\nRules (the data-modeling method): consolidate above 50%% overlap with a bounded, identifying child; keep separate below 30%% or when unbounded; weigh cost against complexity between.\n\n")
}

// aggregateDecisions lists, in the data-model document, where each child
// lives and what the framework says of it (the analysis itself is in
// dynamodb_requirement.md).
func (r *renderer) aggregateDecisions() {
	if len(r.rels) == 0 {
		r.p("Relationships: %s.\n\n", r.noRelationships())
		return
	}
	r.p("Computed from the declared patterns and entities (the analysis is in `dynamodb_requirement.md`):\n\n")
	for _, rel := range r.rels {
		overlap := "no reads"
		if c := rel.correlation(); !math.IsNaN(c) {
			overlap = num(math.Round(c*1000)/10) + "% access correlation"
		}
		r.p("- **%s**: %s; %s; framework: %s", cell(rel.name()), rel.design(), overlap, rel.verdict)
		if rel.justification != "" {
			r.p(" — %s", strings.TrimSpace(rel.justification))
		}
		r.p("\n")
	}
	r.p("\n")
}

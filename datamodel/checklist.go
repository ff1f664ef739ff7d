package datamodel

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tablekit/tablekit/access"
)

// The boxes of the data-modeling method's validation checklist for dynamodb_requirement.md,
// in its order.
const (
	BoxDomainAndScale       = "Application domain and scale documented"
	BoxEntitiesMapped       = "All entities and relationships mapped"
	BoxAggregates           = "Aggregate boundaries identified based on access patterns"
	BoxIdentifying          = "Identifying relationships checked for consolidation opportunities"
	BoxConsolidation        = "Table consolidation analysis completed"
	BoxPatternFigures       = "Every access pattern has: RPS (avg/peak), latency SLO, consistency, expected result bound, item size band"
	BoxWriteForEveryRead    = "Write pattern exists for every read pattern (and vice versa)"
	BoxHotPartitions        = "Hot partition risks evaluated"
	BoxFrameworkApplied     = "Consolidation framework applied; candidates reviewed"
	BoxDesignConsiderations = "Design considerations captured (subject to final validation)"
)

// CheckItem is one box of the requirements checklist: ticked when the
// model meets it, and otherwise what is missing.
type CheckItem struct {
	Box string
	OK  bool
	// Detail says what the box found: the figures behind a ticked box,
	// and for an unticked one everything that is missing.
	Detail string
}

// Checklist computes the data-modeling method's requirements checklist for m: every box
// from the model's declarations (patterns, entities, prose), none ticked
// unconditionally. RenderRequirements prints it.
func Checklist(m Model) ([]CheckItem, error) {
	e, err := m.Estimate()
	if err != nil {
		return nil, err
	}
	return checklist(m, e, relationships(m, e)), nil
}

func checklist(m Model, e *Estimate, rels []relationship) []CheckItem {
	item := func(box string, missing []string, found string) CheckItem {
		if len(missing) > 0 {
			return CheckItem{Box: box, Detail: "missing: " + strings.Join(missing, "; ")}
		}
		return CheckItem{Box: box, OK: true, Detail: found}
	}
	ref := func(i int, ap access.Pattern) string { return fmt.Sprintf("#%d %s", i+1, ap.Name) }
	declared := map[string]access.Entity{}
	for _, en := range m.Entities {
		declared[en.Name] = en
	}
	patternNames := map[string]bool{}
	for _, pe := range e.Patterns {
		patternNames[pe.Pattern.Name] = true
	}
	read, written := map[string][]string{}, map[string][]string{}
	for i, pe := range e.Patterns {
		for _, n := range pe.Pattern.Entities {
			if isRead(pe.Pattern.Operation) {
				read[n] = append(read[n], ref(i, pe.Pattern))
			} else {
				written[n] = append(written[n], ref(i, pe.Pattern))
			}
		}
	}
	var out []CheckItem

	// 1. Domain and scale.
	var missing []string
	if strings.TrimSpace(m.Prose.Purpose) == "" {
		missing = append(missing, "the domain (Prose.Purpose)")
	}
	var peak float64
	for i, pe := range e.Patterns {
		if pe.Pattern.RatePerSecond <= 0 {
			missing = append(missing, "a peak rate for "+ref(i, pe.Pattern))
		}
		peak += pe.Pattern.RatePerSecond
	}
	if len(e.Patterns) == 0 {
		missing = append(missing, "access patterns")
	}
	out = append(out, item(BoxDomainAndScale, missing, fmt.Sprintf("%s requests/s at peak across %d access patterns, %s GB stored", num(peak), len(e.Patterns), num(e.StorageGB))))

	// 2. Entities and relationships mapped.
	missing = nil
	if len(m.Entities) == 0 {
		missing = append(missing, "entities (Model.Entities)")
	}
	for i, pe := range e.Patterns {
		ap := pe.Pattern
		if len(ap.Entities) == 0 {
			missing = append(missing, ref(i, ap)+" names no entity (Pattern.Entities)")
		}
		for _, n := range ap.Entities {
			if _, ok := declared[n]; !ok {
				missing = append(missing, fmt.Sprintf("%s names %q, which is not a declared entity", ref(i, ap), n))
			}
		}
	}
	var rels2 []string
	for _, en := range m.Entities {
		if len(read[en.Name])+len(written[en.Name]) == 0 {
			missing = append(missing, en.Name+" is named by no access pattern")
		}
		if en.Parent != "" {
			if _, ok := declared[en.Parent]; !ok || en.Parent == en.Name {
				missing = append(missing, fmt.Sprintf("%s's parent %q is not another declared entity", en.Name, en.Parent))
			}
		}
		if en.CreatedBy != "" && !patternNames[en.CreatedBy] {
			missing = append(missing, fmt.Sprintf("%s is created by %q, which is not an access pattern", en.Name, en.CreatedBy))
		}
	}
	for _, r := range rels {
		rels2 = append(rels2, r.parent.Name+" "+strings.Replace(r.cardinality(), "Many", "M", 1)+" "+r.child.Name)
	}
	found := fmt.Sprintf("%d entities", len(m.Entities))
	if len(rels2) > 0 {
		found += "; " + strings.Join(rels2, ", ")
	} else {
		found += "; no parent-child relationships"
	}
	out = append(out, item(BoxEntitiesMapped, missing, found))

	// 3. Aggregate boundaries from access patterns: every entity's reads
	// are known, so its correlation with its relatives is.
	missing = nil
	var roots []string
	for _, en := range m.Entities {
		if len(read[en.Name]) == 0 && m.Prose.Declined[en.Name] == "" {
			missing = append(missing, en.Name+" is read by no access pattern, so no read decides its aggregate")
		}
		if en.Parent == "" {
			roots = append(roots, en.Name)
		}
	}
	if len(m.Entities) == 0 {
		missing = append(missing, "entities (Model.Entities)")
	}
	found = fmt.Sprintf("aggregate roots %s; %d relationships analysed below", strings.Join(roots, ", "), len(rels))
	if len(rels) == 0 {
		found = "aggregate roots " + strings.Join(roots, ", ") + "; " + noRelationships(m)
	}
	out = append(out, item(BoxAggregates, missing, found))

	// 4. Identifying relationships checked.
	missing = nil
	for _, r := range rels {
		for _, en := range []access.Entity{r.parent, r.child} {
			if en.Partition == "" && !slices.Contains(missing, "the partition of "+en.Name+" (Entity.Partition)") {
				missing = append(missing, "the partition of "+en.Name+" (Entity.Partition)")
			}
		}
		if r.needsIdentifying() && r.justification == "" {
			missing = append(missing, fmt.Sprintf("%s: every read of %s names the parent's key, yet it is read through a GSI (%s): an identifying relationship (partition key = the parent's) would make the GSI unnecessary; move it or justify it (Prose.Relationships)",
				r.name(), r.child.Name, strings.Join(r.indexReads, ", ")))
		}
	}
	inPlace := 0
	for _, r := range rels {
		if r.samePartition {
			inPlace++
		}
	}
	found = fmt.Sprintf("%d of %d relationships are identifying (the child in its parent's partition), the others justified", inPlace, len(rels))
	if len(rels) == 0 {
		found = "does not apply: " + noRelationships(m)
	}
	out = append(out, item(BoxIdentifying, missing, found))

	// 5. Table consolidation analysis: every candidate row decidable.
	missing = nil
	for _, r := range rels {
		if math.IsNaN(r.correlation()) {
			missing = append(missing, r.name()+": no read pattern names either entity, so their overlap is unknown")
		}
		if r.child.PerParent <= 0 {
			missing = append(missing, r.name()+": how many "+r.child.Name+" a "+r.parent.Name+" has (Entity.PerParent)")
		}
		if r.child.Partition == "" || r.parent.Partition == "" {
			missing = append(missing, r.name()+": partition key alignment (Entity.Partition of both)")
		}
	}
	found = fmt.Sprintf("one table holds all %d entities; %d parent-child candidates reviewed", len(m.Entities), len(rels))
	if len(rels) == 0 {
		found = fmt.Sprintf("one table holds all %d entities; no candidates: %s", len(m.Entities), noRelationships(m))
	}
	out = append(out, item(BoxConsolidation, missing, found))

	// 6. Every pattern's figures.
	missing = nil
	for i, pe := range e.Patterns {
		ap := pe.Pattern
		var lack []string
		if ap.RatePerSecond <= 0 {
			lack = append(lack, "peak RPS")
		}
		if slices.Contains(e.Undeclared, ap.Name) {
			lack = append(lack, "average RPS")
		}
		if ap.Latency <= 0 {
			lack = append(lack, "latency SLO")
		}
		for _, it := range itemsOf(ap) {
			if it.Size <= 0 {
				lack = append(lack, "item size")
				break
			}
		}
		if (ap.Operation == access.Query || ap.Operation == access.Scan) && len(ap.Items) == 0 && ap.ItemsPerRequest <= 0 {
			lack = append(lack, "expected result bound (ItemsPerRequest)")
		}
		if len(lack) > 0 {
			missing = append(missing, ref(i, ap)+": "+strings.Join(lack, ", "))
		}
	}
	out = append(out, item(BoxPatternFigures, missing, fmt.Sprintf("all %d patterns", len(e.Patterns))))

	// 7. A write for every read, a read for every write, per entity.
	missing = nil
	readsN, writesN := 0, 0
	for _, pe := range e.Patterns {
		if isRead(pe.Pattern.Operation) {
			readsN++
		} else {
			writesN++
		}
	}
	for _, en := range m.Entities {
		if m.Prose.Declined[en.Name] != "" {
			continue
		}
		switch r, w := len(read[en.Name]) > 0, len(written[en.Name]) > 0; {
		case r && !w:
			missing = append(missing, en.Name+" is read ("+strings.Join(read[en.Name], ", ")+") but no write pattern writes it")
		case w && !r:
			missing = append(missing, en.Name+" is written ("+strings.Join(written[en.Name], ", ")+") but no read pattern reads it")
		}
	}
	if len(m.Entities) == 0 && (readsN == 0 || writesN == 0) {
		missing = append(missing, fmt.Sprintf("%d reads and %d writes, and no entities to pair them by", readsN, writesN))
	}
	found = fmt.Sprintf("%d reads, %d writes; every entity read is written and every entity written is read", readsN, writesN)
	if len(m.Prose.Declined) > 0 {
		var d []string
		for _, en := range m.Entities {
			if why := m.Prose.Declined[en.Name]; why != "" {
				d = append(d, en.Name+": "+strings.TrimSuffix(strings.TrimSpace(why), "."))
			}
		}
		found += " (declined: " + strings.Join(d, "; ") + ")"
	}
	out = append(out, item(BoxWriteForEveryRead, missing, found))

	// 8. Hot partitions evaluated: every pattern names the key it hits.
	missing = nil
	for i, pe := range e.Patterns {
		if pe.Pattern.Partition == "" {
			missing = append(missing, ref(i, pe.Pattern)+" names no partition key value (Pattern.Partition), so its load on one partition is not evaluated")
		}
	}
	var hot []string
	for _, h := range e.Hot() {
		hot = append(hot, "`"+h.Partition+"`")
	}
	for _, h := range e.HotSkewed() {
		hot = append(hot, "the hottest `"+h.Partition+"`")
	}
	found = fmt.Sprintf("%d constant key values and %d per-entity keys evaluated (the hottest value of each under its popularity), none hot at the declared peaks", len(e.Partitions), len(e.PerEntity))
	if len(hot) > 0 {
		found = fmt.Sprintf("%d hot at the declared peaks (%s), each with its mitigation", len(hot), strings.Join(hot, ", "))
	}
	out = append(out, item(BoxHotPartitions, missing, found))

	// 9. The framework applied: every departure justified.
	missing = nil
	for _, r := range rels {
		if r.departs() && r.justification == "" {
			missing = append(missing, fmt.Sprintf("%s: the framework says %s (%s), the design keeps %s; justify it (Prose.Relationships[%q]) or change it",
				r.name(), r.verdict, strings.Join(r.reasons, ", "), strings.TrimSuffix(strings.SplitN(r.design(), " (", 2)[0], ":"), r.child.Name))
		}
	}
	agree := 0
	for _, r := range rels {
		if !r.departs() {
			agree++
		}
	}
	found = fmt.Sprintf("%d of %d candidates as the framework decides, the rest justified", agree, len(rels))
	if len(rels) == 0 {
		found = "does not apply: " + noRelationships(m)
	}
	out = append(out, item(BoxFrameworkApplied, missing, found))

	// 10. Design considerations.
	missing = nil
	for _, ix := range m.Schema.Indexes {
		ip := m.Prose.Indexes[ix.Name]
		if strings.TrimSpace(ip.Projection) == "" {
			missing = append(missing, "why "+ix.Name+" projects what it does (IndexProse.Projection)")
		}
		if strings.TrimSpace(ip.Sparse) == "" {
			missing = append(missing, "whether "+ix.Name+" is sparse (IndexProse.Sparse)")
		}
	}
	if strings.TrimSpace(m.Prose.AggregateBoundary) == "" {
		missing = append(missing, "the item collection decision (Prose.AggregateBoundary)")
	}
	out = append(out, item(BoxDesignConsiderations, missing, "hot partitions, projections, sparse indexes and item collections above"))
	return out
}

package datamodel

import (
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/table"
)

// diagram writes the Mermaid flowchart that opens a store's document: the
// table and each GSI with their keys (and the GSIs' projections), the
// declared entities with the indexes that hold them, and every access
// pattern with an arrow to what it reads (from the table or index) or
// writes (into the table; index writes are dotted). Code hosts render it.
func (r *renderer) diagram() {
	s := r.s
	r.p("```mermaid\nflowchart LR\n")
	keys := func(pk, sk table.Attribute) string {
		k := "PK " + pk.Name
		if sk.Name != "" {
			k += " · SK " + sk.Name
		}
		return k
	}
	r.p("  T[(\"%s<br/>%s\")]\n", mermaidText(s.Name), mermaidText(keys(s.PartitionKey, s.SortKey)))
	ids := map[string]string{"": "T"}
	for i, ix := range s.Indexes {
		id := fmt.Sprintf("I%d", i+1)
		ids[ix.Name] = id
		proj := string(ix.Projection)
		if proj == "" {
			proj = string(types.ProjectionTypeAll)
		}
		r.p("  %s[(\"%s<br/>%s · %s\")]\n", id, mermaidText(ix.Name), mermaidText(keys(ix.PartitionKey, ix.SortKey)), proj)
		r.p("  T -. projects .-> %s\n", id)
	}
	for i, st := range r.est.Storage {
		e := st.Entity
		kept := "kept until deleted"
		if e.Retention > 0 {
			kept = "TTL " + num(e.Retention.Hours()/24) + " d"
		}
		id := fmt.Sprintf("E%d", i+1)
		r.p("  %s[\"%s<br/>%s B · %s\"]\n", id, mermaidText(e.Name), num(float64(e.Size)), kept)
		r.p("  %s --- T\n", id)
	}
	for i, pe := range r.est.Patterns {
		ap := pe.Pattern
		id := fmt.Sprintf("P%d", i+1)
		r.p("  %s([\"AP%d %s\"])\n", id, i+1, mermaidText(ap.Name))
		if isRead(ap.Operation) {
			r.p("  %s -- %s --> %s\n", ids[ap.Index], ap.Operation, id)
			continue
		}
		r.p("  %s -- %s --> T\n", id, ap.Operation)
		seen := map[string]bool{}
		for _, it := range itemsOf(ap) {
			for _, iw := range it.IndexWrites {
				if !seen[iw.Index] {
					seen[iw.Index] = true
					r.p("  %s -.-> %s\n", id, ids[iw.Index])
				}
			}
		}
	}
	r.p("```\n\n")
	r.p("_Cylinders are the table and its GSIs (keys, projection); boxes the entities the table keeps; rounded boxes the access patterns (AP numbers as in the mapping below), with an arrow from what each reads or to what it writes, dotted for the GSI entries a write also writes._\n\n")
}

// mermaidText escapes a label for a quoted Mermaid node: quotes and the
// characters Mermaid reads as markup become entity codes.
func mermaidText(s string) string {
	return strings.NewReplacer(`"`, "#quot;", "<", "#lt;", ">", "#gt;", "#", "#35;").Replace(s)
}

package datamodel

import (
	"fmt"
	"slices"
	"strings"
)

// MinPartitionValues is the data-modeling method's partition key
// cardinality: "aim for 100+ distinct values to avoid hot partitions".
const MinPartitionValues = 100

// Cardinality is how many distinct partition key values the declared
// patterns use on the table ("" Index) or one GSI.
type Cardinality struct {
	Index string
	// PerEntity: some pattern keys it by a template (TASK#{taskId}), one
	// value per entity, so the values grow with the data.
	PerEntity bool
	// Constants are the constant values (STATUS#PENDING), each counted
	// once per shard in Values.
	Constants []string
	Values    int
	// Hot are the constant values past a partition's limits at the
	// declared peaks (Estimate.Hot).
	Hot []string
}

// Low reports whether the key has fewer than MinPartitionValues distinct
// values: only constants, too few of them.
func (c Cardinality) Low() bool { return !c.PerEntity && c.Values < MinPartitionValues }

// Cardinality returns the table's and every GSI's partition key
// cardinality, from the key values the patterns name (Estimate.Partitions
// and PerEntity), in first-seen order with the table first.
func (e *Estimate) Cardinality() []Cardinality {
	if e == nil {
		return nil
	}
	out := []Cardinality{{}}
	at := func(index string) *Cardinality {
		for i := range out {
			if out[i].Index == index {
				return &out[i]
			}
		}
		out = append(out, Cardinality{Index: index})
		return &out[len(out)-1]
	}
	for _, l := range e.Partitions {
		c := at(l.Index)
		if !slices.Contains(c.Constants, l.Partition) {
			c.Constants = append(c.Constants, l.Partition)
			c.Values += max(l.Spread, 1)
		}
		if l.Hot() && !slices.Contains(c.Hot, l.Partition) {
			c.Hot = append(c.Hot, l.Partition)
		}
	}
	// A template one of the constants is a value of ({status} beside
	// QUEUED) names those values, not one per entity.
	for _, l := range e.PerEntity {
		c := at(l.Index)
		if !slices.ContainsFunc(c.Constants, func(v string) bool { return templateMatch(l.Partition, v) }) {
			c.PerEntity = true
		}
	}
	if len(out[0].Constants) == 0 && !out[0].PerEntity && len(out) > 1 {
		out = out[1:] // no pattern names a table partition
	}
	return out
}

// cardinalityBox is the document's validation line for partition key
// cardinality: ticked when every key has MinPartitionValues values or its
// few values are all under a partition's limits at the declared peaks
// (the method's reason for the aim), unticked naming the low keys with
// hot values.
func cardinalityBox(cs []Cardinality) string {
	var low, hot []string
	for _, c := range cs {
		if !c.Low() {
			continue
		}
		name := "the table"
		if c.Index != "" {
			name = c.Index
		}
		var vals []string
		for _, v := range c.Constants {
			vals = append(vals, "`"+v+"`")
		}
		d := fmt.Sprintf("%s: %d values (%s)", name, c.Values, strings.Join(vals, ", "))
		if len(c.Hot) > 0 {
			hot = append(hot, d)
		} else {
			low = append(low, d)
		}
	}
	const aim = "Partition keys have %d+ distinct values (the method's aim against hot partitions)"
	switch {
	case len(hot) > 0:
		return fmt.Sprintf("- [ ] "+aim+": fewer, with values past a partition's limits: %s\n", MinPartitionValues, strings.Join(hot, "; "))
	case len(low) > 0:
		return fmt.Sprintf("- [x] "+aim+", or fewer with every value under a partition's limits at the declared peaks (hot-partition analysis): %s\n", MinPartitionValues, strings.Join(low, "; "))
	}
	return fmt.Sprintf("- [x] "+aim+": every key is per entity or has at least %d values\n", MinPartitionValues, MinPartitionValues)
}

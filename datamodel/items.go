package datamodel

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/tablekit/tablekit/access"
)

// The data-modeling method's "5-10 representative items" per table.
const (
	MinItems = 5
	MaxItems = 10
)

// ErrItems: a model's representative items are too few or too many, or
// one of them is not an item the store declares. Returned as *ItemsError.
var ErrItems = errors.New("datamodel: representative items do not match the declaration")

// ItemsError lists every fault CheckItems found.
type ItemsError struct {
	Store  string
	Faults []string
}

func (e *ItemsError) Error() string {
	return fmt.Sprintf("datamodel: %s: representative items: %s", e.Store, strings.Join(e.Faults, "; "))
}

func (e *ItemsError) Unwrap() error { return ErrItems }

// CheckItems checks the model's representative items against its
// declaration: MinItems to MaxItems of them; each carries the table's key
// attributes, and its keys are those of a declared entity (its partition
// key matches the entity's Partition template, its sort key the entity's
// Sort); each GSI partition key it carries is one the store's patterns
// declare on that index (a read's Partition, a write's IndexWrites partition), with
// a shard suffix ("#2", below the declared count) where the patterns
// shard that value. Placeholders ({taskId}, {seq:04d}) match any
// non-empty text and [...] an optional part. A nil error means every item
// is one the store can write; otherwise an *ItemsError (ErrItems) names
// every fault. cmd/datamodel refuses to write the documents of a model that fails it.
func CheckItems(m Model) error {
	e, err := m.Estimate()
	if err != nil {
		return err
	}
	var faults []string
	if n := len(m.Items); n < MinItems || n > MaxItems {
		faults = append(faults, fmt.Sprintf("%d items, the method asks for %d-%d", n, MinItems, MaxItems))
	}
	indexKeys := declaredIndexPartitions(e)
	pk, sk := m.Schema.PartitionKey.Name, m.Schema.SortKey.Name
	for i, it := range m.Items {
		ref := fmt.Sprintf("item %d", i+1)
		pv, okP := it.get(pk)
		sv, okS := it.get(sk)
		if !okP || (sk != "" && !okS) {
			faults = append(faults, fmt.Sprintf("%s lacks the table's key attributes %s", ref, strings.TrimSuffix(pk+", "+sk, ", ")))
			continue
		}
		ref = fmt.Sprintf("item %d (%s %s)", i+1, pv, sv)
		if !slices.ContainsFunc(m.Entities, func(en access.Entity) bool {
			return en.Partition != "" && templateMatch(en.Partition, pv) && (sk == "" || templateMatch(en.Sort, sv))
		}) {
			faults = append(faults, ref+" has the keys of no declared entity (Entity.Partition and Entity.Sort)")
		}
		for _, ix := range m.Schema.Indexes {
			v, ok := it.get(ix.PartitionKey.Name)
			if !ok {
				continue
			}
			if !slices.ContainsFunc(indexKeys[ix.Name], func(d declaredPartition) bool { return d.match(v) }) {
				faults = append(faults, fmt.Sprintf("%s: %s %q is no partition the patterns declare on %s", ref, ix.PartitionKey.Name, v, ix.Name))
			}
		}
	}
	if len(faults) > 0 {
		return &ItemsError{Store: m.Store, Faults: faults}
	}
	return nil
}

// declaredPartition is a partition key value (or template) the patterns
// declare on an index, and how many shards they split it over.
type declaredPartition struct {
	value  string
	shards int
}

func (d declaredPartition) match(v string) bool {
	if d.shards <= 1 || !isConstant(d.value) {
		return templateMatch(d.value, v)
	}
	n, ok := strings.CutPrefix(v, d.value+"#")
	if !ok {
		return false
	}
	var shard int
	if _, err := fmt.Sscanf(n, "%d", &shard); err != nil || fmt.Sprint(shard) != n {
		return false
	}
	return shard < d.shards
}

// declaredIndexPartitions are, by index, the partition values the
// estimate's patterns (with their options applied) read or write there.
func declaredIndexPartitions(e *Estimate) map[string][]declaredPartition {
	out := map[string][]declaredPartition{}
	add := func(index, value string, shards int) {
		if index != "" && value != "" {
			out[index] = append(out[index], declaredPartition{value: value, shards: shards})
		}
	}
	for _, pe := range e.Patterns {
		ap := pe.Pattern
		add(ap.Index, ap.Partition, ap.Partitions)
		for _, it := range itemsOf(ap) {
			for _, iw := range it.IndexWrites {
				add(iw.Index, iw.Partition, ap.Partitions)
			}
		}
	}
	return out
}

// templateMatch reports whether key has the shape of template t, in the
// declarations' notation: literal text, {placeholders} (any non-empty
// text) and [optional parts].
func templateMatch(t, key string) bool {
	re, err := regexp.Compile("^" + templateRegexp(t) + "$")
	return err == nil && re.MatchString(key)
}

func templateRegexp(t string) string {
	var b strings.Builder
	for len(t) > 0 {
		switch t[0] {
		case '{':
			end := strings.IndexByte(t, '}')
			if end < 0 {
				return regexp.QuoteMeta(t)
			}
			b.WriteString(".+?")
			t = t[end+1:]
		case '[':
			end := strings.LastIndexByte(t, ']')
			if end < 0 {
				return b.String() + regexp.QuoteMeta(t)
			}
			b.WriteString("(?:" + templateRegexp(t[1:end]) + ")?")
			t = t[end+1:]
		default:
			next := strings.IndexAny(t, "{[")
			if next < 0 {
				next = len(t)
			}
			b.WriteString(regexp.QuoteMeta(t[:next]))
			t = t[next:]
		}
	}
	return b.String()
}

// UnreadIndexPartition is a GSI partition the patterns write entries to
// and no pattern reads: index entries paid for on every write and never
// used (the method's "unnecessary GSIs").
type UnreadIndexPartition struct {
	Index, Partition string
	Writers          []string // the patterns that write it, in declaration order
}

// UnreadIndexPartitions lists, index by index, the partition values
// (constants or templates) that writes declare (IndexWrites) and no read
// on that index names (Pattern.Partition, matched as a template). A read
// that queries several values declares one of them; the others are
// listed here until it is declared per value.
func (e *Estimate) UnreadIndexPartitions() []UnreadIndexPartition {
	if e == nil {
		return nil
	}
	reads := map[string][]string{}
	for _, pe := range e.Patterns {
		if ap := pe.Pattern; ap.Index != "" && isRead(ap.Operation) && ap.Partition != "" {
			reads[ap.Index] = append(reads[ap.Index], ap.Partition)
		}
	}
	var out []UnreadIndexPartition
	seen := map[[2]string]int{}
	for _, pe := range e.Patterns {
		for _, it := range itemsOf(pe.Pattern) {
			for _, iw := range it.IndexWrites {
				if iw.Partition == "" || slices.ContainsFunc(reads[iw.Index], func(r string) bool { return sameKey(r, iw.Partition) }) {
					continue
				}
				k := [2]string{iw.Index, iw.Partition}
				i, ok := seen[k]
				if !ok {
					i, seen[k] = len(out), len(out)
					out = append(out, UnreadIndexPartition{Index: iw.Index, Partition: iw.Partition})
				}
				if !slices.Contains(out[i].Writers, pe.Pattern.Name) {
					out[i].Writers = append(out[i].Writers, pe.Pattern.Name)
				}
			}
		}
	}
	return out
}

// sameKey reports whether a read's partition value and a write's name the
// same key values: equal templates whatever their placeholders' names, a
// constant the read's template matches, or a template the read's constant
// is one value of (a delete of any status's entry: the reads of some
// statuses read it).
func sameKey(read, written string) bool {
	if placeholder.ReplaceAllString(read, "{}") == placeholder.ReplaceAllString(written, "{}") {
		return true
	}
	if isConstant(written) {
		return templateMatch(read, written)
	}
	return isConstant(read) && templateMatch(written, read)
}

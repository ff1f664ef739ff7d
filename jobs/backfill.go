package jobs

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"sort"
	"sync"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/table"
)

// BackfillOptions configure Backfill.
type BackfillOptions struct {
	// Segments is how many parallel scan segments (and goroutines) walk the
	// table. Default 4; at most 1000.
	Segments int
	// Progress, when set, is called after every item with the running
	// totals. Calls never overlap, so it may print or update state freely,
	// but a slow Progress slows the backfill.
	Progress func(BackfillProgress)
	// Attempts bounds how often one job is re-tried when a concurrent write
	// (a status move, another backfill) changed it between the scan and
	// the write. Default 5.
	Attempts int
}

// Segments sets BackfillOptions.Segments.
func Segments(n int) func(*BackfillOptions) { return func(o *BackfillOptions) { o.Segments = n } }

// Progress sets BackfillOptions.Progress.
func Progress(fn func(BackfillProgress)) func(*BackfillOptions) {
	return func(o *BackfillOptions) { o.Progress = fn }
}

// BackfillProgress counts what a backfill has done so far, over all
// segments.
type BackfillProgress struct {
	Segment   int   `json:"segment"`   // the segment that handled the latest item
	Scanned   int64 `json:"scanned"`   // items read
	Changed   int64 `json:"changed"`   // items written
	Unchanged int64 `json:"unchanged"` // items fn left alone, or changed to what they were
	Skipped   int64 `json:"skipped"`   // expired items, and items deleted while the backfill ran
	Conflicts int64 `json:"conflicts"` // writes refused because the job changed first; each was re-tried
}

// Backfill walks the whole table with a parallel scan and calls fn with
// every live job; when fn reports a change, the job's changed attributes are
// written back. It is the "backfill existing items" step of the seed's
// migration playbook: add a field (set it on old jobs), rename one (copy an
// Extra attribute into a field, or a field into Extra, and delete the old
// name), remove one (delete it from Extra).
//
// Writes are safe beside live traffic. Only attributes fn changed are
// written (a SET or REMOVE each), and only if the job's status and
// updatedAt are still what the scan saw; every status move changes
// updatedAt, so a backfill never overwrites a concurrent move. When the
// condition fails, DynamoDB returns the current item with the refusal
// and fn runs again on it (up to Attempts times).
//
// fn changes Extra by assigning or deleting entries, never by editing an
// attribute value in place (the store compares values to find changes).
// fn must not change ID or Status (status changes go through the moves);
// doing so stops the backfill with an error, and so does setting a
// provider the store does not know (ErrUnknownProvider; a job's stored
// provider, known or not, is left as it is unless fn changes it). fn runs concurrently for
// different jobs. An error from fn stops the backfill and is returned,
// naming the job. Expired jobs are skipped. Changed results that would push
// the item past the offload threshold go to the blob store like any other.
func (h *Maintenance) Backfill(ctx context.Context, fn func(*Job) (changed bool, err error), opts ...func(*BackfillOptions)) (_ BackfillProgress, err error) {
	s := h.store()
	ctx, span := s.start(ctx, "jobs.Maintenance.Backfill")
	defer span.End(&err)
	if err := s.check(); err != nil {
		return BackfillProgress{}, err
	}
	if fn == nil {
		return BackfillProgress{}, inputError("fn", "nil", "Backfill needs a function")
	}
	o := BackfillOptions{Segments: 4, Attempts: 5}
	for _, f := range opts {
		f(&o)
	}
	if o.Segments < 1 || o.Segments > 1000 {
		return BackfillProgress{}, inputError("Segments", o.Segments, "must be between 1 and 1000")
	}
	if o.Attempts < 1 {
		return BackfillProgress{}, inputError("Attempts", o.Attempts, "must be at least 1")
	}
	var (
		mu   sync.Mutex
		prog BackfillProgress
	)
	report := func(segment int, count func(*BackfillProgress)) {
		mu.Lock()
		defer mu.Unlock()
		prog.Segment = segment
		prog.Scanned++
		count(&prog)
		if o.Progress != nil {
			o.Progress(prog)
		}
	}
	err = table.ParallelScan(ctx, s.t, o.Segments, func(ctx context.Context, segment int, item table.Item) error {
		outcome, conflicts, err := s.backfillItem(ctx, item, fn, o.Attempts)
		if err != nil {
			return err
		}
		report(segment, func(p *BackfillProgress) {
			p.Conflicts += int64(conflicts)
			switch outcome {
			case backfillChanged:
				p.Changed++
			case backfillUnchanged:
				p.Unchanged++
			case backfillSkipped:
				p.Skipped++
			}
		})
		return nil
	})
	mu.Lock()
	defer mu.Unlock()
	if err != nil {
		return prog, fmt.Errorf("jobs: backfill: %w", err)
	}
	return prog, nil
}

type backfillOutcome int

const (
	backfillUnchanged backfillOutcome = iota
	backfillChanged
	backfillSkipped
)

// backfillItem runs fn on one stored item and writes what it changed,
// re-trying on the current item when a concurrent write got there first.
func (s *Store) backfillItem(ctx context.Context, raw table.Item, fn func(*Job) (bool, error), attempts int) (backfillOutcome, int, error) {
	conflicts := 0
	for {
		if len(raw) == 0 || table.ItemExpired(raw, attrTTL, s.now()) {
			return backfillSkipped, conflicts, nil
		}
		job, err := s.jobFromStored(ctx, raw)
		if err != nil {
			return 0, conflicts, err
		}
		id, status, provider := job.ID, job.Status, job.Provider
		// The item as this package would write it, before fn: comparing
		// with it (not with the raw item) finds what fn changed, and leaves
		// alone whatever a round trip through Job cannot represent.
		before, err := s.item(job)
		if err != nil {
			return 0, conflicts, err
		}
		changed, err := fn(job)
		if err != nil {
			return 0, conflicts, fmt.Errorf("job %q: %w", id, err)
		}
		if !changed && len(s.renames) == 0 {
			return backfillUnchanged, conflicts, nil
		}
		if job.ID != id {
			return 0, conflicts, inputError("jobId", fmt.Sprintf("%q → %q", id, job.ID), "a backfill cannot change a job's id")
		}
		if job.Status != status {
			return 0, conflicts, inputError("status", fmt.Sprintf("%s → %s", status, job.Status),
				fmt.Sprintf("job %q: a backfill cannot change status; use the status moves", id))
		}
		if job.Provider != provider {
			// A job keeps the provider it was stored with, known or not;
			// a backfill that sets one sets a provider the store knows.
			if err := s.checkProvider(job.Provider); err != nil {
				return 0, conflicts, fmt.Errorf("job %q: %w", id, err)
			}
		}
		after := before
		if changed {
			if after, err = s.item(job); err != nil {
				return 0, conflicts, err
			}
		}
		target := maps.Clone(raw)
		for _, name := range changedNames(before, after) {
			if v, ok := after[name]; ok {
				target[name] = v
			} else {
				delete(target, name)
			}
		}
		// A renamed attribute is written under both names, to what a read
		// sees: the migration's "backfill old items" step.
		s.renames.complete(target)
		target, err = s.offloadItem(ctx, id, target)
		if err != nil {
			return 0, conflicts, err
		}
		set := changedNames(raw, target)
		if len(set) == 0 {
			return backfillUnchanged, conflicts, nil
		}
		var u expression.UpdateBuilder
		for _, name := range set {
			if v, ok := target[name]; ok {
				u = u.Set(expression.NameNoDotSplit(name), expression.Value(v))
			} else {
				u = u.Remove(expression.NameNoDotSplit(name))
			}
		}
		err = s.t.Update(ctx, s.t.Key(id), u, table.If(unchangedSince(raw)), table.ItemOnConditionFailure())
		if err == nil {
			return backfillChanged, conflicts, nil
		}
		if !errors.Is(err, table.ErrConditionFailed) {
			return 0, conflicts, fmt.Errorf("job %q: %w", id, err)
		}
		conflicts++
		if conflicts >= attempts {
			return 0, conflicts, fmt.Errorf("job %q: changed by other writers %d times in a row: %w", id, conflicts, err)
		}
		var te *table.Error
		raw = nil
		if errors.As(err, &te) {
			raw = te.Item
		}
	}
}

// unchangedSince is the condition that the stored job has the status and
// updatedAt it had in item: status moves and other writes through this
// package all set updatedAt.
func unchangedSince(item table.Item) expression.ConditionBuilder {
	cond := expression.AttributeExists(expression.Name(attrJobID))
	for _, name := range []string{attrStatus, attrUpdatedAt} {
		if v, ok := item[name]; ok {
			cond = cond.And(expression.Name(name).Equal(expression.Value(v)))
		} else {
			cond = cond.And(expression.AttributeNotExists(expression.Name(name)))
		}
	}
	return cond
}

// changedNames lists, in order, the attributes whose values differ between
// a and b (present in one only, or with different values).
func changedNames(a, b table.Item) []string {
	var names []string
	for name, va := range a {
		if vb, ok := b[name]; !ok || !equalValues(va, vb) {
			names = append(names, name)
		}
	}
	for name := range b {
		if _, ok := a[name]; !ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// equalValues compares two attribute values deeply. Numbers compare as
// text: a difference in formatting alone ("1.0", "1") only costs a
// redundant write, never a lost one.
func equalValues(a, b types.AttributeValue) bool {
	return reflect.DeepEqual(a, b)
}

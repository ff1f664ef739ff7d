package pipeline

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/table"
)

// attrDeleting marks a current item whose pipeline Delete is removing: the
// time Delete started. While it is set, Get, Pipelines.InGroup and Pipelines.ByTags do
// not return the pipeline, and Update and Executions.Create are refused.
const attrDeleting = "deleting"

// maxDeleteMarkAttempts bounds how often Delete re-reads a pipeline that an
// Update changed between Delete's read and its mark.
const maxDeleteMarkAttempts = 5

// Delete removes pipeline id and everything that belongs to it: its
// current item, every version item (written PV:0000000001 or, as the seed
// writes them, PV:1), its group memberships, its tag items, its
// executions, and its input and output files. Tag counts go down by one
// per tag level; a count that reaches zero is removed.
//
// A pipeline is many items in many partitions, more than one transaction
// holds, so Delete is safely resumable rather than all-or-nothing:
//
//  1. The current item is marked deleting (one conditional write on the
//     version Delete read): from then on the pipeline is gone for readers,
//     its tags and groups cannot change, and no execution can be created.
//  2. Executions, then their files (records before the objects they point
//     at), then each tag level in a transaction of its own that deletes the
//     tag item only if it is still there and decrements the count in the
//     same step, so a count is never decremented twice; then zero counts,
//     group and version items.
//  3. The current item, last: while it exists, a retry knows what is left.
//
// Every step is idempotent, so a Delete that failed part way (a crash, a
// throttle, a canceled context) is completed by calling Delete again, and
// Delete of a pipeline that does not exist (or no longer does) succeeds.
// It still removes any object under the pipeline's files prefix: files can
// arrive after Delete swept them (an upload through a presigned URL handed
// out before the Delete; the input Executions.Create copied for an execution
// it could not create, when removing the copy failed too), and calling
// Delete again removes them.
//
// No execution escapes: Executions.Create is conditional on the current item
// not being marked, and records each execution in the pipeline's partition
// in the same transaction, which Delete reads strongly consistent (GSI-1,
// where the seed lists executions, is eventually consistent and can miss
// an execution created a moment before the mark).
// A pipeline's files can only be removed through a blob store: a Store
// made without one fails with blobstore.ErrUnsupported and changes
// nothing.
func (s *Store) Delete(ctx context.Context, id string, opts ...func(*DeleteOptions)) (err error) {
	ctx, span := s.start(ctx, "pipeline.Delete")
	defer span.End(&err)
	if err := s.ready(ctx); err != nil {
		return err
	}
	if err := validateID("id", id); err != nil {
		return err
	}
	if _, err := s.filesStore(); err != nil {
		return err
	}
	var o DeleteOptions
	for _, fn := range opts {
		if fn != nil {
			fn(&o)
		}
	}
	report := func(p DeleteProgress) {
		p.PipelineID = id
		s.log(ctx, "delete step done", "operation", "delete", "key", id, "step", p.Step, "removed", p.Removed)
		if o.Progress != nil {
			o.Progress(p)
		}
	}
	cur, err := s.markDeleting(ctx, id)
	if err != nil {
		return err
	}
	if cur == nil {
		// Gone, or never there: its files may not be. An object can land
		// under the prefix after a Delete swept it (an upload through a
		// presigned URL handed out before, the input copy of a
		// Executions.Create that failed and could not clean up), so Delete
		// of a missing pipeline sweeps the prefix again.
		n, err := s.sweepFiles(ctx, id)
		if err != nil {
			return fmt.Errorf("pipeline: delete %q: files: %w", id, err)
		}
		report(DeleteProgress{Step: DeleteStepFiles, Removed: n, StepsDone: 1, Steps: 1})
		return nil
	}
	steps := []struct {
		name string
		run  func(context.Context, *pipelineItem) (int, error)
	}{
		{DeleteStepExecutions, s.deleteExecutions},
		{DeleteStepFiles, s.deleteFiles},
		{DeleteStepTags, s.deleteTags},
		{DeleteStepPartition, s.deletePartition},
	}
	report(DeleteProgress{Step: DeleteStepMark, StepsDone: 1, Steps: len(steps) + 1})
	for i, st := range steps {
		n, err := st.run(ctx, cur)
		if err != nil {
			return fmt.Errorf("pipeline: delete %q: %s: %w (call Delete again to finish)", id, st.name, err)
		}
		report(DeleteProgress{Step: st.name, Removed: n, StepsDone: i + 2, Steps: len(steps) + 1})
	}
	return nil
}

// DeleteOptions configure Delete.
type DeleteOptions struct {
	// Progress, when set, is called after each step of Delete.
	Progress func(DeleteProgress)
}

// Progress sets DeleteOptions.Progress.
func Progress(fn func(DeleteProgress)) func(*DeleteOptions) {
	return func(o *DeleteOptions) { o.Progress = fn }
}

// The steps of Delete, in order, as DeleteProgress.Step names them.
const (
	DeleteStepMark       = "mark"       // the current item marked deleting
	DeleteStepExecutions = "executions" // execution items
	DeleteStepFiles      = "files"      // input and output objects
	DeleteStepTags       = "tags"       // tag items (Removed: tag levels) and their counts
	DeleteStepPartition  = "partition"  // versions, groups, execution references, then the current item
)

// DeleteProgress reports a step of Delete that finished.
type DeleteProgress struct {
	PipelineID string `json:"pipelineId"`
	Step       string `json:"step"`
	// Removed is how many items (objects, for files) the step removed;
	// on a retried Delete, what was left.
	Removed int `json:"removed"`
	// StepsDone of Steps are done. Delete of a pipeline that is gone has
	// one step, files.
	StepsDone int `json:"stepsDone"`
	Steps     int `json:"steps"`
}

// markDeleting marks the current item and returns it as marked; nil when
// the pipeline does not exist.
func (s *Store) markDeleting(ctx context.Context, id string) (*pipelineItem, error) {
	key := pipelineItem{ID: id}
	for attempt := 1; ; attempt++ {
		cur, err := s.current.Get(ctx, key, entity.Consistent())
		if err != nil {
			if errors.Is(err, table.ErrNotFound) {
				return nil, nil
			}
			return nil, err
		}
		if cur.Deleting != "" {
			return &cur, nil // a Delete before this one marked it
		}
		marked, err := s.current.Patch(key).Set(attrDeleting, s.now().Format(timeLayout)).LeaveIndex(IndexGSI1).
			If(expression.Name("version").Equal(expression.Value(cur.Version))).
			If(expression.AttributeNotExists(expression.Name(attrDeleting))).
			Run(ctx)
		switch {
		case err == nil:
			return &marked, nil
		case !errors.Is(err, table.ErrConditionFailed):
			return nil, err
		case attempt == maxDeleteMarkAttempts:
			return nil, fmt.Errorf("pipeline: delete %q: the pipeline changed under %d attempts to mark it: %w", id, attempt, err)
		}
		s.log(ctx, "delete lost a race to an update; reading again", "operation", "delete", "key", id, "attempt", attempt)
	}
}

// deleteExecutions removes every execution of the pipeline. It finds them
// in two places: the references in the pipeline's partition, read strongly
// consistent (every execution this package created, however recently), and
// GSI-1 (executions written without a reference, by a service following
// the seed or before references existed; GSI-1 is eventually consistent,
// but those are not recent). The mark written before this step stops new
// executions, so the set cannot grow while it is read. The references go
// with the partition, after the executions they point at.
func (s *Store) deleteExecutions(ctx context.Context, cur *pipelineItem) (int, error) {
	seen := map[string]bool{}
	var ks []executionItem
	add := func(executionID string) {
		if !seen[executionID] {
			seen[executionID] = true
			ks = append(ks, executionItem{ID: executionID})
		}
	}
	for ref, err := range s.refs.Items(ctx, executionRef{PipelineID: cur.ID}, entity.Consistent()) {
		if err != nil {
			return 0, err
		}
		add(ref.ExecutionID)
	}
	for e, err := range s.Executions().List(cur.ID).All(ctx) {
		if err != nil {
			return 0, err
		}
		add(e.ID)
	}
	return len(ks), s.executions.BatchDelete(ctx, ks)
}

func (s *Store) deleteFiles(ctx context.Context, cur *pipelineItem) (int, error) {
	return s.sweepFiles(ctx, cur.ID)
}

// sweepFiles removes every object under pipeline id's prefix and says how
// many it removed.
func (s *Store) sweepFiles(ctx context.Context, id string) (int, error) {
	files, err := s.filesStore()
	if err != nil {
		return 0, err
	}
	prefix, err := filesPrefix(id)
	if err != nil {
		return 0, err
	}
	n := 0
	for info, err := range files.List(ctx, prefix) {
		if err != nil {
			return n, err
		}
		if err := files.Delete(ctx, info.Key); err != nil && !errors.Is(err, blobstore.ErrNotFound) {
			return n, err
		}
		n++
	}
	return n, nil
}

// deleteTags removes each tag level's item and decrements its count in one
// transaction, conditional on the tag item still being there: a level
// whose item an interrupted Delete already removed is not counted down a
// second time. Zero counts are removed after, each time, so a Delete
// interrupted between a decrement and the removal still removes it.
func (s *Store) deleteTags(ctx context.Context, cur *pipelineItem) (int, error) {
	entries := tagEntries(cur.Tags)
	n := 0
	for _, e := range entries {
		err := entity.Transact(ctx, s.tags.TxDelete(e.item(cur.ID)), s.aggregateAdd(e, -1))
		switch {
		case err == nil:
			n++
		case !firstActionFailed(err):
			return n, err
		}
	}
	return n, s.removeZeroCounts(ctx, entries)
}

// firstActionFailed reports a transaction canceled because its first
// action's condition failed (and nothing else went wrong).
func firstActionFailed(err error) bool {
	var txe *table.TxError
	if !errors.As(err, &txe) {
		return false
	}
	for _, r := range txe.Reasons {
		if r.Index == 0 && r.Code == "ConditionalCheckFailed" {
			return true
		}
	}
	return false
}

// removeZeroCounts deletes the aggregates of entries whose count is zero.
// The condition count = 0 makes it safe against a racing ADD +1: either
// the delete fails, or the ADD comes after it and recreates the aggregate
// with count 1 and its siKey1 (aggregateAdd sets both).
func (s *Store) removeZeroCounts(ctx context.Context, entries []tagEntry) error {
	zero := expression.Name(attrCount).Equal(expression.Value(0))
	for _, e := range entries {
		_, err := s.aggregates.Delete(ctx, e.aggregate(), entity.Unchecked(), entity.If(zero))
		if err != nil && !errors.Is(err, table.ErrConditionFailed) {
			return err
		}
	}
	return nil
}

// deletePartition removes every item under the pipeline's pk (versions in
// either form, group memberships, anything else), then the current item,
// on condition that it is still the one marked.
func (s *Store) deletePartition(ctx context.Context, cur *pipelineItem) (int, error) {
	pk, _ := pipelinePK.Build(cur.ID)
	var ks []table.Key
	for it, err := range table.QueryAll[pipelineKeys](ctx, s.t, table.Query{Partition: pk, Consistent: true}) {
		if err != nil {
			return 0, err
		}
		if it.SK != currentSK {
			ks = append(ks, s.t.Key(it.PK, it.SK))
		}
	}
	if err := s.t.BatchWrite(ctx, nil, ks); err != nil {
		return 0, err
	}
	_, err := s.current.Delete(ctx, pipelineItem{ID: cur.ID},
		entity.If(expression.Name(attrDeleting).Equal(expression.Value(cur.Deleting))))
	if errors.Is(err, table.ErrConditionFailed) {
		return len(ks), nil // a concurrent Delete finished first
	}
	return len(ks) + 1, err
}

// pipelineKeys is any item of a pipeline's partition, whatever its kind:
// Delete removes them all.
type pipelineKeys struct {
	PK string `dynamodbav:"pk"`
	SK string `dynamodbav:"sk"`
}

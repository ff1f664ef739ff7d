package pipeline

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/table"
)

// An execution is its own partition (seed: pk "PE:<executionId>", sk
// "PE:P", siKey1 "P:<pipelineId>"), so GSI-1's partition P:<pipelineId>
// lists a pipeline's executions by pk; only executions carry that siKey1.
// Its reference in its pipeline's partition (P:<pipelineId>,
// PE:<executionId>) is the seed's GSI-1 row of the execution, written to
// the base table as well, in the transaction that creates the execution:
// GSI-1 is eventually consistent, so an execution created a moment before
// a Delete may not be in it yet, while the reference is read with the
// pipeline's partition, strongly consistent, so Delete finds every
// execution. It carries no siKey1 and no other attribute. Entities
// "execution" and "executionRef" of schema.go.

// executionSK is every execution's sort key.
const executionSK = "PE:P"

// executionRef is an execution's reference: keys only.
type executionRef struct {
	PipelineID  string `dynamodbav:"pipelineId"`
	ExecutionID string `dynamodbav:"executionId"`
}

// ExecutionState is an execution's state attribute.
type ExecutionState string

// The states of an execution and the moves between them (the seed names
// none):
//
//	created ──Start──▶ running ──Succeed──▶ succeeded
//	   │                  │
//	   └──────Fail────────┴──────Fail─────▶ failed
//
// Every move is one conditional write on the state it starts from.
// succeeded and failed are final. A running execution whose executor died
// leaves running through Maintenance.RecoverExecutions (failed, "timed out") or Fail.
const (
	ExecutionCreated   ExecutionState = "created"
	ExecutionRunning   ExecutionState = "running"
	ExecutionSucceeded ExecutionState = "succeeded"
	ExecutionFailed    ExecutionState = "failed"
)

// Execution is one run of a pipeline version.
type Execution struct {
	ID         string         `json:"executionId"`
	PipelineID string         `json:"pipelineId"`
	Version    int            `json:"version"`
	State      ExecutionState `json:"state"`
	CreatedAt  time.Time      `json:"createdAt"`
	UpdatedAt  time.Time      `json:"updatedAt"`
	// StartedAt is when it moved to running; FinishedAt when it moved to
	// succeeded or failed. Zero until then.
	StartedAt  time.Time `json:"startedAt,omitzero"`
	FinishedAt time.Time `json:"finishedAt,omitzero"`
	CreatedBy  string    `json:"createdBy,omitempty"`
	// Error is why a failed execution failed.
	Error string `json:"error,omitempty"`
	// InputKey is the object key of the execution's copy of its input
	// (pipelines/{id}/{version}/exections/{executionId}/input.txt), ""
	// when it was created without one.
	InputKey string `json:"input,omitempty"`
}

// ExecutionInput is what Executions.Create records. A new execution is
// always created; it moves on with Executions.Start.
type ExecutionInput struct {
	// ID of the execution; generated (Options.NewID) when empty.
	ID         string
	PipelineID string
	// Version of the pipeline to run; 0 means the current one.
	Version   int
	CreatedBy string
	// InputKey, when set, is the object key of an input uploaded through
	// PresignInputUpload for this pipeline version; Executions.Create copies
	// it next to the execution's output before writing the execution.
	InputKey string
}

type executionItem struct {
	ID         string         `dynamodbav:"executionId"` // in pk only
	PipelineID string         `dynamodbav:"pipelineId"`  // in siKey1 only
	Version    int            `dynamodbav:"version"`
	State      ExecutionState `dynamodbav:"state"`
	CreatedAt  string         `dynamodbav:"createdAt"`
	UpdatedAt  string         `dynamodbav:"updatedAt"`
	StartedAt  string         `dynamodbav:"startedAt,omitempty"`
	FinishedAt string         `dynamodbav:"finishedAt,omitempty"`
	CreatedBy  string         `dynamodbav:"createdBy,omitempty"`
	Error      string         `dynamodbav:"error,omitempty"`
	Input      string         `dynamodbav:"input,omitempty"`
}

func (it *executionItem) execution() (*Execution, error) {
	created, err1 := time.Parse(timeLayout, it.CreatedAt)
	updated, err2 := time.Parse(timeLayout, it.UpdatedAt)
	started, err3 := parseOptionalTime(it.StartedAt)
	finished, err4 := parseOptionalTime(it.FinishedAt)
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return nil, fmt.Errorf("pipeline: execution item %s: %w", it.ID, err)
	}
	return &Execution{
		ID: it.ID, PipelineID: it.PipelineID, Version: it.Version, State: it.State,
		CreatedAt: created, UpdatedAt: updated, StartedAt: started, FinishedAt: finished,
		CreatedBy: it.CreatedBy, Error: it.Error, InputKey: it.Input,
	}, nil
}

func parseOptionalTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	return time.Parse(timeLayout, s)
}

// Create records an execution of a pipeline version. With
// in.InputKey it first copies that input to the execution's input.txt
// (files first, then DynamoDB, so no execution points at a missing file).
// The execution is written in one transaction with a check that the
// pipeline version exists (a missing one is ErrNotFound) and that the
// pipeline is not disabled: a pipeline whose state is StateDisabled takes
// no new executions (*DisabledError, ErrDisabled), however recently it was
// disabled, since the condition is the write's own. A refused execution
// writes nothing to DynamoDB, and its input copy is removed.
func (h *Executions) Create(ctx context.Context, in ExecutionInput) (_ *Execution, err error) {
	s := h.store()
	ctx, span := s.start(ctx, "pipeline.Executions.Create")
	defer span.End(&err)
	if err := s.ready(ctx); err != nil {
		return nil, err
	}
	if err := validateID("in.PipelineID", in.PipelineID); err != nil {
		return nil, err
	}
	if in.Version < 0 || in.Version > maxVersion {
		return nil, inputError("in.Version", in.Version, fmt.Sprintf("0 (current) or 1 to %d", maxVersion))
	}
	now := s.now()
	if in.ID == "" {
		in.ID = s.opts.NewID(now)
	}
	if err := validateFileID("in.ID", in.ID); err != nil {
		return nil, err
	}
	if in.InputKey != "" {
		if err := s.checkInputKey(in.PipelineID, in.Version, in.InputKey); err != nil {
			return nil, err
		}
	}
	if in.Version == 0 {
		cur, err := s.Get(ctx, in.PipelineID)
		if err != nil {
			return nil, err
		}
		if cur.State == StateDisabled {
			// Refused before the input is copied; the transaction's
			// condition decides when the pipeline is disabled later.
			return nil, &DisabledError{PipelineID: in.PipelineID}
		}
		in.Version = cur.Version
		if in.InputKey != "" {
			if err := s.checkInputKey(in.PipelineID, in.Version, in.InputKey); err != nil {
				return nil, err
			}
		}
	}
	e := &Execution{ID: in.ID, PipelineID: in.PipelineID, Version: in.Version, State: ExecutionCreated,
		CreatedAt: now, UpdatedAt: now, CreatedBy: in.CreatedBy}
	if in.InputKey != "" {
		key, err := s.copyInput(ctx, e, in.InputKey)
		if err != nil {
			return nil, err
		}
		e.InputKey = key
	}
	item := executionItem{ID: e.ID, PipelineID: e.PipelineID, Version: e.Version, State: e.State,
		CreatedAt: now.Format(timeLayout), UpdatedAt: now.Format(timeLayout), CreatedBy: e.CreatedBy, Input: e.InputKey}
	// The version must exist, the pipeline must not be disabled, and it
	// must not be being deleted: Delete marks the current item first, so
	// once the mark is written no execution can be created, and every
	// execution created before it has its reference in the pipeline's
	// partition for Delete to find.
	exists := expression.AttributeExists(expression.Name(attrPK))
	version := s.versions.TxCheck(pipelineItem{ID: e.PipelineID, Version: e.Version}, exists)
	live := s.current.TxCheck(pipelineItem{ID: e.PipelineID}, exists.
		And(expression.AttributeNotExists(expression.Name(attrDeleting))).
		And(notDisabled()))
	err = entity.Transact(ctx, version, live, s.executions.TxCreate(item),
		s.refs.TxCreate(executionRef{PipelineID: e.PipelineID, ExecutionID: e.ID}))
	if err == nil {
		return e, nil
	}
	var txe *entity.TxError
	if errors.As(err, &txe) {
		// A canceled transaction wrote nothing: remove the input copied
		// for it, or it would outlive a pipeline whose Delete already
		// swept its files.
		s.removeInputCopy(ctx, e)
		if errors.Is(txe.Err(version), table.ErrConditionFailed) {
			return nil, notFound("pipeline version", fmt.Sprintf("%s@%d", e.PipelineID, e.Version), err)
		}
		if r, refused := txe.Reason(live); refused && r.Code == "ConditionalCheckFailed" {
			return nil, refusedPipeline(e.PipelineID, r.Item, err)
		}
	}
	return nil, fmt.Errorf("pipeline: create execution %q: %w", e.ID, err)
}

// notDisabled is the condition that a current item takes new executions:
// its state is not StateDisabled (an item without a state is enabled).
func notDisabled() expression.ConditionBuilder {
	state := expression.Name(attrState)
	return expression.AttributeNotExists(state).Or(state.NotEqual(expression.Value(StateDisabled)))
}

// refusedPipeline is the error for a new execution whose pipeline's
// current item refused it, as DynamoDB returned the item with the
// refusal: disabled, or missing or being deleted (not found).
func refusedPipeline(id string, current table.Item, cause error) error {
	var cur pipelineItem
	if current != nil && table.Unmarshal(current, &cur) == nil && cur.Deleting == "" && cur.State == StateDisabled {
		return &DisabledError{PipelineID: id, Cause: cause}
	}
	return notFound("pipeline", id, cause)
}

// removeInputCopy deletes the input Executions.Create copied for e, when its
// transaction was canceled. A failure is logged, not returned: the copy is
// under the pipeline's prefix, where Delete (even of a pipeline already
// gone) sweeps it.
func (s *Store) removeInputCopy(ctx context.Context, e *Execution) {
	if e.InputKey == "" || s.files == nil {
		return
	}
	if err := s.files.Delete(ctx, e.InputKey); err != nil && !errors.Is(err, blobstore.ErrNotFound) {
		s.log(ctx, "could not remove the input of an execution that was not created", "operation", "createExecution", "key", e.InputKey, "error", err)
	}
}

// Get returns execution id.
func (h *Executions) Get(ctx context.Context, id string) (*Execution, error) {
	return h.store().getExecution(ctx, id)
}

// getExecution is Executions.Get with the read's options: the store's own
// calls that act on an execution (PutOutput, PresignOutputDownload) read it
// strongly consistent, so they find one created a moment before.
func (s *Store) getExecution(ctx context.Context, id string, opts ...func(*entity.ReadOptions)) (_ *Execution, err error) {
	ctx, span := s.start(ctx, "pipeline.Executions.Get")
	defer span.End(&err)
	if err := s.ready(ctx); err != nil {
		return nil, err
	}
	if err := validateID("id", id); err != nil {
		return nil, err
	}
	it, err := s.executions.Get(ctx, executionItem{ID: id}, opts...)
	if err != nil {
		if errors.Is(err, table.ErrNotFound) {
			return nil, notFound("execution", id, err)
		}
		return nil, err
	}
	return it.execution()
}

// List is the listing of the executions of pipeline pipelineID
// (ListOptions.Limit per page; 0: what one DynamoDB page holds), in
// execution id order (GSI-1 sorts them by pk PE:<executionId>, unique, so
// there are no ties; oldest first with the default ULIDs).
func (h *Executions) List(pipelineID string, opts ...func(*ListOptions)) table.List[*Execution] {
	s := h.store()
	limit, err := pageLimit(opts)
	return newList(s, "pipeline.Executions.List", firstErr(validateID("pipelineID", pipelineID), err),
		func(ctx context.Context, cursor string) (table.Page[*Execution], error) {
			return s.executionsPage(ctx, pipelineID, cursor, limit)
		})
}

func (s *Store) executionsPage(ctx context.Context, pipelineID, cursor string, limit func(*entity.ListOptions)) (table.Page[*Execution], error) {
	page, err := s.executions.List(ctx, executionItem{PipelineID: pipelineID}, cursor, entity.ByIndex(IndexGSI1), limit)
	if err != nil {
		return table.Page[*Execution]{}, err
	}
	out := table.Page[*Execution]{Items: make([]*Execution, 0, len(page.Items)), Next: page.Next}
	for i := range page.Items {
		e, err := page.Items[i].execution()
		if err != nil {
			return table.Page[*Execution]{}, err
		}
		out.Items = append(out.Items, e)
	}
	return out, nil
}

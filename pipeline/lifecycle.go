package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/tablekit/tablekit/table"
)

// ErrTransition: an execution move found the execution in a state the move
// does not start from (a second Start, a Succeed after a Fail). Returned as
// a *TransitionError; nothing was written.
var ErrTransition = errors.New("pipeline: execution is not in a state this move starts from")

// TransitionError reports a refused execution move and the state the
// execution was in, as DynamoDB returned it with the refusal
// (ReturnValuesOnConditionCheckFailure), so no second read races a third
// writer.
type TransitionError struct {
	ExecutionID string
	From        []ExecutionState // the states the move starts from
	To          ExecutionState
	Current     ExecutionState
	// Execution is the execution as it was when the move was refused.
	Execution *Execution
	Cause     error // the table error of the refused write
}

func (e *TransitionError) Error() string {
	return fmt.Sprintf("pipeline: execution %q is %s; %s needs %s", e.ExecutionID, e.Current, e.To, joinStates(e.From))
}

// Unwrap gives ErrTransition and the table error (table.ErrConditionFailed).
func (e *TransitionError) Unwrap() []error { return []error{ErrTransition, e.Cause} }

func joinStates(states []ExecutionState) string {
	s := make([]string, len(states))
	for i, st := range states {
		s[i] = string(st)
	}
	return strings.Join(s, " or ")
}

// Start moves execution id from created to running and records
// startedAt. Another state is a *TransitionError carrying it.
func (h *Executions) Start(ctx context.Context, id string) (_ *Execution, err error) {
	s := h.store()
	ctx, span := s.start(ctx, "pipeline.Executions.Start")
	defer span.End(&err)
	if err := s.ready(ctx); err != nil {
		return nil, err
	}
	return s.moveExecution(ctx, id, ExecutionRunning, []ExecutionState{ExecutionCreated}, "", nil)
}

// Succeed moves execution id from running to succeeded and
// records finishedAt. Another state is a *TransitionError carrying it.
func (h *Executions) Succeed(ctx context.Context, id string) (_ *Execution, err error) {
	s := h.store()
	ctx, span := s.start(ctx, "pipeline.Executions.Succeed")
	defer span.End(&err)
	if err := s.ready(ctx); err != nil {
		return nil, err
	}
	return s.moveExecution(ctx, id, ExecutionSucceeded, []ExecutionState{ExecutionRunning}, "", nil)
}

// Fail moves execution id from created or running to failed,
// recording finishedAt and reason (required: a failure says why). A
// succeeded or failed execution is a *TransitionError.
func (h *Executions) Fail(ctx context.Context, id, reason string) (_ *Execution, err error) {
	s := h.store()
	ctx, span := s.start(ctx, "pipeline.Executions.Fail")
	defer span.End(&err)
	if err := s.ready(ctx); err != nil {
		return nil, err
	}
	if strings.TrimSpace(reason) == "" {
		return nil, inputError("reason", fmt.Sprintf("%q", reason), "a failure says why")
	}
	return s.moveExecution(ctx, id, ExecutionFailed, []ExecutionState{ExecutionCreated, ExecutionRunning}, reason, nil)
}

// maxErrorLength bounds a recorded failure reason, so an executor's stack
// trace cannot push the item past DynamoDB's limits.
const maxErrorLength = 4096

// moveExecution is every move: one UpdateItem conditional on the item
// existing in one of the from states (and, for recovery, on updatedAt
// being the one read), returning the current item on refusal.
func (s *Store) moveExecution(ctx context.Context, id string, to ExecutionState, from []ExecutionState, reason string, extra *expression.ConditionBuilder) (*Execution, error) {
	if err := validateID("id", id); err != nil {
		return nil, err
	}
	if len(reason) > maxErrorLength {
		return nil, inputError("reason", reason[:32]+"...", fmt.Sprintf("longer than %d bytes", maxErrorLength))
	}
	now := s.now().Format(timeLayout)
	u := s.executions.Patch(executionItem{ID: id}).Set("state", to).Set("updatedAt", now)
	switch to {
	case ExecutionRunning:
		u = u.Set("startedAt", now)
	case ExecutionSucceeded, ExecutionFailed:
		u = u.Set("finishedAt", now)
	}
	if reason != "" {
		u = u.Set("error", reason)
	}
	state := expression.Name("state")
	cond := state.Equal(expression.Value(from[0]))
	if len(from) > 1 {
		others := make([]expression.OperandBuilder, 0, len(from)-1)
		for _, f := range from[1:] {
			others = append(others, expression.Value(f))
		}
		cond = state.In(expression.Value(from[0]), others...)
	}
	if extra != nil {
		cond = cond.And(*extra)
	}
	it, err := u.If(cond).Run(ctx)
	switch {
	case errors.Is(err, table.ErrNotFound):
		return nil, notFound("execution", id, err)
	case errors.Is(err, table.ErrConditionFailed):
		te := &TransitionError{ExecutionID: id, From: from, To: to, Cause: err}
		var tErr *table.Error
		if errors.As(err, &tErr) && tErr.Item != nil {
			if v, derr := s.reg.Decode(ctx, tErr.Item); derr == nil {
				cur := v.(executionItem)
				te.Current = cur.State
				te.Execution, _ = cur.execution()
			}
		}
		return nil, te
	case err != nil:
		return nil, fmt.Errorf("pipeline: %s execution %q: %w", to, id, err)
	}
	s.log(ctx, "execution moved", "operation", "move execution", "key", id, "from", joinStates(from), "to", string(to))
	return it.execution()
}

// TimedOut is the error Maintenance.RecoverExecutions records.
const TimedOut = "timed out: no state change since the cutoff"

// RecoverExecutions fails the executions of pipeline pipelineID that have
// been created or running without a state change since before cutoff
// (their executor died or never started them), so no execution stays in
// flight forever. Each is one conditional write on the state and
// updatedAt it was read with: an execution that moved meanwhile is left
// alone. It returns the executions it failed.
func (h *Maintenance) RecoverExecutions(ctx context.Context, pipelineID string, cutoff time.Time) (_ []*Execution, err error) {
	s := h.store()
	ctx, span := s.start(ctx, "pipeline.Maintenance.RecoverExecutions")
	defer span.End(&err)
	if err := s.ready(ctx); err != nil {
		return nil, err
	}
	if cutoff.IsZero() {
		return nil, inputError("cutoff", "zero time", "recovery needs a cutoff")
	}
	var failed []*Execution
	for e, err := range s.Executions().List(pipelineID).All(ctx) {
		if err != nil {
			return failed, err
		}
		if (e.State != ExecutionCreated && e.State != ExecutionRunning) || !e.UpdatedAt.Before(cutoff) {
			continue
		}
		unchanged := expression.Name("updatedAt").Equal(expression.Value(e.UpdatedAt.UTC().Format(timeLayout)))
		moved, err := s.moveExecution(ctx, e.ID, ExecutionFailed, []ExecutionState{e.State}, TimedOut, &unchanged)
		var te *TransitionError
		switch {
		case errors.As(err, &te), errors.Is(err, ErrNotFound):
			s.log(ctx, "execution moved before recovery", "operation", "recover executions", "key", e.ID)
			continue
		case err != nil:
			return failed, err
		}
		s.log(ctx, "execution recovered", "operation", "recover executions", "key", e.ID, "from", string(e.State))
		failed = append(failed, moved)
	}
	return failed, nil
}

package journey

import (
	"context"
	"iter"

	"github.com/tablekit/tablekit/table"
)

// Stages is the handle of a journey's stages: listing them in execution
// order, skipping one the journey does not need, and adding, moving and
// removing stages after the journey's creation (the seed's "easy to add
// new stages without reorganizing data").
type Stages struct{ s *Store }

// Stages returns the store's handle of stages.
func (s *Store) Stages() *Stages { return &Stages{s: s} }

// ready refuses a nil handle, the handle of a Store NewStore did not make
// and a nil context, before any request.
func (h *Stages) ready(ctx context.Context) error {
	if h == nil {
		return ErrNoStore
	}
	return h.s.ready(ctx)
}

// Get reads one stage of a journey by id (one Query of the journey's
// stages: the stage's sort key holds its order, which a caller knows only
// by id). A missing stage matches ErrStageNotFound.
func (h *Stages) Get(ctx context.Context, journeyID, stageID string, opts ...func(*ReadOptions)) (_ *Stage, err error) {
	if err := h.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Stages.Get")
	defer span.End(&err)
	if err := refuseReserved("journeyId", journeyID); err != nil {
		return nil, err
	}
	if _, err := readOptions(getKind.named("Stages.Get"), opts); err != nil {
		return nil, err
	}
	return h.s.getStage(ctx, journeyID, stageID, opts...)
}

// Skip marks a stage the journey does not need as skipped (the seed's
// canSkip): the stage must have canSkip and be pending or failed (a
// *StatusError otherwise, ErrStageNotSkippable without canSkip). It counts
// as done for progress, the journey moves on to its next stage, and a
// running journey whose every stage is now done completes. One transaction,
// serialized with Jobs.Finish like it.
func (h *Stages) Skip(ctx context.Context, journeyID, stageID string) (_ *Stage, err error) {
	if err := h.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Stages.Skip")
	defer span.End(&err)
	if err := refuseReserved("journeyId", journeyID); err != nil {
		return nil, err
	}
	return h.s.skipStage(ctx, journeyID, stageID)
}

// Add inserts st into the journey's stages at order at (1 is first; 0
// puts it after the last stage), as a pending stage; the stages after it
// move one place down. Only stages that have not run move (a job's sort
// key holds its stage's order): a stage after at that has run or was
// skipped makes it a *StatusError with ErrStageRan, and nothing is
// written; so a stage is added after the last stage that ran. One
// transaction, with the journey's progress (done stages over all), its
// current stage and stageEdits, serialized with Jobs.Finish and
// Stages.Skip; a running journey is not completed by it. A completed or
// cancelled journey is a *StatusError. A bad stage (an id taken or
// invalid, a status or execution set), at out of range, or a journey of
// 99 stages is a *table.InputError before any write.
func (h *Stages) Add(ctx context.Context, journeyID string, st Stage, at int) (_ *Stage, err error) {
	if err := h.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Stages.Add")
	defer span.End(&err)
	if err := refuseReserved("journeyId", journeyID); err != nil {
		return nil, err
	}
	return h.s.addStage(ctx, journeyID, st, at)
}

// Move moves a stage to order to (1 is first), the stages between moving
// one place to make room, as Add does: every stage whose order changes
// must not have run (a *StatusError with ErrStageRan, nothing written).
// Moving a stage to where it is writes nothing.
func (h *Stages) Move(ctx context.Context, journeyID, stageID string, to int) (_ *Stage, err error) {
	if err := h.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Stages.Move")
	defer span.End(&err)
	if err := refuseReserved("journeyId", journeyID); err != nil {
		return nil, err
	}
	return h.s.moveStage(ctx, journeyID, stageID, to)
}

// Remove removes a stage that has not run, the stages after it moving
// one place up (they must not have run either): a *StatusError with
// ErrStageRan otherwise, ErrStageHasRules for a stage with rules, a
// *table.InputError for a journey's last stage; nothing is written then.
// Removing the last stage not done of a running journey completes it, as
// the last Finish would.
func (h *Stages) Remove(ctx context.Context, journeyID, stageID string) (err error) {
	if err := h.ready(ctx); err != nil {
		return err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Stages.Remove")
	defer span.End(&err)
	if err := refuseReserved("journeyId", journeyID); err != nil {
		return err
	}
	return h.s.removeStage(ctx, journeyID, stageID)
}

// List returns one page of a journey's stages in execution order (one
// Query, begins_with(SK, "STAGE#")): by order, which the sort key
// STAGE#{order:02d}#{stageId} holds and which is unique in a journey. A
// journey without stages, or no journey, gives an empty page. Paging works
// as for Journeys.List; a journey has at most 99 stages.
func (h *Stages) List(ctx context.Context, journeyID string, cursor string, opts ...func(*ListOptions)) (_ table.Page[Stage], err error) {
	if err := h.ready(ctx); err != nil {
		return table.Page[Stage]{}, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Stages.List")
	defer span.End(&err)
	if err := refuseReserved("journeyId", journeyID); err != nil {
		return table.Page[Stage]{}, err
	}
	o, err := readOptions(listStagesKind, opts)
	if err != nil {
		return table.Page[Stage]{}, err
	}
	return h.s.listStages(ctx, journeyID, cursor, o)
}

// All walks every page of List, in its order.
func (h *Stages) All(ctx context.Context, journeyID string, opts ...func(*ListOptions)) iter.Seq2[Stage, error] {
	return table.Walk(func(cursor string) (table.Page[Stage], error) { return h.List(ctx, journeyID, cursor, opts...) })
}

package journey

import (
	"context"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/tablekit/tablekit/table"
)

// maxStages is the most stages a journey has: STAGE#{order:02d}.
const maxStages = 99

// editableJourney are the journey statuses whose stages can be edited:
// every status but the final ones (a completed or cancelled journey runs
// no more stages).
var editableJourney = []Status{StatusPending, StatusRunning, StatusPaused, StatusFailed}

// stageUnrun reports whether a stage has neither run nor been skipped: it
// is pending and never handed out an execution number. Only such a stage
// can move or go: a job's sort key (JOB#{order:02d}#{stageId}#...) holds
// its stage's order, and a done stage is part of the journey's record.
func stageUnrun(st Stage) bool {
	return (st.Status == StagePending || st.Status == "") && st.LastExecution == 0 && st.LastJob == nil
}

// unrunCondition is stageUnrun as the condition of the write that moves or
// removes a stage, so a job started since the read stops the edit.
func unrunCondition() expression.ConditionBuilder {
	status := expression.Name("Data.status")
	zero := func(path string) expression.ConditionBuilder {
		return expression.AttributeNotExists(expression.Name(path)).Or(expression.Name(path).Equal(expression.Value(0)))
	}
	return expression.AttributeNotExists(status).Or(status.Equal(expression.Value(StagePending))).
		And(zero("Data.lastExecution")).And(expression.AttributeNotExists(expression.Name("Data.lastJob")))
}

// checkNewStage refuses a stage Stages.Add or Journeys.Create cannot
// write: a bad id, a bad step id, or, for Add (added set), a stage that
// says it has run.
func checkNewStage(field string, st Stage, added bool) error {
	if err := checkID(field+".StageID", st.StageID); err != nil {
		return err
	}
	for j, step := range st.Steps {
		if err := checkID(fmt.Sprintf("%s.Steps[%d].StepID", field, j), step.StepID); err != nil {
			return err
		}
	}
	if added && !stageUnrun(st) {
		return inputError(field, st.StageID, "a new stage is pending, with no execution (Status, LastExecution and LastJob unset)")
	}
	if added && st.LastRuleIndex != 0 {
		return inputError(field+".LastRuleIndex", st.LastRuleIndex, "a new stage has no rules yet")
	}
	return nil
}

// addStage implements [Stages.Add].
func (s *Store) addStage(ctx context.Context, journeyID string, st Stage, at int) (*Stage, error) {
	if err := checkNewStage("Stage", st, true); err != nil {
		return nil, err
	}
	if at < 0 {
		return nil, inputError("at", at, "an order from 1, or 0 for after the last stage")
	}
	var added Stage
	err := s.editStages(ctx, journeyID, "Stages.Add", func(stages []Stage) ([]Stage, error) {
		if slices.ContainsFunc(stages, func(e Stage) bool { return e.StageID == st.StageID }) {
			return nil, inputError("Stage.StageID", st.StageID, "the journey already has a stage with this id")
		}
		if len(stages) >= maxStages {
			return nil, inputError("Stage", st.StageID, fmt.Sprintf("the journey already has %d stages, the most STAGE#{order:02d} holds", maxStages))
		}
		i := at - 1
		if at == 0 {
			i = len(stages)
		}
		if i > len(stages) {
			return nil, inputError("at", at, fmt.Sprintf("the journey has %d stages: an order from 1 to %d, or 0 for after the last", len(stages), len(stages)+1))
		}
		return slices.Insert(slices.Clone(stages), i, st), nil
	}, func(out []Stage) {
		i := slices.IndexFunc(out, func(e Stage) bool { return e.StageID == st.StageID })
		added = out[i]
	})
	if err != nil {
		return nil, err
	}
	return &added, nil
}

// moveStage implements [Stages.Move].
func (s *Store) moveStage(ctx context.Context, journeyID, stageID string, to int) (*Stage, error) {
	if err := checkID("stageId", stageID); err != nil {
		return nil, err
	}
	if to < 1 {
		return nil, inputError("to", to, "an order from 1")
	}
	var moved Stage
	err := s.editStages(ctx, journeyID, "Stages.Move", func(stages []Stage) ([]Stage, error) {
		i := slices.IndexFunc(stages, func(e Stage) bool { return e.StageID == stageID })
		if i < 0 {
			return nil, notFound(ErrStageNotFound, journeyID+"/"+stageID, nil)
		}
		if to > len(stages) {
			return nil, inputError("to", to, fmt.Sprintf("the journey has %d stages", len(stages)))
		}
		out := slices.Delete(slices.Clone(stages), i, i+1)
		return slices.Insert(out, to-1, stages[i]), nil
	}, func(out []Stage) {
		moved = out[to-1]
	})
	if err != nil {
		return nil, err
	}
	return &moved, nil
}

// removeStage implements [Stages.Remove].
func (s *Store) removeStage(ctx context.Context, journeyID, stageID string) error {
	if err := checkID("stageId", stageID); err != nil {
		return err
	}
	return s.editStages(ctx, journeyID, "Stages.Remove", func(stages []Stage) ([]Stage, error) {
		i := slices.IndexFunc(stages, func(e Stage) bool { return e.StageID == stageID })
		if i < 0 {
			return nil, notFound(ErrStageNotFound, journeyID+"/"+stageID, nil)
		}
		if len(stages) == 1 {
			return nil, inputError("stageId", stageID, "a journey keeps at least one stage")
		}
		if st := stages[i]; stageUnrun(st) && st.LastRuleIndex > 0 {
			return nil, fmt.Errorf("%w: %s/%s (rules are keyed by the stage's id)", ErrStageHasRules, journeyID, stageID)
		}
		return slices.Delete(slices.Clone(stages), i, i+1), nil
	}, nil)
}

// editStages is the one transaction of every stage edit (Stages.Add, Move,
// Remove): edit gives the journey's new stages in execution order from
// the current ones, read with the metadata in one round trip. Each stage
// whose order changes is deleted under its old key and created under its
// new one, each stage that goes is deleted, both only while it has not run
// (unrunCondition: a *StatusError with ErrStageRan before anything is
// sent, or after a job started since the read); a new stage is created.
// The journey's metadata takes, in the same transaction, the progress of
// the new stages (done / all), its current stage (the first not done),
// completed when running and every stage is done, and stageEdits plus one,
// conditioned like Jobs.Finish and Stages.Skip on the counts read
// (countsUnchanged, which checks stageEdits too): a finish or skip computed
// from the old stages never lands after the edit, nor the edit after one.
// done is called with the new stages once written. A lost race reads
// again.
func (s *Store) editStages(ctx context.Context, journeyID, op string, edit func([]Stage) ([]Stage, error), done func([]Stage)) error {
	if err := checkID("journeyId", journeyID); err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		r, err := s.readJourney(ctx, journeyID, nil, nil)
		if err != nil {
			return err
		}
		if !slices.Contains(editableJourney, r.j.Status) {
			return &StatusError{Entity: "journey", ID: journeyID, Op: "edit the stages of", Current: string(r.j.Status),
				Allowed: statusStrings(editableJourney)}
		}
		next, err := edit(r.stages)
		if err != nil {
			return err
		}
		now := s.now()
		old := map[string]Stage{}
		for _, st := range r.stages {
			old[st.StageID] = st
		}
		tx := s.t.WriteTx()
		actions := 0
		// drop deletes a stage that moves (from its old key) or goes: only
		// one that has not run, as read and as written.
		drop := func(st Stage, what string) error {
			if !stageUnrun(st) {
				return &StatusError{Entity: "stage", ID: st.StageID, Op: fmt.Sprintf("%s (%s) stage", what, op), Current: string(st.Status),
					Allowed: []string{string(StagePending) + " and never run"}, Cause: ErrStageRan}
			}
			key, err := s.stageKey(journeyID, st.Order, st.StageID)
			if err != nil {
				return err
			}
			tx.Delete(key, table.IfExists(), table.If(unrunCondition()))
			actions++
			return nil
		}
		for i := range next {
			st := &next[i]
			prev, kept := old[st.StageID]
			delete(old, st.StageID)
			if kept && prev.Order == i+1 {
				continue
			}
			if kept {
				if err := drop(prev, "move"); err != nil {
					return err
				}
			} else {
				st.Status, st.CreatedAt = StagePending, Time{now}
			}
			st.JourneyID, st.Order, st.UpdatedAt = journeyID, i+1, Time{now}
			if err := s.ents.stages.TxCreate(stageItemOf(*st)).AddTo(ctx, tx); err != nil {
				return err
			}
			actions++
		}
		for _, st := range r.stages {
			if _, gone := old[st.StageID]; gone {
				if err := drop(st, "remove"); err != nil {
					return err
				}
			}
		}
		if actions == 0 {
			if done != nil {
				done(next) // nothing moves: nothing to write
			}
			return nil
		}
		nr := journeyRead{j: r.j, stages: next}
		a := nr.advance("", false)
		ju := expression.Set(expression.Name("Data.overallProgress"), expression.Value(progressFor(len(a.done), len(next)))).
			Add(expression.Name("Data.stageEdits"), expression.Value(1)).
			Set(expression.Name(attrUpdatedAt), expression.Value(stamp(now)))
		if a.next != nil {
			ju = ju.Set(expression.Name("Data.currentStageId"), expression.Value(a.next.StageID)).
				Set(expression.Name("Data.currentStageIndex"), expression.Value(a.next.Order-1))
		} else if a.allDone && r.j.Status == StatusRunning {
			ju = ju.Set(expression.Name("Data.status"), expression.Value(StatusCompleted))
		}
		journeyKey, _ := s.journeyKey(journeyID)
		tx.Update(journeyKey, ju, table.IfExists(), table.If(r.countsUnchanged()), table.ItemOnConditionFailure())
		err = tx.Run(ctx)
		if err == nil {
			if done != nil {
				done(next)
			}
			return nil
		}
		i := failedAction(err)
		if i < 0 {
			return err
		}
		if i == actions {
			if item := reasonItem(err, i); len(item) == 0 || claimed(item) {
				return metadataRefused(journeyID, err, i)
			}
		}
		// A stage started, moved or was added since the read, or the
		// journey's counts moved: read again (the next read refuses a stage
		// that has now run).
		if attempt+1 >= raceAttempts {
			return err
		}
		if err := s.lostRace(ctx, op, journeyID, attempt); err != nil {
			return err
		}
	}
}

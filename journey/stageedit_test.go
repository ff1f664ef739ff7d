package journey

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/table"
)

// stageOrder is the journey's stages as "order:id", read from the table.
func stageOrder(t *testing.T, s *Store, journeyID string) []string {
	t.Helper()
	stages, err := collect(s.Stages().All(context.Background(), journeyID, Consistent()))
	require.NoError(t, err)
	out := make([]string, len(stages))
	for i, st := range stages {
		out[i] = st.StageID
		assert.Equal(t, i+1, st.Order, "%s: the order is the position", st.StageID)
	}
	return out
}

// TestStagesAreAddedMovedAndRemovedAfterCreation: the seed's "easy to add
// new stages without reorganizing data": a stage is added, moved and
// removed after the journey's creation, the stages that make room move
// with it, the journey's progress and current stage follow, and the new
// stage runs in its place.
func TestStagesAreAddedMovedAndRemovedAfterCreation(t *testing.T) {
	e := newEnv(t)
	stageEdits(t, e.store)
}

// TestIntegrationStagesAreAddedMovedAndRemovedAfterCreation is
// TestStagesAreAddedMovedAndRemovedAfterCreation on DynamoDB Local.
func TestIntegrationStagesAreAddedMovedAndRemovedAfterCreation(t *testing.T) {
	stageEdits(t, localStore(t))
}

func stageEdits(t *testing.T, s *Store) {
	ctx := context.Background()
	const id = "JRN-EDIT"
	_, err := s.Journeys().Create(ctx, NewJourney{ID: id, Name: "edited"})
	require.NoError(t, err)
	job, err := s.Jobs().Start(ctx, NewJob{JourneyID: id, StageID: "raw_analysis"})
	require.NoError(t, err)
	_, err = s.Jobs().Finish(ctx, job.Ref(), Finish{Status: JobCompleted})
	require.NoError(t, err)

	added, err := s.Stages().Add(ctx, id, Stage{StageID: "schema_review", Name: "Schema Review"}, 2)
	require.NoError(t, err)
	assert.Equal(t, 2, added.Order)
	assert.Equal(t, StagePending, added.Status)
	assert.Equal(t, []string{"raw_analysis", "schema_review", "stripped_schema", "tmf_mapping", "migration_planning",
		"data_migration", "verification_validation"}, stageOrder(t, s, id))
	j, err := s.Journeys().Get(ctx, id, Consistent())
	require.NoError(t, err)
	assert.Equal(t, "schema_review", j.CurrentStageID, "the new stage is the next to run")
	assert.Equal(t, 1, j.CurrentStageIndex)
	assert.Equal(t, 14, j.OverallProgress, "1 of 7 stages done")
	assert.Equal(t, 1, j.StageEdits)

	moved, err := s.Stages().Move(ctx, id, "verification_validation", 3)
	require.NoError(t, err)
	assert.Equal(t, 3, moved.Order)
	require.NoError(t, s.Stages().Remove(ctx, id, "migration_planning"))
	last, err := s.Stages().Add(ctx, id, Stage{StageID: "sign_off", Name: "Sign-off", CanSkip: true}, 0)
	require.NoError(t, err)
	assert.Equal(t, 7, last.Order, "0 adds after the last stage")
	assert.Equal(t, []string{"raw_analysis", "schema_review", "verification_validation", "stripped_schema", "tmf_mapping",
		"data_migration", "sign_off"}, stageOrder(t, s, id))
	stageItems := 0
	for _, item := range tableItems(t, s) {
		if stringAttr(item, attrEntityType) == EntityStage {
			stageItems++
		}
	}
	assert.Equal(t, 7, stageItems, "a moved stage leaves no item under its old key")

	// The added stage runs in its place, under its order.
	job, err = s.Jobs().Start(ctx, NewJob{JourneyID: id, StageID: "schema_review"})
	require.NoError(t, err)
	assert.Equal(t, 2, job.Order)
	_, err = s.Jobs().Finish(ctx, job.Ref(), Finish{Status: JobCompleted})
	require.NoError(t, err)
	j, err = s.Journeys().Get(ctx, id, Consistent())
	require.NoError(t, err)
	assert.Equal(t, "verification_validation", j.CurrentStageID)
	assert.Equal(t, 28, j.OverallProgress, "2 of 7 stages done")
}

// TestAStageThatRanStaysWhereItIs: a stage that has run (or was skipped)
// is neither moved nor removed, nor moved to make room for another; a
// *StatusError with ErrStageRan, and nothing is written.
func TestAStageThatRanStaysWhereItIs(t *testing.T) {
	e := newEnv(t)
	stageThatRan(t, e.store)
}

// TestIntegrationAStageThatRanStaysWhereItIs is TestAStageThatRanStaysWhereItIs
// on DynamoDB Local.
func TestIntegrationAStageThatRanStaysWhereItIs(t *testing.T) {
	stageThatRan(t, localStore(t))
}

func stageThatRan(t *testing.T, s *Store) {
	ctx := context.Background()
	const id = "JRN-RAN"
	stages := []Stage{{StageID: "a"}, {StageID: "b", CanSkip: true}, {StageID: "c"}, {StageID: "d"}}
	_, err := s.Journeys().Create(ctx, NewJourney{ID: id, Name: "ran", Stages: stages})
	require.NoError(t, err)
	job, err := s.Jobs().Start(ctx, NewJob{JourneyID: id, StageID: "a"})
	require.NoError(t, err)
	_, err = s.Jobs().Finish(ctx, job.Ref(), Finish{Status: JobCompleted})
	require.NoError(t, err)
	_, err = s.Stages().Skip(ctx, id, "b")
	require.NoError(t, err)
	_, err = s.Jobs().Start(ctx, NewJob{JourneyID: id, StageID: "c"})
	require.NoError(t, err)
	before := tableItems(t, s)

	refused := map[string]func() error{
		"move a completed stage":              func() error { _, err := s.Stages().Move(ctx, id, "a", 4); return err },
		"move a skipped stage":                func() error { _, err := s.Stages().Move(ctx, id, "b", 4); return err },
		"move a pending stage past a ran one": func() error { _, err := s.Stages().Move(ctx, id, "d", 1); return err },
		"remove a running stage":              func() error { return s.Stages().Remove(ctx, id, "c") },
		"remove a skipped stage":              func() error { return s.Stages().Remove(ctx, id, "b") },
		"add before a ran stage":              func() error { _, err := s.Stages().Add(ctx, id, Stage{StageID: "x"}, 3); return err },
	}
	for name, edit := range refused {
		err := edit()
		require.ErrorIs(t, err, ErrStageRan, name)
		var se *StatusError
		require.ErrorAs(t, err, &se, name)
		assert.Equal(t, "stage", se.Entity, name)
		assert.ErrorIs(t, err, ErrInvalidStatus, name)
	}
	assert.Equal(t, before, tableItems(t, s), "nothing written")

	// After the stage that runs, stages move freely.
	_, err = s.Stages().Add(ctx, id, Stage{StageID: "x"}, 4)
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "c", "x", "d"}, stageOrder(t, s, id))
}

// TestStageEditsRefuseBadInputAndWriteNothing: a bad stage, an order out
// of range, a journey's last stage, a stage with rules, a missing stage
// and a journey that is over are refused, typed, and nothing is written
// (bad input sends nothing at all).
func TestStageEditsRefuseBadInputAndWriteNothing(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	s := e.store
	_, err := s.Journeys().Create(ctx, NewJourney{ID: "JRN-BAD", Name: "bad", Stages: []Stage{{StageID: "a"}, {StageID: "b"}}})
	require.NoError(t, err)
	_, err = s.Journeys().Create(ctx, NewJourney{ID: "JRN-ONE", Name: "one", Stages: []Stage{{StageID: "only"}}})
	require.NoError(t, err)
	_, err = s.Rules().Add(ctx, NewRule{JourneyID: "JRN-BAD", StageID: "b", Title: "keep ids", Type: "field_mapping"})
	require.NoError(t, err)
	before := tableItems(t, s)

	inputs := map[string]func() error{
		"bad journey id": func() error { _, err := s.Stages().Add(ctx, "bad id", Stage{StageID: "x"}, 0); return err },
		"bad stage id":   func() error { _, err := s.Stages().Add(ctx, "JRN-BAD", Stage{StageID: "x y"}, 0); return err },
		"bad step id": func() error {
			_, err := s.Stages().Add(ctx, "JRN-BAD", Stage{StageID: "x", Steps: []StepDefinition{{StepID: ""}}}, 0)
			return err
		},
		"a stage that ran": func() error {
			_, err := s.Stages().Add(ctx, "JRN-BAD", Stage{StageID: "x", Status: StageCompleted}, 0)
			return err
		},
		"an execution": func() error {
			_, err := s.Stages().Add(ctx, "JRN-BAD", Stage{StageID: "x", LastExecution: 2}, 0)
			return err
		},
		"negative at":       func() error { _, err := s.Stages().Add(ctx, "JRN-BAD", Stage{StageID: "x"}, -1); return err },
		"move to 0":         func() error { _, err := s.Stages().Move(ctx, "JRN-BAD", "a", 0); return err },
		"move bad stage id": func() error { _, err := s.Stages().Move(ctx, "JRN-BAD", "", 1); return err },
		"remove bad id":     func() error { return s.Stages().Remove(ctx, "JRN-BAD", "x y") },
	}
	for name, edit := range inputs {
		e.db.ResetCalls()
		assert.ErrorIs(t, edit(), table.ErrInvalidInput, name)
		assert.Zero(t, e.calls(), "%s: a request was sent", name)
	}
	read := map[string]func() error{ // refused once the journey is read
		"id taken":          func() error { _, err := s.Stages().Add(ctx, "JRN-BAD", Stage{StageID: "a"}, 0); return err },
		"at past the end":   func() error { _, err := s.Stages().Add(ctx, "JRN-BAD", Stage{StageID: "x"}, 4); return err },
		"move past the end": func() error { _, err := s.Stages().Move(ctx, "JRN-BAD", "a", 3); return err },
		"the last stage":    func() error { return s.Stages().Remove(ctx, "JRN-ONE", "only") },
	}
	for name, edit := range read {
		assert.ErrorIs(t, edit(), table.ErrInvalidInput, name)
	}
	assert.ErrorIs(t, s.Stages().Remove(ctx, "JRN-BAD", "b"), ErrStageHasRules)
	_, err = s.Stages().Move(ctx, "JRN-BAD", "nope", 1)
	assert.ErrorIs(t, err, ErrStageNotFound)
	assert.ErrorIs(t, s.Stages().Remove(ctx, "JRN-NONE", "a"), ErrJourneyNotFound)
	e.db.ResetCalls()
	same, err := s.Stages().Move(ctx, "JRN-BAD", "a", 1)
	require.NoError(t, err, "a move to where the stage is")
	assert.Equal(t, 1, same.Order)
	assert.Zero(t, e.db.Calls("TransactWriteItems"), "a move to where the stage is writes nothing")
	assert.Equal(t, before, tableItems(t, s), "nothing written")

	_, err = s.Journeys().Cancel(ctx, "JRN-ONE")
	require.NoError(t, err)
	before = tableItems(t, s)
	_, err = s.Stages().Add(ctx, "JRN-ONE", Stage{StageID: "x"}, 0)
	var se *StatusError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "journey", se.Entity)
	assert.Equal(t, string(StatusCancelled), se.Current)
	assert.Equal(t, before, tableItems(t, s), "nothing written")
}

// TestRemovingTheLastStageLeftCompletesARunningJourney: the stages left
// are all done, so the journey completes, as the last Finish would.
func TestRemovingTheLastStageLeftCompletesARunningJourney(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	s := e.store
	_, err := s.Journeys().Create(ctx, NewJourney{ID: "JRN-END", Name: "end", Stages: []Stage{{StageID: "a"}, {StageID: "b"}}})
	require.NoError(t, err)
	job := must[*Job](t)(s.Jobs().Start(ctx, NewJob{JourneyID: "JRN-END", StageID: "a"}))
	_, err = s.Jobs().Finish(ctx, job.Ref(), Finish{Status: JobCompleted})
	require.NoError(t, err)
	require.NoError(t, s.Stages().Remove(ctx, "JRN-END", "b"))
	j := must[*Journey](t)(s.Journeys().Get(ctx, "JRN-END", Consistent()))
	assert.Equal(t, StatusCompleted, j.Status)
	assert.Equal(t, 100, j.OverallProgress)
}

// TestAFinishReadBeforeAStageEditIsReadAgain: Jobs.Finish read the
// stages, then a stage was removed; its transaction is refused (stageEdits
// moved) and it reads again, so the journey completes instead of waiting
// for the removed stage.
func TestAFinishReadBeforeAStageEditIsReadAgain(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	_, err := e.store.Journeys().Create(ctx, NewJourney{ID: "JRN-RACE", Name: "race", Stages: []Stage{{StageID: "a"}, {StageID: "b"}}})
	require.NoError(t, err)
	job := must[*Job](t)(e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-RACE", StageID: "a"}))
	hooked := &hookedAPI{API: e.db}
	finisher := mustStore(t, hooked, e.logs, Clock(e.db.Now))
	var editErr error
	hooked.hook(func(n int) error {
		if n == 1 { // Finish read the stages and is about to write
			editErr = e.store.Stages().Remove(ctx, "JRN-RACE", "b")
		}
		return nil
	})
	_, err = finisher.Jobs().Finish(ctx, job.Ref(), Finish{Status: JobCompleted})
	require.NoError(t, err)
	require.NoError(t, editErr)
	j := must[*Journey](t)(e.store.Journeys().Get(ctx, "JRN-RACE", Consistent()))
	assert.Equal(t, StatusCompleted, j.Status)
	assert.Equal(t, 100, j.OverallProgress)
	assert.Equal(t, []string{"a"}, j.CompletedStages)
}

// TestAStartOfAStageMovedSinceItsReadStartsItWhereItWent: Jobs.Start read
// the stage, then it moved; the start reads again and creates the job
// under the stage's new order.
func TestAStartOfAStageMovedSinceItsReadStartsItWhereItWent(t *testing.T) {
	e := newEnv(t, inAnyOrder)
	ctx := context.Background()
	_, err := e.store.Journeys().Create(ctx, NewJourney{ID: "JRN-MOVE", Name: "move", Stages: []Stage{{StageID: "a"}, {StageID: "b"}, {StageID: "c"}}})
	require.NoError(t, err)
	hooked := &hookedAPI{API: e.db}
	starter := mustStore(t, hooked, e.logs, Clock(e.db.Now), inAnyOrder)
	var editErr error
	hooked.hook(func(n int) error {
		if n == 1 {
			_, editErr = e.store.Stages().Move(ctx, "JRN-MOVE", "c", 1)
		}
		return nil
	})
	job, err := starter.Jobs().Start(ctx, NewJob{JourneyID: "JRN-MOVE", StageID: "c"})
	require.NoError(t, err)
	require.NoError(t, editErr)
	assert.Equal(t, 1, job.Order)
	assert.Equal(t, []string{"c", "a", "b"}, stageOrder(t, e.store, "JRN-MOVE"))
	st := must[*Stage](t)(e.store.Stages().Get(ctx, "JRN-MOVE", "c", Consistent()))
	assert.Equal(t, StageRunning, st.Status)
}

// TestAStageThatStartsDuringAnEditIsNotMovedOrRemoved: Stages.Move (then
// Remove) read the stage pending, then a job of it started; the edit's
// condition on the stage refuses it, the next read sees the stage ran
// (ErrStageRan), and the stage and its job stay where they are.
func TestAStageThatStartsDuringAnEditIsNotMovedOrRemoved(t *testing.T) {
	e := newEnv(t, inAnyOrder)
	ctx := context.Background()
	_, err := e.store.Journeys().Create(ctx, NewJourney{ID: "JRN-MID", Name: "mid", Stages: []Stage{{StageID: "a"}, {StageID: "b"}, {StageID: "c"}}})
	require.NoError(t, err)
	_, err = e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-MID", StageID: "a"}) // the journey runs
	require.NoError(t, err)
	hooked := &hookedAPI{API: e.db}
	editor := mustStore(t, hooked, e.logs, Clock(e.db.Now), inAnyOrder)
	var job *Job
	var startErr error
	hooked.hook(func(n int) error {
		if n == 1 { // the move read the stages and is about to write
			job, startErr = e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-MID", StageID: "b"})
		}
		return nil
	})
	_, err = editor.Stages().Move(ctx, "JRN-MID", "b", 3)
	require.NoError(t, startErr)
	assert.ErrorIs(t, err, ErrStageRan)
	assert.Equal(t, []string{"a", "b", "c"}, stageOrder(t, e.store, "JRN-MID"))
	st := must[*Stage](t)(e.store.Stages().Get(ctx, "JRN-MID", "b", Consistent()))
	assert.Equal(t, StageRunning, st.Status)
	assert.Equal(t, 2, job.Order)

	hooked.hook(func(n int) error {
		if n == 1 { // the removal read the stages and is about to write
			job, startErr = e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-MID", StageID: "c"})
		}
		return nil
	})
	err = editor.Stages().Remove(ctx, "JRN-MID", "c")
	require.NoError(t, startErr)
	assert.ErrorIs(t, err, ErrStageRan)
	assert.Equal(t, []string{"a", "b", "c"}, stageOrder(t, e.store, "JRN-MID"), "the started stage stays")
}

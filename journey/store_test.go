package journey

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
)

func TestNewStoreRefusesNilDependenciesAndBadNames(t *testing.T) {
	db := dynamotest.New()
	for name, open := range map[string]func() (*Store, error){
		"nil db":     func() (*Store, error) { return NewStore(nil, blobstore.NewMemory()) },
		"nil logs":   func() (*Store, error) { return NewStore(db, nil) },
		"table name": func() (*Store, error) { return NewStore(db, blobstore.NewMemory(), TableName("no spaces")) },
	} {
		s, err := open()
		assert.Nil(t, s, name)
		assert.ErrorIs(t, err, table.ErrInvalidInput, name)
	}
	assert.Zero(t, db.Calls("CreateTable")+db.Calls("DescribeTable"), "NewStore sends nothing")
}

func TestEnsureTableCreatesTheTableTheStoreUses(t *testing.T) {
	ctx := context.Background()
	db := dynamotest.New()
	s, err := NewStore(db, blobstore.NewMemory(), TableName("TransformationSystem-test"))
	require.NoError(t, err)
	assert.Equal(t, "TransformationSystem-test", s.Schema().Name)
	assert.Equal(t, Schema("TransformationSystem-test"), s.Schema())

	require.NoError(t, s.EnsureTable(ctx))
	_, err = s.Journeys().Create(ctx, NewJourney{ID: "JRN-1", Name: "on the named table"})
	require.NoError(t, err)
	require.NoError(t, s.EnsureTable(ctx), "EnsureTable again finds the table as it wants it")
}

// TestANilStoreFailsEveryHandleWithoutPanicking: handles of a nil or zero
// Store, and a nil context, are typed errors.
func TestANilStoreFailsEveryHandleWithoutPanicking(t *testing.T) {
	ctx := context.Background()
	for _, s := range []*Store{nil, {}} {
		_, err := s.Journeys().Get(ctx, "JRN-1")
		assert.ErrorIs(t, err, ErrNoStore)
		_, err = s.Jobs().List(ctx, "JRN-1", "")
		assert.ErrorIs(t, err, ErrNoStore)
		for _, err := range s.Stages().All(ctx, "JRN-1") {
			assert.ErrorIs(t, err, ErrNoStore)
		}
		_, err = s.Logs().Logger(JobRef{}, "s")
		assert.ErrorIs(t, err, ErrNoStore)
		assert.ErrorIs(t, s.EnsureTable(ctx), ErrNoStore)
		assert.Equal(t, table.Schema{}, s.Schema())
		assert.Nil(t, s.Table())
	}
	e := newEnv(t)
	//lint:ignore SA1012 a nil context is the bad input under test
	_, err := e.store.Rules().ForStage(nil, "JRN-T", "raw_analysis") //nolint:staticcheck
	assert.ErrorIs(t, err, table.ErrInvalidInput)
	var l *StepLogger
	assert.ErrorIs(t, l.Close(ctx), table.ErrInvalidInput)
}

// TestEveryHandleCallIsOneSpan: with a TracerProvider each handle call
// that sends requests starts one span named journey.<Handle>.<Method>,
// ended with the call's error.
func TestEveryHandleCallIsOneSpan(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	e := newEnv(t, TracerProvider(tp))
	ctx := context.Background()

	e.newJourney(t)
	job, err := e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "raw_analysis"})
	require.NoError(t, err)
	l, err := e.store.Logs().Logger(job.Ref(), "extract")
	require.NoError(t, err)
	l.Info("one", nil)
	require.NoError(t, l.Close(ctx))
	_, err = e.store.Journeys().Get(ctx, "JRN-NONE")
	require.ErrorIs(t, err, ErrJourneyNotFound)

	var names []string
	for _, s := range spans.Ended() {
		names = append(names, s.Name())
	}
	assert.Equal(t, []string{"journey.Journeys.Create", "journey.Jobs.Start", "journey.StepLogger.Close", "journey.Journeys.Get"}, names)
	last := spans.Ended()[3]
	assert.Equal(t, codes.Error, last.Status().Code, "the span records the call's error")
}

// TestAJobsJSONDecodesAsItsRef: JobRef and RuleRef use the entities' json
// names, so a client holding a job's JSON can address it.
func TestAJobsJSONDecodesAsItsRef(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.newJourney(t)
	job, err := e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "raw_analysis"})
	require.NoError(t, err)
	rule, err := e.store.Rules().Add(ctx, NewRule{JourneyID: "JRN-T", StageID: "raw_analysis", Title: "r", Type: RuleFieldMapping})
	require.NoError(t, err)

	body, err := json.Marshal(job)
	require.NoError(t, err)
	var ref JobRef
	require.NoError(t, json.Unmarshal(body, &ref))
	assert.Equal(t, job.Ref(), ref)
	got, err := e.store.Jobs().Get(ctx, ref)
	require.NoError(t, err)
	assert.Equal(t, job.JobID, got.JobID)

	body, err = json.Marshal(rule)
	require.NoError(t, err)
	var rref RuleRef
	require.NoError(t, json.Unmarshal(body, &rref))
	assert.Equal(t, rule.Ref(), rref)
}

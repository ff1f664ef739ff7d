package pipeline_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/pipeline"
	"github.com/tablekit/tablekit/table"
)

// A nil Store, a zero Store (not made by NewStore) and a nil context get
// an error from every call, never a panic; a store made properly with a
// nil context sends nothing.
func TestCallsOnAStoreNotMadeByNewStoreOrWithoutContextAreInputErrors(t *testing.T) {
	db := dynamotest.New()
	good, err := pipeline.NewStore(db, nil)
	require.NoError(t, err)
	require.NoError(t, good.EnsureTable(context.Background()))
	db.ResetConsumed()
	var noCtx context.Context
	for _, tc := range []struct {
		name  string
		store *pipeline.Store
		ctx   context.Context
		want  error
	}{
		{"nil store", nil, context.Background(), pipeline.ErrNoStore},
		{"zero store", &pipeline.Store{}, context.Background(), pipeline.ErrNoStore},
		{"nil context", good, noCtx, table.ErrInvalidInput},
	} {
		s, ctx := tc.store, tc.ctx
		calls := map[string]func() error{
			"EnsureTable": func() error { return s.EnsureTable(ctx) },
			"Create": func() error {
				_, err := s.Create(ctx, pipeline.Input{Name: "p"})
				return err
			},
			"Get":           func() error { _, err := s.Get(ctx, "p1"); return err },
			"Update":        func() error { _, err := s.Update(ctx, "p1", 1, pipeline.Input{Name: "p"}); return err },
			"Delete":        func() error { return s.Delete(ctx, "p1") },
			"GetVersion":    func() error { _, err := s.Versions().Get(ctx, "p1", 1); return err },
			"ListPipelines": func() error { _, err := s.Pipelines().List().Page(ctx, ""); return err },
			"ListVersions":  func() error { _, err := s.Versions().List("p1").Page(ctx, ""); return err },
			"ListGroup":     func() error { _, err := s.Pipelines().InGroup("g").Page(ctx, ""); return err },
			"ListTags":      func() error { _, err := s.Tags().List().Page(ctx, ""); return err },
			"TagKeys":       func() error { _, err := s.Tags().Keys(ctx); return err },
			"ListTagValues": func() error { _, err := s.Tags().Values("k").Page(ctx, ""); return err },
			"ListByTags": func() error {
				_, err := s.Pipelines().ByTags([]pipeline.Tag{{Key: "k", Value: "v"}}).Page(ctx, "")
				return err
			},
			"GetExecution":   func() error { _, err := s.Executions().Get(ctx, "e1"); return err },
			"ListExecutions": func() error { _, err := s.Executions().List("p1").Page(ctx, ""); return err },
			"StartExecution": func() error { _, err := s.Executions().Start(ctx, "e1"); return err },
			"RecoverExecutions": func() error {
				_, err := s.Maintenance().RecoverExecutions(ctx, "p1", time.Time{})
				return err
			},
			"PutOutput": func() error { return s.PutOutput(ctx, "e1", strings.NewReader("x"), 1) },
			"Pipelines": func() error {
				for _, err := range s.Pipelines().List().All(ctx) {
					return err
				}
				return nil
			},
		}
		for name, call := range calls {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				var err error
				require.NotPanics(t, func() { err = call() })
				assert.ErrorIs(t, err, tc.want)
				assert.ErrorIs(t, err, table.ErrInvalidInput, "a miswired call is bad input")
			})
		}
	}
	assert.Zero(t, db.Consumed(good.Table().Name()), "nothing was sent")
	var nilStore *pipeline.Store
	assert.Zero(t, nilStore.Schema())
	assert.Nil(t, nilStore.Table())
}

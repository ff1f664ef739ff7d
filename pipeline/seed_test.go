package pipeline_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/pipeline"
	"github.com/tablekit/tablekit/table"
)

// TestReadsItemsWrittenFromTheSeedLayout writes items the way a service
// built from the seed's document would, without this package, and reads
// them back through it.
func TestReadsItemsWrittenFromTheSeedLayout(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	tb := e.store.Table()
	current := map[string]any{
		"pk": "P:03d66e78-5eac-4781-aede-e1bed34d1e81", "sk": "PV:current", "siKey1": "P",
		"name": "sap:emissions:pipeline", "state": "enabled",
		"createdAt": "2022-08-10T23:55:20.322Z", "updatedAt": "2022-08-10T23:55:20.322Z",
		"createdBy": "abc@xyz.com", "updatedBy": "abc@xyz.com", "version": 1,
		"attributes": map[string]any{"label": "My Pipeline", "description": "this is a new pipeline"},
		"tags":       []any{map[string]any{"key": "source", "value": "sap"}, map[string]any{"key": "region", "value": "usa/northwest"}},
		"transformer": map[string]any{
			"transforms": []any{map[string]any{"index": 0, "formula": "LOOKUP('vehicle_type', IN(:pin24))",
				"outputs": []any{map[string]any{"index": 0, "key": "vehicle", "label": "Vehicle", "description": "some description about pin24", "type": "number"}}}},
			"parameters": []any{map[string]any{"index": 0, "key": "pin24", "label": "pin 24", "description": "some description about pin24", "type": "string"}},
		},
		"groups": []any{"/usa/northwest"},
	}
	version := map[string]any{}
	for k, v := range current {
		version[k] = v
	}
	version["sk"] = "PV:0000000001"
	delete(version, "siKey1")
	id := "03d66e78-5eac-4781-aede-e1bed34d1e81"
	items := []map[string]any{
		current, version,
		{"pk": "P:" + id, "sk": "G:/usa/northwest", "siKey1": "G:/usa/northwest"},
		{"pk": "T:source", "sk": "T:sap:P:" + id},
		{"pk": "T:region", "sk": "T:usa:P:" + id},
		{"pk": "T:region#usa", "sk": "T:northwest:P:" + id},
		{"pk": "TA:source", "sk": "TA:sap", "siKey1": "TD", "count": 1},
		{"pk": "TA:region", "sk": "TA:usa", "siKey1": "TD", "count": 1},
		{"pk": "TA:region", "sk": "TA:usa/northwest", "siKey1": "TD", "count": 1},
		{"pk": "PE:e-1", "sk": "PE:P", "siKey1": "P:" + id, "version": 1, "state": "succeeded",
			"createdAt": "2022-08-11T00:00:00.000Z", "updatedAt": "2022-08-11T00:10:00.000Z"},
	}
	for _, it := range items {
		av, err := table.Marshal(it)
		require.NoError(t, err)
		require.NoError(t, tb.Put(ctx, av))
	}
	p, err := e.store.Get(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, "sap:emissions:pipeline", p.Name)
	assert.Equal(t, 1, p.Version)
	require.NotNil(t, p.Transformer)
	require.NotEmpty(t, p.Transformer.Transforms)
	require.NotEmpty(t, p.Transformer.Transforms[0].Outputs)
	assert.Equal(t, "vehicle", p.Transformer.Transforms[0].Outputs[0].Key)
	assert.Equal(t, "My Pipeline", p.Attributes["label"])
	require.Len(t, p.Tags, 2)
	assert.Equal(t, "usa/northwest", p.Tags[1].Value)
	assert.Equal(t, 322_000_000, p.CreatedAt.Nanosecond())
	v, err := e.store.Versions().Get(ctx, id, 1)
	require.NoError(t, err)
	assert.Equal(t, p.Name, v.Name, "version 1")
	page, err := e.store.Pipelines().ByTags([]pipeline.Tag{{Key: "source", Value: "sap"}, {Key: "region", Value: "usa/northwest"}}, pipeline.Limit(10)).Page(ctx, "")
	require.NoError(t, err)
	if assert.Len(t, page.Items, 1, "by tags") {
		assert.Equal(t, id, page.Items[0].ID)
	}
	g, err := e.store.Pipelines().InGroup("/usa/northwest").Page(ctx, "")
	require.NoError(t, err)
	assert.Len(t, g.Items, 1, "group")
	ex, err := e.store.Executions().List(id).Page(ctx, "")
	require.NoError(t, err)
	if assert.Len(t, ex.Items, 1, "executions") {
		assert.Equal(t, "e-1", ex.Items[0].ID)
		assert.Equal(t, pipeline.ExecutionSucceeded, ex.Items[0].State)
	}
	vals, err := e.store.Tags().Values("source").Page(ctx, "")
	require.NoError(t, err)
	if assert.Len(t, vals.Items, 1, "tag values") {
		assert.Equal(t, 1, vals.Items[0].Count)
	}
	// An update from here moves the hand-written tag items and counts.
	_, err = e.store.Update(ctx, id, 1, pipeline.Input{Name: "n", Tags: []pipeline.Tag{{Key: "source", Value: "csv"}}})
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"source=csv": 1}, tagCounts(t, e), "counts after the update")
	snap := e.snapshot(t)
	for _, gone := range []string{"T:source|T:sap:P:" + id, "T:region|T:usa:P:" + id, "T:region#usa|T:northwest:P:" + id, "P:" + id + "|G:/usa/northwest"} {
		assert.NotContains(t, snap, gone, "survived the update")
	}
}

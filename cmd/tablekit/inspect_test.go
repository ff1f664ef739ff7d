package main

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/pipeline"
	"github.com/tablekit/tablekit/table"
)

func TestInspectNamesTheEntitiesOfAStoreBuiltOnEntity(t *testing.T) {
	srv := fakeServer(t)
	ctx := context.Background()
	store, err := pipeline.NewStore(srv.DB, nil)
	require.NoError(t, err)
	require.NoError(t, store.EnsureTable(ctx))
	p, err := store.Create(ctx, pipeline.Input{ID: "p1", Name: "resize", Groups: []string{"g1"}})
	require.NoError(t, err)
	_, err = store.Executions().Create(ctx, pipeline.ExecutionInput{PipelineID: p.ID})
	require.NoError(t, err)

	js := runCLI(t, "inspect", "-endpoint", srv.URL, "-store", "pipeline", "-output", "json", "P:p1")
	require.Equal(t, exitOK, js.code, js.stderr)
	var groups []entityGroup
	require.NoError(t, json.Unmarshal([]byte(js.stdout), &groups))
	var kinds []string
	for _, g := range groups {
		kinds = append(kinds, g.Kind)
	}
	assert.Equal(t, []string{"group", "executionRef", "version", "pipeline"}, kinds,
		"the pipeline's partition, by the entity each key shape is (G: < PE: < PV:0.. < PV:current)")
}

// An item of a service's own table built on package entity.
type inspectedAlbum struct {
	ID    string `dynamodbav:"albumId"`
	Title string `dynamodbav:"title"`
}

type inspectedPhoto struct {
	AlbumID string `dynamodbav:"albumId"`
	ID      string `dynamodbav:"photoId"`
}

func TestInspectGroupsAnyTableByItsTypeAttribute(t *testing.T) {
	srv := fakeServer(t)
	ctx := context.Background()
	s := func(n string) table.Attribute { return table.Attribute{Name: n, Type: types.ScalarAttributeTypeS} }
	schema := table.Schema{Name: "my-albums", PartitionKey: s("pk"), SortKey: s("sk")}
	require.NoError(t, schema.EnsureTable(ctx, srv.DB))
	reg, err := entity.NewRegistry(table.New(srv.DB, schema))
	require.NoError(t, err)
	albums, err := entity.New[inspectedAlbum](reg, "album", entity.Key("ALBUM#{albumId}", "ALBUM"))
	require.NoError(t, err)
	photos, err := entity.New[inspectedPhoto](reg, "photo", entity.Key("ALBUM#{albumId}", "PHOTO#{photoId}"))
	require.NoError(t, err)
	_, err = albums.Create(ctx, inspectedAlbum{ID: "a1", Title: "Alps"})
	require.NoError(t, err)
	for _, id := range []string{"p1", "p2"} {
		_, err = photos.Create(ctx, inspectedPhoto{AlbumID: "a1", ID: id})
		require.NoError(t, err)
	}

	r := runCLI(t, "inspect", "-endpoint", srv.URL, "-table", "my-albums", "ALBUM#a1")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "album (1)")
	assert.Contains(t, r.stdout, "photo (2)", "no -store: the table's keys come from DescribeTable, the kinds from _type")
	none := runCLI(t, "inspect", "-endpoint", srv.URL, "-table", "no-such-table", "X")
	assert.Equal(t, exitNotFound, none.code)
}

// A task of a project, in a table whose local index sorts a project's
// tasks by priority.
type inspectedTask struct {
	ProjectID string `dynamodbav:"projectId"`
	ID        string `dynamodbav:"taskId"`
	Priority  string `dynamodbav:"priority"`
}

func TestInspectReadsAPartitionThroughALocalIndex(t *testing.T) {
	srv := fakeServer(t)
	ctx := context.Background()
	s := func(n string) table.Attribute { return table.Attribute{Name: n, Type: types.ScalarAttributeTypeS} }
	schema := table.Schema{Name: "my-projects", PartitionKey: s("pk"), SortKey: s("sk"),
		Indexes: []table.Index{{Name: "LSI1", PartitionKey: s("pk"), SortKey: s("lsi1sk"), Local: true}}}
	require.NoError(t, schema.EnsureTable(ctx, srv.DB))
	reg, err := entity.NewRegistry(table.New(srv.DB, schema))
	require.NoError(t, err)
	tasks, err := entity.New[inspectedTask](reg, "task", entity.Key("PROJECT#{projectId}", "TASK#{taskId}"),
		entity.LocalIndex("LSI1", "P#{priority}"))
	require.NoError(t, err)
	for _, id := range []string{"t1", "t2"} {
		_, err = tasks.Create(ctx, inspectedTask{ProjectID: "p1", ID: id, Priority: "1"})
		require.NoError(t, err)
	}

	r := runCLI(t, "inspect", "-endpoint", srv.URL, "-table", "my-projects", "-index", "LSI1", "PROJECT#p1")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "task (2)", "the local index is in the table's described schema")
}

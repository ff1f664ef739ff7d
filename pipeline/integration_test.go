package pipeline_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/blobstore/s3blob"
	"github.com/tablekit/tablekit/internal/compared"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/pipeline"
	"github.com/tablekit/tablekit/table"
)

// localEnv is a store on its own table in DynamoDB Local (skipped when
// TABLEKIT_DYNAMODB_ENDPOINT is unset), with files on s3rver when
// TABLEKIT_S3_ENDPOINT is set and in memory otherwise.
func localEnv(t *testing.T, db func(table.API) table.API) (*pipeline.Store, table.API, blobstore.Store) {
	t.Helper()
	client := compared.DynamoDB(t)
	name := testenv.TableName(t, "pipelines")
	var files blobstore.Store
	if os.Getenv(testenv.S3EndpointVar) != "" {
		s3files, err := s3blob.New(testenv.S3(t), testenv.Bucket(t, "pipelines"), func(o *s3blob.Options) { o.PathStyle = true })
		require.NoError(t, err)
		files = s3files
	} else {
		m := blobstore.NewMemory()
		srv := newHTTPServer(t, m)
		require.NoError(t, m.EnablePresign(srv))
		files = m
	}
	api := table.API(client)
	if db != nil {
		api = db(client)
	}
	store := newStore(t, api, files, pipeline.TableName(name))
	ctx := context.Background()
	require.NoError(t, pipeline.Schema(name).Create(ctx, client), "create table %s", name)
	t.Cleanup(func() {
		client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	return store, client, files
}

func TestIntegrationCreateUpdateAndListByTags(t *testing.T) {
	store, _, _ := localEnv(t, nil)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(1, 2))
	var all []*pipeline.Pipeline
	for i := range 120 {
		p, err := store.Create(ctx, pipeline.Input{ID: fmt.Sprintf("p%04d", i), Name: "n", Tags: randomTags(r), Groups: []string{fmt.Sprint("g", i%3)}})
		require.NoError(t, err)
		all = append(all, p)
	}
	// Update a third of them with new tags.
	for i := 0; i < len(all); i += 3 {
		p, err := store.Update(ctx, all[i].ID, 1, pipeline.Input{Name: "n2", Tags: randomTags(r), Groups: []string{"g9"}})
		require.NoError(t, err)
		all[i] = p
	}
	for c := range 40 {
		q := []pipeline.Tag{randomQueryTag(r)}
		if c%2 == 1 {
			q = append(q, randomQueryTag(r))
		}
		var want, got []string
		for _, p := range all {
			if matches(p, q[0]) && (len(q) == 1 || matches(p, q[1])) {
				want = append(want, p.ID)
			}
		}
		cursor := ""
		for {
			page, err := store.Pipelines().ByTags(q, pipeline.Limit(9)).Page(ctx, cursor)
			require.NoError(t, err)
			got = append(got, sortedIDs(page.Items)...)
			if cursor = page.Next; cursor == "" {
				break
			}
		}
		require.True(t, slices.Equal(got, want), "%v: got %v, want %v", q, got, want)
	}
	wantCounts := map[string]int{}
	for _, p := range all {
		for _, kv := range allLevels(p.Tags) {
			wantCounts[kv]++
		}
	}
	gotCounts := map[string]int{}
	cursor := ""
	for {
		page, err := store.Tags().List(pipeline.Limit(10)).Page(ctx, cursor)
		require.NoError(t, err)
		for _, tc := range page.Items {
			gotCounts[tc.Key+"="+tc.Value] = tc.Count
		}
		if cursor = page.Next; cursor == "" {
			break
		}
	}
	assert.Equal(t, wantCounts, gotCounts, "aggregates")
	g9, err := store.Pipelines().InGroup("g9", pipeline.Limit(100)).Page(ctx, "")
	require.NoError(t, err)
	assert.Len(t, g9.Items, 40, "group g9")
	vs, err := store.Versions().List(all[0].ID).Page(ctx, "")
	require.NoError(t, err)
	assert.Len(t, vs.Items, 2, "versions")
}

func TestIntegrationConcurrentUpdatesKeepCountsExact(t *testing.T) {
	store, _, _ := localEnv(t, nil)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(3, 4))
	var ids []string
	for i := range 4 {
		p, err := store.Create(ctx, pipeline.Input{ID: fmt.Sprint("c", i), Name: "n", Tags: randomTags(r)})
		require.NoError(t, err)
		ids = append(ids, p.ID)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := range 20 {
		tags := randomTags(r)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				cur, err := store.Get(ctx, ids[i%len(ids)])
				if err != nil {
					errs <- err
					return
				}
				_, err = store.Update(ctx, cur.ID, cur.Version, pipeline.Input{Name: "n", Tags: tags})
				if errors.Is(err, pipeline.ErrConflict) {
					continue
				}
				if err != nil {
					errs <- err
				}
				return
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	want := map[string]int{}
	for _, id := range ids {
		p, err := store.Get(ctx, id)
		require.NoError(t, err)
		for _, kv := range allLevels(p.Tags) {
			want[kv]++
		}
	}
	got := map[string]int{}
	for _, k := range []string{"source", "plant", "env", "region"} {
		page, err := store.Tags().Values(k).Page(ctx, "")
		require.NoError(t, err)
		for _, tc := range page.Items {
			got[tc.Key+"="+tc.Value] = tc.Count
		}
	}
	assert.Equal(t, want, got, "aggregates")
}

func TestIntegrationLostRaceWritesNothing(t *testing.T) {
	var race *racingDB
	store, client, _ := localEnv(t, func(api table.API) table.API {
		race = &racingDB{API: api}
		return race
	})
	ctx := context.Background()
	winner := newStore(t, client, nil, pipeline.TableName(store.Table().Name()))
	p, err := winner.Create(ctx, pipeline.Input{ID: "p", Name: "n", Tags: []pipeline.Tag{{Key: "a", Value: "1"}}})
	require.NoError(t, err)
	var winnerErr error
	race.before = func() {
		_, winnerErr = winner.Update(ctx, p.ID, 1, pipeline.Input{Name: "w", Tags: []pipeline.Tag{{Key: "a", Value: "2"}}})
	}
	_, err = store.Update(ctx, p.ID, 1, pipeline.Input{Name: "l", Tags: []pipeline.Tag{{Key: "a", Value: "3"}}, Groups: []string{"x"}})
	require.NoError(t, winnerErr)
	var ce *pipeline.ConflictError
	require.ErrorAs(t, err, &ce, "losing update")
	assert.Equal(t, 1, ce.Expected)
	t.Logf("conflict as reported by DynamoDB Local: %v (current %d)", err, ce.Current)
	page, err := winner.Tags().Values("a").Page(ctx, "")
	require.NoError(t, err)
	if assert.Len(t, page.Items, 1, "tag values after the race") {
		assert.Equal(t, "2", page.Items[0].Value)
	}
	_, err = winner.Versions().Get(ctx, p.ID, 3)
	assert.ErrorIs(t, err, pipeline.ErrNotFound, "version 3")
	g, err := winner.Pipelines().InGroup("x").Page(ctx, "")
	require.NoError(t, err)
	assert.Empty(t, g.Items, "group of the loser")
}

func TestIntegrationExecutionFiles(t *testing.T) {
	store, _, _ := localEnv(t, nil)
	ctx := context.Background()
	p, err := store.Create(ctx, pipeline.Input{ID: "p", Name: "n"})
	require.NoError(t, err)
	up, err := store.PresignInputUpload(ctx, p.ID, 1)
	require.NoError(t, err)
	upload(t, up, "x,y\n")
	ex, err := store.Executions().Create(ctx, pipeline.ExecutionInput{PipelineID: p.ID, InputKey: up.Key})
	require.NoError(t, err)
	require.NoError(t, store.PutOutput(ctx, ex.ID, strings.NewReader("out"), 3))
	url, err := store.PresignOutputDownload(ctx, ex.ID)
	require.NoError(t, err)
	resp, err := http.Get(url)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "out", string(body), "download")
	page, err := store.Executions().List(p.ID).Page(ctx, "")
	require.NoError(t, err)
	if assert.Len(t, page.Items, 1, "executions") {
		assert.Equal(t, ex.InputKey, page.Items[0].InputKey)
	}
}

package pipeline_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/pipeline"
	"github.com/tablekit/tablekit/table"
)

// exampleStore is a store on the in-memory fake with an in-memory blob
// store served over HTTP, and fixed ids and times so output is stable.
func exampleStore() (*pipeline.Store, func()) {
	// The fake's clock stands still at the seed's example time.
	start := time.Date(2022, 8, 10, 23, 55, 20, 322_000_000, time.UTC)
	db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return start } })
	files := blobstore.NewMemory()
	srv := httptest.NewServer(files)
	if err := files.EnablePresign(srv.URL); err != nil {
		panic(err)
	}
	n := 0
	store, err := pipeline.NewStore(db, files, pipeline.Clock(db.Now), func(o *pipeline.Options) {
		o.NewID = func(time.Time) string { n++; return fmt.Sprintf("id%03d", n) }
	})
	if err != nil {
		panic(err)
	}
	if err := store.EnsureTable(context.Background()); err != nil {
		panic(err)
	}
	return store, srv.Close
}

func ExampleStore_Create() {
	store, done := exampleStore()
	defer done()
	ctx := context.Background()
	p, err := store.Create(ctx, pipeline.Input{
		Name:       "sap:emissions:pipeline",
		By:         "abc@xyz.com",
		Attributes: map[string]string{"label": "My Pipeline"},
		Tags:       []pipeline.Tag{{Key: "source", Value: "sap"}, {Key: "region", Value: "usa/northwest"}},
		Groups:     []string{"/usa/northwest"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.ID, p.Version, p.State, p.CreatedAt.Format(time.RFC3339Nano))
	// Output: id001 1 enabled 2022-08-10T23:55:20.322Z
}

func ExampleStore_Update() {
	store, done := exampleStore()
	defer done()
	ctx := context.Background()
	p, _ := store.Create(ctx, pipeline.Input{Name: "v1", Tags: []pipeline.Tag{{Key: "plant", Value: "abc"}}})

	p2, err := store.Update(ctx, p.ID, p.Version, pipeline.Input{Name: "v2", Tags: []pipeline.Tag{{Key: "plant", Value: "def"}}})
	fmt.Println(p2.Name, p2.Version, err)

	// A second update based on version 1 lost the race.
	_, err = store.Update(ctx, p.ID, p.Version, pipeline.Input{Name: "late"})
	var ce *pipeline.ConflictError
	fmt.Println(errors.As(err, &ce), ce.Current)

	values, _ := store.Tags().Values("plant").Page(ctx, "")
	fmt.Println(values.Items)
	// Output:
	// v2 2 <nil>
	// true 2
	// [{plant def 1}]
}

func ExamplePipelines_ByTags() {
	store, done := exampleStore()
	defer done()
	ctx := context.Background()
	for _, region := range []string{"usa/northwest/seattle", "usa/southeast", "eu/west"} {
		store.Create(ctx, pipeline.Input{Name: region, Tags: []pipeline.Tag{
			{Key: "source", Value: "sap"}, {Key: "region", Value: region}}})
	}
	page, err := store.Pipelines().ByTags([]pipeline.Tag{{Key: "source", Value: "sap"}, {Key: "region", Value: "usa"}}, pipeline.Limit(10)).Page(ctx, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range page.Items {
		fmt.Println(p.ID, p.Name)
	}
	// Output:
	// id001 usa/northwest/seattle
	// id002 usa/southeast
}

// A listing is one table.List, made with its arguments: read a page at a
// time (an API handler passing its client's cursor) or whole.
func ExampleExecutions_List() {
	store, done := exampleStore()
	defer done()
	ctx := context.Background()
	p, _ := store.Create(ctx, pipeline.Input{Name: "n"})
	for range 3 {
		store.Executions().Create(ctx, pipeline.ExecutionInput{PipelineID: p.ID})
	}
	executions := store.Executions().List(p.ID, pipeline.Limit(2))
	page, err := executions.Page(ctx, "") // "": the first page
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(page.Items), "executions, more:", page.Next != "")
	page, _ = executions.Page(ctx, page.Next)
	fmt.Println(len(page.Items), "execution, more:", page.Next != "")

	for e, err := range executions.All(ctx) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(e.ID, e.State)
	}
	// A bad argument is reported where the listing is read.
	_, err = store.Executions().List("").Page(ctx, "")
	fmt.Println(errors.Is(err, table.ErrInvalidInput))
	// Output:
	// 2 executions, more: true
	// 1 execution, more: false
	// id002 created
	// id003 created
	// id004 created
	// true
}

func ExampleStore_PresignInputUpload() {
	store, done := exampleStore()
	defer done()
	ctx := context.Background()
	p, _ := store.Create(ctx, pipeline.Input{Name: "n"})

	up, err := store.PresignInputUpload(ctx, p.ID, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	req, _ := http.NewRequest(http.MethodPut, up.URL, strings.NewReader("a,b\n1,2\n"))
	req.Header = up.Header
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()
	fmt.Println(up.Key, resp.Status)

	ex, _ := store.Executions().Create(ctx, pipeline.ExecutionInput{PipelineID: p.ID, InputKey: up.Key})
	fmt.Println(ex.InputKey)
	store.PutOutput(ctx, ex.ID, strings.NewReader("done"), 4)
	url, _ := store.PresignOutputDownload(ctx, ex.ID)
	resp, _ = http.Get(url)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Printf("%s\n", body)
	// Output:
	// pipelines/id001/1/ingest/id001-1-20220810T235520.322Z-id002.txt 200 OK
	// pipelines/id001/1/exections/id003/input.txt
	// done
}

// Command pipeline runs the pipeline module (docs/systems/pipeline.md) end to end:
// it creates pipelines with plain and hierarchical tags, updates one (and
// shows a stale update being refused), uploads an input file through a
// presigned URL with plain net/http, records an execution that copies the
// input next to its output, runs it (created → running → succeeded, a
// second start refused), stores and downloads the output through a
// presigned URL, fails another execution, lists pipelines by tags, tag
// counts, versions and executions, and deletes a pipeline with its
// executions, tag counts and files.
//
//	go run ./examples/pipeline             # in-memory fake, in-memory blobs
//	TABLEKIT_DYNAMODB_ENDPOINT=http://127.0.0.1:8000 \
//	TABLEKIT_S3_ENDPOINT=http://127.0.0.1:4568 go run ./examples/pipeline
//	go run ./examples/pipeline -aws -bucket my-bucket   # real AWS, default config chain
//
// It creates the table and the bucket when missing and exits non-zero on
// any failure or unexpected outcome. Every run tags its pipelines with its
// own run=<time> tag, so runs against a long-lived table do not mix.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"time"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/examples/internal/exampleenv"
	"github.com/tablekit/tablekit/pipeline"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "pipeline example:", err)
		os.Exit(1)
	}
}

// run is the whole program. Its flags live in a FlagSet of its own, not
// the global one, so run can be called more than once in a process (the
// test runs it twice).
func run(args []string) error {
	flags := flag.NewFlagSet("pipeline", flag.ContinueOnError)
	useAWS := flags.Bool("aws", false, exampleenv.AWSFlagUsage)
	tableName := flags.String("table", pipeline.DefaultTableName, "DynamoDB table")
	bucket := flags.String("bucket", "tablekit-examples", "S3 bucket for input and output files")
	if err := flags.Parse(args); err != nil {
		return err
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	env, err := exampleenv.Open(ctx, exampleenv.Config{AWS: *useAWS, Bucket: *bucket})
	if err != nil {
		return err
	}
	fmt.Println("using", env)
	// The in-memory blob store has no address of its own: serve it, so its
	// presigned URLs work with any HTTP client.
	if mem, ok := env.Blobs.(*blobstore.Memory); ok {
		srv := httptest.NewServer(mem)
		defer srv.Close()
		if err := mem.EnablePresign(srv.URL); err != nil {
			return err
		}
		fmt.Println("in-memory blobs served at", srv.URL)
	}
	store, err := pipeline.NewStore(env.DB, env.Blobs, pipeline.TableName(*tableName))
	if err != nil {
		return err
	}
	if err := store.EnsureTable(ctx); err != nil {
		return fmt.Errorf("table: %w", err)
	}
	fmt.Println("table", store.Table().Name())

	runTag := pipeline.Tag{Key: "run", Value: time.Now().UTC().Format("20060102T150405.000")}
	fmt.Println("\n== create")
	specs := []struct {
		name, source, region string
	}{
		{"sap:emissions:pipeline", "sap", "usa/northwest/seattle"},
		{"oracle:fleet:pipeline", "oracle", "usa/southeast"},
		{"sap:energy:pipeline", "sap", "usa/northwest/portland"},
		{"csv:waste:pipeline", "csv", "eu/west/paris"},
	}
	var created []*pipeline.Pipeline
	for _, sp := range specs {
		p, err := store.Create(ctx, pipeline.Input{
			Name: sp.name, By: "abc@xyz.com",
			Attributes: map[string]string{"label": sp.name, "description": "example pipeline"},
			Tags:       []pipeline.Tag{runTag, {Key: "source", Value: sp.source}, {Key: "region", Value: sp.region}},
			Groups:     []string{"/" + strings.SplitN(sp.region, "/", 2)[0]},
			Transformer: &pipeline.Transformer{
				Transforms: []pipeline.Transform{{Index: 0, Formula: "UPPER(:line)",
					Outputs: []pipeline.Field{{Index: 0, Key: "line", Label: "Line", Type: "string"}}}},
				Parameters: []pipeline.Field{{Index: 0, Key: "line", Label: "Line", Type: "string"}},
			},
		})
		if err != nil {
			return err
		}
		created = append(created, p)
		fmt.Printf("%s %-24s v%d tags %v\n", p.ID, p.Name, p.Version, p.Tags[1:])
	}

	fmt.Println("\n== update")
	first := created[0]
	updated, err := store.Update(ctx, first.ID, first.Version, pipeline.Input{
		Name: first.Name, By: "def@xyz.com", Attributes: first.Attributes, Transformer: first.Transformer,
		Tags:   []pipeline.Tag{runTag, {Key: "source", Value: "sap"}, {Key: "region", Value: "usa/northwest/tacoma"}, {Key: "plant", Value: "abc"}},
		Groups: []string{"/usa", "/sustainability"},
	})
	if err != nil {
		return err
	}
	fmt.Printf("%s now v%d, tags %v, groups %v\n", updated.ID, updated.Version, updated.Tags[1:], updated.Groups)
	_, err = store.Update(ctx, first.ID, first.Version, pipeline.Input{Name: "stale edit"})
	var conflict *pipeline.ConflictError
	if !errors.As(err, &conflict) {
		return fmt.Errorf("an update based on version 1 was not refused: %v", err)
	}
	fmt.Println("stale update refused:", err)

	fmt.Println("\n== files and executions")
	up, err := store.PresignInputUpload(ctx, updated.ID, 0)
	if err != nil {
		return err
	}
	input := "scope 1: 120t\nscope 2: 80t\n"
	if err := httpPut(ctx, up, input); err != nil {
		return err
	}
	fmt.Println("uploaded input via presigned PUT:", up.Key)
	ex, err := store.Executions().Create(ctx, pipeline.ExecutionInput{PipelineID: updated.ID, InputKey: up.Key, CreatedBy: "scheduler"})
	if err != nil {
		return err
	}
	fmt.Printf("execution %s of v%d (%s), input copied to %s\n", ex.ID, ex.Version, ex.State, ex.InputKey)
	if ex, err = store.Executions().Start(ctx, ex.ID); err != nil {
		return err
	}
	fmt.Printf("execution %s %s at %s\n", ex.ID, ex.State, ex.StartedAt.Format(time.RFC3339Nano))
	var refused *pipeline.TransitionError
	if _, err := store.Executions().Start(ctx, ex.ID); !errors.As(err, &refused) || refused.Current != pipeline.ExecutionRunning {
		return fmt.Errorf("a second start was not refused with the current state: %v", err)
	}
	fmt.Println("second start refused:", err)
	// The executor: read the execution's input, apply the transform, store the output.
	in, _, err := env.Blobs.Get(ctx, ex.InputKey)
	if err != nil {
		return err
	}
	data, err := io.ReadAll(in)
	in.Close()
	if err != nil {
		return err
	}
	output := strings.ToUpper(string(data))
	if err := store.PutOutput(ctx, ex.ID, strings.NewReader(output), int64(len(output))); err != nil {
		return err
	}
	url, err := store.PresignOutputDownload(ctx, ex.ID)
	if err != nil {
		return err
	}
	got, err := httpGet(ctx, url)
	if err != nil {
		return err
	}
	if got != output {
		return fmt.Errorf("downloaded output %q, want %q", got, output)
	}
	outKey, err := pipeline.ExecutionOutputKey(ex)
	if err != nil {
		return err
	}
	fmt.Printf("downloaded output via presigned GET (%s): %q\n", outKey, got)
	if ex, err = store.Executions().Succeed(ctx, ex.ID); err != nil {
		return err
	}
	fmt.Printf("execution %s %s at %s\n", ex.ID, ex.State, ex.FinishedAt.Format(time.RFC3339Nano))
	bad, err := store.Executions().Create(ctx, pipeline.ExecutionInput{PipelineID: updated.ID, CreatedBy: "scheduler"})
	if err != nil {
		return err
	}
	if bad, err = store.Executions().Fail(ctx, bad.ID, "no input given"); err != nil {
		return err
	}
	fmt.Printf("execution %s %s: %s\n", bad.ID, bad.State, bad.Error)
	execs, err := store.Executions().List(updated.ID).Page(ctx, "")
	if err != nil {
		return err
	}
	if len(execs.Items) != 2 || execs.Items[0].State != pipeline.ExecutionSucceeded || execs.Items[1].State != pipeline.ExecutionFailed {
		return fmt.Errorf("executions listed: %+v, want one succeeded and one failed", execs.Items)
	}

	fmt.Println("\n== list by tags")
	for _, q := range [][]pipeline.Tag{
		{runTag, {Key: "region", Value: "usa"}},
		{runTag, {Key: "region", Value: "usa/northwest"}, {Key: "source", Value: "sap"}},
		{runTag, {Key: "source", Value: "sap"}, {Key: "plant", Value: "abc"}},
		{runTag, {Key: "region", Value: "eu/west/paris"}},
	} {
		var names []string
		cursor := ""
		for {
			page, err := store.Pipelines().ByTags(q, pipeline.Limit(2)).Page(ctx, cursor)
			if err != nil {
				return err
			}
			for _, p := range page.Items {
				names = append(names, p.Name)
			}
			if cursor = page.Next; cursor == "" {
				break
			}
		}
		fmt.Printf("%v -> %v\n", q[1:], names)
	}
	// usa/northwest/seattle, usa/southeast, usa/northwest/portland; the
	// first pipeline moved from seattle to tacoma, still under usa.
	const wantUSA = 3
	page, err := store.Pipelines().ByTags([]pipeline.Tag{runTag, {Key: "region", Value: "usa"}}, pipeline.Limit(10)).Page(ctx, "")
	if err != nil {
		return err
	}
	if len(page.Items) != wantUSA {
		return fmt.Errorf("region=usa found %d pipelines, want %d", len(page.Items), wantUSA)
	}

	fmt.Println("\n== tag counts (every run on this table)")
	values, err := store.Tags().Values("region").Page(ctx, "")
	if err != nil {
		return err
	}
	for _, tc := range values.Items {
		fmt.Printf("region=%-24s %d\n", tc.Value, tc.Count)
	}

	fmt.Println("\n== versions and groups")
	versions, err := store.Versions().List(updated.ID).Page(ctx, "")
	if err != nil {
		return err
	}
	for _, v := range versions.Items {
		fmt.Printf("%s v%d updated by %s, tags %v\n", v.ID, v.Version, v.UpdatedBy, v.Tags[1:])
	}
	if len(versions.Items) != 2 {
		return fmt.Errorf("%d versions, want 2", len(versions.Items))
	}
	group, err := store.Pipelines().InGroup("/sustainability").Page(ctx, "")
	if err != nil {
		return err
	}
	found := false
	for _, p := range group.Items {
		found = found || p.ID == updated.ID
	}
	if !found {
		return fmt.Errorf("group /sustainability does not list %s", updated.ID)
	}
	fmt.Printf("group /sustainability lists %d pipeline(s)\n", len(group.Items))

	fmt.Println("\n== delete")
	// The csv pipeline is the only one with source=csv in this run: its
	// tag items, counts, executions and files all go.
	gone := created[3]
	gex, err := store.Executions().Create(ctx, pipeline.ExecutionInput{PipelineID: gone.ID, CreatedBy: "scheduler"})
	if err != nil {
		return err
	}
	if err := store.PutOutput(ctx, gex.ID, strings.NewReader("bye"), 3); err != nil {
		return err
	}
	// Delete is resumable rather than one transaction: it reports each
	// step, and a Delete that failed half way is finished by calling it
	// again.
	steps := pipeline.Progress(func(p pipeline.DeleteProgress) {
		fmt.Printf("  step %d/%d %-10s %d removed\n", p.StepsDone, p.Steps, p.Step, p.Removed)
	})
	if err := store.Delete(ctx, gone.ID, steps); err != nil {
		return err
	}
	if _, err := store.Get(ctx, gone.ID); !errors.Is(err, pipeline.ErrNotFound) {
		return fmt.Errorf("deleted pipeline still readable: %v", err)
	}
	if _, err := store.Executions().Get(ctx, gex.ID); !errors.Is(err, pipeline.ErrNotFound) {
		return fmt.Errorf("deleted pipeline's execution still readable: %v", err)
	}
	left, err := store.Pipelines().ByTags([]pipeline.Tag{runTag}, pipeline.Limit(10)).Page(ctx, "")
	if err != nil {
		return err
	}
	if len(left.Items) != len(created)-1 {
		return fmt.Errorf("%d pipelines carry this run's tag after the delete, want %d", len(left.Items), len(created)-1)
	}
	if err := store.Delete(ctx, gone.ID); err != nil {
		return fmt.Errorf("a second delete is a no-op: %w", err)
	}
	fmt.Printf("deleted %s (%s) with its execution and files; %d pipelines left in this run\n", gone.ID, gone.Name, len(left.Items))
	fmt.Println("\nok")
	return nil
}

// httpPut uploads body to a presigned URL with the headers it was signed
// with, as a browser or curl would.
func httpPut(ctx context.Context, up *pipeline.Upload, body string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, up.URL, bytes.NewReader([]byte(body)))
	if err != nil {
		return err
	}
	for k, vs := range up.Header {
		req.Header[k] = vs
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("PUT %s: %s %s", up.Key, resp.Status, msg)
	}
	return nil
}

func httpGet(ctx context.Context, url string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET: %s %s", resp.Status, body)
	}
	return string(body), nil
}

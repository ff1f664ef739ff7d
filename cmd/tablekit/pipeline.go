package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/pipeline"
)

// pipelineFlags name the pipeline table and the bucket of its files.
type pipelineFlags struct {
	table, bucket string
}

func (f *pipelineFlags) register(fs *flag.FlagSet, files bool) {
	fs.StringVar(&f.table, "table", "", "table name (default "+pipeline.DefaultTableName+")")
	if files {
		fs.StringVar(&f.bucket, "bucket", "", "S3 bucket of the pipelines' input and output files (required, except with -memory)")
	}
}

// open returns the store; with files, on the bucket the flags name.
func (f *pipelineFlags) open(ctx context.Context, a *app, files bool) (*pipeline.Store, error) {
	c, err := a.connect(ctx)
	if err != nil {
		return nil, err
	}
	var blobs blobstore.Store
	if files {
		if blobs = c.memoryBlobs(); blobs == nil {
			if f.bucket == "" {
				return nil, usagef("-bucket is required: Delete removes the pipeline's files too")
			}
			if blobs, err = a.bucket(ctx, f.bucket); err != nil {
				return nil, err
			}
		}
	}
	var opts []func(*pipeline.Options)
	if f.table != "" {
		opts = append(opts, pipeline.TableName(f.table))
	}
	return pipeline.NewStore(c.db, blobs, opts...)
}

func pipelineSetup(files bool, fn func(ctx context.Context, a *app, s *pipeline.Store, id string) error, extra func(*flag.FlagSet)) func(*flag.FlagSet, *app) runner {
	return func(fs *flag.FlagSet, a *app) runner {
		var pf pipelineFlags
		pf.register(fs, files)
		if extra != nil {
			extra(fs)
		}
		return func(ctx context.Context, args []string) error {
			if len(args) != 1 || args[0] == "" {
				return usagef("takes one pipeline id")
			}
			s, err := pf.open(ctx, a, files)
			if err != nil {
				return err
			}
			return fn(ctx, a, s, args[0])
		}
	}
}

// pipelineShown is what pipeline show prints as JSON.
type pipelineShown struct {
	Pipeline       *pipeline.Pipeline    `json:"pipeline"`
	Versions       []*pipeline.Pipeline  `json:"versions"`
	VersionsNext   string                `json:"versionsNext,omitempty"`
	Executions     []*pipeline.Execution `json:"executions"`
	ExecutionsNext string                `json:"executionsNext,omitempty"`
}

// pipelineDeleted is what pipeline delete prints as JSON.
type pipelineDeleted struct {
	PipelineID string                    `json:"pipelineId"`
	Existed    bool                      `json:"existed"`
	Steps      []pipeline.DeleteProgress `json:"steps"`
}

func pipelineCommands() []*command {
	var limit int
	var versionsCursor, executionsCursor string
	return []*command{
		{
			name: "pipeline show", args: "<pipeline id>",
			summary: "print a pipeline: its current version, tags and groups, its versions by number and its executions",
			help: `
Reads the current item (strongly consistent), then one page of versions
(by version number, the unpadded PV:3 other services write and the padded PV:0000000003 alike) and
one page of executions (in execution id order: oldest first with ULIDs).
-limit sizes both pages; -versions-cursor and -executions-cursor print the
next pages (the cursors the previous run printed). A pipeline that does not
exist, or that a Delete is removing, is not found (exit 3).`,
			setup: pipelineSetup(false, func(ctx context.Context, a *app, s *pipeline.Store, id string) error {
				p, err := s.Get(ctx, id)
				if err != nil {
					return err
				}
				versions, err := s.Versions().List(id, pipeline.Limit(limit)).Page(ctx, versionsCursor)
				if err != nil {
					return err
				}
				executions, err := s.Executions().List(id, pipeline.Limit(limit)).Page(ctx, executionsCursor)
				if err != nil {
					return err
				}
				out := pipelineShown{Pipeline: p, Versions: versions.Items, VersionsNext: versions.Next,
					Executions: executions.Items, ExecutionsNext: executions.Next}
				return a.emit(out, func(w io.Writer) { printPipeline(w, out) })
			}, func(fs *flag.FlagSet) {
				fs.IntVar(&limit, "limit", 25, "versions and executions per page")
				fs.StringVar(&versionsCursor, "versions-cursor", "", "the page of versions to print: the cursor a previous run printed")
				fs.StringVar(&executionsCursor, "executions-cursor", "", "the page of executions to print: the cursor a previous run printed")
			}),
		},
		{
			name: "pipeline delete", args: "<pipeline id>",
			summary:     "delete a pipeline with its versions, groups, tags (counts adjusted), executions and files; resumable",
			destructive: true,
			help: `
Deletes everything that belongs to the pipeline: the current item, every
version (either form), group memberships, tag items (each tag count goes
down by one; a count that reaches zero is removed), executions and the input
and output files under pipelines/{id}/ in -bucket.

It marks the pipeline first: from then on readers do not see it and no
update or execution can be made. The rest takes many writes; if it stops
half way (an error, Ctrl-C), run it again and it finishes. Deleting a
pipeline that is already gone succeeds and removes any file left under its
prefix (an upload that arrived after the first delete). Progress goes to
stderr, one step at a time.`,
			setup: pipelineSetup(true, func(ctx context.Context, a *app, s *pipeline.Store, id string) error {
				if a.dryRun {
					return pipelineDeleteDryRun(ctx, a, s, id)
				}
				out := pipelineDeleted{PipelineID: id}
				bar := a.startProgress("delete " + id)
				err := s.Delete(ctx, id, pipeline.Progress(func(p pipeline.DeleteProgress) {
					out.Steps = append(out.Steps, p)
					bar.Set(int64(p.StepsDone), int64(p.Steps))
				}))
				bar.Done()
				if err != nil {
					return err
				}
				out.Existed = len(out.Steps) > 1
				return a.emit(out, func(w io.Writer) {
					if !out.Existed {
						fmt.Fprintf(w, "pipeline %s is not in the table (deleted before, or never created)\n", id)
					}
					for _, st := range out.Steps {
						fmt.Fprintf(w, "%s\t%d removed\n", st.Step, st.Removed)
					}
					fmt.Fprintf(w, "deleted %s\n", id)
				})
			}, nil),
		},
	}
}

// pipelineDeleteDryRun counts what Delete would remove: the pipeline's
// items by kind (its files are listed by Delete itself, under
// pipelines/{id}/ in -bucket).
func pipelineDeleteDryRun(ctx context.Context, a *app, s *pipeline.Store, id string) error {
	p, err := s.Get(ctx, id)
	if err != nil {
		return err
	}
	count := func(seq func(yield func(*pipeline.Pipeline, error) bool)) (int, error) {
		n := 0
		for _, err := range seq {
			if err != nil {
				return n, err
			}
			n++
		}
		return n, nil
	}
	versions, err := count(s.Versions().List(id).All(ctx))
	if err != nil {
		return err
	}
	executions := 0
	for _, err := range s.Executions().List(id).All(ctx) {
		if err != nil {
			return err
		}
		executions++
	}
	// The counts Delete's steps would report: executions, tags, then the
	// partition (versions and group memberships; the current item last).
	// Files are counted by Delete as it lists them.
	items := []pipeline.DeleteProgress{
		{PipelineID: id, Step: pipeline.DeleteStepExecutions, Removed: executions},
		{PipelineID: id, Step: pipeline.DeleteStepTags, Removed: len(p.Tags)},
		{PipelineID: id, Step: pipeline.DeleteStepPartition, Removed: versions + len(p.Groups) + 1},
	}
	return emitDryRun(a, "delete", "steps' items of pipeline "+id+" (and its files under pipelines/"+id+"/)", items,
		func(w io.Writer, st pipeline.DeleteProgress) { fmt.Fprintf(w, "%s\t%d\n", st.Step, st.Removed) })
}

func printPipeline(w io.Writer, out pipelineShown) {
	p := out.Pipeline
	fmt.Fprintf(w, "pipeline\t%s (%s)\nstate\t%s\nversion\t%d\n", p.ID, p.Name, p.State, p.Version)
	fmt.Fprintf(w, "created\t%s by %s\nupdated\t%s by %s\n", p.CreatedAt.Format(time.RFC3339), orNone(p.CreatedBy), p.UpdatedAt.Format(time.RFC3339), orNone(p.UpdatedBy))
	tags := make([]string, len(p.Tags))
	for i, t := range p.Tags {
		tags[i] = t.Key + "=" + t.Value
	}
	fmt.Fprintf(w, "tags\t%s\ngroups\t%s\n", orNone(strings.Join(tags, ", ")), orNone(strings.Join(p.Groups, ", ")))
	fmt.Fprintln(w, "\nversions:")
	for _, v := range out.Versions {
		fmt.Fprintf(w, "  %d\t%s\t%s\t%s\n", v.Version, v.Name, v.UpdatedAt.Format(time.RFC3339), orNone(v.UpdatedBy))
	}
	if out.VersionsNext != "" {
		fmt.Fprintf(w, "  more: -versions-cursor %s\n", out.VersionsNext)
	}
	fmt.Fprintln(w, "\nexecutions:")
	for _, e := range out.Executions {
		line := fmt.Sprintf("  %s\tversion %d\t%s\t%s", e.ID, e.Version, e.State, e.CreatedAt.Format(time.RFC3339))
		if e.Error != "" {
			line += "\t" + e.Error
		}
		fmt.Fprintln(w, line)
	}
	if out.ExecutionsNext != "" {
		fmt.Fprintf(w, "  more: -executions-cursor %s\n", out.ExecutionsNext)
	}
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

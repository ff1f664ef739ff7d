package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/tablekit/tablekit/journey"
)

// journeyFlags name the journey table and its buckets, and the store's
// options a command sets (journey delete's -purge-files).
type journeyFlags struct {
	table, logs, reports, backups string
	purgeFiles                    bool
}

func (f *journeyFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.table, "table", "", "table name (default "+journey.DefaultTableName+")")
	fs.StringVar(&f.logs, "logs-bucket", journey.DefaultLogsBucket, "S3 bucket of the journeys' log files")
	fs.StringVar(&f.reports, "reports-bucket", journey.DefaultReportsBucket, "S3 bucket of the journeys' report files (the logs bucket's name when the service keeps reports there)")
	fs.StringVar(&f.backups, "backups-bucket", journey.DefaultBackupsBucket, "S3 bucket exports are written to and imports read from")
}

func (f *journeyFlags) open(ctx context.Context, a *app) (*journey.Store, error) {
	c, err := a.connect(ctx)
	if err != nil {
		return nil, err
	}
	logs, reports, backups := c.memoryBlobs(), c.memoryBlobs(), c.memoryBlobs()
	if c.fake == nil {
		if logs, err = a.bucket(ctx, f.logs); err != nil {
			return nil, err
		}
		if reports, err = a.bucket(ctx, f.reports); err != nil {
			return nil, err
		}
		if backups, err = a.bucket(ctx, f.backups); err != nil {
			return nil, err
		}
	}
	opts := []func(*journey.Options){journey.TableName(f.table), journey.WithReports(reports), journey.WithBackups(backups)}
	if f.purgeFiles {
		opts = append(opts, journey.PurgeFilesOnDelete())
	}
	return journey.NewStore(c.db, logs, opts...)
}

// journeySetup opens the store for fn, which takes one journey id, or none
// with ids 0.
func journeySetup(fn func(ctx context.Context, a *app, s *journey.Store, args []string) error, extra func(*flag.FlagSet, *journeyFlags), ids ...int) func(*flag.FlagSet, *app) runner {
	want := 1
	if len(ids) > 0 {
		want = ids[0]
	}
	return func(fs *flag.FlagSet, a *app) runner {
		var jf journeyFlags
		jf.register(fs)
		if extra != nil {
			extra(fs, &jf)
		}
		return func(ctx context.Context, args []string) error {
			switch {
			case want == 0 && len(args) != 0:
				return usagef("takes no arguments")
			case want == 1 && (len(args) != 1 || args[0] == ""):
				return usagef("takes one journey id")
			}
			s, err := jf.open(ctx, a)
			if err != nil {
				return err
			}
			return fn(ctx, a, s, args)
		}
	}
}

func journeyCommands() []*command {
	var overwrite, oldest bool
	var page pageFlags
	var stage, only, statuses string
	return []*command{
		{
			name:    "journey list",
			summary: "list journeys, newest first (-oldest: oldest first), a page at a time; -status running,paused lists those",
			setup: journeySetup(func(ctx context.Context, a *app, s *journey.Store, args []string) error {
				opts := []func(*journey.ListOptions){journey.Limit(page.limit)}
				if oldest {
					opts = append(opts, journey.OldestFirst())
				}
				if statuses != "" {
					var of []journey.Status
					for _, st := range strings.Split(statuses, ",") {
						of = append(of, journey.Status(strings.TrimSpace(st)))
					}
					opts = append(opts, journey.OfStatus(of...))
				}
				p, err := s.Journeys().List(ctx, page.cursor, opts...)
				if err != nil {
					return err
				}
				return emitPage(a, p, "journeys", func(w io.Writer, j journey.Journey) {
					fmt.Fprintf(w, "%s\t%s\t%d%%\t%s\t%s\n", j.ID, j.Status, j.OverallProgress, j.CreatedAt, j.Name)
				})
			}, func(fs *flag.FlagSet, _ *journeyFlags) {
				page.register(fs)
				fs.BoolVar(&oldest, "oldest", false, "oldest first")
				fs.StringVar(&statuses, "status", "", "only journeys in these statuses, comma-separated (pending, running, paused, failed, completed, cancelled)")
			}, 0),
		},
		{
			name: "journey jobs", args: "<journey id>",
			summary: "list a journey's job executions (or one stage's, -stage) by stage and execution number, a page at a time",
			setup: journeySetup(func(ctx context.Context, a *app, s *journey.Store, args []string) error {
				opts := []func(*journey.ListOptions){journey.Limit(page.limit)}
				if stage != "" {
					opts = append(opts, journey.OfStage(stage))
				}
				p, err := s.Jobs().List(ctx, args[0], page.cursor, opts...)
				if err != nil {
					return err
				}
				return emitPage(a, p, "job executions of journey "+args[0], func(w io.Writer, jb journey.Job) {
					fmt.Fprintf(w, "%s\t%s\texecution %d\t%s\t%d%%\n", jb.JobID, jb.StageID, jb.ExecutionNumber, jb.Status, jb.Progress)
				})
			}, func(fs *flag.FlagSet, _ *journeyFlags) {
				page.register(fs)
				fs.StringVar(&stage, "stage", "", "only this stage's executions")
			}),
		},
		{
			name: "journey show", args: "<journey id>",
			summary: "print a journey: status, progress, stages, rules and jobs (one round trip of its partition, log summaries left out)",
			setup: journeySetup(func(ctx context.Context, a *app, s *journey.Store, args []string) error {
				c, err := s.Journeys().Load(ctx, args[0], journey.Consistent())
				if err != nil {
					return err
				}
				return a.emit(c, func(w io.Writer) {
					j := c.Journey
					fmt.Fprintf(w, "journey\t%s (%s)\nstatus\t%s, %d%%\ncurrent stage\t%s\n", j.ID, j.Name, j.Status, j.OverallProgress, j.CurrentStageID)
					fmt.Fprintln(w, "\nstages:")
					for _, st := range c.Stages {
						fmt.Fprintf(w, "  %02d\t%s\t%s\n", st.Order, st.StageID, st.Status)
					}
					fmt.Fprintf(w, "\nrules: %d\n", len(c.Rules))
					fmt.Fprintln(w, "\njobs:")
					for _, jb := range c.Jobs {
						fmt.Fprintf(w, "  %s\t%s\texecution %d\t%s\n", jb.JobID, jb.StageID, jb.ExecutionNumber, jb.Status)
					}
				})
			}, nil),
		},
		{
			name: "journey export", args: "<journey id>",
			summary: "write the journey's whole partition to journeys/{id}/backup.json in the backups bucket",
			setup: journeySetup(func(ctx context.Context, a *app, s *journey.Store, args []string) error {
				info, err := s.Backups().Export(ctx, args[0])
				if err != nil {
					return err
				}
				return a.emit(info, func(w io.Writer) {
					fmt.Fprintf(w, "exported %d items (%d bytes) to %s\n", info.Items, info.Size, info.Key)
				})
			}, nil),
		},
		{
			name: "journey import", args: "<journey id>",
			summary:     "restore a journey from its backup; all or nothing, refused over a live journey unless -overwrite",
			destructive: true,
			setup: journeySetup(func(ctx context.Context, a *app, s *journey.Store, args []string) error {
				if a.dryRun {
					return journeyImportDryRun(ctx, a, s, args[0], overwrite)
				}
				var opts []func(*journey.ImportOptions)
				if overwrite {
					opts = append(opts, journey.Overwrite())
				}
				c, err := s.Backups().Import(ctx, args[0], opts...)
				if err != nil {
					return err
				}
				return a.emit(c.Journey, func(w io.Writer) {
					fmt.Fprintf(w, "imported %s: %d stages, %d rules, %d jobs\n", c.Journey.ID, len(c.Stages), len(c.Rules), len(c.Jobs))
				})
			}, func(fs *flag.FlagSet, _ *journeyFlags) {
				fs.BoolVar(&overwrite, "overwrite", false, "replace a journey that exists, as a whole")
			}),
		},
		{
			name:    "journey recover",
			summary: "fail the jobs that ran past their configuration.timeout (their worker died), so their stages start again; every journey not completed, or -journey",
			help: `A job is running until its worker finishes it. One whose worker died stays running: once past
its configuration.timeout it no longer blocks its stage (the next start fails it), and this
command fails it now, as a failed finish would: the job failed (timedOut), its stage failed,
the journey failed when the job had no retry left. A job its worker finishes meanwhile is
left alone (skipped). -dry-run lists the jobs past their timeout.`,
			destructive: true,
			setup: journeySetup(func(ctx context.Context, a *app, s *journey.Store, args []string) error {
				var opts []func(*journey.RecoverOptions)
				if only != "" {
					opts = append(opts, journey.OfJourney(only))
				}
				if a.dryRun {
					var found []journey.Job
					for j, err := range s.Jobs().TimedOut(ctx, opts...) {
						if err != nil {
							return fmt.Errorf("journey recover: %w", err)
						}
						found = append(found, j)
					}
					return emitDryRun(a, "fail", "timed-out jobs", found, timedOutRow)
				}
				res, err := s.Jobs().Recover(ctx, opts...)
				if err != nil {
					return fmt.Errorf("journey recover: %w", err)
				}
				return a.emit(res, func(w io.Writer) {
					for _, j := range res.Failed {
						timedOutRow(w, j)
					}
					fmt.Fprintf(w, "failed %d timed-out jobs (%d found, %d finished meanwhile)\n", len(res.Failed), res.Found, res.Skipped)
				})
			}, func(fs *flag.FlagSet, _ *journeyFlags) {
				fs.StringVar(&only, "journey", "", "only this journey's jobs")
			}, 0),
		},
		{
			name: "journey delete", args: "<journey id>",
			summary: "delete a journey's items (its log and report files stay, as does its export; -purge-files deletes the files too); refused while a job runs; resumable",
			help: `Marks the journey (it disappears from lists and takes no writes), deletes its items,
then its metadata. Its log and report files stay (the journey design's audit trail: full logs
are never deleted; the logs bucket's lifecycle rule archives them); -purge-files deletes
them too, which needs s3:DeleteObject on the buckets. Interrupted, it leaves the mark: run
it again to finish. Refused while a job of the journey runs (journey recover fails one past
its timeout). -dry-run counts what would be deleted.`,
			destructive: true,
			setup: journeySetup(func(ctx context.Context, a *app, s *journey.Store, args []string) error {
				var opts []func(*journey.DeleteOptions)
				if a.dryRun {
					opts = append(opts, journey.DryRun())
				}
				res, err := s.Journeys().Delete(ctx, args[0], opts...)
				if err != nil {
					return fmt.Errorf("journey delete %s: %w", args[0], err)
				}
				if res.DryRun {
					// Every dry run's shape: {dryRun, action, count, items: [...]}.
					return emitDryRun(a, "delete", "journey (its items and files)", []journey.DeleteResult{res}, func(w io.Writer, r journey.DeleteResult) {
						fmt.Fprintf(w, "%s\t%d items\t%d files\n", r.JourneyID, r.Items, r.Files)
					})
				}
				return a.emit(res, func(w io.Writer) {
					if res.FilesKept {
						fmt.Fprintf(w, "deleted journey %s: %d items; its log and report files stay\n", res.JourneyID, res.Items)
						return
					}
					fmt.Fprintf(w, "deleted journey %s: %d items, %d files\n", res.JourneyID, res.Items, res.Files)
				})
			}, func(fs *flag.FlagSet, jf *journeyFlags) {
				fs.BoolVar(&jf.purgeFiles, "purge-files", false, "delete the journey's log and report files too (journey.PurgeFilesOnDelete)")
			}),
		},
	}
}

// timedOutRow is one job of journey recover's output.
func timedOutRow(w io.Writer, j journey.Job) {
	fmt.Fprintf(w, "%s\t%s\t%s\texecution %d\tstarted %s\ttimeout %ds\t%s\n", j.JourneyID, j.StageID, j.JobID,
		j.ExecutionNumber, j.StartTime, j.Configuration.Timeout, j.Status)
}

// journeyImportDryRun says what an import would do to the live journey:
// create it, replace it (-overwrite), or be refused.
func journeyImportDryRun(ctx context.Context, a *app, s *journey.Store, id string, overwrite bool) error {
	j, err := s.Journeys().Get(ctx, id)
	switch {
	case errors.Is(err, journey.ErrJourneyNotFound):
		return emitDryRun(a, "import", "journey (a new one)", []string{id}, func(w io.Writer, id string) { fmt.Fprintln(w, id) })
	case err != nil:
		return err
	case !overwrite:
		return fmt.Errorf("journey import %s: %w: the journey exists (%s); -overwrite replaces it as a whole", id, journey.ErrJourneyExists, j.Status)
	}
	return emitDryRun(a, "replace", "journey", []journey.Journey{*j}, func(w io.Writer, j journey.Journey) {
		fmt.Fprintf(w, "%s\t%s\t%d%%\t%s\n", j.ID, j.Status, j.OverallProgress, j.Name)
	})
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

// jobsFlags name the jobs table (-env or -table), its blob bucket and the
// tasks table that carries the jobs' work.
type jobsFlags struct {
	env, table, bucket, tasksTable string
}

func (f *jobsFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.env, "env", "dev", "environment: the table is photoeditor-{env}-jobs")
	fs.StringVar(&f.table, "table", "", "table name, instead of the one -env names")
	fs.StringVar(&f.bucket, "bucket", "", "S3 bucket of offloaded results (needed to read or sweep them)")
	fs.StringVar(&f.tasksTable, "tasks-table", tasks.DefaultTableName,
		"the tasks table that carries the jobs' work (the service's jobs.Work): replay, recover and sweep queue work there")
}

func (f *jobsFlags) open(ctx context.Context, a *app) (*jobs.Store, error) {
	c, err := a.connect(ctx)
	if err != nil {
		return nil, err
	}
	name := f.table
	if name == "" {
		name = jobs.TableNameForEnv(f.env)
	}
	blobs := c.memoryBlobs()
	if f.bucket != "" {
		if blobs, err = a.bucket(ctx, f.bucket); err != nil {
			return nil, err
		}
	}
	// The store a service uses: every move to QUEUED queues the job's
	// work on the tasks table, so the CLI cannot strand a job.
	return jobs.NewStore(c.db, blobs, jobs.TableName(name), jobs.Work(f.tasksTable))
}

// workError says, in the operator's terms, what a move that queues work
// needs when the tasks table is not there.
func workError(cmd string, s *jobs.Store, err error) error {
	if errors.Is(err, table.ErrTableNotFound) {
		return fmt.Errorf("%s: the jobs' work goes to the tasks table %q, which does not exist: name the service's with -tasks-table, or create it with 'tablekit tables ensure -store tasks': %w",
			cmd, s.Tasks().Schema().Name, err)
	}
	return fmt.Errorf("%s: %w", cmd, err)
}

// jobsSetup registers the table flags, and -limit/-cursor for lists.
func jobsSetup(list bool, extra func(fs *flag.FlagSet), fn func(ctx context.Context, a *app, s *jobs.Store, page pageFlags, args []string) error) func(*flag.FlagSet, *app) runner {
	return func(fs *flag.FlagSet, a *app) runner {
		var jf jobsFlags
		jf.register(fs)
		var page pageFlags
		if list {
			page.register(fs)
		}
		if extra != nil {
			extra(fs)
		}
		return func(ctx context.Context, args []string) error {
			s, err := jf.open(ctx, a)
			if err != nil {
				return err
			}
			return fn(ctx, a, s, page, args)
		}
	}
}

func jobRow(w io.Writer, j jobs.Job) {
	fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", j.ID, j.Status, j.UserID, j.CreatedAt.UTC().Format(time.RFC3339))
}

func oneJob(a *app, j *jobs.Job) error {
	return a.emit(j, func(w io.Writer) { jobRow(w, *j) })
}

func jobsCommands() []*command {
	var user, status string
	var recoverAll bool
	var set, rename, remove multiFlag
	var deleteOrphans bool
	var minAge time.Duration
	return []*command{
		{
			name: "jobs get", args: "<job id>",
			summary: "print one job",
			setup: jobsSetup(false, nil, func(ctx context.Context, a *app, s *jobs.Store, _ pageFlags, args []string) error {
				if len(args) != 1 {
					return usagef("jobs get takes one job id")
				}
				j, err := s.Get(ctx, args[0], jobs.Consistent())
				if err != nil {
					return err
				}
				return oneJob(a, j)
			}),
		},
		{
			name:    "jobs list",
			summary: "list a user's jobs (-user) or the jobs in a status (-status), newest first, a page at a time",
			setup: jobsSetup(true, func(fs *flag.FlagSet) {
				fs.StringVar(&user, "user", "", "list this user's jobs")
				fs.StringVar(&status, "status", "", "list jobs in this status (QUEUED, PROCESSING, EDITING, COMPLETED, FAILED)")
			}, func(ctx context.Context, a *app, s *jobs.Store, page pageFlags, args []string) error {
				if len(args) > 0 || (user == "") == (status == "") {
					return usagef("jobs list takes exactly one of -user and -status, and no arguments")
				}
				var p table.Page[jobs.Job]
				var err error
				if user != "" {
					p, err = s.ByUser(user, jobs.Limit(page.limit)).Page(ctx, page.cursor)
				} else {
					p, err = s.Maintenance().ByStatus(jobs.Status(strings.ToUpper(status)), jobs.Limit(page.limit)).Page(ctx, page.cursor)
				}
				if err != nil {
					return err
				}
				noun := "jobs of user " + user
				if user == "" {
					noun = strings.ToUpper(status) + " jobs"
				}
				return emitPage(a, p, noun, jobRow)
			}),
		},
		{
			name: "jobs replay", args: "<job id>",
			summary: "move a FAILED job back to QUEUED for another attempt, with a new task carrying its work",
			help: `The store's Replay, as a service calls it: the job's move FAILED -> QUEUED
and a new task carrying its work (on -tasks-table) in one transaction, so a
worker takes it up. A job that is not FAILED is refused and nothing changes.`,
			destructive: true,
			setup: jobsSetup(false, nil, func(ctx context.Context, a *app, s *jobs.Store, _ pageFlags, args []string) error {
				if len(args) != 1 {
					return usagef("jobs replay takes one job id")
				}
				if a.dryRun {
					j, err := s.Get(ctx, args[0], jobs.Consistent())
					if err != nil {
						return err
					}
					if j.Status != jobs.StatusFailed {
						return fmt.Errorf("jobs replay %s: the job is %s, and only a FAILED job can be replayed", j.ID, j.Status)
					}
					return emitDryRun(a, "replay", "job", []jobs.Job{*j}, jobRow)
				}
				j, err := s.Maintenance().Replay(ctx, args[0])
				var te *jobs.TransitionError
				switch {
				case errors.As(err, &te):
					return fmt.Errorf("jobs replay %s: the job is %s, and only a FAILED job can be replayed (nothing was changed): %w", args[0], te.Current, err)
				case err != nil:
					return workError("jobs replay "+args[0], s, err)
				}
				return a.emit(j, func(w io.Writer) {
					jobRow(w, *j)
					fmt.Fprintf(w, "queued as task %s on %s\n", j.TaskID, s.Tasks().Schema().Name)
				})
			}),
		},
		{
			name:    "jobs recover",
			summary: "take back in-flight jobs whose worker's lease expired: re-queue them, or fail them after their last attempt",
			help: `One pass of the store's Recover: it reads the expired PROCESSING and EDITING
jobs through status-createdAt-index and moves each with one conditional write,
so it is safe beside live workers and beside another recover. -all repeats
until a pass finds nothing more.`,
			destructive: true,
			setup: jobsSetup(false, func(fs *flag.FlagSet) {
				fs.BoolVar(&recoverAll, "all", false, "repeat until no expired job is left")
			}, func(ctx context.Context, a *app, s *jobs.Store, _ pageFlags, args []string) error {
				if len(args) > 0 {
					return usagef("jobs recover takes no arguments")
				}
				if a.dryRun {
					var expired []jobs.Job
					for j, err := range s.Maintenance().Expired(ctx) {
						if err != nil {
							return err
						}
						expired = append(expired, j)
					}
					return emitDryRun(a, "recover", "in-flight jobs whose lease expired", expired, jobRow)
				}
				var total jobs.RecoverResult
				for {
					r, err := s.Maintenance().Recover(ctx)
					if err != nil {
						return workError("jobs recover", s, err)
					}
					total.Found += r.Found
					total.Requeued += r.Requeued
					total.Failed += r.Failed
					total.Skipped += r.Skipped
					if !recoverAll || r.Requeued+r.Failed == 0 {
						break
					}
				}
				out := recovered{Found: total.Found, Requeued: total.Requeued, Failed: total.Failed, Skipped: total.Skipped}
				return a.emit(out, func(w io.Writer) {
					fmt.Fprintf(w, "found\t%d (lease expired)\nrequeued\t%d\nfailed\t%d\nskipped\t%d (changed while recovering)\n",
						out.Found, out.Requeued, out.Failed, out.Skipped)
				})
			}),
		},
		{
			name:    "jobs sweep",
			summary: "queue the work of jobs left without a live task (QUEUED with none, or whose task was cancelled or died)",
			help: `The store's Sweep: it reads the QUEUED, PROCESSING and EDITING jobs unchanged for
-min-age (through status-createdAt-index) and each one's task on -tasks-table,
and gives every job whose task is missing, COMPLETED, CANCELLED or DEAD a new
task, in one transaction with the job conditioned on the job as read (a job in
flight goes back to QUEUED, or to FAILED after its last attempt). Jobs created
or replayed by a service or CLI that queued no work are found this way. Safe
beside live workers and another sweep. -dry-run lists them and changes nothing.`,
			destructive: true,
			setup: jobsSetup(false, func(fs *flag.FlagSet) {
				fs.DurationVar(&minAge, "min-age", jobs.DefaultLeaseDuration, "only jobs unchanged for this long")
			}, func(ctx context.Context, a *app, s *jobs.Store, _ pageFlags, args []string) error {
				if len(args) > 0 {
					return usagef("jobs sweep takes no arguments")
				}
				if a.dryRun {
					var stranded []jobs.Job
					for j, err := range s.Maintenance().Stranded(ctx, jobs.MinAge(minAge)) {
						if err != nil {
							return workError("jobs sweep", s, err)
						}
						stranded = append(stranded, j)
					}
					return emitDryRun(a, "queue the work of", "jobs without live work", stranded, jobRow)
				}
				res, err := s.Maintenance().Sweep(ctx, jobs.MinAge(minAge))
				if err != nil {
					return workError("jobs sweep", s, err)
				}
				return a.emit(res, func(w io.Writer) {
					fmt.Fprintf(w, "without work\t%d\nqueued\t%d\nfailed\t%d (their last attempt's task is gone)\nskipped\t%d (changed while sweeping)\n",
						res.Found, res.Queued, res.Failed, res.Skipped)
				})
			}),
		},
		{
			name:    "jobs backfill",
			summary: "rewrite every job with a migration step of the jobs design's playbook (docs/systems/jobs.md): -set a default, -rename, -remove an attribute",
			help: `Walks the whole table with a parallel scan (Store.Backfill), beside live
traffic: each write is conditional on the job being as it was read.

  -set name=value     add the attribute where a job lacks it (a string)
  -rename old=new     copy old into new where new is missing, and remove old
  -remove name        remove the attribute

Only attributes the jobs package does not know can be named (the ones it knows
are written by its moves). -dry-run counts what would change and writes nothing.`,
			destructive: true,
			setup: jobsSetup(false, func(fs *flag.FlagSet) {
				fs.Var(&set, "set", "name=value: add where missing (repeatable)")
				fs.Var(&rename, "rename", "old=new: rename (repeatable)")
				fs.Var(&remove, "remove", "name: remove (repeatable)")
			}, func(ctx context.Context, a *app, s *jobs.Store, _ pageFlags, args []string) error {
				if len(args) > 0 {
					return usagef("jobs backfill takes no arguments")
				}
				m, err := parseMigration(set, rename, remove)
				if err != nil {
					return err
				}
				dryRun := a.dryRun
				var wouldChange atomic.Int64
				bar := a.startProgress("backfill")
				done, err := s.Maintenance().Backfill(ctx, func(j *jobs.Job) (bool, error) {
					changed := m.apply(j)
					if changed && dryRun {
						wouldChange.Add(1)
						return false, nil
					}
					return changed, nil
				}, jobs.Progress(func(p jobs.BackfillProgress) { bar.Set(p.Scanned, 0) }))
				bar.Done()
				if err != nil {
					return err
				}
				out := backfilled{Scanned: done.Scanned, Changed: done.Changed, Unchanged: done.Unchanged,
					Skipped: done.Skipped, Conflicts: done.Conflicts, DryRun: dryRun, WouldChange: wouldChange.Load()}
				return a.emit(out, func(w io.Writer) {
					fmt.Fprintf(w, "scanned\t%d\n", done.Scanned)
					if dryRun {
						fmt.Fprintf(w, "would change\t%d (dry run: nothing written)\n", out.WouldChange)
						return
					}
					fmt.Fprintf(w, "changed\t%d\nunchanged\t%d\nskipped\t%d\nconflicts retried\t%d\n", done.Changed, done.Unchanged, done.Skipped, done.Conflicts)
				})
			}),
		},
		{
			name:        "jobs orphans",
			summary:     "list offloaded result objects no job points at; -delete removes them",
			dryRunnable: true,
			setup: jobsSetup(false, func(fs *flag.FlagSet) {
				fs.BoolVar(&deleteOrphans, "delete", false, "delete the orphans (asks first, or needs -yes)")
			}, func(ctx context.Context, a *app, s *jobs.Store, _ pageFlags, args []string) error {
				if len(args) > 0 {
					return usagef("jobs orphans takes no arguments")
				}
				del := deleteOrphans && !a.dryRun
				if del {
					if err := a.confirm(&command{name: "jobs orphans -delete"}); err != nil {
						return err
					}
				}
				var keys []string
				var err error
				if del {
					keys, err = s.Maintenance().RemoveOrphans(ctx)
				} else {
					keys, err = s.Maintenance().Orphans(ctx)
				}
				if err != nil {
					return err
				}
				if keys == nil {
					keys = []string{}
				}
				if deleteOrphans && a.dryRun {
					return emitDryRun(a, "delete", "orphaned objects", keys, func(w io.Writer, k string) { fmt.Fprintln(w, k) })
				}
				return a.emit(orphansOut{Deleted: del, Orphans: keys}, func(w io.Writer) {
					for _, k := range keys {
						fmt.Fprintln(w, k)
					}
					verb := "found"
					if del {
						verb = "deleted"
					}
					fmt.Fprintf(w, "%s %d orphaned objects\n", verb, len(keys))
				})
			}),
		},
	}
}

// recovered is what jobs recover prints as JSON.
// Its keys are journey recover's (journey.RecoverResult): found, failed,
// skipped.
type recovered struct {
	Found    int `json:"found"`
	Requeued int `json:"requeued"`
	Failed   int `json:"failed"`
	Skipped  int `json:"skipped"`
}

// backfilled is what jobs backfill prints as JSON.
type backfilled struct {
	Scanned     int64 `json:"scanned"`
	Changed     int64 `json:"changed"`
	Unchanged   int64 `json:"unchanged"`
	Skipped     int64 `json:"skipped"`
	Conflicts   int64 `json:"conflicts"`
	DryRun      bool  `json:"dryRun"`
	WouldChange int64 `json:"wouldChange,omitempty"`
}

// orphansOut is what jobs orphans prints as JSON.
type orphansOut struct {
	Deleted bool     `json:"deleted"`
	Orphans []string `json:"orphans"`
}

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// migration is one backfill step of the jobs design's migration playbook.
type migration struct {
	set    map[string]string
	rename map[string]string
	remove []string
}

func parseMigration(set, rename, remove []string) (*migration, error) {
	m := &migration{set: map[string]string{}, rename: map[string]string{}, remove: remove}
	pairs := func(flagName string, in []string, into map[string]string) error {
		for _, kv := range in {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" || (flagName == "rename" && v == "") {
				return usagef("-%s %q: want name=value", flagName, kv)
			}
			into[k] = v
		}
		return nil
	}
	if err := pairs("set", set, m.set); err != nil {
		return nil, err
	}
	if err := pairs("rename", rename, m.rename); err != nil {
		return nil, err
	}
	if len(m.set)+len(m.rename)+len(m.remove) == 0 {
		return nil, usagef("jobs backfill needs at least one -set, -rename or -remove")
	}
	return m, nil
}

// apply changes j.Extra, assigning or deleting entries (never editing a
// value in place, as Backfill requires), and reports whether it changed.
func (m *migration) apply(j *jobs.Job) bool {
	changed := false
	ensure := func() {
		if j.Extra == nil {
			j.Extra = map[string]types.AttributeValue{}
		}
	}
	for name, v := range m.set {
		if _, ok := j.Extra[name]; !ok {
			ensure()
			j.Extra[name] = &types.AttributeValueMemberS{Value: v}
			changed = true
		}
	}
	for old, nu := range m.rename {
		v, ok := j.Extra[old]
		if !ok {
			continue
		}
		if _, exists := j.Extra[nu]; !exists {
			j.Extra[nu] = v
		}
		delete(j.Extra, old)
		changed = true
	}
	for _, name := range m.remove {
		if _, ok := j.Extra[name]; ok {
			delete(j.Extra, name)
			changed = true
		}
	}
	return changed
}

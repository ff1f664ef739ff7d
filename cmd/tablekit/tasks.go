package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tablekit/tablekit/tasks"
)

// tasksStore opens the task queue the flags name.
func tasksStore(ctx context.Context, a *app, sf *storeFlags, retention time.Duration) (*tasks.Store, error) {
	c, err := a.connect(ctx)
	if err != nil {
		return nil, err
	}
	name := sf.table
	if name == "" {
		name = tasks.DefaultTableName
	}
	return tasks.NewStore(c.db, nil, tasks.TableName(name), tasks.Retention(retention))
}

// tasksSetup registers the table flags (-table; -store is implied) and a
// page's -limit and -cursor where a command lists.
func tasksSetup(list bool, fn func(ctx context.Context, a *app, s *tasks.Store, page pageFlags, args []string) error) func(*flag.FlagSet, *app) runner {
	return func(fs *flag.FlagSet, a *app) runner {
		sf := storeFlags{store: "tasks"}
		fs.StringVar(&sf.table, "table", "", "table name (default "+tasks.DefaultTableName+")")
		retention := fs.Duration("retention", tasks.DefaultRetention, "the service's tasks.Options.Retention: a re-driven task expires this long after it finishes")
		var page pageFlags
		if list {
			page.register(fs)
		}
		return func(ctx context.Context, args []string) error {
			s, err := tasksStore(ctx, a, &sf, *retention)
			if err != nil {
				return err
			}
			return fn(ctx, a, s, page, args)
		}
	}
}

// deadTasks are the tasks a redrive would move: the one named, if it is
// DEAD, or every dead letter whose last error contains errorContains.
func deadTasks(ctx context.Context, s *tasks.Store, ids []string, errorContains string) ([]tasks.Task, error) {
	if len(ids) == 1 {
		t, err := s.Get(ctx, ids[0])
		if err != nil {
			return nil, err
		}
		if t.Status != tasks.StatusDead {
			return nil, fmt.Errorf("tasks redrive %s: the task is %s, and only a DEAD task can be re-driven", t.ID, t.Status)
		}
		return []tasks.Task{*t}, nil
	}
	var out []tasks.Task
	for t, err := range s.Maintenance().Dead().All(ctx) {
		if err != nil {
			return nil, err
		}
		if strings.Contains(t.LastError, errorContains) {
			out = append(out, t)
		}
	}
	return out, nil
}

func taskRow(w io.Writer, t tasks.Task) {
	fmt.Fprintf(w, "%s\t%s\tattempt %d\t%s\n", t.ID, t.Status, t.Attempt, t.CreatedAt.Format(time.RFC3339))
}

func tasksCommands() []*command {
	var all bool
	var reason, errorContains string
	return []*command{
		{
			name:    "tasks list",
			summary: "list pending tasks, oldest first, a page at a time",
			setup: tasksSetup(true, func(ctx context.Context, a *app, s *tasks.Store, page pageFlags, args []string) error {
				if len(args) > 0 {
					return usagef("tasks list takes no arguments")
				}
				p, err := s.Maintenance().Pending(tasks.Limit(page.limit)).Page(ctx, page.cursor)
				if err != nil {
					return err
				}
				return emitPage(a, p, "pending tasks", taskRow)
			}),
		},
		{
			name:    "tasks dead",
			summary: "list dead tasks (the dead letters), a page at a time",
			setup: tasksSetup(true, func(ctx context.Context, a *app, s *tasks.Store, page pageFlags, args []string) error {
				if len(args) > 0 {
					return usagef("tasks dead takes no arguments")
				}
				p, err := s.Maintenance().Dead(tasks.Limit(page.limit)).Page(ctx, page.cursor)
				if err != nil {
					return err
				}
				return emitPage(a, p, "dead tasks", taskRow)
			}),
		},
		{
			name:    "tasks show",
			args:    "<task id>",
			summary: "print one task and its event history",
			setup: tasksSetup(false, func(ctx context.Context, a *app, s *tasks.Store, _ pageFlags, args []string) error {
				if len(args) != 1 {
					return usagef("tasks show takes one task id")
				}
				t, err := s.Get(ctx, args[0])
				if err != nil {
					return err
				}
				history, err := s.History(ctx, args[0])
				if err != nil {
					return err
				}
				out := struct {
					Task    *tasks.Task   `json:"task"`
					History []tasks.Event `json:"history"`
				}{t, history}
				return a.emit(out, func(w io.Writer) {
					taskRow(w, *t)
					for _, e := range history {
						fmt.Fprintf(w, "  %d\t%s\t%s\n", e.Seq, e.Type, e.At.Format(time.RFC3339Nano))
					}
				})
			}),
		},
		{
			name:    "tasks reclaim",
			summary: "return tasks whose worker's lease has expired to the queue (or to DEAD after their last attempt)",
			setup: tasksSetup(false, func(ctx context.Context, a *app, s *tasks.Store, _ pageFlags, args []string) error {
				if len(args) > 0 {
					return usagef("tasks reclaim takes no arguments")
				}
				if a.dryRun {
					var expired []tasks.Task
					for t, err := range s.Maintenance().Expired(ctx) {
						if err != nil {
							return err
						}
						expired = append(expired, t)
					}
					return emitDryRun(a, "reclaim", "tasks whose lease expired", expired, taskRow)
				}
				n, err := s.Maintenance().ReclaimExpired(ctx)
				if err != nil {
					return err
				}
				return a.emit(map[string]int{"reclaimed": n}, func(w io.Writer) {
					fmt.Fprintf(w, "reclaimed %d tasks\n", n)
				})
			}),
			destructive: true,
		},
		{
			name:    "tasks redrive",
			args:    "[<task id>]",
			summary: "give dead tasks another chance: one by id, or every dead letter (-all, narrowed by -error)",
			help: `Each task is moved DEAD -> PENDING in its own transaction with a REDRIVEN event
carrying -reason, and gets a fresh set of attempts. Two operators re-driving the
same task move it once.`,
			destructive: true,
			setup: func(fs *flag.FlagSet, a *app) runner {
				fs.BoolVar(&all, "all", false, "re-drive every dead letter (narrow with -error)")
				fs.StringVar(&errorContains, "error", "", "with -all: only tasks whose last error contains this text")
				fs.StringVar(&reason, "reason", "re-driven by an operator with tablekit", "the reason recorded in each task's REDRIVEN event")
				return tasksSetup(false, func(ctx context.Context, a *app, s *tasks.Store, _ pageFlags, args []string) error {
					switch {
					case all && len(args) > 0, !all && len(args) != 1:
						return usagef("tasks redrive takes one task id, or -all")
					case !all && errorContains != "":
						return usagef("-error goes with -all")
					}
					if a.dryRun {
						dead, err := deadTasks(ctx, s, args, errorContains)
						if err != nil {
							return err
						}
						return emitDryRun(a, "re-drive", "dead tasks", dead, taskRow)
					}
					if !all {
						t, err := s.Maintenance().Redrive(ctx, args[0], reason)
						if err != nil {
							return err
						}
						return a.emit(t, func(w io.Writer) { taskRow(w, *t) })
					}
					n, err := s.Maintenance().RedriveDead(ctx, func(t *tasks.Task) bool {
						return strings.Contains(t.LastError, errorContains)
					}, reason)
					if err != nil {
						return err
					}
					return a.emit(map[string]int{"redriven": n}, func(w io.Writer) {
						fmt.Fprintf(w, "re-drove %d tasks\n", n)
					})
				})(fs, a)
			},
		},
	}
}

package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/examples/internal/exampleenv"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

// terminalMoves follows the jobs table's stream and counts, per job, the
// changes that moved it into COMPLETED or FAILED: whoever made them (the
// job workers, a zombie), each job must end exactly once.
type terminalMoves struct {
	consumer *changes.Consumer[table.Item]
	mu       sync.Mutex
	count    map[string]int
}

// followTerminalMoves turns on the jobs table's stream and starts
// following it from its first record, with leases in leaseTable.
func followTerminalMoves(ctx context.Context, env *exampleenv.Env, jobsTable, leaseTable string) (*terminalMoves, error) {
	if _, err := changes.EnableStream(ctx, env.DB, jobsTable, types.StreamViewTypeNewAndOldImages); err != nil {
		return nil, err
	}
	c, err := changes.New[table.Item](env.DB, env.Streams, jobsTable, changes.Decode(changes.DecodeItem),
		changes.Name("terminal-moves"), changes.LeaseTable(leaseTable), changes.PollInterval(0))
	if err != nil {
		return nil, err
	}
	if err := c.EnsureTable(ctx); err != nil {
		return nil, err
	}
	return &terminalMoves{consumer: c, count: map[string]int{}}, nil
}

// read reads the stream until it is caught up.
func (m *terminalMoves) read(ctx context.Context) error {
	ended := func(ch changes.Change[table.Item], image *table.Item) (string, bool, error) {
		if image == nil {
			return "", false, nil
		}
		job, ok, err := jobs.JobFromChange(changes.Change[table.Item]{Keys: ch.Keys, New: image})
		if !ok || err != nil {
			return "", false, err
		}
		return job.ID, job.Status == jobs.StatusCompleted || job.Status == jobs.StatusFailed, nil
	}
	for idle := 0; idle < 3; {
		n, err := m.consumer.Step(ctx, func(_ context.Context, batch []changes.Change[table.Item]) error {
			m.mu.Lock()
			defer m.mu.Unlock()
			for _, ch := range batch {
				id, now, err := ended(ch, ch.New)
				if err != nil {
					return err
				}
				_, before, err := ended(ch, ch.Old)
				if err != nil {
					return err
				}
				if now && !before {
					m.count[id]++
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		if n == 0 {
			idle++
			time.Sleep(50 * time.Millisecond)
		}
	}
	return nil
}

// unfinished counts the jobs not yet COMPLETED or FAILED.
func unfinished(ctx context.Context, store *jobs.Store) (int, error) {
	n := 0
	for _, st := range []jobs.Status{jobs.StatusQueued, jobs.StatusProcessing, jobs.StatusEditing} {
		for _, err := range store.Maintenance().ByStatus(st, jobs.Limit(1000)).All(ctx) {
			if err != nil {
				return 0, err
			}
			n++
		}
	}
	return n, nil
}

// waitTasks waits (until deadline) for every job's task to be done: a
// worker completes its task just after its job.
func waitTasks(ctx context.Context, store *jobs.Store, ids []string, deadline time.Time) {
	for _, id := range ids {
		for time.Now().Before(deadline) {
			job, err := store.Get(ctx, id, jobs.Consistent())
			if err == nil {
				if t, err := store.Tasks().Get(ctx, job.TaskID); err == nil && t.Status == tasks.StatusCompleted {
					break
				}
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// check is the verdict: every job created is found, ended COMPLETED or
// FAILED with exactly one terminal move, and its task is COMPLETED with a
// history numbered 1..n without a gap.
func check(ctx context.Context, js *jobs.Store, moves *terminalMoves, ids []string) error {
	fmt.Println("\n== where the jobs ended")
	if err := moves.read(ctx); err != nil {
		return fmt.Errorf("read the jobs table's stream: %w", err)
	}
	ts := js.Tasks()
	byStatus := map[jobs.Status]int{}
	byCode := map[string]int{}
	var problems []string
	problem := func(format string, args ...any) {
		if len(problems) < 20 {
			problems = append(problems, fmt.Sprintf(format, args...))
		} else if len(problems) == 20 {
			problems = append(problems, "...")
		}
	}
	lost, stuck, doubled, gaps := 0, 0, 0, 0
	for _, id := range ids {
		job, err := js.Get(ctx, id, jobs.Consistent())
		if errors.Is(err, jobs.ErrNotFound) {
			lost++
			problem("job %s lost", id)
			continue
		}
		if err != nil {
			return err
		}
		byStatus[job.Status]++
		switch job.Status {
		case jobs.StatusCompleted, jobs.StatusFailed:
		default:
			stuck++
			problem("job %s stuck in %s (attempt %d)", id, job.Status, job.Attempt)
		}
		if job.Error != nil && job.Status == jobs.StatusFailed {
			byCode[job.Error.Code]++
		}
		if n := moves.count[id]; n != 1 && (job.Status == jobs.StatusCompleted || job.Status == jobs.StatusFailed) {
			doubled++
			problem("job %s ended %d times", id, n)
		}
		task, err := ts.Get(ctx, job.TaskID)
		if err != nil {
			return err
		}
		if task.Status != tasks.StatusCompleted {
			stuck++
			problem("task %s of job %s is %s", task.ID, id, task.Status)
		}
		history, err := ts.History(ctx, task.ID)
		if err != nil {
			return err
		}
		for i, ev := range history {
			if ev.Seq != i+1 {
				gaps++
				problem("task %s: event %d has seq %d", task.ID, i+1, ev.Seq)
				break
			}
		}
		if len(history) != task.Events {
			gaps++
			problem("task %s: %d events read, %d recorded", task.ID, len(history), task.Events)
		}
	}
	for _, st := range jobs.Statuses() {
		fmt.Printf("  %-10s %5d\n", st, byStatus[st])
	}
	for _, code := range slices.Sorted(maps.Keys(byCode)) {
		fmt.Printf("    FAILED %-14s %d\n", code, byCode[code])
	}
	fmt.Printf("lost %d, stuck %d, ended other than once %d, history gaps %d\n", lost, stuck, doubled, gaps)
	for _, pr := range problems {
		fmt.Println("  " + pr)
	}
	if lost+stuck+doubled+gaps > 0 {
		return fmt.Errorf("%d lost, %d stuck, %d ended other than once, %d history gaps", lost, stuck, doubled, gaps)
	}
	fmt.Printf("ok: %d jobs, every one terminal exactly once\n", len(ids))
	return nil
}

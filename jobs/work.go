package jobs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

// WorkOptions configure the task queue that carries jobs' work (see "Work"
// in the package documentation).
type WorkOptions struct {
	// TableName is the tasks table. Default tasks.DefaultTableName, the
	// table tablekit's tasks commands read, so an operator sees a job's
	// task with `tablekit tasks list`; the jobs commands' -tasks-table
	// names it for both.
	TableName string
	// Tasks configure the tasks.Store on that table (shards, retry
	// backoff, retention, tracing). The job store sets the queue's
	// LeaseDuration to Options.LeaseDuration (the one lease of a job and
	// its task), its Clock, Logger, TracerProvider and MeterProvider to
	// the store's, and its MaxAttempts
	// to tasks.MaxAttemptsLimit (the job's MaxAttempts decides when its work is
	// given up; the task only carries it) before these run. A MaxAttempts
	// set here must stay above the job's.
	Tasks []func(*tasks.Options)
}

// Work makes the store queue every job's work as a task on the tasks
// table tableName ("" for tasks.DefaultTableName), on the same DynamoDB:
// Create, Replay and Recover queue it in the transaction that makes the
// job QUEUED, Sweep queues what is missing, and NewWorker runs it. opts
// configure the tasks store (see WorkOptions.Tasks).
func Work(tableName string, opts ...func(*tasks.Options)) func(*Options) {
	return func(o *Options) { o.Work = &WorkOptions{TableName: tableName, Tasks: opts} }
}

// Tasks is the task queue that carries the store's jobs' work, nil when
// the store has none (Options.Work).
func (s *Store) Tasks() *tasks.Store {
	if s == nil {
		return nil
	}
	return s.work
}

// ErrNoWork: a call that needs the store's task queue was made on a store
// without one (Options.Work).
var ErrNoWork = errors.New("jobs: the store queues no work (Options.Work)")

// WorkTableName is the tasks table a store opened with opts queues its
// jobs' work on (WorkOptions.TableName, tasks.DefaultTableName by
// default), or "" for a store without Options.Work. Package iam/policies
// reads it to grant a store with Work that table.
func WorkTableName(opts ...func(*Options)) string {
	var o Options
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	return o.workTableName()
}

// workTableName is WorkTableName of o.
func (o Options) workTableName() string {
	switch {
	case o.Work == nil:
		return ""
	case o.Work.TableName == "":
		return tasks.DefaultTableName
	}
	return o.Work.TableName
}

// newWorkQueue opens the tasks store of o.Work on db.
func newWorkQueue(db table.API, o Options) (*tasks.Store, error) {
	topts := []func(*tasks.Options){tasks.TableName(o.workTableName()), func(to *tasks.Options) {
		to.LeaseDuration = o.LeaseDuration
		to.MaxAttempts = tasks.MaxAttemptsLimit
		to.Clock = o.Clock
		to.Logger = o.Logger
		to.TracerProvider = o.tracerProvider
		to.MeterProvider = o.meterProvider
	}}
	ts, err := tasks.NewStore(db, nil, append(topts, o.Work.Tasks...)...)
	if err != nil {
		return nil, fmt.Errorf("jobs: Options.Work: %w", err)
	}
	if n := ts.Options().MaxAttempts; n <= o.MaxAttempts {
		return nil, inputError("Options.Work.Tasks", fmt.Sprintf("MaxAttempts %d", n),
			fmt.Sprintf("must be more than the job's MaxAttempts (%d): a task that dies first strands its job", o.MaxAttempts))
	}
	return ts, nil
}

// A job's task. Its payload names the jobs table and the job, so a worker
// refuses the task of another table rather than reading a job of the same
// id there. Its idempotency key names the job's n-th queuing (Job.TaskCount
// after it), so every retry of the write that queues it (Create, Replay,
// Recover, Sweep) submits the same task, and no two queuings share one.
type taskPayload struct {
	JobsTable string `json:"jobsTable"`
	JobID     string `json:"jobId"`
}

func (s *Store) payload(jobID string) []byte {
	b, _ := json.Marshal(taskPayload{JobsTable: s.t.Name(), JobID: jobID}) // strings only: cannot fail
	return b
}

// jobOfTask reads a task's payload: the job it carries, which must be of
// this store's table.
func (s *Store) jobOfTask(t *tasks.Task) (string, error) {
	var p taskPayload
	if err := json.Unmarshal(t.Payload, &p); err != nil || p.JobID == "" {
		return "", fmt.Errorf("jobs: task %q is not a job's work (payload %.60q)", t.ID, t.Payload)
	}
	if p.JobsTable != s.t.Name() {
		return "", fmt.Errorf("jobs: task %q carries job %q of table %s, and this worker serves %s: give each jobs table a tasks table of its own",
			t.ID, p.JobID, p.JobsTable, s.t.Name())
	}
	return p.JobID, nil
}

// taskKey is the idempotency key of the n-th queuing of the job with id
// created at createdAt: "<jobs table>/<job id>/<createdAt ms>/<n>",
// readable for the ids jobs creates (ULIDs, "k-" ids). The creation time
// tells apart two jobs of one id (a keyed job created again after its ttl
// passed), whose tasks may overlap in the tasks table's retention. A key
// the tasks table cannot hold (over 256 bytes, or an id with characters
// outside [A-Za-z0-9._~-]) becomes "sha256-<hex of the rest>/<n>".
func (s *Store) taskKey(id string, createdAt time.Time, n int) string {
	job := s.t.Name() + "/" + id + "/" + strconv.FormatInt(createdAt.UnixMilli(), 10)
	key := job + "/" + strconv.Itoa(n)
	if len(key) > 256 || !plainID(id) {
		sum := sha256.Sum256([]byte(job))
		key = "sha256-" + hex.EncodeToString(sum[:]) + "/" + strconv.Itoa(n)
	}
	return key
}

func plainID(id string) bool {
	for _, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '~', r == '-':
		default:
			return false
		}
	}
	return true
}

// submitWork adds the task of job id's n-th queuing to tx. With fresh,
// the key is vouched new and SubmitTx reads nothing (tasks.FreshKey):
// every transaction that queues work is conditioned on the job as read,
// which does not exist yet (n is 1) or has made n-1 queuings (taskCount),
// and a queuing's task and the job's taskCount apply together, so key n
// is new unless the job's count was set back behind the tasks table (see
// runQueuing). Without fresh, SubmitTx reads the key first and a task it
// created is the job's work again.
func (s *Store) submitWork(ctx context.Context, tx *table.WriteTx, id string, createdAt time.Time, n int, fresh bool) (*tasks.Task, error) {
	var opts []func(*tasks.SubmitTxOptions)
	if fresh {
		opts = append(opts, tasks.FreshKey())
	}
	task, _, err := s.work.SubmitTx(ctx, tx, tasks.SubmitInput{IdempotencyKey: s.taskKey(id, createdAt, n), Payload: s.payload(id)}, opts...)
	if err != nil {
		return nil, fmt.Errorf("jobs: queue the work of job %q: %w", id, err)
	}
	return task, nil
}

// runQueuing builds and runs a transaction that queues a job's work with
// run, first with the queuing's key vouched new (nothing read: one
// request). Should the tasks table refuse that key while the job's own
// condition held, the job's taskCount is behind the tasks table (a jobs
// table restored to an earlier point in time than its tasks table, or a
// keyed job deleted and created again within its namesake's createdAt
// millisecond): it builds and runs the transaction once more reading the
// key, so the task the key created becomes the job's work, as a queuing
// did before keys were vouched for, instead of refusing the job for ever.
func (s *Store) runQueuing(run func(fresh bool) error) error {
	err := run(true)
	if err == nil || !s.workRefusal(err) {
		return err
	}
	return run(false)
}

// workRefusal reports whether err is a canceled transaction in which the
// tasks table refused a write and the job's own condition held.
func (s *Store) workRefusal(err error) bool {
	var txe *table.TxError
	if !errors.As(err, &txe) {
		return false
	}
	if _, refused := s.jobRefusal(err); refused {
		return false
	}
	work := s.work.Options().TableName
	for _, r := range txe.Reasons {
		if r.Table == work && r.Code == "ConditionalCheckFailed" {
			return true
		}
	}
	return false
}

// jobRefusal finds, in a canceled transaction, the job's own refusal: the
// condition of the action on the jobs table. It returns the item DynamoDB
// returned with it (nil when the job does not exist) and whether the job's
// condition was what failed.
func (s *Store) jobRefusal(err error) (table.Item, bool) {
	var txe *table.TxError
	if !errors.As(err, &txe) {
		return nil, false
	}
	for _, r := range txe.Reasons {
		if r.Table == s.t.Name() && r.Code == "ConditionalCheckFailed" {
			return r.Item, true
		}
	}
	return nil, false
}

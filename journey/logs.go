package journey

import (
	"context"
	"iter"

	"github.com/tablekit/tablekit/table"
)

// Logs is the handle of a job's logs: step loggers that write them, the
// log files in the logs store, and the optional LOG# summaries.
type Logs struct{ s *Store }

// Logs returns the store's handle of logs.
func (s *Store) Logs() *Logs { return &Logs{s: s} }

// ready refuses a nil handle, the handle of a Store NewStore did not make
// and a nil context, before any request.
func (h *Logs) ready(ctx context.Context) error {
	if h == nil {
		return ErrNoStore
	}
	return h.s.ready(ctx)
}

// Logger returns a logger for one step of a job. It sends nothing
// until Flush or Close.
func (h *Logs) Logger(ref JobRef, stepID string, opts ...func(*LoggerOptions)) (*StepLogger, error) {
	if err := h.ready(context.Background()); err != nil {
		return nil, err
	}
	if err := refuseReserved("JobRef.JourneyID", ref.JourneyID); err != nil {
		return nil, err
	}
	return h.s.stepLogger(ref, stepID, opts...)
}

// Read reads every log file of a job from the logs store (the seed's
// get_job_logs) and returns the entries in time order; entries of one
// instant keep their step's order.
func (h *Logs) Read(ctx context.Context, ref JobRef) (_ []LogEntry, err error) {
	if err := h.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Logs.Read")
	defer span.End(&err)
	if err := refuseReserved("JobRef.JourneyID", ref.JourneyID); err != nil {
		return nil, err
	}
	return h.s.jobLogs(ctx, ref)
}

// ReadStep reads one step's log file (the seed's get_job_logs with a step
// name); a step that logged nothing yet matches blobstore.ErrNotFound.
func (h *Logs) ReadStep(ctx context.Context, ref JobRef, stepID string) (_ []LogEntry, err error) {
	if err := h.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Logs.ReadStep")
	defer span.End(&err)
	if err := refuseReserved("JobRef.JourneyID", ref.JourneyID); err != nil {
		return nil, err
	}
	return h.s.stepLogs(ctx, ref, stepID)
}

// ListSummaries returns one page of a job's log summaries through GSI1
// (GSI1PK JOB#{jobId}), in time order, or newest first with NewestFirst
// (the seed's ScanIndexForward=False). The order is total: entries of the
// same microsecond share GSI1SK and are ordered by their unique table key
// (PK, then SK LOG#{jobId}#{step}#{timestamp}#{logId}), ascending in time
// order and descending newest first, so newest first is the exact reverse
// of time order and cursors resume inside a run of ties. The job's own
// item shares that GSI1PK (the seed gives both the same); the listing
// drops it by its EntityType (package entity's type test), which costs
// reading that one item and no request.
func (h *Logs) ListSummaries(ctx context.Context, jobID string, cursor string, opts ...func(*ListOptions)) (_ table.Page[LogSummary], err error) {
	if err := h.ready(ctx); err != nil {
		return table.Page[LogSummary]{}, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Logs.ListSummaries")
	defer span.End(&err)
	o, err := readOptions(listLogsKind, opts)
	if err != nil {
		return table.Page[LogSummary]{}, err
	}
	return h.s.listSummaries(ctx, jobID, cursor, o)
}

// Summaries walks every page of ListSummaries, in its order.
func (h *Logs) Summaries(ctx context.Context, jobID string, opts ...func(*ListOptions)) iter.Seq2[LogSummary, error] {
	return table.Walk(func(cursor string) (table.Page[LogSummary], error) {
		return h.ListSummaries(ctx, jobID, cursor, opts...)
	})
}

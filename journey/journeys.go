package journey

import (
	"context"
	"iter"

	"github.com/tablekit/tablekit/table"
)

// Journeys is the handle of journeys: their metadata and lifecycle
// (pending, running, paused, completed, failed, cancelled), and a whole
// journey read in one Query.
type Journeys struct{ s *Store }

// Journeys returns the store's handle of journeys.
func (s *Store) Journeys() *Journeys { return &Journeys{s: s} }

// ready refuses a nil handle, the handle of a Store NewStore did not make
// and a nil context, before any request.
func (h *Journeys) ready(ctx context.Context) error {
	if h == nil {
		return ErrNoStore
	}
	return h.s.ready(ctx)
}

// Create writes a journey's metadata and its stages (the default
// six unless in.Stages says otherwise) in one transaction, each item
// conditional on not existing: either the whole journey exists afterwards
// or nothing was written (ErrJourneyExists when the id is taken).
func (h *Journeys) Create(ctx context.Context, in NewJourney) (_ *Complete, err error) {
	if err := h.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Journeys.Create")
	defer span.End(&err)
	if err := refuseReserved("NewJourney.ID", in.ID); err != nil {
		return nil, err
	}
	return h.s.createJourney(ctx, in, true)
}

// Get reads a journey's metadata (one GetItem).
func (h *Journeys) Get(ctx context.Context, id string, opts ...func(*ReadOptions)) (_ *Journey, err error) {
	if err := h.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Journeys.Get")
	defer span.End(&err)
	if err := refuseReserved("journeyId", id); err != nil {
		return nil, err
	}
	if _, err := readOptions(getKind.named("Journeys.Get"), opts); err != nil {
		return nil, err
	}
	return h.s.getJourney(ctx, id, opts...)
}

// Load reads a whole journey from its partition (PK = JOURNEY#{id}):
// metadata, stages, rules, jobs and report catalog entries, decoded and
// grouped, in two Queries side by side (one round trip) that read around
// the log summaries (SK < "LOG#" and SK >= "LOG$"): a job of the seed's
// size leaves 10,000, which a dashboard's Load would otherwise read every
// time. The seed's four queries become one round trip, billed for the
// items' total size rather than per query. Past 1 MB DynamoDB pages the
// result and Load reads on until the partition is done.
// IncludeLogSummaries reads the summaries too (one Query of the whole
// partition); Logs.ListSummaries pages a job's.
func (h *Journeys) Load(ctx context.Context, id string, opts ...func(*ReadOptions)) (_ *Complete, err error) {
	if err := h.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Journeys.Load")
	defer span.End(&err)
	if err := refuseReserved("journeyId", id); err != nil {
		return nil, err
	}
	if _, err := readOptions(loadKind.named("Journeys.Load"), opts); err != nil {
		return nil, err
	}
	return h.s.loadJourney(ctx, id, opts...)
}

// Pause moves a pending or running journey to paused: Jobs.Start then
// refuses to start its jobs until Resume.
func (h *Journeys) Pause(ctx context.Context, id string) (_ *Journey, err error) {
	if err := h.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Journeys.Pause")
	defer span.End(&err)
	if err := refuseReserved("journeyId", id); err != nil {
		return nil, err
	}
	return h.s.pause(ctx, id)
}

// Resume moves a paused journey back to running, or a failed one (a job
// failed with no retry left), so that an operator can retry its stage.
func (h *Journeys) Resume(ctx context.Context, id string) (_ *Journey, err error) {
	if err := h.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Journeys.Resume")
	defer span.End(&err)
	if err := refuseReserved("journeyId", id); err != nil {
		return nil, err
	}
	return h.s.resume(ctx, id)
}

// Cancel moves a pending, running, paused or failed journey to cancelled,
// which is final, and cancels its running jobs: each pending or running job
// becomes cancelled (the seed's JobCancelled, with endTime and duration)
// and its stage cancelled, in the same transaction as the journey (for up
// to 49 running jobs; a journey runs at most one job a stage). The
// transaction is conditional on the journey's status and totalJobs being
// as read, so a job started meanwhile makes Cancel read again rather than
// leave it running. Jobs past the first 49 are cancelled one transaction
// each afterwards; Cancel on a cancelled journey cancels any job still
// running, so an interrupted Cancel is completed by calling it again.
func (h *Journeys) Cancel(ctx context.Context, id string) (_ *Journey, err error) {
	if err := h.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Journeys.Cancel")
	defer span.End(&err)
	if err := refuseReserved("journeyId", id); err != nil {
		return nil, err
	}
	return h.s.cancel(ctx, id)
}

// List returns one page of journeys through GSI1 (GSI1PK JOURNEYS). The
// order is total: newest createdAt first, journeys created in the same
// microsecond by PK (JOURNEY#{journeyId}) descending; OldestFirst is the
// exact reverse (createdAt, then PK, ascending). Cursors resume inside a
// run of ties. Pass "" as cursor for the first page and Page.Next for the
// following ones; Next is "" after the last page.
//
// OfStatus lists only the journeys in the statuses it names (the
// dashboard's active journeys: OfStatus(StatusPending, StatusRunning,
// StatusPaused)), in the same order. GSI1SK holds the creation time, not
// the status, so that is a filter on Data.status: pages stay full (Limit
// journeys, but for the last), and each request reads, and is billed for,
// the journeys it passes over too.
func (h *Journeys) List(ctx context.Context, cursor string, opts ...func(*ListOptions)) (_ table.Page[Journey], err error) {
	if err := h.ready(ctx); err != nil {
		return table.Page[Journey]{}, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Journeys.List")
	defer span.End(&err)
	o, err := readOptions(listJourneysKind, opts)
	if err != nil {
		return table.Page[Journey]{}, err
	}
	return h.s.listJourneys(ctx, cursor, o)
}

// ByPriority returns the journeys in the order their work is processed
// (the seed's "priority determines processing order"): by priority,
// critical, high, medium, then low; among equals the oldest first
// (createdAt), then by id. OfStatus narrows them (a scheduler's queue:
// OfStatus(StatusPending, StatusRunning)). No index orders journeys by
// priority (GSI1 JOURNEYS holds every journey by creation time), so it
// reads every listed journey, with the status filter, and sorts them: a
// cost that grows with the journeys kept, like Jobs.Recover's, which
// goes through them in the same order. It takes no Limit and no cursor.
func (h *Journeys) ByPriority(ctx context.Context, opts ...func(*ListOptions)) (_ []Journey, err error) {
	if err := h.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Journeys.ByPriority")
	defer span.End(&err)
	o, err := readOptions(byPriorityKind, opts)
	if err != nil {
		return nil, err
	}
	return h.s.journeysByPriority(ctx, o.Statuses)
}

// All walks every page of List, in its order. It stops at the first
// error, which it yields.
func (h *Journeys) All(ctx context.Context, opts ...func(*ListOptions)) iter.Seq2[Journey, error] {
	return table.Walk(func(cursor string) (table.Page[Journey], error) { return h.List(ctx, cursor, opts...) })
}

// Delete removes a journey's items: every item of its partition
// (metadata, stages, rules, jobs, log summaries, report catalog entries).
// Its log and report files stay where they are by default: the seed's full
// logs are the audit trail, "never deleted", and the logs bucket's
// lifecycle rule archives them (Store.Setup); its export in the backups
// store stays too, so a deleted journey can be imported again. A store
// with Options.PurgeFilesOnDelete also deletes the files (everything under
// journeys/{journeyId}/ in the logs and reports stores).
//
// Delete is refused with ErrJobRunning while a job of the journey is
// pending or running (Jobs.Recover fails a job past its timeout), and
// with ErrImportInProgress during an import; nothing is deleted then.
// Otherwise it first marks the journey's METADATA item, in one
// transaction with a check on every stage that no job runs: from then on
// the journey is out of Journeys.List, reads find no journey (an error
// matching ErrJourneyNotFound and ErrDeleteInProgress), and Jobs.Start,
// the journey's other writes, Journeys.Create and Backups.Import (even
// with Overwrite) are refused. It then deletes the items, then (with
// PurgeFilesOnDelete) the files, and the METADATA item last. It is
// resumable: a delete interrupted half way leaves the mark, and the next
// Delete of the journey finishes it; Delete of a journey whose metadata is
// gone removes what is left of its partition (and files). A journey with
// nothing left is ErrJourneyNotFound.
//
// DryRun counts what would be removed (after the same running-job check)
// and writes nothing.
func (h *Journeys) Delete(ctx context.Context, id string, opts ...func(*DeleteOptions)) (_ DeleteResult, err error) {
	if err := h.ready(ctx); err != nil {
		return DeleteResult{JourneyID: id}, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Journeys.Delete")
	defer span.End(&err)
	if err := refuseReserved("journeyId", id); err != nil {
		return DeleteResult{JourneyID: id}, err
	}
	var o DeleteOptions
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	return h.s.deleteJourney(ctx, id, o)
}

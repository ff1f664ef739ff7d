package journey

import (
	"context"
	"io"
)

// Backups is the handle of journey exports in the backups store
// (Options.Backups, the seed's transformation-backups bucket).
type Backups struct{ s *Store }

// Backups returns the store's handle of backups.
func (s *Store) Backups() *Backups { return &Backups{s: s} }

// ready refuses a nil handle, the handle of a Store NewStore did not make
// and a nil context, before any request.
func (h *Backups) ready(ctx context.Context) error {
	if h == nil {
		return ErrNoStore
	}
	return h.s.ready(ctx)
}

// Export writes the whole journey (every item of its partition, log
// summaries included) as one JSON object to the backups store at
// journeys/{id}/backup.json, the seed's on-demand backup.
func (h *Backups) Export(ctx context.Context, journeyID string) (_ *ExportInfo, err error) {
	if err := h.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Backups.Export")
	defer span.End(&err)
	if err := refuseReserved("journeyId", journeyID); err != nil {
		return nil, err
	}
	return h.s.export(ctx, journeyID)
}

// Import restores the journey from journeys/{id}/backup.json in the
// backups store. See ImportFrom.
func (h *Backups) Import(ctx context.Context, journeyID string, opts ...func(*ImportOptions)) (_ *Complete, err error) {
	if err := h.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Backups.Import")
	defer span.End(&err)
	if err := refuseReserved("journeyId", journeyID); err != nil {
		return nil, err
	}
	return h.s.importJourney(ctx, journeyID, opts...)
}

// ImportFrom restores a journey from a document Export wrote (or one in
// the same notation). Every item is checked before anything is sent: it
// must belong to journeyID's partition and have one of the seed's key
// shapes, or the import fails with ErrInvalidBackup and nothing is written.
//
// A journey has more items than one transaction holds (100), so the import
// is made all-or-nothing by a claim on the METADATA item:
//
//  1. The claim: one PutItem of the backup's metadata without its GSI1 keys
//     (so Journeys.List does not show it) and with an ImportId attribute.
//     Unless Overwrite, it is conditional on no journey being there (or
//     only an unfinished import's claim); otherwise ErrJourneyExists and
//     nothing was written. Journeys.Create after the claim finds the item and
//     fails; reads of the journey fail with ErrImportInProgress; writes that
//     touch the metadata (jobs, rules, log counts, status moves) are refused
//     the same way.
//  2. The items: the backup's items are put, and every other item of the
//     partition deleted, in transactions of at most 99 writes and 3 MB,
//     each with a condition check that the claim is still this import's.
//  3. The swap: the backup's metadata replaces the claim, conditional on it.
//
// A crash or error part way leaves the claim, never a journey that is part
// backup and part something else; the next Import of the journey (either
// mode) takes the claim over, completes the restore and removes what the
// first left. An import whose claim another import took over fails with
// ErrImportInProgress.
func (h *Backups) ImportFrom(ctx context.Context, journeyID string, r io.Reader, opts ...func(*ImportOptions)) (_ *Complete, err error) {
	if err := h.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Backups.ImportFrom")
	defer span.End(&err)
	if err := refuseReserved("journeyId", journeyID); err != nil {
		return nil, err
	}
	return h.s.importBackup(ctx, journeyID, r, opts...)
}

package journey

import (
	"context"
	"iter"

	"github.com/tablekit/tablekit/table"
)

// Reports is the handle of a job's reports: the files in the reports
// store and their REPORT# catalog entries.
type Reports struct{ s *Store }

// Reports returns the store's handle of reports.
func (s *Store) Reports() *Reports { return &Reports{s: s} }

// ready refuses a nil handle, the handle of a Store NewStore did not make
// and a nil context, before any request.
func (h *Reports) ready(ctx context.Context) error {
	if h == nil {
		return ErrNoStore
	}
	return h.s.ready(ctx)
}

// ReportOptions configure Reports.Write.
type ReportOptions struct {
	// SkipCatalog writes the report file only, without its REPORT#
	// catalog item: the seed saves the catalog entry "optionally". The
	// file is found by Reports.Read (which lists the job's files), not by
	// Reports.ListCatalog or Journeys.Load.
	SkipCatalog bool
}

// SkipCatalog sets ReportOptions.SkipCatalog: Reports.Write writes the
// file and no catalog item.
func SkipCatalog() func(*ReportOptions) { return func(o *ReportOptions) { o.SkipCatalog = true } }

// Write writes a report file to the reports store at
// .../executions/{job_id}/reports/{step_id}/{report_id}.json, report_id
// being the catalog entry's new id, then its catalog item
// (attribute_not_exists), so the catalog never points at a missing file.
// Every report has its own file and entry: a second report of the same
// step (another type, or the same again) replaces nothing. With
// SkipCatalog it writes the file only and returns the entry it did not
// write (its S3Location names the file); no request goes to DynamoDB.
func (h *Reports) Write(ctx context.Context, ref JobRef, stepID string, r Report, opts ...func(*ReportOptions)) (_ *ReportEntry, err error) {
	if err := h.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Reports.Write")
	defer span.End(&err)
	if err := refuseReserved("JobRef.JourneyID", ref.JourneyID); err != nil {
		return nil, err
	}
	var o ReportOptions
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	return h.s.writeReport(ctx, ref, stepID, r, o)
}

// Read reads every report file of a job from the reports store (the
// seed's get_job_reports), in object key order: by step id, then by
// report id, which for ids the store made is the order they were written.
// Files at the seed's own key (.../reports/{step_id}.json, written by
// others) are read too.
func (h *Reports) Read(ctx context.Context, ref JobRef) (_ []Report, err error) {
	if err := h.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Reports.Read")
	defer span.End(&err)
	if err := refuseReserved("JobRef.JourneyID", ref.JourneyID); err != nil {
		return nil, err
	}
	return h.s.jobReports(ctx, ref)
}

// ListCatalog returns one page of a job's report catalog entries through
// GSI1 (GSI1PK REPORTS#{jobId}), oldest generatedAt first, or newest first
// with NewestFirst. The order is total: entries generated in the same
// microsecond are ordered by their unique base-table sort key
// (REPORT#{jobId}#{reportType}#{ts}#{reportId}), in the list's direction,
// and cursors resume inside a run of ties.
func (h *Reports) ListCatalog(ctx context.Context, jobID string, cursor string, opts ...func(*ListOptions)) (_ table.Page[ReportEntry], err error) {
	if err := h.ready(ctx); err != nil {
		return table.Page[ReportEntry]{}, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Reports.ListCatalog")
	defer span.End(&err)
	o, err := readOptions(listReportsKind, opts)
	if err != nil {
		return table.Page[ReportEntry]{}, err
	}
	return h.s.listCatalog(ctx, jobID, cursor, o)
}

// Catalog walks every page of ListCatalog, in its order.
func (h *Reports) Catalog(ctx context.Context, jobID string, opts ...func(*ListOptions)) iter.Seq2[ReportEntry, error] {
	return table.Walk(func(cursor string) (table.Page[ReportEntry], error) {
		return h.ListCatalog(ctx, jobID, cursor, opts...)
	})
}

package journey

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

// Report catalog keys (declared in declare).
const (
	// SK "REPORT#JOB-456#performance#2025-11-01T20:35:00.000000Z#RPT-ABC".
	reportSortKey = "REPORT#{jobId}#{reportType}#{generatedAt:time}#{reportId}"
	// GSI1PK "REPORTS#JOB-456", GSI1SK "2025-11-01T20:35:00.000000Z".
	reportsIndexPartition, reportIndexSort = "REPORTS#{jobId}", "{generatedAt:time}"
)

// reportSK tells a report entry's sort key (backups, patterns).
var reportSK = keys.MustSort(reportSortKey)

// ReportType is what a report analyses.
type ReportType string

// The seed's report types.
const (
	ReportSummary          ReportType = "summary"
	ReportPerformance      ReportType = "performance"
	ReportErrorAnalysis    ReportType = "error_analysis"
	ReportCustom           ReportType = "custom"
	ReportTimeline         ReportType = "timeline"
	ReportMetricsDashboard ReportType = "metrics"
)

func (t ReportType) valid() bool {
	switch t {
	case ReportSummary, ReportPerformance, ReportErrorAnalysis, ReportCustom, ReportTimeline, ReportMetricsDashboard:
		return true
	}
	return false
}

// Report is a step's report file in the reports store.
type Report struct {
	// ReportID defaults to "{jobId}_{stepId}", as in the seed's file.
	ReportID           string         `json:"reportId"`
	ReportType         ReportType     `json:"reportType"`
	Title              string         `json:"title"`
	Summary            string         `json:"summary"`
	ExecutionSummary   map[string]any `json:"executionSummary,omitempty"`
	PerformanceMetrics map[string]any `json:"performanceMetrics,omitempty"`
	DetailedResults    map[string]any `json:"detailedResults,omitempty"`
	Recommendations    []string       `json:"recommendations,omitempty"`
	// GeneratedAt defaults to the store's clock.
	GeneratedAt Time `json:"generatedAt"`
}

// sections counts the report's non-empty parts, the catalog's
// reportSections.
func (r Report) sections() int {
	n := 0
	for _, ok := range []bool{r.Summary != "", len(r.ExecutionSummary) > 0, len(r.PerformanceMetrics) > 0,
		len(r.DetailedResults) > 0, len(r.Recommendations) > 0} {
		if ok {
			n++
		}
	}
	return n
}

// ReportMetrics describe a report file.
type ReportMetrics struct {
	ContentSize    int     `dynamodbav:"contentSize" json:"contentSize"`       // bytes
	GenerationTime float64 `dynamodbav:"generationTime" json:"generationTime"` // seconds
	ReportSections int     `dynamodbav:"reportSections" json:"reportSections"`
}

// ReportEntry is a report's catalog item in DynamoDB (SK REPORT#...).
type ReportEntry struct {
	ReportID    string        `dynamodbav:"reportId" json:"reportId"`
	JobID       string        `dynamodbav:"jobId" json:"jobId"`
	ReportType  ReportType    `dynamodbav:"reportType" json:"reportType"`
	Title       string        `dynamodbav:"title" json:"title"`
	Summary     string        `dynamodbav:"summary" json:"summary"`
	S3Location  string        `dynamodbav:"s3Location" json:"s3Location"`
	GeneratedAt Time          `dynamodbav:"generatedAt" json:"generatedAt"`
	Status      string        `dynamodbav:"status" json:"status"`
	Metrics     ReportMetrics `dynamodbav:"metrics" json:"metrics"`

	JourneyID string `dynamodbav:"-" json:"journeyId"`
	CreatedAt Time   `dynamodbav:"-" json:"createdAt"`
}

// reportItem is a report catalog entry as stored (declare): the entry is
// Data, and its key parts, kept in the keys only, are copies of the
// entry's fields.
type reportItem struct {
	JourneyID   string      `dynamodbav:"journeyId"`
	JobID       string      `dynamodbav:"jobId"`
	ReportType  ReportType  `dynamodbav:"reportType"`
	GeneratedAt time.Time   `dynamodbav:"generatedAt"`
	ReportID    string      `dynamodbav:"reportId"`
	CreatedAt   string      `dynamodbav:"CreatedAt"`
	Data        ReportEntry `dynamodbav:"Data"`
}

func reportItemOf(e ReportEntry) reportItem {
	return reportItem{JourneyID: e.JourneyID, JobID: e.JobID, ReportType: e.ReportType, GeneratedAt: e.GeneratedAt.Time,
		ReportID: e.ReportID, CreatedAt: e.CreatedAt.String(), Data: e}
}

func (it reportItem) entry() (ReportEntry, error) {
	e := it.Data
	e.JourneyID = it.JourneyID
	return e, e.CreatedAt.parse(it.CreatedAt)
}

// writeReport implements [Reports.Write].
func (s *Store) writeReport(ctx context.Context, ref JobRef, stepID string, r Report, o ReportOptions) (*ReportEntry, error) {
	if err := ref.check(); err != nil {
		return nil, err
	}
	if err := checkID("stepId", stepID); err != nil {
		return nil, err
	}
	if !r.ReportType.valid() {
		return nil, inputError("Report.ReportType", fmt.Sprintf("%q", r.ReportType), "not one of the seed's report types")
	}
	if r.Title == "" {
		return nil, inputError("Report.Title", `""`, "a report needs a title")
	}
	start := s.now()
	if r.ReportID == "" {
		r.ReportID = ref.JobID + "_" + stepID
	}
	if r.GeneratedAt.IsZero() {
		r.GeneratedAt = Time{start}
	}
	r.GeneratedAt = At(r.GeneratedAt.Time)
	catalogID, err := s.newID("RPT")
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(r)
	if err != nil {
		return nil, inputError("Report", r.ReportID, "cannot encode as JSON: "+err.Error())
	}
	key, err := objectKey(reportObjects, ref.JourneyID, ref.StageID, ref.JobID, stepID, catalogID)
	if err != nil {
		return nil, err
	}
	if err := s.reports.Put(ctx, key, bytes.NewReader(body), blobstore.WithContentType("application/json"),
		blobstore.WithSize(int64(len(body)))); err != nil {
		return nil, fmt.Errorf("journey: write report file %s: %w", key, err)
	}
	done := s.now()
	e := ReportEntry{ReportID: catalogID, JobID: ref.JobID, ReportType: r.ReportType, Title: r.Title,
		Summary: r.Summary, S3Location: s3Location(s.opts.ReportsBucket, key), GeneratedAt: r.GeneratedAt,
		Status: "generated", Metrics: ReportMetrics{ContentSize: len(body), GenerationTime: elapsed(start, done),
			ReportSections: r.sections()},
		JourneyID: ref.JourneyID, CreatedAt: Time{done}}
	if o.SkipCatalog {
		return &e, nil
	}
	if _, err := s.ents.reports.Create(ctx, reportItemOf(e)); err != nil {
		return nil, err
	}
	return &e, nil
}

// jobReports implements [Reports.Read].
func (s *Store) jobReports(ctx context.Context, ref JobRef) ([]Report, error) {
	if err := checkFilesRef(ref); err != nil {
		return nil, err
	}
	var out []Report
	prefix, err := jobFilesPrefix(reportObjects, "reports", ref)
	if err != nil {
		return nil, err
	}
	for info, err := range s.reports.List(ctx, prefix) {
		if err != nil {
			return nil, fmt.Errorf("journey: list report files of %s: %w", ref.JobID, err)
		}
		var r Report
		if err := readJSON(ctx, s.reports, info.Key, &r); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// listCatalog implements [Reports.ListCatalog].
func (s *Store) listCatalog(ctx context.Context, jobID, cursor string, o ListOptions) (table.Page[ReportEntry], error) {
	if err := checkID("jobId", jobID); err != nil {
		return table.Page[ReportEntry]{}, err
	}
	page, err := s.ents.reports.List(ctx, reportItem{JobID: jobID}, cursor, entityList(IndexGSI1, o)...)
	if err != nil {
		return table.Page[ReportEntry]{}, err
	}
	return pageOf(page, reportItem.entry)
}

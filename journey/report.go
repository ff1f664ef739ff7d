package journey

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

// Report catalog keys.
var (
	// SK "REPORT#JOB-456#performance#2025-11-01T20:35:00.000000Z#RPT-ABC".
	reportSK = keys.MustSort("REPORT#{jobId}#{reportType}#{generatedAt:time}#{reportId}")
	// GSI1PK "REPORTS#JOB-456".
	reportsGSI1PK = keys.MustPartition("REPORTS#{jobId}")
	// GSI1SK "2025-11-01T20:35:00.000000Z".
	reportGSI1SK = keys.MustSort("{generatedAt:time}")
)

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

func reportRecord(journeyID string, e ReportEntry) (record[ReportEntry], error) {
	pk, err := journeyPK.Build(journeyID)
	if err != nil {
		return record[ReportEntry]{}, inputError("journeyId", journeyID, err.Error())
	}
	sk, err := reportSK.Build(e.JobID, string(e.ReportType), e.GeneratedAt.Time, e.ReportID)
	if err != nil {
		return record[ReportEntry]{}, inputError("report", e.ReportID, err.Error())
	}
	gpk, _ := reportsGSI1PK.Build(e.JobID)
	gsk, _ := reportGSI1SK.Build(e.GeneratedAt.Time)
	return record[ReportEntry]{PK: pk, SK: sk, EntityType: EntityReport, GSI1PK: gpk, GSI1SK: gsk,
		CreatedAt: e.CreatedAt.String(), Data: e}, nil
}

func reportFrom(rec record[ReportEntry]) (ReportEntry, error) {
	e := rec.Data
	e.JourneyID = strings.TrimPrefix(rec.PK, "JOURNEY#")
	return e, e.CreatedAt.parse(rec.CreatedAt)
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
	rec, err := reportRecord(ref.JourneyID, e)
	if err != nil {
		return nil, err
	}
	if o.SkipCatalog {
		return &e, nil
	}
	if err := s.t.Put(ctx, rec, table.IfNotExists()); err != nil {
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
	gpk, _ := reportsGSI1PK.Build(jobID)
	page, err := table.QueryPage[record[ReportEntry]](ctx, s.t, table.Query{Index: IndexGSI1, Partition: gpk,
		Descending: o.NewestFirst, Limit: int32(o.Limit), TieBreak: []string{attrSK}}, cursor)
	if err != nil {
		return table.Page[ReportEntry]{}, err
	}
	return pageOf(page, reportFrom)
}

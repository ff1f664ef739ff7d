// Command journey runs one AI Job Engine transformation journey (docs/systems/journey.md)
// end to end: it creates a journey with its six default stages (one of
// them optional) and some Second Brain rules, runs a job per stage with
// step logs and reports, shows that a stage runs one execution at a time,
// lets the data_migration job fail once and retries it, skips the optional
// stage, and prints the final dashboard, the jobs page by page, the failed
// job's logs and a backup. A second journey is cancelled with a job
// running, which the cancel stops (JobCancelled). A third shows stages
// running in order and a job whose worker died: past its one-second
// configuration.timeout, Jobs.Recover fails it and the stage starts
// again; then the journey is deleted: its items go, its log files stay
// (the audit trail).
//
//	go run ./examples/journey             # in-memory fake, in-memory blobs
//	TABLEKIT_DYNAMODB_ENDPOINT=http://127.0.0.1:8000 \
//	TABLEKIT_S3_ENDPOINT=http://127.0.0.1:4568 go run ./examples/journey
//	go run ./examples/journey -aws        # real AWS, default config chain
//
// It creates the table and the two buckets when missing, gives the logs
// bucket the design's lifecycle rule (Store.Setup; s3rver has none, which
// it says), and exits non-zero on any failure or unexpected outcome.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/examples/internal/exampleenv"
	"github.com/tablekit/tablekit/journey"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "journey example:", err)
		os.Exit(1)
	}
}

// run runs the example with command-line args; it can run any number of
// times in one process (its flags are its own).
func run(args []string) error {
	flags := flag.NewFlagSet("journey", flag.ContinueOnError)
	useAWS := flags.Bool("aws", false, exampleenv.AWSFlagUsage)
	tableName := flags.String("table", journey.DefaultTableName, "DynamoDB table")
	logsBucket := flags.String("logs-bucket", journey.DefaultLogsBucket, "S3 bucket for log files")
	reportsBucket := flags.String("reports-bucket", journey.DefaultReportsBucket, "S3 bucket for report files")
	backupsBucket := flags.String("backups-bucket", journey.DefaultBackupsBucket, "S3 bucket for journey exports")
	if err := flags.Parse(args); err != nil {
		return err
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	env, err := exampleenv.Open(ctx, exampleenv.Config{AWS: *useAWS, Bucket: *logsBucket})
	if err != nil {
		return err
	}
	// The seed keeps reports and backups in buckets of their own.
	reportStore, err := env.Bucket(ctx, *reportsBucket)
	if err != nil {
		return err
	}
	backupStore, err := env.Bucket(ctx, *backupsBucket)
	if err != nil {
		return err
	}
	fmt.Println("using", env, "(logs);", *reportsBucket, "and", *backupsBucket, "beside it (reports, backups)")
	store, err := journey.NewStore(env.DB, env.Blobs, journey.TableName(*tableName),
		journey.WithReports(reportStore), journey.WithBackups(backupStore), func(o *journey.Options) {
			o.LogsBucket, o.ReportsBucket = *logsBucket, *reportsBucket
		})
	if err != nil {
		return err
	}
	// Setup creates the table and gives the logs bucket the design's
	// lifecycle rule (full logs to Glacier after 90 days). s3rver keeps no
	// lifecycle rules: say so and go on (on AWS the rule is applied).
	switch err := store.Setup(ctx); {
	case errors.Is(err, blobstore.ErrUnsupported):
		fmt.Println("  the logs bucket's lifecycle rule is not applied:", err)
	case err != nil:
		return fmt.Errorf("setup: %w", err)
	default:
		fmt.Println("  table ready; logs bucket: journeys/ to Glacier after", journey.DefaultArchiveLogsAfterDays, "days")
	}

	// An id unique to this run, so runs against a long-lived table (and
	// two runs in one process) do not collide.
	id := "JRN-" + strings.ReplaceAll(time.Now().UTC().Format("20060102-150405.000000"), ".", "-")
	stages := journey.DefaultStages()
	stages[3].CanSkip = true // migration_planning: this catalog needs no plan
	fmt.Println("\n== create journey", id)
	created, err := store.Journeys().Create(ctx, journey.NewJourney{
		ID: id, Name: "Product Catalog Migration to TMF620",
		Description: "Transform legacy product catalog to TMF620 API standard",
		Priority:    journey.PriorityHigh, CreatedBy: "data_team", ODAComponentType: "PRODUCTCATALOG",
		Source: journey.Source{Type: "schema-based", SchemaID: "schema-PRODUCTCATALOG-001",
			SchemaName: "Legacy Product Database", SchemaVersion: "1.0.0"},
		Configuration: journey.Configuration{Timeout: 1800, MaxDepth: 5, TMFSpecVersion: "4.0.0", OutputFormat: "json",
			RetryAttempts: 3, EnableDetailedLogging: true, ValidateAtEachStage: true, SecondBrainEnabled: true,
			RuleEngineVersion: "v1.0"},
		Stages: stages,
	})
	if err != nil {
		return err
	}
	for _, st := range created.Stages {
		fmt.Printf("  stage %d %-24s %d steps\n", st.Order, st.StageID, len(st.Steps))
	}

	fmt.Println("\n== Second Brain rules")
	rules := []journey.NewRule{
		{StageID: "raw_analysis", Title: "Flag free-text price columns", Type: journey.RuleDataInterpretation, Priority: journey.PriorityLow},
		{StageID: "raw_analysis", Title: "Map Product SKU to TMF Product Code", Type: journey.RuleFieldMapping, Priority: journey.PriorityHigh,
			Content: "Map 'sku' field to TMF 'productCode' with format validation"},
		{StageID: "raw_analysis", Title: "Never drop discontinued products", Type: journey.RuleBusinessLogic, Priority: journey.PriorityCritical},
		{StageID: "raw_analysis", Title: "Prefer ISO 4217 currency codes", Type: journey.RuleDataInterpretation, Priority: journey.PriorityMedium},
		{StageID: "tmf_mapping", Title: "productOffering.lifecycleStatus from status", Type: journey.RuleFieldMapping, Priority: journey.PriorityHigh},
		{StageID: "verification_validation", Title: "GDPR: no personal data in descriptions", Type: journey.RuleComplianceCheck, Priority: journey.PriorityCritical},
	}
	var added []*journey.Rule
	for _, r := range rules {
		r.JourneyID = id
		rule, err := store.Rules().Add(ctx, r)
		if err != nil {
			return err
		}
		added = append(added, rule)
	}
	if _, err := store.Rules().SetStatus(ctx, added[0].Ref(), journey.RuleInactive); err != nil {
		return err
	}
	stageRules, err := store.Rules().ForStage(ctx, id, "raw_analysis")
	if err != nil {
		return err
	}
	fmt.Println("  raw_analysis runs its rules in this order:")
	for _, r := range stageRules {
		fmt.Printf("    %-8s #%03d %-10s %s\n", r.Priority, r.Index, r.Status, r.Title)
	}
	if stageRules[0].Priority != journey.PriorityCritical || stageRules[len(stageRules)-1].Priority != journey.PriorityLow {
		return errors.New("rules are not in priority order")
	}

	var failedJob *journey.Job
	for _, st := range created.Stages {
		fmt.Printf("\n== stage %d: %s\n", st.Order, st.StageID)
		if st.CanSkip {
			skipped, err := store.Stages().Skip(ctx, id, st.StageID)
			if err != nil {
				return err
			}
			fmt.Println("  skipped:", skipped.Status)
			continue
		}
		outcome := journey.JobCompleted
		if st.StageID == "data_migration" {
			outcome = journey.JobFailed // the first attempt fails; it is retried below
		}
		job, err := runJob(ctx, store, id, st, outcome)
		if err != nil {
			return err
		}
		if outcome == journey.JobFailed {
			failedJob = job
			fmt.Println("  retrying", st.StageID)
			retry, err := runJob(ctx, store, id, st, journey.JobCompleted)
			if err != nil {
				return err
			}
			if retry.ExecutionNumber != job.ExecutionNumber+1 {
				return fmt.Errorf("retry got execution %d after %d", retry.ExecutionNumber, job.ExecutionNumber)
			}
		}
	}

	fmt.Println("\n== dashboard")
	page, err := store.Journeys().List(ctx, "", journey.Limit(5))
	if err != nil {
		return err
	}
	fmt.Println("  newest journeys:")
	for _, j := range page.Items {
		fmt.Printf("    %s %-10s %3d%% %s\n", j.ID, j.Status, j.OverallProgress, j.Name)
	}
	c, err := store.Journeys().Load(ctx, id, journey.Consistent())
	if err != nil {
		return err
	}
	j := c.Journey
	a := j.Aggregates
	fmt.Printf("  %s: %s, %d%%, %d stages, %d rules (%d active), %d jobs (%d completed, %d failed), %s of execution\n",
		j.ID, j.Status, j.OverallProgress, len(c.Stages), a.TotalRules, a.ActiveRules, a.TotalJobs, a.CompletedJobs, a.FailedJobs, a.TotalExecutionTime)
	fmt.Printf("  logs: %d (%d warnings, %d errors); %d log summaries and %d reports in the partition\n",
		a.TotalLogs, a.TotalWarnings, a.TotalErrors, len(c.Logs), len(c.Reports))
	for _, st := range c.Stages {
		if latest := c.LatestJob(st.StageID); latest != nil {
			fmt.Printf("    %d %-24s %-10s latest %s (execution %d, %s, %.1fs)\n", st.Order, st.StageID, st.Status,
				latest.JobID, latest.ExecutionNumber, latest.Status, latest.Duration)
		} else {
			fmt.Printf("    %d %-24s %-10s no job\n", st.Order, st.StageID, st.Status)
		}
	}

	fmt.Println("\n== jobs, 4 a page (job items only: no log summary is read)")
	var listed int
	for cursor, page := "", 1; ; page++ {
		p, err := store.Jobs().List(ctx, id, cursor, journey.Limit(4))
		if err != nil {
			return err
		}
		for _, job := range p.Items {
			fmt.Printf("    page %d: %d %-24s execution %d %s\n", page, job.Order, job.StageID, job.ExecutionNumber, job.Status)
		}
		listed += len(p.Items)
		if cursor = p.Next; cursor == "" {
			break
		}
	}
	if listed != a.TotalJobs {
		return fmt.Errorf("listed %d jobs, the journey counts %d", listed, a.TotalJobs)
	}
	if j.Status != journey.StatusCompleted || j.OverallProgress != 100 || a.TotalJobs != 6 || a.CompletedJobs != 5 ||
		a.FailedJobs != 1 || a.TotalRules != 6 || a.ActiveRules != 5 || a.TotalErrors != 1 {
		return fmt.Errorf("unexpected final journey: %s %d%% %+v", j.Status, j.OverallProgress, a)
	}

	fmt.Println("\n== the failed job's logs (from S3) and its newest summaries (GSI1)")
	entries, err := store.Logs().Read(ctx, failedJob.Ref())
	if err != nil {
		return err
	}
	for _, e := range entries {
		fmt.Printf("    %s %-7s %-10s %s\n", e.Timestamp, e.Level, e.StepID, e.Message)
	}
	// Entries logged within one microsecond carry the same timestamp, and
	// the check below holds whatever order such ties come back in: the
	// summaries are newest first by timestamp, and the error (logged last)
	// carries the newest timestamp.
	var summaries []journey.LogSummary
	for cursor := ""; ; {
		page, err := store.Logs().ListSummaries(ctx, failedJob.JobID, cursor, journey.NewestFirst(), journey.Limit(2))
		if err != nil {
			return err
		}
		summaries = append(summaries, page.Items...)
		if cursor = page.Next; cursor == "" {
			break
		}
	}
	for _, s := range summaries {
		fmt.Printf("    summary: %s %-7s %s\n", s.Timestamp, s.Level, s.Message)
	}
	if err := checkNewestFirst(summaries, failedJob.Metrics.TotalLogs); err != nil {
		return err
	}
	reports, err := store.Reports().Read(ctx, failedJob.Ref())
	if err != nil {
		return err
	}
	for _, r := range reports {
		fmt.Printf("    report %s: %s\n", r.ReportID, r.Summary)
	}

	fmt.Println("\n== cancel a journey with a job running")
	other, err := store.Journeys().Create(ctx, journey.NewJourney{ID: id + "-X", Name: "Cancelled migration"})
	if err != nil {
		return err
	}
	running, err := store.Jobs().Start(ctx, journey.NewJob{JourneyID: other.Journey.ID, StageID: "raw_analysis"})
	if err != nil {
		return err
	}
	cancelled, err := store.Journeys().Cancel(ctx, other.Journey.ID)
	if err != nil {
		return err
	}
	stopped, err := store.Jobs().Get(ctx, running.Ref(), journey.Consistent())
	if err != nil {
		return err
	}
	fmt.Printf("  %s %s; its job %s %s\n", cancelled.ID, cancelled.Status, stopped.JobID, stopped.Status)
	if cancelled.Status != journey.StatusCancelled || stopped.Status != journey.JobCancelled {
		return fmt.Errorf("cancel left the journey %s and its job %s", cancelled.Status, stopped.Status)
	}

	fmt.Println("\n== a worker dies: its job times out")
	lost, err := store.Journeys().Create(ctx, journey.NewJourney{ID: id + "-T", Name: "Worker lost",
		Configuration: journey.Configuration{Timeout: 1, RetryAttempts: 1}})
	if err != nil {
		return err
	}
	// Stages run in order: tmf_mapping waits for raw_analysis and stripped_schema.
	if _, err := store.Jobs().Start(ctx, journey.NewJob{JourneyID: lost.Journey.ID, StageID: "tmf_mapping"}); !errors.Is(err, journey.ErrStageOrder) {
		return fmt.Errorf("a start of tmf_mapping before raw_analysis: %v", err)
	}
	fmt.Println("  tmf_mapping refused: raw_analysis is not done")
	deadJob, err := store.Jobs().Start(ctx, journey.NewJob{JourneyID: lost.Journey.ID, StageID: "raw_analysis"})
	if err != nil {
		return err
	}
	fmt.Printf("  %s started with a 1 s timeout; its worker never comes back\n", deadJob.JobID)
	time.Sleep(time.Until(deadJob.Deadline()) + 100*time.Millisecond)
	recovered, err := store.Jobs().Recover(ctx, journey.OfJourney(lost.Journey.ID))
	if err != nil {
		return err
	}
	if len(recovered.Failed) != 1 || !recovered.Failed[0].TimedOut {
		return fmt.Errorf("recover failed %d jobs, want the timed-out one", len(recovered.Failed))
	}
	fmt.Printf("  recover: %s %s (%s)\n", recovered.Failed[0].JobID, recovered.Failed[0].Status, *recovered.Failed[0].ErrorMessage)
	retry, err := store.Jobs().Start(ctx, journey.NewJob{JourneyID: lost.Journey.ID, StageID: "raw_analysis"})
	if err != nil {
		return err
	}
	fmt.Printf("  raw_analysis starts again: %s, execution %d\n", retry.JobID, retry.ExecutionNumber)
	if _, err := store.Jobs().Finish(ctx, retry.Ref(), journey.Finish{Status: journey.JobCompleted}); err != nil {
		return err
	}

	fmt.Println("\n== delete the worker-lost journey")
	deleted, err := store.Journeys().Delete(ctx, lost.Journey.ID)
	if err != nil {
		return err
	}
	if !deleted.FilesKept {
		return fmt.Errorf("a delete without PurgeFilesOnDelete deleted %d files", deleted.Files)
	}
	fmt.Printf("  deleted %s: %d items; its log and report files stay (journey.PurgeFilesOnDelete deletes them)\n", deleted.JourneyID, deleted.Items)
	if _, err := store.Journeys().Get(ctx, lost.Journey.ID); !errors.Is(err, journey.ErrJourneyNotFound) {
		return fmt.Errorf("a deleted journey reads as %v", err)
	}

	fmt.Println("\n== backup")
	info, err := store.Backups().Export(ctx, id)
	if err != nil {
		return err
	}
	fmt.Printf("  %d items, %d bytes at s3://%s/%s\n", info.Items, info.Size, *backupsBucket, info.Key)
	return nil
}

// checkNewestFirst checks a job's log summaries read newest first: want
// of them, timestamps never increasing, and an error among those with the
// newest timestamp. It depends on no order among entries of one instant.
func checkNewestFirst(summaries []journey.LogSummary, want int) error {
	if len(summaries) != want || want == 0 {
		return fmt.Errorf("unexpected recent logs: %d summaries, want %d", len(summaries), want)
	}
	newest := summaries[0].Timestamp
	errorAtNewest := false
	for i, s := range summaries {
		if i > 0 && s.Timestamp.After(summaries[i-1].Timestamp.Time) {
			return fmt.Errorf("unexpected recent logs: %s after %s in newest-first order", s.Timestamp, summaries[i-1].Timestamp)
		}
		if s.Timestamp.Equal(newest.Time) && s.Level == "error" {
			errorAtNewest = true
		}
	}
	if !errorAtNewest {
		return fmt.Errorf("unexpected recent logs: no error among the newest (%s)", newest)
	}
	return nil
}

// runJob runs one execution of a stage: each step logs, reports and moves
// the job's progress; the job ends with outcome.
func runJob(ctx context.Context, store *journey.Store, journeyID string, st journey.Stage, outcome journey.JobStatus) (*journey.Job, error) {
	job, err := store.Jobs().Start(ctx, journey.NewJob{JourneyID: journeyID, StageID: st.StageID,
		Configuration: journey.JobConfiguration{Timeout: 1800, RetryAttempts: 3, EnableDetailedLogging: true}})
	if err != nil {
		return nil, err
	}
	// A stage runs one execution at a time.
	var busy *journey.StatusError
	if _, err := store.Jobs().Start(ctx, journey.NewJob{JourneyID: journeyID, StageID: st.StageID}); !errors.As(err, &busy) {
		return nil, fmt.Errorf("a second start of a running stage: %v", err)
	}
	ref := job.Ref()
	fmt.Printf("  %s started, execution %d\n", job.JobID, job.ExecutionNumber)
	steps := []string{"run"}
	if len(st.Steps) > 0 {
		steps = steps[:0]
		for _, s := range st.Steps {
			steps = append(steps, s.StepID)
		}
	}
	for i, step := range steps {
		if _, err := store.Jobs().SetStepStatus(ctx, ref, step, journey.StepRunning); err != nil {
			return nil, err
		}
		log, err := store.Logs().Logger(ref, step, func(o *journey.LoggerOptions) { o.Source = st.StageID + "_worker" })
		if err != nil {
			return nil, err
		}
		log.Debug("step started", map[string]any{"step": step})
		log.Info("Processing table: products", map[string]any{"rows": 10000})
		if st.StageID == "raw_analysis" {
			log.Warning("Missing index on product_id", map[string]any{"table": "products"})
		}
		failing := outcome == journey.JobFailed && i == len(steps)-1
		if failing {
			log.Error("Target API rejected batch 17: HTTP 503", map[string]any{"batch": 17, "status": 503})
		}
		if err := log.Close(ctx); err != nil {
			return nil, err
		}
		report := journey.Report{ReportType: journey.ReportPerformance, Title: step + " report",
			Summary:            fmt.Sprintf("%s of %s processed 10000 records", step, st.StageID),
			PerformanceMetrics: map[string]any{"throughput": 220.5, "errorRate": 0.0},
			Recommendations:    []string{"Consider parallel processing for larger databases"}}
		if _, err := store.Reports().Write(ctx, ref, step, report); err != nil {
			return nil, err
		}
		status := journey.StepCompleted
		if failing {
			status = journey.StepFailed
		}
		if _, err := store.Jobs().SetStepStatus(ctx, ref, step, status); err != nil {
			return nil, err
		}
		if !failing {
			if _, err := store.Jobs().SetProgress(ctx, ref, (i+1)*100/len(steps), step); err != nil {
				return nil, err
			}
		}
	}
	finish := journey.Finish{Status: outcome, Results: map[string]float64{"recordsProcessed": 10000, "recordsSucceeded": 10000}}
	if outcome == journey.JobFailed {
		finish.ErrorMessage = "Target API rejected batch 17: HTTP 503"
		finish.Results = map[string]float64{"recordsProcessed": 1700, "recordsSucceeded": 1600, "recordsFailed": 100}
	}
	job, err = store.Jobs().Finish(ctx, ref, finish)
	if err != nil {
		return nil, err
	}
	fmt.Printf("  %s %s: %d log entries (%d errors), progress %d%%\n", job.JobID, job.Status, job.Metrics.TotalLogs,
		job.Metrics.ErrorCount, job.Progress)
	return job, nil
}

package journey_test

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/journey"
	"github.com/tablekit/tablekit/table"
)

// exampleStore is a store on the in-memory fake, whose clock stands still
// at 2025-11-01T20:00:00Z, with counting ids, so the examples print the
// same every run.
func exampleStore() *journey.Store {
	start := time.Date(2025, 11, 1, 20, 0, 0, 0, time.UTC)
	db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return start } })
	if err := journey.Schema("").EnsureTable(context.Background(), db); err != nil {
		panic(err)
	}
	n := map[string]int{}
	s, err := journey.NewStore(db, blobstore.NewMemory(), journey.Clock(db.Now),
		func(o *journey.Options) {
			o.NewID = func(prefix string) string { n[prefix]++; return fmt.Sprintf("%s-%d", prefix, n[prefix]) }
		})
	if err != nil {
		panic(err)
	}
	return s
}

func ExampleNewStore() {
	ctx := context.Background()
	db := dynamotest.New()
	s, err := journey.NewStore(db, blobstore.NewMemory(), journey.TableName("TransformationSystem-dev"))
	if err != nil {
		panic(err)
	}
	if err := s.EnsureTable(ctx); err != nil {
		panic(err)
	}
	fmt.Println(s.Schema().Name)
	_, err = journey.NewStore(nil, blobstore.NewMemory())
	fmt.Println(err)
	// Output:
	// TransformationSystem-dev
	// table: invalid input: db nil: NewStore needs a table.API
}

func ExampleJourneys_Create() {
	s := exampleStore()
	c, err := s.Journeys().Create(context.Background(), journey.NewJourney{
		ID: "JRN-ABC123456789", Name: "Product Catalog Migration to TMF620", Priority: journey.PriorityHigh,
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(c.Journey.ID, c.Journey.Status)
	for _, st := range c.Stages {
		fmt.Println(st.Order, st.StageID)
	}
	// Output:
	// JRN-ABC123456789 pending
	// 1 raw_analysis
	// 2 stripped_schema
	// 3 tmf_mapping
	// 4 migration_planning
	// 5 data_migration
	// 6 verification_validation
}

func ExampleJobs_Start() {
	ctx := context.Background()
	s := exampleStore()
	if _, err := s.Journeys().Create(ctx, journey.NewJourney{ID: "JRN-1", Name: "demo"}); err != nil {
		panic(err)
	}
	// The first attempt fails; the retry gets the next execution number.
	for _, outcome := range []journey.JobStatus{journey.JobFailed, journey.JobCompleted} {
		job, err := s.Jobs().Start(ctx, journey.NewJob{JourneyID: "JRN-1", StageID: "raw_analysis",
			Configuration: journey.JobConfiguration{RetryAttempts: 3}})
		if err != nil {
			panic(err)
		}
		log, err := s.Logs().Logger(job.Ref(), "schema_extraction")
		if err != nil {
			panic(err)
		}
		log.Info("Successfully extracted 45 tables from source database", map[string]any{"tables_extracted": 45})
		if outcome == journey.JobFailed {
			log.Error("Connection reset", nil)
		}
		if err := log.Close(ctx); err != nil {
			panic(err)
		}
		job, err = s.Jobs().Finish(ctx, job.Ref(), journey.Finish{Status: outcome})
		if err != nil {
			panic(err)
		}
		fmt.Println(job.JobID, "execution", job.ExecutionNumber, job.Status, "logs", job.Metrics.TotalLogs)
	}
	j, _ := s.Journeys().Get(ctx, "JRN-1")
	fmt.Printf("jobs %d, completed %d, failed %d, errors %d\n", j.Aggregates.TotalJobs,
		j.Aggregates.CompletedJobs, j.Aggregates.FailedJobs, j.Aggregates.TotalErrors)
	// Output:
	// JOB-1 execution 1 failed logs 2
	// JOB-2 execution 2 completed logs 1
	// jobs 2, completed 1, failed 1, errors 1
}

func ExampleJourneys_Load() {
	ctx := context.Background()
	s := exampleStore()
	if _, err := s.Journeys().Create(ctx, journey.NewJourney{ID: "JRN-1", Name: "demo"}); err != nil {
		panic(err)
	}
	for _, p := range []journey.Priority{journey.PriorityLow, journey.PriorityCritical, journey.PriorityMedium} {
		if _, err := s.Rules().Add(ctx, journey.NewRule{JourneyID: "JRN-1", StageID: "tmf_mapping",
			Title: string(p) + " rule", Type: journey.RuleFieldMapping, Priority: p}); err != nil {
			panic(err)
		}
	}
	// One Query of the partition.
	c, err := s.Journeys().Load(ctx, "JRN-1")
	if err != nil {
		panic(err)
	}
	fmt.Println(len(c.Stages), "stages,", len(c.Rules), "rules")
	for _, r := range c.StageRules("tmf_mapping") {
		fmt.Println(r.Index, r.Title)
	}
	// Output:
	// 6 stages, 3 rules
	// 2 critical rule
	// 3 medium rule
	// 1 low rule
}

func ExampleJourneys_Pause() {
	ctx := context.Background()
	s := exampleStore()
	if _, err := s.Journeys().Create(ctx, journey.NewJourney{ID: "JRN-1", Name: "demo"}); err != nil {
		panic(err)
	}
	if _, err := s.Journeys().Cancel(ctx, "JRN-1"); err != nil {
		panic(err)
	}
	_, err := s.Journeys().Pause(ctx, "JRN-1")
	fmt.Println(err)
	// Output:
	// journey: cannot pause journey "JRN-1": its status is "cancelled", not "pending" or "running"
}

func ExampleRules_ForStage() {
	ctx := context.Background()
	s := exampleStore()
	if _, err := s.Journeys().Create(ctx, journey.NewJourney{ID: "JRN-1", Name: "JRN-1"}); err != nil {
		panic(err)
	}
	for _, r := range []journey.NewRule{
		{JourneyID: "JRN-1", StageID: "raw_analysis", Title: "Map SKU to productCode", Priority: journey.PriorityHigh,
			Metadata: journey.RuleMetadata{ApplicableStages: []string{"raw_analysis", "tmf_mapping"}}},
		{JourneyID: "JRN-1", StageID: "raw_analysis", Title: "Profile nulls", Priority: journey.PriorityCritical},
		{JourneyID: "JRN-1", StageID: "raw_analysis", Title: "Keep an audit trail", Scope: journey.ScopeProject},
	} {
		r.Type = journey.RuleFieldMapping
		if _, err := s.Rules().Add(ctx, r); err != nil {
			panic(err)
		}
	}
	// The rule library holds the global rules every journey shares.
	if _, err := s.Library().Create(ctx, nil); err != nil {
		panic(err)
	}
	if _, err := s.Library().Add(ctx, journey.NewRule{StageID: "raw_analysis", Title: "GDPR: mask personal data",
		Type: journey.RuleComplianceCheck, Priority: journey.PriorityCritical}); err != nil {
		panic(err)
	}
	// tmf_mapping has no rule of its own: it gets the raw_analysis rule
	// that names it, the journey's project rule and the global one.
	rules, err := s.Rules().ForStage(ctx, "JRN-1", "tmf_mapping")
	if err != nil {
		panic(err)
	}
	for _, r := range rules {
		fmt.Println(r.Priority, r.Scope, r.Title)
	}
	// Output:
	// critical global GDPR: mask personal data
	// high stage Map SKU to productCode
	// medium project Keep an audit trail
}

func ExampleProgressEvents() {
	ctx := context.Background()
	db := dynamotest.New()
	s, err := journey.NewStore(db, blobstore.NewMemory())
	if err != nil {
		panic(err)
	}
	if err := s.EnsureTable(ctx); err != nil {
		panic(err)
	}
	// The table's stream carries both images; a consumer keeps its
	// checkpoints in the lease table.
	if _, err := changes.EnableStream(ctx, db, journey.DefaultTableName, types.StreamViewTypeNewAndOldImages); err != nil {
		panic(err)
	}
	if err := changes.LeaseSchema(changes.DefaultLeaseTable).EnsureTable(ctx, db); err != nil {
		panic(err)
	}
	c, err := changes.New[table.Item](db, db, journey.DefaultTableName, changes.Decode(journey.DecodeItem),
		changes.Name("progress"), changes.Clock(db.Now))
	if err != nil {
		panic(err)
	}

	if _, err := s.Journeys().Create(ctx, journey.NewJourney{ID: "JRN-1", Name: "demo",
		Stages: []journey.Stage{{StageID: "only"}}}); err != nil {
		panic(err)
	}
	job, err := s.Jobs().Start(ctx, journey.NewJob{JourneyID: "JRN-1", StageID: "only", JobID: "JOB-1"})
	if err != nil {
		panic(err)
	}
	if _, err := s.Jobs().Finish(ctx, job.Ref(), journey.Finish{Status: journey.JobCompleted}); err != nil {
		panic(err)
	}

	// Step reads what the stream holds; Run would follow it as it grows.
	var seen []string
	if _, err := c.Step(ctx, func(ctx context.Context, batch []changes.Change[table.Item]) error {
		for _, ch := range batch {
			events, err := journey.ProgressEvents(ch)
			if err != nil {
				return err
			}
			for _, ev := range events {
				seen = append(seen, fmt.Sprintf("%s %s %s %d%%", ev.Kind, ev.StageID, ev.JobID, ev.Progress))
			}
		}
		return nil
	}); err != nil {
		panic(err)
	}
	slices.Sort(seen) // one transaction's items: order by kind for the example
	for _, s := range seen {
		fmt.Println(s)
	}
	// Output:
	// jobCompleted only JOB-1 100%
	// jobStarted only JOB-1 0%
	// journeyCompleted   100%
	// stageCompleted only  0%
}

func ExampleJobs_List() {
	ctx := context.Background()
	s := exampleStore()
	if _, err := s.Journeys().Create(ctx, journey.NewJourney{ID: "JRN-1", Name: "demo"}); err != nil {
		panic(err)
	}
	for range 3 { // three attempts of raw_analysis: each fails, the next retries it
		job, err := s.Jobs().Start(ctx, journey.NewJob{JourneyID: "JRN-1", StageID: "raw_analysis",
			Configuration: journey.JobConfiguration{RetryAttempts: 5}})
		if err != nil {
			panic(err)
		}
		if _, err := s.Jobs().Finish(ctx, job.Ref(), journey.Finish{Status: journey.JobFailed}); err != nil {
			panic(err)
		}
	}
	// Pages of two, read strongly consistently: Consistent() is the one
	// option for Gets and lists alike. Page.Next is "" after the last page.
	cursor := ""
	for {
		page, err := s.Jobs().List(ctx, "JRN-1", cursor, journey.OfStage("raw_analysis"), journey.Limit(2), journey.Consistent())
		if err != nil {
			panic(err)
		}
		for _, j := range page.Items {
			fmt.Println(j.StageID, j.ExecutionNumber, j.Status)
		}
		if cursor = page.Next; cursor == "" {
			break
		}
		fmt.Println("-- next page")
	}
	// Output:
	// raw_analysis 1 failed
	// raw_analysis 2 failed
	// -- next page
	// raw_analysis 3 failed
}

func ExampleBackups_ImportFrom() {
	ctx := context.Background()
	db := dynamotest.New()
	backups := blobstore.NewMemory() // the seed's transformation-backups bucket
	s, err := journey.NewStore(db, blobstore.NewMemory(), journey.WithBackups(backups))
	if err != nil {
		panic(err)
	}
	if err := s.EnsureTable(ctx); err != nil {
		panic(err)
	}
	if _, err := s.Journeys().Create(ctx, journey.NewJourney{ID: "JRN-1", Name: "demo"}); err != nil {
		panic(err)
	}
	info, err := s.Backups().Export(ctx, "JRN-1")
	if err != nil {
		panic(err)
	}
	fmt.Println(info.Key, info.Items, "items")
	// Restore it into another table, all or nothing.
	other, err := journey.NewStore(db, blobstore.NewMemory(), journey.TableName("TransformationSystem-restore"))
	if err != nil {
		panic(err)
	}
	if err := other.EnsureTable(ctx); err != nil {
		panic(err)
	}
	r, _, err := backups.Get(ctx, info.Key)
	if err != nil {
		panic(err)
	}
	defer r.Close()
	c, err := other.Backups().ImportFrom(ctx, "JRN-1", r)
	if err != nil {
		panic(err)
	}
	fmt.Println(c.Journey.ID, c.Journey.Status, len(c.Stages), "stages")
	// Output:
	// journeys/JRN-1/backup.json 7 items
	// JRN-1 pending 6 stages
}

package policies_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/iam"
	"github.com/tablekit/tablekit/iam/policies"
	"github.com/tablekit/tablekit/journey"
	"github.com/tablekit/tablekit/pipeline"
	"github.com/tablekit/tablekit/tasks"
)

func journeyService() iam.Service {
	return policies.Journey(journey.DefaultTableName, journey.DefaultLogsBucket, journey.DefaultReportsBucket, journey.DefaultBackupsBucket)
}

// journeyStore is a journey store on h's enforced fake and its buckets
// (the backups bucket only where the policy has objects there), with
// opts.
func journeyStore(t *testing.T, h *harness, opts ...func(*journey.Options)) *journey.Store {
	store, err := journey.NewStore(h.db, h.bucket(journey.DefaultLogsBucket), append([]func(*journey.Options){journey.Clock(h.fake.Now), func(o *journey.Options) {
		o.Reports = h.bucket(journey.DefaultReportsBucket)
		o.Backups = h.bucket(journey.DefaultBackupsBucket)
	}}, opts...)...)
	require.NoError(t, err)
	return store
}

// journeyServiceFlow: create a journey, its rules and stages, jobs with
// step logs and reports, finish, pause and resume, the reads, a timed-out
// job failed by the next start and by Recover, and a journey deleted (its
// files kept, or purged by a store with journey.PurgeFilesOnDelete), on
// the design's three buckets.
func journeyServiceFlow(t *testing.T, h *harness, store *journey.Store) {
	ctx := context.Background()
	_, err := store.Journeys().Create(ctx, journey.NewJourney{ID: "JRN-1", Name: "demo"})
	require.NoError(t, err)
	rule, err := store.Rules().Add(ctx, journey.NewRule{JourneyID: "JRN-1", StageID: "tmf_mapping", Title: "r", Type: journey.RuleFieldMapping, Priority: journey.PriorityHigh})
	require.NoError(t, err)
	_, err = store.Rules().SetStatus(ctx, rule.Ref(), journey.RuleInactive)
	require.NoError(t, err)
	// Inactive to deprecated moves no count: the transaction fences the
	// rule with a ConditionCheck on the journey instead.
	_, err = store.Rules().SetStatus(ctx, rule.Ref(), journey.RuleDeprecated)
	require.NoError(t, err)
	_, err = store.Rules().ForStage(ctx, "JRN-1", "tmf_mapping")
	require.NoError(t, err)
	_, err = store.Stages().List(ctx, "JRN-1", "")
	require.NoError(t, err)

	job, err := store.Jobs().Start(ctx, journey.NewJob{JourneyID: "JRN-1", StageID: "raw_analysis"})
	require.NoError(t, err)
	_, err = store.Jobs().SetProgress(ctx, job.Ref(), 50, "extract")
	require.NoError(t, err)
	log, err := store.Logs().Logger(job.Ref(), "extract")
	require.NoError(t, err)
	log.Info("started", nil)
	log.Warning("slow source", map[string]any{"ms": 900})
	require.NoError(t, log.Close(ctx))
	_, err = store.Reports().Write(ctx, job.Ref(), "extract", journey.Report{ReportType: journey.ReportSummary, Title: "q"})
	require.NoError(t, err)
	_, err = store.Jobs().Finish(ctx, job.Ref(), journey.Finish{Status: journey.JobCompleted})
	require.NoError(t, err)
	journeyReads(t, store, job.Ref())

	_, err = store.Journeys().Pause(ctx, "JRN-1")
	require.NoError(t, err)
	_, err = store.Journeys().Resume(ctx, "JRN-1")
	require.NoError(t, err)

	// A worker dies: its job is failed past its timeout by the next start
	// of its stage, or by Recover.
	_, err = store.Journeys().Create(ctx, journey.NewJourney{ID: "JRN-2", Name: "timed", Configuration: journey.Configuration{Timeout: 60, RetryAttempts: 3}})
	require.NoError(t, err)
	_, err = store.Jobs().Start(ctx, journey.NewJob{JourneyID: "JRN-2", StageID: "raw_analysis"})
	require.NoError(t, err)
	h.fake.Advance(2 * time.Minute)
	_, err = store.Jobs().Start(ctx, journey.NewJob{JourneyID: "JRN-2", StageID: "raw_analysis"})
	require.NoError(t, err)
	h.fake.Advance(2 * time.Minute)
	res, err := store.Jobs().Recover(ctx)
	require.NoError(t, err)
	assert.Len(t, res.Failed, 1)

	// Delete removes a journey's items (and, purging, its files).
	_, err = store.Journeys().Create(ctx, journey.NewJourney{ID: "JRN-3", Name: "gone"})
	require.NoError(t, err)
	gone, err := store.Jobs().Start(ctx, journey.NewJob{JourneyID: "JRN-3", StageID: "raw_analysis"})
	require.NoError(t, err)
	_, err = store.Reports().Write(ctx, gone.Ref(), "extract", journey.Report{ReportType: journey.ReportSummary, Title: "q"})
	require.NoError(t, err)
	goneLog, err := store.Logs().Logger(gone.Ref(), "extract")
	require.NoError(t, err)
	goneLog.Info("started", nil)
	require.NoError(t, goneLog.Close(ctx))
	_, err = store.Jobs().Finish(ctx, gone.Ref(), journey.Finish{Status: journey.JobCompleted})
	require.NoError(t, err)
	_, err = store.Journeys().Delete(ctx, "JRN-3")
	require.NoError(t, err)
}

// journeyReads are a dashboard's reads of a journey and one of its jobs.
func journeyReads(t *testing.T, store *journey.Store, job journey.JobRef) {
	ctx := context.Background()
	entries, err := store.Logs().Read(ctx, job)
	require.NoError(t, err)
	assert.Len(t, entries, 2)
	_, err = store.Logs().ReadStep(ctx, job, "extract")
	require.NoError(t, err)
	_, err = store.Logs().ListSummaries(ctx, job.JobID, "")
	require.NoError(t, err)
	reports, err := store.Reports().Read(ctx, job)
	require.NoError(t, err)
	assert.Len(t, reports, 1)
	_, err = store.Reports().ListCatalog(ctx, job.JobID, "")
	require.NoError(t, err)
	_, err = store.Jobs().Find(ctx, job.JobID)
	require.NoError(t, err)
	_, err = store.Jobs().List(ctx, job.JourneyID, "")
	require.NoError(t, err)
	_, err = store.Jobs().Latest(ctx, job.JourneyID, "raw_analysis")
	require.NoError(t, err)
	_, err = store.Journeys().Get(ctx, job.JourneyID)
	require.NoError(t, err)
	_, err = store.Journeys().Load(ctx, job.JourneyID)
	require.NoError(t, err)
	_, err = store.Journeys().List(ctx, "")
	require.NoError(t, err)
}

// journeyBackup exports JRN-1 and imports it back over a rule added
// since (the import deletes it): the operator's calls.
func journeyBackup(ctx context.Context, store *journey.Store) (export, imp error) {
	if _, export = store.Backups().Export(ctx, "JRN-1"); export != nil {
		return export, nil
	}
	if _, err := store.Rules().Add(ctx, journey.NewRule{JourneyID: "JRN-1", StageID: "tmf_mapping", Title: "late", Type: journey.RuleFieldMapping}); err != nil {
		return nil, err
	}
	_, imp = store.Backups().Import(ctx, "JRN-1", journey.Overwrite())
	return nil, imp
}

// TestJourneyFlowsRunUnderTheirRuntimePolicy: the service's flows under
// the policy generated for TransformationSystem: no denial, every grant
// used; the backups bucket and the import, an operator's, are denied.
func TestJourneyFlowsRunUnderTheirRuntimePolicy(t *testing.T) {
	h := newHarness(t, journeyService())
	store := journeyStore(t, h)
	journeyServiceFlow(t, h, store)
	h.checkNoDenials()
	h.checkEveryGrantUsed()

	export, _ := journeyBackup(context.Background(), store)
	h.checkDenied("an export to the backups bucket", export)
	_, err := store.Backups().Import(context.Background(), "JRN-1", journey.Overwrite())
	h.checkDenied("an import from the backups bucket", err)
}

// TestJourneyRuntimePolicyDeletesNoFile: the journey design's full logs
// are never deleted, so the runtime policy grants no s3:DeleteObject (the
// flow's Delete keeps the journey's files and uses every grant); a file
// delete is denied.
func TestJourneyRuntimePolicyDeletesNoFile(t *testing.T) {
	policy, err := iam.Runtime(dynamotest.Env, journeyService())
	require.NoError(t, err)
	for _, st := range policy.Statement {
		assert.NotContains(t, []string(st.Action), iam.S3DeleteObject, "statement %s", st.Sid)
	}
	h := newHarness(t, journeyService())
	store := journeyStore(t, h)
	journeyServiceFlow(t, h, store)
	h.checkNoDenials()
	h.checkEveryGrantUsed()
	n := 0
	for _, err := range h.raw[journey.DefaultLogsBucket].List(context.Background(), "journeys/JRN-3/") {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, 1, n, "the deleted journey's log file stays")
	err = h.bucket(journey.DefaultLogsBucket).Delete(context.Background(), "journeys/JRN-1/x.json")
	deniedAs(t, err, "AccessDenied", iam.S3DeleteObject)
}

// TestJourneyPolicyOfAPurgingStoreGrantsDeleteObject: a service whose
// store purges a deleted journey's files (journey.PurgeFilesOnDelete) is
// granted s3:DeleteObject on the logs and reports buckets, and its flow
// uses it.
func TestJourneyPolicyOfAPurgingStoreGrantsDeleteObject(t *testing.T) {
	svc := policies.Journey(journey.DefaultTableName, journey.DefaultLogsBucket, journey.DefaultReportsBucket, journey.DefaultBackupsBucket,
		journey.PurgeFilesOnDelete())
	h := newHarness(t, svc)
	store := journeyStore(t, h, journey.PurgeFilesOnDelete())
	journeyServiceFlow(t, h, store)
	h.checkNoDenials()
	h.checkEveryGrantUsed()
	for _, b := range []string{journey.DefaultLogsBucket, journey.DefaultReportsBucket} {
		for _, err := range h.raw[b].List(context.Background(), "journeys/JRN-3/") {
			assert.NoError(t, err)
			t.Errorf("a file of the purged journey is left in %s", b)
		}
	}
}

// TestJourneyOperatorPolicyRunsExportAndImport: the service's flows and
// the operator's export and import, every grant used.
func TestJourneyOperatorPolicyRunsExportAndImport(t *testing.T) {
	h := newHarnessUnder(t, journeyService(), iam.Operator)
	store := journeyStore(t, h)
	journeyServiceFlow(t, h, store)
	export, imp := journeyBackup(context.Background(), store)
	require.NoError(t, export)
	require.NoError(t, imp)
	h.checkNoDenials()
	h.checkEveryGrantUsed()
}

// TestJourneyReadOnlyPolicyIsTheDesignsDashboardPolicy: the design's
// read-only access (GetItem and Query on the table), with the index and
// the log and report files the dashboard reads: every grant used; a
// create, a progress update and a log write are denied.
func TestJourneyReadOnlyPolicyIsTheDesignsDashboardPolicy(t *testing.T) {
	ctx := context.Background()
	h := newHarnessUnder(t, journeyService(), iam.ReadOnly)
	writer, err := journey.NewStore(h.fake, h.raw[journey.DefaultLogsBucket], journey.Clock(h.fake.Now), journey.WithReports(h.raw[journey.DefaultReportsBucket]))
	require.NoError(t, err)
	_, err = writer.Journeys().Create(ctx, journey.NewJourney{ID: "JRN-1", Name: "demo"})
	require.NoError(t, err)
	job, err := writer.Jobs().Start(ctx, journey.NewJob{JourneyID: "JRN-1", StageID: "raw_analysis"})
	require.NoError(t, err)
	log, err := writer.Logs().Logger(job.Ref(), "extract")
	require.NoError(t, err)
	log.Info("started", nil)
	log.Info("done", nil)
	require.NoError(t, log.Close(ctx))
	_, err = writer.Reports().Write(ctx, job.Ref(), "extract", journey.Report{ReportType: journey.ReportSummary, Title: "q"})
	require.NoError(t, err)

	policy, err := iam.ReadOnly(dynamotest.Env, journeyService())
	require.NoError(t, err)
	assert.Equal(t, iam.Strings{"dynamodb:GetItem", "dynamodb:Query"}, policy.Statement[0].Action, "the design's read-only actions on the table")

	dashboard, err := journey.NewStore(h.db, h.bucket(journey.DefaultLogsBucket), journey.Clock(h.fake.Now), journey.WithReports(h.bucket(journey.DefaultReportsBucket)))
	require.NoError(t, err)
	journeyReads(t, dashboard, job.Ref())
	h.checkNoDenials()
	h.checkEveryGrantUsed()

	_, err = dashboard.Journeys().Create(ctx, journey.NewJourney{ID: "JRN-9", Name: "x"})
	h.checkDenied("a create", err)
	_, err = dashboard.Jobs().SetProgress(ctx, job.Ref(), 60, "extract")
	h.checkDenied("a progress update", err)
	err = h.bucket(journey.DefaultLogsBucket).Put(ctx, "journeys/JRN-1/x.json", bytes.NewReader([]byte("{}")))
	h.checkDenied("a log write", err)
}

// TestJourneyPolicyWithReportsInTheLogsBucket: a store without
// WithReports keeps reports in the logs bucket, and its policy has one
// statement for both.
func TestJourneyPolicyWithReportsInTheLogsBucket(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, policies.Journey(journey.DefaultTableName, "acme-journey-files", "", "acme-journey-backups"))
	store, err := journey.NewStore(h.db, h.bucket("acme-journey-files"), journey.Clock(h.fake.Now),
		journey.WithBackups(h.bucket("acme-journey-backups")))
	require.NoError(t, err)
	_, err = store.Journeys().Create(ctx, journey.NewJourney{ID: "JRN-1", Name: "demo"})
	require.NoError(t, err)
	job, err := store.Jobs().Start(ctx, journey.NewJob{JourneyID: "JRN-1", StageID: "raw_analysis"})
	require.NoError(t, err)
	_, err = store.Reports().Write(ctx, job.Ref(), "extract", journey.Report{ReportType: journey.ReportSummary, Title: "q"})
	require.NoError(t, err)
	reports, err := store.Reports().Read(ctx, job.Ref())
	require.NoError(t, err)
	assert.Len(t, reports, 1)
	h.checkNoDenials()
}

// TestJourneyRuntimePolicyRefusesOtherPrefixesAndTables: the logs bucket
// outside journeys/, another table, and creating one are refused.
func TestJourneyRuntimePolicyRefusesOtherPrefixesAndTables(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, journeyService())
	logs := h.bucket(journey.DefaultLogsBucket)
	err := logs.Put(ctx, "other/x.json", bytes.NewReader([]byte("{}")))
	deniedAs(t, err, "AccessDenied", iam.S3PutObject)
	for _, err := range logs.List(ctx, "other/") {
		deniedAs(t, err, "AccessDenied", iam.S3ListBucket)
	}
	err = h.bucket(journey.DefaultBackupsBucket).Delete(ctx, "journeys/JRN-1/backup.json")
	deniedAs(t, err, "AccessDenied", iam.S3DeleteObject)
	_, err = h.db.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String(journey.DefaultTableName)})
	deniedAs(t, err, "AccessDeniedException", "dynamodb:CreateTable")
	_, err = h.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("TransformationSystem-staging"),
		Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "x"}, "SK": &types.AttributeValueMemberS{Value: "y"}}})
	deniedAs(t, err, "AccessDeniedException", "dynamodb:GetItem")
}

// pipelineServiceFlow: create, update, the lists and tag queries, a
// presigned upload, an execution with its copied input and its output,
// state moves and recovery. It returns the pipeline's id.
func pipelineServiceFlow(t *testing.T, h *harness, store *pipeline.Store) string {
	ctx := context.Background()
	in := pipeline.Input{ID: "p1", Name: "daily", Tags: []pipeline.Tag{{Key: "source", Value: "sap"}}, Groups: []string{"g1"}}
	p, err := store.Create(ctx, in)
	require.NoError(t, err)
	in.Tags = []pipeline.Tag{{Key: "source", Value: "erp"}}
	p, err = store.Update(ctx, p.ID, p.Version, in)
	require.NoError(t, err)
	pipelineReads(t, store, p.ID)

	up, err := store.PresignInputUpload(ctx, p.ID, p.Version)
	require.NoError(t, err)
	// The client's upload through the URL is the bucket's, not the
	// service's: put the file straight into the memory store.
	require.NoError(t, h.raw[pipelineBucket].Put(ctx, up.Key, bytes.NewReader([]byte("a,b\n"))))
	ex, err := store.Executions().Create(ctx, pipeline.ExecutionInput{ID: "e1", PipelineID: p.ID, InputKey: up.Key})
	require.NoError(t, err)
	_, err = store.Executions().Start(ctx, ex.ID)
	require.NoError(t, err)
	require.NoError(t, store.PutOutput(ctx, ex.ID, bytes.NewReader([]byte("out")), 3))
	_, err = store.PresignOutputDownload(ctx, ex.ID)
	require.NoError(t, err)
	_, err = store.Executions().Succeed(ctx, ex.ID)
	require.NoError(t, err)
	stuck, err := store.Executions().Create(ctx, pipeline.ExecutionInput{ID: "e2", PipelineID: p.ID})
	require.NoError(t, err)
	_, err = store.Executions().Start(ctx, stuck.ID)
	require.NoError(t, err)
	h.fake.Advance(time.Hour)
	_, err = store.Maintenance().RecoverExecutions(ctx, p.ID, h.fake.Now())
	require.NoError(t, err)
	_, err = store.Executions().Get(ctx, ex.ID)
	require.NoError(t, err)
	_, err = store.Executions().List(p.ID).Page(ctx, "")
	require.NoError(t, err)
	return p.ID
}

// pipelineReads are the store's reads of a pipeline, its versions, groups
// and tags.
func pipelineReads(t *testing.T, store *pipeline.Store, id string) {
	ctx := context.Background()
	_, err := store.Get(ctx, id)
	require.NoError(t, err)
	_, err = store.Versions().Get(ctx, id, 1)
	require.NoError(t, err)
	_, err = store.Versions().List(id).Page(ctx, "")
	require.NoError(t, err)
	_, err = store.Pipelines().List().Page(ctx, "")
	require.NoError(t, err)
	_, err = store.Pipelines().InGroup("g1").Page(ctx, "")
	require.NoError(t, err)
	_, err = store.Pipelines().ByTags([]pipeline.Tag{{Key: "source", Value: "erp"}}).Page(ctx, "")
	require.NoError(t, err)
	_, err = store.Tags().List().Page(ctx, "")
	require.NoError(t, err)
	_, err = store.Tags().Keys(ctx)
	require.NoError(t, err)
	_, err = store.Tags().Values("source").Page(ctx, "")
	require.NoError(t, err)
}

const pipelineBucket = "pipeline-files"

// TestPipelineFlowsRunUnderTheirRuntimePolicy: the service's flows with no
// denial and every grant used; deleting a pipeline with its files, an
// operator's call, is denied.
func TestPipelineFlowsRunUnderTheirRuntimePolicy(t *testing.T) {
	h := newHarness(t, policies.Pipeline(pipeline.DefaultTableName, pipelineBucket))
	store, err := pipeline.NewStore(h.db, h.bucket(pipelineBucket), pipeline.Clock(h.fake.Now))
	require.NoError(t, err)
	id := pipelineServiceFlow(t, h, store)
	h.checkNoDenials()
	h.checkEveryGrantUsed()
	h.checkDenied("deleting a pipeline and its files", store.Delete(context.Background(), id))
}

// TestPipelineOperatorPolicyDeletesAPipelineWithItsFiles: the service's
// flows and the operator's delete, every grant used.
func TestPipelineOperatorPolicyDeletesAPipelineWithItsFiles(t *testing.T) {
	h := newHarnessUnder(t, policies.Pipeline(pipeline.DefaultTableName, pipelineBucket), iam.Operator)
	store, err := pipeline.NewStore(h.db, h.bucket(pipelineBucket), pipeline.Clock(h.fake.Now))
	require.NoError(t, err)
	id := pipelineServiceFlow(t, h, store)
	require.NoError(t, store.Delete(context.Background(), id))
	h.checkNoDenials()
	h.checkEveryGrantUsed()
}

// TestPipelineReadOnlyPolicyReadsAndWritesNothing: the reads of a
// pipeline, its executions and an output's download URL under the
// read-only policy, every grant used; a create and an update are denied.
func TestPipelineReadOnlyPolicyReadsAndWritesNothing(t *testing.T) {
	ctx := context.Background()
	h := newHarnessUnder(t, policies.Pipeline(pipeline.DefaultTableName, pipelineBucket), iam.ReadOnly)
	writer, err := pipeline.NewStore(h.fake, h.raw[pipelineBucket], pipeline.Clock(h.fake.Now))
	require.NoError(t, err)
	in := pipeline.Input{ID: "p1", Name: "daily", Tags: []pipeline.Tag{{Key: "source", Value: "erp"}}, Groups: []string{"g1"}}
	p, err := writer.Create(ctx, in)
	require.NoError(t, err)
	ex, err := writer.Executions().Create(ctx, pipeline.ExecutionInput{ID: "e1", PipelineID: p.ID})
	require.NoError(t, err)
	_, err = writer.Executions().Start(ctx, ex.ID)
	require.NoError(t, err)
	require.NoError(t, writer.PutOutput(ctx, ex.ID, bytes.NewReader([]byte("out")), 3))

	reader, err := pipeline.NewStore(h.db, h.bucket(pipelineBucket), pipeline.Clock(h.fake.Now))
	require.NoError(t, err)
	pipelineReads(t, reader, p.ID)
	_, err = reader.Executions().Get(ctx, ex.ID)
	require.NoError(t, err)
	_, err = reader.Executions().List(p.ID).Page(ctx, "")
	require.NoError(t, err)
	_, err = reader.PresignOutputDownload(ctx, ex.ID)
	require.NoError(t, err)
	h.checkNoDenials()
	h.checkEveryGrantUsed()

	_, err = reader.Create(ctx, pipeline.Input{ID: "p2", Name: "x"})
	h.checkDenied("a create", err)
	_, err = reader.Update(ctx, p.ID, p.Version, in)
	h.checkDenied("an update", err)
}

// TestChangesConsumerRunsUnderItsPolicy: a changes.Consumer of the jobs
// table reads its stream and keeps its leases under StreamConsumer's
// policy alone (the stream is enabled and the lease table made under the
// admin policy); it cannot read the table's items.
func TestChangesConsumerRunsUnderItsPolicy(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, policies.Tasks("queue"))
	admin, err := iam.Admin(dynamotest.Env, iam.Service{Tables: []iam.Table{{Schema: tasks.Schema("queue")}, {Schema: changes.LeaseSchema(changes.DefaultLeaseTable)}}})
	require.NoError(t, err)
	adminDB, err := dynamotest.Enforce(h.fake, admin)
	require.NoError(t, err)
	_, err = changes.EnableStream(ctx, adminDB, "queue", types.StreamViewTypeNewAndOldImages)
	require.NoError(t, err)
	require.NoError(t, changes.LeaseSchema(changes.DefaultLeaseTable).EnsureTable(ctx, adminDB))

	policy, err := iam.StreamConsumer(dynamotest.Env, tasks.Schema("queue"), changes.DefaultLeaseTable, changes.LeaseKey("queue", changes.DefaultName))
	require.NoError(t, err)
	var denied []string
	var allowed []iam.Request
	db, err := dynamotest.Enforce(h.fake, policy, func(o *dynamotest.EnforceOptions) {
		o.Observe = func(r iam.Request, d iam.Decision) {
			if d != iam.Allowed {
				denied = append(denied, r.Action+" on "+r.Resource)
				return
			}
			allowed = append(allowed, r)
		}
	})
	require.NoError(t, err)
	_, err = h.fake.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("queue"), Item: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "TASK#1"}, "SK": &types.AttributeValueMemberS{Value: "META"}}})
	require.NoError(t, err)

	type row struct {
		PK string `dynamodbav:"PK"`
	}
	c, err := changes.New[row](db, db, "queue", changes.Clock(h.fake.Now))
	require.NoError(t, err)
	var seen []string
	step := func() {
		_, err := c.Step(ctx, func(ctx context.Context, batch []changes.Change[row]) error {
			for _, ch := range batch {
				seen = append(seen, ch.New.PK)
			}
			return nil
		})
		require.NoError(t, err)
	}
	step()
	// A shard rollover (every four hours of the fake's clock): the child
	// shard is taken once its parent's lease says it is finished, which
	// the consumer reads with GetItem.
	h.fake.Advance(5 * time.Hour)
	_, err = h.fake.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("queue"), Item: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "TASK#2"}, "SK": &types.AttributeValueMemberS{Value: "META"}}})
	require.NoError(t, err)
	for i := 0; i < 10 && len(seen) < 2; i++ {
		step()
	}
	require.NoError(t, c.Close(ctx))
	assert.Equal(t, []string{"TASK#1", "TASK#2"}, seen)
	assert.Empty(t, denied)
	for _, st := range policy.Statement {
		for _, a := range st.Action {
			used := false
			for _, r := range allowed {
				used = used || (strings.EqualFold(r.Action, a) && iam.Match(st.Resource[0], r.Resource))
			}
			assert.True(t, used, "the consumer policy grants %s on %s, which the consumer never used", a, st.Resource[0])
		}
	}

	_, err = db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("queue"),
		Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "TASK#1"}, "SK": &types.AttributeValueMemberS{Value: "META"}}})
	deniedAs(t, err, "AccessDeniedException", "dynamodb:GetItem")
	// Every consumer shares the lease table, but the policy confines this
	// group to its own partition: another group of the same table, and the
	// same group name on another table, are refused their leases.
	for _, other := range []struct{ table, group string }{{"queue", "analytics"}, {"orders", changes.DefaultName}} {
		_, err = db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(changes.DefaultLeaseTable), Key: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: changes.LeaseKey(other.table, other.group)}, "sk": &types.AttributeValueMemberS{Value: "x"}}})
		deniedAs(t, err, "AccessDeniedException", "dynamodb:GetItem")
	}
	analytics, err := changes.New[row](db, db, "queue", changes.Clock(h.fake.Now), changes.Name("analytics"))
	require.NoError(t, err)
	_, err = analytics.Step(ctx, func(context.Context, []changes.Change[row]) error { return nil })
	deniedAs(t, err, "AccessDeniedException", "dynamodb:UpdateItem")
}

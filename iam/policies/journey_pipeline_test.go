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

// TestJourneyFlowsRunUnderTheirRuntimePolicy: create a journey, its rules
// and stages, jobs with step logs and reports, finish, pause and resume,
// export to the backups bucket and import back, on the seed's three
// buckets, under the policy generated for TransformationSystem.
func TestJourneyFlowsRunUnderTheirRuntimePolicy(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, journeyService())
	store, err := journey.NewStore(h.db, h.bucket(journey.DefaultLogsBucket), journey.Clock(h.fake.Now), func(o *journey.Options) {
		o.Reports = h.bucket(journey.DefaultReportsBucket)
		o.Backups = h.bucket(journey.DefaultBackupsBucket)
	})
	require.NoError(t, err)

	_, err = store.Journeys().Create(ctx, journey.NewJourney{ID: "JRN-1", Name: "demo"})
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

	entries, err := store.Logs().Read(ctx, job.Ref())
	require.NoError(t, err)
	assert.Len(t, entries, 2)
	_, err = store.Logs().ReadStep(ctx, job.Ref(), "extract")
	require.NoError(t, err)
	_, err = store.Logs().ListSummaries(ctx, job.JobID, "")
	require.NoError(t, err)
	reports, err := store.Reports().Read(ctx, job.Ref())
	require.NoError(t, err)
	assert.Len(t, reports, 1)
	_, err = store.Reports().ListCatalog(ctx, job.JobID, "")
	require.NoError(t, err)
	_, err = store.Jobs().Find(ctx, job.JobID)
	require.NoError(t, err)
	_, err = store.Jobs().List(ctx, "JRN-1", "")
	require.NoError(t, err)
	_, err = store.Jobs().Latest(ctx, "JRN-1", "raw_analysis")
	require.NoError(t, err)

	_, err = store.Journeys().Pause(ctx, "JRN-1")
	require.NoError(t, err)
	_, err = store.Journeys().Resume(ctx, "JRN-1")
	require.NoError(t, err)
	_, err = store.Journeys().Load(ctx, "JRN-1")
	require.NoError(t, err)
	_, err = store.Journeys().List(ctx, "")
	require.NoError(t, err)

	_, err = store.Backups().Export(ctx, "JRN-1")
	require.NoError(t, err)
	// A rule added after the export is stale: the import deletes it.
	_, err = store.Rules().Add(ctx, journey.NewRule{JourneyID: "JRN-1", StageID: "tmf_mapping", Title: "late", Type: journey.RuleFieldMapping})
	require.NoError(t, err)
	_, err = store.Backups().Import(ctx, "JRN-1", journey.Overwrite())
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

	// Delete removes the journey's items and files.
	_, err = store.Journeys().Delete(ctx, "JRN-1")
	require.NoError(t, err)

	h.checkNoDenials()
	h.checkEveryGrantUsed()
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

// TestPipelineFlowsRunUnderTheirRuntimePolicy: create, update, the lists
// and tag queries, a presigned upload, an execution with its copied input
// and its output, state moves and recovery, then delete with its files.
func TestPipelineFlowsRunUnderTheirRuntimePolicy(t *testing.T) {
	ctx := context.Background()
	const bucket = "pipeline-files"
	h := newHarness(t, policies.Pipeline(pipeline.DefaultTableName, bucket))
	store, err := pipeline.NewStore(h.db, h.bucket(bucket), pipeline.Clock(h.fake.Now))
	require.NoError(t, err)

	in := pipeline.Input{ID: "p1", Name: "daily", Tags: []pipeline.Tag{{Key: "source", Value: "sap"}}, Groups: []string{"g1"}}
	p, err := store.Create(ctx, in)
	require.NoError(t, err)
	in.Tags = []pipeline.Tag{{Key: "source", Value: "erp"}}
	p, err = store.Update(ctx, p.ID, p.Version, in)
	require.NoError(t, err)
	_, err = store.Get(ctx, p.ID)
	require.NoError(t, err)
	_, err = store.GetVersion(ctx, p.ID, 1)
	require.NoError(t, err)
	_, err = store.ListVersions(ctx, p.ID, "")
	require.NoError(t, err)
	_, err = store.ListPipelines(ctx, "")
	require.NoError(t, err)
	_, err = store.ListGroup(ctx, "g1", "")
	require.NoError(t, err)
	_, err = store.ListByTags(ctx, []pipeline.Tag{{Key: "source", Value: "erp"}}, "")
	require.NoError(t, err)
	_, err = store.ListTags(ctx, "")
	require.NoError(t, err)
	_, err = store.TagKeys(ctx)
	require.NoError(t, err)
	_, err = store.ListTagValues(ctx, "source", "")
	require.NoError(t, err)

	up, err := store.PresignInputUpload(ctx, p.ID, p.Version)
	require.NoError(t, err)
	// The client's upload through the URL is the bucket's, not the
	// service's: put the file straight into the memory store.
	require.NoError(t, h.raw[bucket].Put(ctx, up.Key, bytes.NewReader([]byte("a,b\n"))))
	ex, err := store.CreateExecution(ctx, pipeline.ExecutionInput{ID: "e1", PipelineID: p.ID, InputKey: up.Key})
	require.NoError(t, err)
	_, err = store.StartExecution(ctx, ex.ID)
	require.NoError(t, err)
	require.NoError(t, store.PutOutput(ctx, ex.ID, bytes.NewReader([]byte("out")), 3))
	_, err = store.PresignOutputDownload(ctx, ex.ID)
	require.NoError(t, err)
	_, err = store.SucceedExecution(ctx, ex.ID)
	require.NoError(t, err)
	stuck, err := store.CreateExecution(ctx, pipeline.ExecutionInput{ID: "e2", PipelineID: p.ID})
	require.NoError(t, err)
	_, err = store.StartExecution(ctx, stuck.ID)
	require.NoError(t, err)
	h.fake.Advance(time.Hour)
	_, err = store.RecoverExecutions(ctx, p.ID, h.fake.Now())
	require.NoError(t, err)
	_, err = store.GetExecution(ctx, ex.ID)
	require.NoError(t, err)
	_, err = store.ListExecutions(ctx, p.ID, "")
	require.NoError(t, err)
	require.NoError(t, store.Delete(ctx, p.ID))

	h.checkNoDenials()
	h.checkEveryGrantUsed()
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

	policy, err := iam.StreamConsumer(dynamotest.Env, tasks.Schema("queue"), changes.DefaultLeaseTable)
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
}

package policies_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/iam"
	"github.com/tablekit/tablekit/iam/policies"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/jobs/analytics"
)

// The analytics view's service: its table, and the jobs table whose stream
// it consumes.
var (
	analyticsViewTable = analytics.TableNameForEnv("prod")
	analyticsJobsTable = jobs.TableNameForEnv("prod")
)

// analyticsServicePolicy is what the view's service runs with: the
// runtime policy generate makes of its description (iam.Runtime,
// iam.ReadOnly) and the stream consumer policy of the jobs table in the
// view's consumer group.
func analyticsServicePolicy(generate func(iam.Env, iam.Service) (iam.Policy, error)) func(iam.Env, iam.Service) (iam.Policy, error) {
	return func(env iam.Env, svc iam.Service) (iam.Policy, error) {
		p, err := generate(env, svc)
		if err != nil {
			return iam.Policy{}, err
		}
		c, err := iam.StreamConsumer(env, jobs.Schema(analyticsJobsTable), changes.DefaultLeaseTable, changes.LeaseKey(analyticsJobsTable, analytics.ConsumerName))
		if err != nil {
			return iam.Policy{}, err
		}
		for _, st := range c.Statement {
			st.Sid = "Consumer" + st.Sid
			p.Statement = append(p.Statement, st)
		}
		return p, p.Validate()
	}
}

// analyticsWorld is the jobs service (unenforced: it has its own policy)
// writing jobs to a streamed jobs table, and the lease table, beside h's
// view table.
func analyticsWorld(t *testing.T, h *harness) *jobs.Store {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, jobs.Schema(analyticsJobsTable).EnsureTable(ctx, h.fake))
	_, err := changes.EnableStream(ctx, h.fake, analyticsJobsTable, types.StreamViewTypeNewAndOldImages)
	require.NoError(t, err)
	require.NoError(t, changes.LeaseSchema(changes.DefaultLeaseTable).EnsureTable(ctx, h.fake))
	store, err := jobs.NewStore(h.fake, blobstore.NewMemory(), jobs.TableName(analyticsJobsTable), jobs.Clock(h.fake.Now))
	require.NoError(t, err)
	return store
}

// TestAnalyticsViewRunsUnderItsPolicies: the view's consumer reads the
// jobs table's stream, applies its changes and keeps its leases, and the
// statistics are read, under the view's runtime policy and its stream
// consumer policy: no denial, every grant used. Reading the jobs
// themselves, or scanning the view, is denied; under the read-only
// policy the statistics read and Apply's writes are denied.
func TestAnalyticsViewRunsUnderItsPolicies(t *testing.T) {
	ctx := context.Background()
	h := newHarnessUnder(t, policies.Analytics(analyticsViewTable), analyticsServicePolicy(iam.Runtime))
	store := analyticsWorld(t, h)
	view, err := analytics.NewView(h.db, analytics.TableName(analyticsViewTable))
	require.NoError(t, err)
	consumer, err := view.Consumer(h.db, analyticsJobsTable, changes.Clock(h.fake.Now))
	require.NoError(t, err)
	// A round finds the closed parent shard's end before taking its
	// child: a few rounds apply whatever is on the stream.
	drain := func() {
		for range 4 {
			_, err := consumer.Step(ctx, view.Apply)
			require.NoError(t, err)
		}
	}
	in := jobs.CreateInput{UserID: "user-1", FileSize: 1000, FileType: "image/jpeg", Provider: "stub", OriginalFileName: "a.jpg"}
	j, _, err := store.Create(ctx, in)
	require.NoError(t, err)
	j, err = store.StartProcessing(ctx, j.ID)
	require.NoError(t, err)
	drain()
	// A shard rollover (every four hours of the fake's clock): the child
	// shard is taken once the parent's lease says it is finished, read
	// with GetItem.
	h.fake.Advance(5 * time.Hour)
	_, err = store.Fail(ctx, j.Lease(), jobs.JobError{Code: "PROVIDER_TIMEOUT", Message: "slow"})
	require.NoError(t, err)
	drain()
	require.NoError(t, consumer.Close(ctx))

	page, err := view.ListDays(ctx, "user-1", "")
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	assert.Equal(t, map[jobs.Status]int64{jobs.StatusFailed: 1}, page.Items[0].ByStatus, "the view applied the changes")
	h.checkNoDenials()
	h.checkEveryGrantUsed()

	_, err = h.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(analyticsJobsTable),
		Key: map[string]types.AttributeValue{"jobId": &types.AttributeValueMemberS{Value: j.ID}}})
	h.checkDenied("reading a job", err)
	_, err = h.db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(analyticsViewTable)})
	h.checkDenied("scanning the view", err)

	ro := newHarnessUnder(t, policies.Analytics(analyticsViewTable), iam.ReadOnly)
	reader, err := analytics.NewView(ro.db, analytics.TableName(analyticsViewTable))
	require.NoError(t, err)
	_, err = reader.ListDays(ctx, "user-1", "")
	require.NoError(t, err)
	ro.checkNoDenials()
	ro.checkEveryGrantUsed()
	err = reader.Apply(ctx, []changes.Change[analytics.Job]{{ShardID: "shard-1", SequenceNumber: "100",
		New: &analytics.Job{JobID: j.ID, UserID: "user-1", Status: jobs.StatusQueued, CreatedAt: j.CreatedAt.UnixMilli()}}})
	ro.checkDenied("Apply under the read-only policy", err)
}

// TestAnalyticsRecountRunsUnderTheJobsReadOnlyPolicy: Recount reads the
// jobs themselves (the jobs store's user index), so a check or repair of
// the view runs under the jobs store's read-only policy, not the view's,
// which refuses it.
func TestAnalyticsRecountRunsUnderTheJobsReadOnlyPolicy(t *testing.T) {
	ctx := context.Background()
	h := newHarnessUnder(t, policies.Jobs(analyticsJobsTable, resultsBucket), iam.ReadOnly)
	writer, err := jobs.NewStore(h.fake, h.raw[resultsBucket], jobs.TableName(analyticsJobsTable), jobs.Clock(h.fake.Now))
	require.NoError(t, err)
	in := jobs.CreateInput{UserID: "user-1", FileSize: 1000, FileType: "image/jpeg", Provider: "stub", OriginalFileName: "a.jpg"}
	for range 2 {
		_, _, err = writer.Create(ctx, in)
		require.NoError(t, err)
	}
	days, err := analytics.Recount(ctx, jobsStore(t, h), "user-1")
	require.NoError(t, err)
	require.Len(t, days, 1)
	assert.Equal(t, map[jobs.Status]int64{jobs.StatusQueued: 2}, days[0].ByStatus)
	h.checkNoDenials()

	view := newHarnessUnder(t, policies.Analytics(analyticsViewTable), analyticsServicePolicy(iam.Runtime))
	refused, err := jobs.NewStore(view.db, nil, jobs.TableName(analyticsJobsTable), jobs.Clock(view.fake.Now))
	require.NoError(t, err)
	_, err = analytics.Recount(ctx, refused, "user-1")
	view.checkDenied("Recount under the view's policy", err)
}

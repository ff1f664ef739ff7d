package policies_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/iam"
	"github.com/tablekit/tablekit/iam/policies"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/journey"
	"github.com/tablekit/tablekit/table"
)

const keyID = "1234abcd-12ab-34cd-56ef-1234567890ab"

// provisioned is the jobs service with the jobs design's production settings:
// point-in-time recovery, a customer managed key, deletion protection and
// provisioned capacity.
func provisioned(key string) iam.Service {
	svc := policies.Jobs(jobs.TableNameForEnv("prod"), "acme-results")
	s := svc.Tables[0].Schema
	s.Provisioning = table.Provisioning{PointInTimeRecovery: true, DeletionProtection: true,
		Encryption: table.Encryption{KMS: true, KMSKeyID: key},
		Capacity:   &table.Capacity{Read: 25, Write: 10}}
	svc.Tables[0].Schema = s
	return svc
}

// TestAdminPolicyCoversEnsureTableWithEveryProvisioningOption: creating a
// provisioned, encrypted, protected table with recovery on and enabling
// its stream run under the admin policy with no denial, and every
// DynamoDB action the policy grants is used by them.
func TestAdminPolicyCoversEnsureTableWithEveryProvisioningOption(t *testing.T) {
	ctx := context.Background()
	svc := provisioned(keyID)
	admin, err := iam.Admin(dynamotest.Env, svc)
	require.NoError(t, err)
	var used []iam.Request
	var denied []string
	db, err := dynamotest.Enforce(dynamotest.New(), admin, func(o *dynamotest.EnforceOptions) {
		o.Observe = func(r iam.Request, d iam.Decision) {
			if d == iam.Allowed {
				used = append(used, r)
			} else {
				denied = append(denied, r.Action+" on "+r.Resource)
			}
		}
	})
	require.NoError(t, err)
	s := svc.Tables[0].Schema
	require.NoError(t, s.EnsureTable(ctx, db))
	require.NoError(t, s.EnsureTable(ctx, db), "the drift check of an existing table")
	_, err = changes.EnableStream(ctx, db, s.Name, types.StreamViewTypeNewAndOldImages)
	require.NoError(t, err)
	assert.Empty(t, denied)
	for _, a := range admin.Statement[0].Action {
		found := false
		for _, r := range used {
			found = found || strings.EqualFold(r.Action, a)
		}
		assert.True(t, found, "admin grants %s, which no admin call used", a)
	}
}

// TestAdminPolicyScopesTheKeyAndTheLifecycle: the customer managed key's
// statement names that key's ARN only, through DynamoDB only; an alias is
// refused; the AWS managed key needs no statement; the lifecycle statement
// names the logs bucket, the only one whose rules the journey service owns.
func TestAdminPolicyScopesTheKeyAndTheLifecycle(t *testing.T) {
	env := iam.Env{Region: "eu-west-1", Account: "123456789012"}
	wantKey := "arn:aws:kms:eu-west-1:123456789012:key/" + keyID
	for _, key := range []string{keyID, wantKey} {
		p, err := iam.Admin(env, provisioned(key))
		require.NoError(t, err)
		require.Len(t, p.Statement, 2)
		st := p.Statement[1]
		assert.Equal(t, iam.Strings{wantKey}, st.Resource)
		assert.ElementsMatch(t, []string{"kms:CreateGrant", "kms:Decrypt", "kms:DescribeKey", "kms:Encrypt", "kms:GenerateDataKey*", "kms:ReEncrypt*"}, []string(st.Action))
		assert.Equal(t, iam.Condition{iam.StringEquals: {iam.KMSViaService: {"dynamodb.eu-west-1.amazonaws.com"}}}, st.Condition)
		ok := iam.Request{Action: "kms:CreateGrant", Resource: wantKey, Context: map[string]string{iam.KMSViaService: "dynamodb.eu-west-1.amazonaws.com"}}
		assert.True(t, p.Allows(ok))
		direct := ok
		direct.Context = nil
		assert.False(t, p.Allows(direct), "the key is usable through DynamoDB only")
		other := ok
		other.Resource = "arn:aws:kms:eu-west-1:123456789012:key/other"
		assert.False(t, p.Allows(other), "another key")
	}
	for _, bad := range []string{"alias/tablekit", "arn:aws:kms:eu-west-1:123456789012:alias/tablekit", "arn:aws:kms:eu-west-1:123456789012:key/*", "arn:aws:s3:::b", "key/x"} {
		_, err := iam.Admin(env, provisioned(bad))
		assert.ErrorIs(t, err, iam.ErrInvalidService, bad)
	}
	p, err := iam.Admin(env, provisioned(""))
	require.NoError(t, err)
	assert.Len(t, p.Statement, 1, "the AWS managed key needs no statement")

	p, err = iam.Admin(env, policies.Journey(journey.DefaultTableName, journey.DefaultLogsBucket, journey.DefaultReportsBucket, journey.DefaultBackupsBucket))
	require.NoError(t, err)
	require.Len(t, p.Statement, 2)
	assert.Equal(t, iam.Strings{"s3:PutLifecycleConfiguration"}, p.Statement[1].Action)
	assert.Equal(t, iam.Strings{"arn:aws:s3:::" + journey.DefaultLogsBucket}, p.Statement[1].Resource)
}

// TestRuntimePolicyMayDecryptTheTablesKeyThroughDynamoDBOnly: a store on a
// table with a customer managed key gets kms:Decrypt on that key alone,
// usable only through DynamoDB; CreateGrant and the rest stay the admin's.
func TestRuntimePolicyMayDecryptTheTablesKeyThroughDynamoDBOnly(t *testing.T) {
	env := iam.Env{Region: "eu-west-1", Account: "123456789012"}
	key := "arn:aws:kms:eu-west-1:123456789012:key/" + keyID
	p, err := iam.Runtime(env, provisioned(keyID))
	require.NoError(t, err)
	via := map[string]string{iam.KMSViaService: "dynamodb.eu-west-1.amazonaws.com"}
	assert.True(t, p.Allows(iam.Request{Action: "kms:Decrypt", Resource: key, Context: via}))
	assert.False(t, p.Allows(iam.Request{Action: "kms:Decrypt", Resource: key}), "directly")
	assert.False(t, p.Allows(iam.Request{Action: "kms:CreateGrant", Resource: key, Context: via}), "the admin's")
	_, err = iam.Runtime(env, provisioned("alias/tablekit"))
	assert.ErrorIs(t, err, iam.ErrInvalidService)
	p, err = iam.Runtime(env, provisioned(""))
	require.NoError(t, err)
	for _, a := range p.Actions() {
		assert.False(t, strings.HasPrefix(a, "kms:"), "the AWS managed key needs no grant: %s", a)
	}

	// A stream is encrypted with its table's key: its consumer decrypts too.
	c, err := iam.StreamConsumer(env, provisioned(keyID).Tables[0].Schema, changes.DefaultLeaseTable, changes.LeaseKey("photoeditor-prod-jobs", changes.DefaultName))
	require.NoError(t, err)
	assert.True(t, c.Allows(iam.Request{Action: "kms:Decrypt", Resource: key, Context: via}))
	assert.False(t, c.Allows(iam.Request{Action: "kms:Decrypt", Resource: key}))
	_, err = iam.StreamConsumer(env, provisioned("alias/x").Tables[0].Schema, changes.DefaultLeaseTable, changes.LeaseKey("photoeditor-prod-jobs", changes.DefaultName))
	assert.ErrorIs(t, err, iam.ErrInvalidService)
}

// TestJourneySetupRunsUnderTheAdminPolicyOnly: journey's Setup (the table
// and the logs bucket's Glacier rule) runs under the admin policy with no
// denial; the runtime policy may not set the bucket's lifecycle.
func TestJourneySetupRunsUnderTheAdminPolicyOnly(t *testing.T) {
	ctx := context.Background()
	svc := policies.Journey(journey.DefaultTableName, journey.DefaultLogsBucket, journey.DefaultReportsBucket, journey.DefaultBackupsBucket)
	admin, err := iam.Admin(dynamotest.Env, svc)
	require.NoError(t, err)
	db, err := dynamotest.Enforce(dynamotest.New(), admin)
	require.NoError(t, err)
	bucket := blobstore.NewMemory()
	logs, err := blobstore.Enforce(bucket, journey.DefaultLogsBucket, admin)
	require.NoError(t, err)
	s, err := journey.NewStore(db, logs)
	require.NoError(t, err)
	require.NoError(t, s.Setup(ctx))
	assert.Equal(t, []blobstore.LifecycleRule{blobstore.GlacierAfter("journeys/", 90)}, bucket.Lifecycle())

	runtime, err := iam.Runtime(dynamotest.Env, svc)
	require.NoError(t, err)
	logs, err = blobstore.Enforce(blobstore.NewMemory(), journey.DefaultLogsBucket, runtime)
	require.NoError(t, err)
	s, err = journey.NewStore(db, logs)
	require.NoError(t, err)
	deniedAs(t, s.ApplyLifecycle(ctx), "AccessDenied", iam.S3PutLifecycleConfiguration)
}

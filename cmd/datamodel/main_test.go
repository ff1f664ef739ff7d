package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/datamodel"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/iam"
)

// TestWriteIsDeterministic renders the documents twice and compares the
// bytes, which is what lets CI fail on a stale docs/.
func TestWriteIsDeterministic(t *testing.T) {
	ctx := context.Background()
	a, b := t.TempDir(), t.TempDir()
	require.NoError(t, write(ctx, io.Discard, a, models()))
	require.NoError(t, write(ctx, io.Discard, b, models()))
	for _, m := range models() {
		files := append([]string{"dynamodb_data_model.md"}, policyFiles...)
		if _, ok, _ := backupPlan(m, iam.Placeholders); ok {
			files = append(files, backupPlanFile)
		}
		for _, f := range files {
			x, err := os.ReadFile(filepath.Join(a, m.Store, f))
			require.NoError(t, err)
			y, _ := os.ReadFile(filepath.Join(b, m.Store, f))
			assert.True(t, bytes.Equal(x, y), "%s/%s differs between two runs", m.Store, f)
		}
	}
}

// TestExamplesRunUnderTheirPolicies runs each store's example program on
// the in-memory fake with every DynamoDB call checked against the store's
// generated IAM policy (exampleenv's TABLEKIT_POLICY): the policy is
// enough for the example's flows. A policy without UpdateItem makes the
// tasks example fail with AccessDeniedException, which shows the policy
// is really enforced.
func TestExamplesRunUnderTheirPolicies(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the example programs")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go command not found")
	}
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	bin := t.TempDir()
	// The analytics example makes its own jobs, view and lease tables
	// (names unique to the run) and runs the consumer beside the jobs
	// store, so no one store's policy fits it; iam/policies'
	// TestAnalyticsViewRunsUnderItsPolicies runs the view under its own.
	var stores []datamodel.Model
	for _, m := range models() {
		if m.Store != "analytics" {
			stores = append(stores, m)
		}
	}
	var pkgs []string
	for _, m := range stores {
		pkgs = append(pkgs, "./examples/"+m.Store)
	}
	build := exec.Command(gobin, append([]string{"build", "-o", bin + string(filepath.Separator)}, pkgs...)...)
	build.Dir = root
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build examples:\n%s", out)
	dir := t.TempDir()
	run := func(m datamodel.Model, policy iam.Policy) (string, error) {
		path := filepath.Join(dir, m.Store+".json")
		require.NoError(t, os.WriteFile(path, policy.JSON(), 0o644))
		// Run the example on the table the policy names (the jobs
		// example names its table by environment).
		args := []string{"-table", m.Schema.Name}
		if m.Store == "jobs" {
			args = []string{"-env", "prod"}
		}
		cmd := exec.Command(filepath.Join(bin, m.Store), args...)
		cmd.Dir = root
		cmd.Env = append(environWithout("TABLEKIT_DYNAMODB_ENDPOINT", "TABLEKIT_S3_ENDPOINT"), "TABLEKIT_POLICY="+path)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	// The example creates its table and shows the operator's calls (a
	// backfill, an export and import, a deletion) beside the service's,
	// so it runs under the operator and the admin policy together,
	// generated for the fake's region and account.
	policyOf := func(m datamodel.Model) iam.Policy {
		docs, err := policyDocs(m, dynamotest.Env)
		require.NoError(t, err)
		p := docs[operatorPolicyFile]
		p.Statement = append(p.Statement, docs[adminPolicyFile].Statement...)
		return p
	}
	for _, m := range stores {
		policy := policyOf(m)
		out, err := run(m, policy)
		if !assert.NoError(t, err, "example %s under its policy:\n%s", m.Store, tail(out)) {
			continue
		}
		assert.True(t, strings.Contains(out, "IAM policy"), "example %s did not report the enforced policy:\n%s", m.Store, tail(out))
		t.Logf("example %s: ran under its policy (%d statements)", m.Store, len(policy.Statement))
	}
	for _, m := range models() {
		if m.Store != "tasks" {
			continue
		}
		policy := policyOf(m)
		for i := range policy.Statement {
			var keep []string
			for _, a := range policy.Statement[i].Action {
				if a != "dynamodb:UpdateItem" {
					keep = append(keep, a)
				}
			}
			policy.Statement[i].Action = keep
		}
		out, err := run(m, policy)
		assert.Error(t, err, "tasks example without UpdateItem must fail\n%s", tail(out))
		assert.Contains(t, out, "AccessDeniedException", "tasks example without UpdateItem\n%s", tail(out))
		assert.Contains(t, out, "dynamodb:UpdateItem", "the denial names the missing action\n%s", tail(out))
	}
}

func environWithout(names ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		drop := false
		for _, n := range names {
			drop = drop || strings.HasPrefix(kv, n+"=")
		}
		if !drop {
			env = append(env, kv)
		}
	}
	return env
}

func tail(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-8):], "\n")
}

// TestEveryModelMeetsTheRequirementsChecklist: every box of every
// store's computed checklist is ticked (an unticked one says what is
// missing).
func TestEveryModelMeetsTheRequirementsChecklist(t *testing.T) {
	for _, m := range models() {
		items, err := datamodel.Checklist(m)
		require.NoError(t, err, m.Store)
		require.NotEmpty(t, items, m.Store)
		for _, it := range items {
			assert.True(t, it.OK, "%s: %s: %s", m.Store, it.Box, it.Detail)
		}
	}
}

// TestCommittedDocsAreCurrent compares docs/ with what the stores'
// schemas generate now, as CI does, so a schema change without a
// regeneration fails here first.
func TestCommittedDocsAreCurrent(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, write(context.Background(), io.Discard, dir, models()))
	want, err := os.ReadFile(filepath.Join(dir, "README.md"))
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join("..", "..", "docs", "README.md"))
	if assert.NoError(t, err, "docs/README.md") {
		assert.True(t, bytes.Equal(got, want), "docs/README.md is not what the schemas generate: run go run ./cmd/datamodel and commit docs/")
	}
	for _, m := range models() {
		files := append([]string{"dynamodb_data_model.md"}, policyFiles...)
		if _, ok, _ := backupPlan(m, iam.Placeholders); ok {
			files = append(files, backupPlanFile)
		}
		for _, f := range files {
			want, err := os.ReadFile(filepath.Join(dir, m.Store, f))
			require.NoError(t, err, "generated %s/%s", m.Store, f)
			got, err := os.ReadFile(filepath.Join("..", "..", "docs", m.Store, f))
			if assert.NoError(t, err, "docs/%s/%s", m.Store, f) {
				assert.True(t, bytes.Equal(got, want), "docs/%s/%s is not what the schema generates: run go run ./cmd/datamodel and commit docs/", m.Store, f)
			}
		}
	}
}

// TestCommittedPoliciesNameNoWildcardRegionOrAccount reads every policy
// under docs/ and checks each DynamoDB and S3 ARN: region and account are
// the documented parameters (S3 ARNs have neither), the table is the
// store's own or one of its other tables (jobs' work queue), never a
// wildcard over tables or environments.
func TestCommittedPoliciesNameNoWildcardRegionOrAccount(t *testing.T) {
	n := 0
	for _, m := range models() {
		own := map[string]bool{m.Schema.Name: true, changes.DefaultLeaseTable: true}
		for _, o := range m.OtherTables {
			own[o.Schema.Name] = true
		}
		for _, f := range policyFiles {
			data, err := os.ReadFile(filepath.Join("..", "..", "docs", m.Store, f))
			require.NoError(t, err)
			p, err := iam.Parse(data)
			require.NoError(t, err, "docs/%s/%s", m.Store, f)
			for _, res := range p.Resources() {
				n++
				dynamo := "arn:aws:dynamodb:" + iam.RegionPlaceholder + ":" + iam.AccountPlaceholder + ":table/"
				switch {
				case strings.HasPrefix(res, dynamo):
					table, _, _ := strings.Cut(strings.TrimPrefix(res, dynamo), "/")
					source, _ := consumed(m)
					ok := own[table] || f == consumerPolicyFile && table == source.Name
					assert.True(t, ok, "docs/%s/%s: table %q in %s", m.Store, f, table, res)
				case strings.HasPrefix(res, "arn:aws:kms:"+iam.RegionPlaceholder+":"+iam.AccountPlaceholder+":key/"):
					key := strings.TrimPrefix(res, "arn:aws:kms:"+iam.RegionPlaceholder+":"+iam.AccountPlaceholder+":key/")
					assert.False(t, key == "" || strings.ContainsAny(key, "*?:/"), "docs/%s/%s: key %q in %s", m.Store, f, key, res)
				case strings.HasPrefix(res, "arn:aws:s3:::"):
					bucket, _, _ := strings.Cut(strings.TrimPrefix(res, "arn:aws:s3:::"), "/")
					assert.NotEmpty(t, bucket, "docs/%s/%s: no bucket in %s", m.Store, f, res)
					assert.False(t, strings.ContainsAny(bucket, "*?:"), "docs/%s/%s: wildcard or separator in bucket %q in %s", m.Store, f, bucket, res)
				default:
					assert.Failf(t, "resource is neither a DynamoDB ARN nor an S3 ARN", "docs/%s/%s: resource %s is neither a DynamoDB or KMS ARN in region %s, account %s, nor an S3 ARN", m.Store, f, res, iam.RegionPlaceholder, iam.AccountPlaceholder)
				}
			}
		}
	}
	assert.Positive(t, n)
}

// The jobs design's "On-demand backups retained 1 year" is an AWS Backup
// plan (see jobs.BackupRetention for why not a sweep of this library's):
// a monthly backup of the jobs table deleted after 365 days; no other
// store's design asks for one.
func TestTheJobsTableHasAYearLongAWSBackupPlanAndNoOtherDoes(t *testing.T) {
	for _, m := range models() {
		raw, ok, err := backupPlan(m, iam.Placeholders)
		require.NoError(t, err, m.Store)
		if m.Store != "jobs" {
			assert.False(t, ok, "%s has no backup plan", m.Store)
			continue
		}
		require.True(t, ok)
		var p awsBackupPlan
		require.NoError(t, json.Unmarshal(raw, &p))
		require.Len(t, p.BackupPlan.Rules, 1)
		r := p.BackupPlan.Rules[0]
		assert.Equal(t, 365, r.Lifecycle.DeleteAfterDays, "kept a year")
		assert.Equal(t, "cron(0 5 1 * ? *)", r.ScheduleExpression)
		assert.Equal(t, []string{iam.Placeholders.TableARN("photoeditor-prod-jobs")}, p.BackupSelection.Resources, "the table the documents describe, by ARN")
		assert.Contains(t, p.BackupSelection.IamRoleArn, iam.AccountPlaceholder)
	}
}

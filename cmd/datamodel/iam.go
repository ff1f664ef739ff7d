package main

import (
	"fmt"

	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/datamodel"
	"github.com/tablekit/tablekit/iam"
	"github.com/tablekit/tablekit/iam/policies"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/jobs/analytics"
	"github.com/tablekit/tablekit/table"
)

// The bucket parameters of the documents: every store's buckets are the
// service's to name (the journey design's names are defaults, and a
// service's buckets must be globally unique), so the policies name a
// parameter, substituted like ${AWS::Region} (in CloudFormation, a
// template parameter of that name).
const (
	jobsBucketParam     = "${JobsBucket}"
	pipelineBucketParam = "${PipelineBucket}"
	logsBucketParam     = "${JourneyLogsBucket}"
	reportsBucketParam  = "${JourneyReportsBucket}"
	backupsBucketParam  = "${JourneyBackupsBucket}"
)

// The policy documents written beside each data model.
const (
	runtimePolicyFile  = "iam-policy.json"
	operatorPolicyFile = "iam-operator-policy.json"
	readOnlyPolicyFile = "iam-readonly-policy.json"
	adminPolicyFile    = "iam-admin-policy.json"
	consumerPolicyFile = "iam-stream-consumer-policy.json"
)

var policyFiles = []string{runtimePolicyFile, operatorPolicyFile, readOnlyPolicyFile, adminPolicyFile, consumerPolicyFile}

// service is the iam/policies description of m's store on m's table.
func service(m datamodel.Model) (iam.Service, error) {
	name := m.Schema.Name
	switch m.Store {
	case "jobs":
		return policies.Jobs(name, jobsBucketParam, jobsWork), nil
	case "tasks":
		return policies.Tasks(name), nil
	case "journey":
		return policies.Journey(name, logsBucketParam, reportsBucketParam, backupsBucketParam), nil
	case "pipeline":
		return policies.Pipeline(name, pipelineBucketParam), nil
	case "analytics":
		return policies.Analytics(name), nil
	}
	return iam.Service{}, fmt.Errorf("no IAM description of store %q", m.Store)
}

// consumed is the table whose stream m's stream consumer policy reads, and
// its consumer group: the jobs table under analytics.ConsumerName for the
// analytics view (which exists to consume it), m's own table in the
// default group for the stores.
func consumed(m datamodel.Model) (table.Schema, string) {
	if m.Store == "analytics" {
		return jobs.Schema(jobs.TableNameForEnv("prod")), analytics.ConsumerName
	}
	return m.Schema, changes.DefaultName
}

// policyDocs are m's five policies, for env: the runtime policy of its
// store (table, indexes, buckets), its operator policy (the runtime grants
// and the maintenance calls), its read-only policy (a dashboard's reads),
// the admin policy of its table and of the default lease table (creating
// it, EnsureTable, is the consumers' deployment's), and the policy of a
// changes.Consumer of the stream consumed(m) names, confined to its
// group's leases.
func policyDocs(m datamodel.Model, env iam.Env) (map[string]iam.Policy, error) {
	svc, err := service(m)
	if err != nil {
		return nil, err
	}
	runtime, err := iam.Runtime(env, svc)
	if err != nil {
		return nil, err
	}
	operator, err := iam.Operator(env, svc)
	if err != nil {
		return nil, err
	}
	readOnly, err := iam.ReadOnly(env, svc)
	if err != nil {
		return nil, err
	}
	withLeases := svc
	withLeases.Tables = append(append([]iam.Table(nil), svc.Tables...), iam.Table{Schema: changes.LeaseSchema(changes.DefaultLeaseTable)})
	admin, err := iam.Admin(env, withLeases)
	if err != nil {
		return nil, err
	}
	source, group := consumed(m)
	consumer, err := iam.StreamConsumer(env, source, changes.DefaultLeaseTable, changes.LeaseKey(source.Name, group))
	if err != nil {
		return nil, err
	}
	return map[string]iam.Policy{runtimePolicyFile: runtime, operatorPolicyFile: operator, readOnlyPolicyFile: readOnly,
		adminPolicyFile: admin, consumerPolicyFile: consumer}, nil
}

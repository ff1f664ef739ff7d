// Package policies describes what each tablekit store touches, as the
// iam.Service its runtime policy is generated from: the store's table with
// its declared access patterns (the store's Patterns function) and the
// buckets and key prefixes its blob layout uses.
//
// The descriptions are checked against the stores' code: this package's
// tests run each store's main flows on dynamotest and the memory blob
// store enforcing the generated policy, and fail on any denial (the
// policy lacks something the store does) and on any granted action no
// flow takes (the policy grants more than the store needs).
//
// To generate a store's policies for your account:
//
//	env := iam.Env{Region: "eu-west-1", Account: "123456789012"}
//	runtime, err := iam.Runtime(env, policies.Jobs(jobs.TableNameForEnv("prod"), "acme-photo-results"))
//	admin, err := iam.Admin(env, policies.Jobs(jobs.TableNameForEnv("prod"), "acme-photo-results"))
//	os.WriteFile("jobs-runtime.json", runtime.JSON(), 0o644)
//
// cmd/datamodel writes the same with iam.Placeholders under docs/.
package policies

import (
	"github.com/tablekit/tablekit/iam"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/jobs/analytics"
	"github.com/tablekit/tablekit/journey"
	"github.com/tablekit/tablekit/pipeline"
	"github.com/tablekit/tablekit/tasks"
)

// Jobs is the jobs store on tableName (one environment's table,
// jobs.TableNameForEnv(env)), offloading large results to bucket under
// its default prefix jobs/<tableName>/ (jobs.Options.OffloadPrefix): the
// service writes and reads results there; an operator's orphan sweep
// (RemoveOrphans) lists and deletes them, and its backfill scans the
// table (iam.Operator).
//
// opts are the options the service opens the store with; only
// jobs.Options.Work changes the policy. With jobs.Work(tasksTable) the
// store queues each job's work on that tasks table, in the transactions
// that make jobs QUEUED, and its job workers run on the tasks runtime:
// the service's tables are the jobs table, with the patterns of a store
// with Work (jobs.Patterns(opts...)), and the tasks table, with what the
// Work flows send it (jobs.WorkPatterns) and nothing else of the tasks
// store's calls. Without Work, the tasks table is not in the policy.
func Jobs(tableName, bucket string, opts ...func(*jobs.Options)) iam.Service {
	svc := iam.Service{
		Tables: []iam.Table{{Schema: jobs.Schema(tableName), Patterns: jobs.Patterns(opts...)}},
		Objects: []iam.Objects{{Bucket: bucket, Prefix: "jobs/" + tableName + "/",
			Actions:     []string{iam.S3GetObject, iam.S3PutObject},
			Maintenance: []string{iam.S3DeleteObject, iam.S3ListBucket}}},
	}
	if work := jobs.WorkTableName(opts...); work != "" {
		svc.Tables = append(svc.Tables, iam.Table{Schema: tasks.Schema(work), Patterns: jobs.WorkPatterns()})
	}
	return svc
}

// Tasks is the tasks store on tableName. It keeps payloads in the table,
// so it touches no bucket.
func Tasks(tableName string) iam.Service {
	return iam.Service{Tables: []iam.Table{{Schema: tasks.Schema(tableName), Patterns: tasks.Patterns()}}}
}

// Journey is the journey store on tableName with the journey design's three
// buckets: step logs and reports under
// journeys/{journeyId}/stages/{stageId}/executions/{jobId}/logs/ and
// .../reports/ (written, read and listed per job), and exports at
// journeys/{journeyId}/backup.json in the backups bucket (Export writes
// them, Import reads them; a deleted journey's export stays). A deleted
// journey's log and report files stay too (the design's audit trail), so
// the runtime policy grants no s3:DeleteObject; a service whose store
// purges them (journey.PurgeFilesOnDelete among opts, the options it opens
// the store with; no other option changes the policy) is granted it on
// the logs and reports buckets. The logs bucket is the service's own and
// takes the journey design's lifecycle rule (logs to Glacier after 90
// days), which journey.Store.Setup (and tablekit tables ensure) applies
// under the admin policy, the one that may set the bucket's lifecycle. A
// store without journey.WithReports keeps reports in the logs bucket:
// pass the logs bucket (or "") as reportsBucket. Pass
// journey.DefaultLogsBucket, ... for the design's names.
func Journey(tableName, logsBucket, reportsBucket, backupsBucket string, opts ...func(*journey.Options)) iam.Service {
	var o journey.Options
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	files := []string{iam.S3GetObject, iam.S3PutObject, iam.S3ListBucket}
	if o.PurgeFilesOnDelete {
		files = append(files, iam.S3DeleteObject)
	}
	objects := []iam.Objects{{Bucket: logsBucket, Prefix: "journeys/", Actions: files, Lifecycle: true}}
	if reportsBucket != "" && reportsBucket != logsBucket {
		objects = append(objects, iam.Objects{Bucket: reportsBucket, Prefix: "journeys/", Actions: files})
	}
	// Export and Import are an operator's calls: only the operator policy
	// reaches the backups bucket.
	objects = append(objects, iam.Objects{Bucket: backupsBucket, Prefix: "journeys/", Maintenance: []string{iam.S3GetObject, iam.S3PutObject}})
	return iam.Service{
		Tables:  []iam.Table{{Schema: journey.Schema(tableName), Patterns: journey.Patterns()}},
		Objects: objects,
	}
}

// Pipeline is the pipeline store on tableName with its files in bucket
// under pipelines/ (the pipeline design's layout: ingest files, execution inputs and
// outputs, each under pipelines/{pipelineId}/{version}/): presigned
// uploads and downloads and the copy of an input beside its execution by
// the service; the listing and deletion of a pipeline's files when an
// operator deletes it (iam.Operator).
func Pipeline(tableName, bucket string) iam.Service {
	return iam.Service{
		Tables: []iam.Table{{Schema: pipeline.Schema(tableName), Patterns: pipeline.Patterns()}},
		Objects: []iam.Objects{{Bucket: bucket, Prefix: "pipelines/",
			Actions:     []string{iam.S3GetObject, iam.S3PutObject},
			Maintenance: []string{iam.S3DeleteObject, iam.S3ListBucket}}},
	}
}

// Analytics is the jobs analytics view (package jobs/analytics) on its
// table viewTable: Apply's writes and ListDays' queries. The view's
// consumer also reads the jobs table's stream and keeps its leases: that
// is iam.StreamConsumer's policy of the jobs table with the lease key
// changes.LeaseKey(jobsTable, analytics.ConsumerName), which its service
// runs with beside this one. It touches no bucket. analytics.Recount,
// a check or repair of the view, reads the jobs table through the jobs
// store: run it under the jobs store's read-only policy
// (iam.ReadOnly of Jobs).
func Analytics(viewTable string) iam.Service {
	return iam.Service{Tables: []iam.Table{{Schema: analytics.Schema(viewTable), Patterns: analytics.Patterns()}}}
}

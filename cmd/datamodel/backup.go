package main

import (
	"cmp"
	"encoding/json"
	"fmt"

	"github.com/tablekit/tablekit/datamodel"
	"github.com/tablekit/tablekit/iam"
	"github.com/tablekit/tablekit/jobs"
)

// backupPlanFile is the AWS Backup plan written beside a store's documents
// when its design asks for backups kept beyond point-in-time recovery's 35
// days: the jobs design's "On-demand backups retained 1 year".
const backupPlanFile = "aws-backup-plan.json"

// awsBackupPlan is the input of AWS Backup's CreateBackupPlan and
// CreateBackupSelection, as `aws backup create-backup-plan
// --cli-input-json` and `create-backup-selection` take them (and as
// CloudFormation's AWS::Backup::BackupPlan and BackupSelection spell the
// same fields).
type awsBackupPlan struct {
	BackupPlan struct {
		BackupPlanName string          `json:"BackupPlanName"`
		Rules          []awsBackupRule `json:"Rules"`
	} `json:"BackupPlan"`
	BackupSelection struct {
		SelectionName string   `json:"SelectionName"`
		IamRoleArn    string   `json:"IamRoleArn"`
		Resources     []string `json:"Resources"`
	} `json:"BackupSelection"`
}

type awsBackupRule struct {
	RuleName                string `json:"RuleName"`
	TargetBackupVaultName   string `json:"TargetBackupVaultName"`
	ScheduleExpression      string `json:"ScheduleExpression"`
	StartWindowMinutes      int    `json:"StartWindowMinutes"`
	CompletionWindowMinutes int    `json:"CompletionWindowMinutes"`
	Lifecycle               struct {
		DeleteAfterDays int `json:"DeleteAfterDays"`
	} `json:"Lifecycle"`
}

// backupPlan is the AWS Backup plan of m's table, when its store's design
// asks for backups beyond point-in-time recovery (ok false otherwise): the
// jobs design's year-long backups, a monthly backup kept
// jobs.BackupRetention, of the table the model names, by AWS Backup's
// default service role.
func backupPlan(m datamodel.Model, env iam.Env) ([]byte, bool, error) {
	if m.Store != "jobs" {
		return nil, false, nil
	}
	var p awsBackupPlan
	p.BackupPlan.BackupPlanName = m.Schema.Name + "-backups"
	r := awsBackupRule{
		RuleName:                "monthly-kept-a-year",
		TargetBackupVaultName:   jobs.BackupVault,
		ScheduleExpression:      jobs.BackupSchedule,
		StartWindowMinutes:      60,
		CompletionWindowMinutes: 24 * 60,
	}
	r.Lifecycle.DeleteAfterDays = int(jobs.BackupRetention.Hours() / 24)
	if r.Lifecycle.DeleteAfterDays < 1 {
		return nil, false, fmt.Errorf("jobs: backup retention %v is under a day", jobs.BackupRetention)
	}
	p.BackupPlan.Rules = []awsBackupRule{r}
	p.BackupSelection.SelectionName = m.Schema.Name
	p.BackupSelection.IamRoleArn = "arn:" + cmp.Or(env.Partition, "aws") + ":iam::" + env.Account + ":role/service-role/AWSBackupDefaultServiceRole"
	p.BackupSelection.Resources = []string{env.TableARN(m.Schema.Name)}
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return nil, false, err
	}
	return append(b, '\n'), true, nil
}

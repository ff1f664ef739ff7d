package dynamotest

import (
	"context"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/table"
)

// This file holds the table settings the fake keeps so that provisioning
// code (table.Schema.EnsureTable) can set them and read them back:
// server-side encryption, deletion protection, point-in-time recovery and
// the table class. The fake stores and describes them; it encrypts nothing and keeps no
// backups, but it does refuse to delete a protected table, as DynamoDB does.

// fakeAccount and fakeRegion make the ARNs the fake describes.
const (
	fakeAccount = "000000000000"
	fakeRegion  = "us-east-1"
)

// setProvisioning applies CreateTable's SSESpecification,
// DeletionProtectionEnabled and TableClass (one of the API reference's
// enum, as DynamoDB checks; DynamoDB Local takes any).
func (t *dbTable) setProvisioning(sse *types.SSESpecification, protect *bool, class types.TableClass) error {
	switch class {
	case "", types.TableClassStandard, types.TableClassStandardInfrequentAccess:
		t.tableClass = class
	default:
		return constraint(string(class), "tableClass", "Member must satisfy enum value set: [STANDARD, STANDARD_INFREQUENT_ACCESS]")
	}
	t.deletionProtection = aws.ToBool(protect)
	if sse == nil || !aws.ToBool(sse.Enabled) {
		if sse != nil && (sse.SSEType != "" || sse.KMSMasterKeyId != nil) {
			// DynamoDB: SSEType and KMSMasterKeyId need Enabled=true.
			return validationf("One or more parameter values were invalid: SSEType and KMSMasterKeyId can only be specified when SSE is enabled")
		}
		return nil
	}
	if sse.SSEType != "" && sse.SSEType != types.SSETypeKms {
		return validationf("One or more parameter values were invalid: SSEType %s is not supported, use KMS", sse.SSEType)
	}
	t.kmsKeyARN = kmsKeyARN(aws.ToString(sse.KMSMasterKeyId))
	return nil
}

// kmsKeyARN is the key ARN DynamoDB would describe for a KMSMasterKeyId:
// an ARN as given, a key id or alias under the fake's account, and the AWS
// managed key (alias/aws/dynamodb) when none is named.
func kmsKeyARN(id string) string {
	switch {
	case strings.HasPrefix(id, "arn:"):
		return id
	case id == "":
		id = "alias/aws/dynamodb"
	case !strings.HasPrefix(id, "alias/"):
		id = "key/" + id
	}
	return "arn:aws:kms:" + fakeRegion + ":" + fakeAccount + ":" + id
}

// describeEncryption adds SSEDescription for a KMS-encrypted table; a table
// with the AWS owned key has none, as in DynamoDB.
func (t *dbTable) describeEncryption(d *types.TableDescription) {
	if t.kmsKeyARN == "" {
		return
	}
	d.SSEDescription = &types.SSEDescription{
		Status:          types.SSEStatusEnabled,
		SSEType:         types.SSETypeKms,
		KMSMasterKeyArn: aws.String(t.kmsKeyARN),
	}
}

func (t *dbTable) protected() bool {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.deletionProtection
}

// liveTable returns the table called name, or ResourceNotFound (which
// DynamoDB calls TableNotFoundException for the backup operations; the
// fake answers as the rest of its API does).
func (db *DB) liveTable(name string) (*dbTable, error) {
	if err := checkName("tableName", name); err != nil {
		return nil, err
	}
	t := db.table(name)
	if t == nil {
		return nil, tableNotFound(name)
	}
	return t, nil
}

// UpdateContinuousBackups turns point-in-time recovery on or off. The
// fake records the setting (DescribeContinuousBackups reports it) and
// keeps no backups; its recovery window is always DynamoDB's 35 days.
func (db *DB) UpdateContinuousBackups(ctx context.Context, in *dynamodb.UpdateContinuousBackupsInput, _ ...func(*dynamodb.Options)) (res *dynamodb.UpdateContinuousBackupsOutput, err error) {
	defer acknowledged(db, &res, &err)
	in = orEmpty(in)
	t, err := db.liveTable(aws.ToString(in.TableName))
	if err != nil {
		return nil, err
	}
	spec := in.PointInTimeRecoverySpecification
	if spec == nil || spec.PointInTimeRecoveryEnabled == nil {
		return nil, validationf("1 validation error detected: Value null at 'pointInTimeRecoverySpecification' failed to satisfy constraint: Member must not be null")
	}
	if days := aws.ToInt32(spec.RecoveryPeriodInDays); spec.RecoveryPeriodInDays != nil && (days < 1 || days > 35) {
		return nil, validationf("RecoveryPeriodInDays must be between 1 and 35")
	}
	t.mu.Lock()
	if t.deleted {
		t.mu.Unlock()
		return nil, tableNotFound(t.name)
	}
	t.pitr = aws.ToBool(spec.PointInTimeRecoveryEnabled)
	t.changed()
	d := t.backupsLocked(db)
	t.mu.Unlock()
	return &dynamodb.UpdateContinuousBackupsOutput{ContinuousBackupsDescription: d}, nil
}

// DescribeContinuousBackups reports whether point-in-time recovery is on.
func (db *DB) DescribeContinuousBackups(ctx context.Context, in *dynamodb.DescribeContinuousBackupsInput, _ ...func(*dynamodb.Options)) (res *dynamodb.DescribeContinuousBackupsOutput, err error) {
	defer acknowledged(db, &res, &err)
	in = orEmpty(in)
	t, err := db.liveTable(aws.ToString(in.TableName))
	if err != nil {
		return nil, err
	}
	t.mu.RLock()
	defer t.mu.RUnlock()
	if t.deleted {
		return nil, tableNotFound(t.name)
	}
	return &dynamodb.DescribeContinuousBackupsOutput{ContinuousBackupsDescription: t.backupsLocked(db)}, nil
}

func (t *dbTable) backupsLocked(db *DB) *types.ContinuousBackupsDescription {
	pitr := &types.PointInTimeRecoveryDescription{PointInTimeRecoveryStatus: types.PointInTimeRecoveryStatusDisabled}
	if t.pitr {
		now := db.now()
		earliest := now.AddDate(0, 0, -35)
		if t.created.After(earliest) {
			earliest = t.created
		}
		pitr = &types.PointInTimeRecoveryDescription{
			PointInTimeRecoveryStatus:  types.PointInTimeRecoveryStatusEnabled,
			RecoveryPeriodInDays:       aws.Int32(35),
			EarliestRestorableDateTime: aws.Time(earliest),
			LatestRestorableDateTime:   aws.Time(now),
		}
	}
	return &types.ContinuousBackupsDescription{
		// Continuous backups are always on in DynamoDB; PITR is the switch.
		ContinuousBackupsStatus:        types.ContinuousBackupsStatusEnabled,
		PointInTimeRecoveryDescription: pitr,
	}
}

// backupOperations serves the point-in-time recovery calls over HTTP
// (table.API's BackupsAPI pair) for a DB.
func backupOperations(api table.API) map[string]wireOperation {
	db, ok := api.(*DB)
	if !ok {
		return nil
	}
	return map[string]wireOperation{
		"UpdateContinuousBackups": serve(func(_ table.API, ctx context.Context, in *dynamodb.UpdateContinuousBackupsInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateContinuousBackupsOutput, error) {
			return db.UpdateContinuousBackups(ctx, in, o...)
		}),
		"DescribeContinuousBackups": serve(func(_ table.API, ctx context.Context, in *dynamodb.DescribeContinuousBackupsInput, o ...func(*dynamodb.Options)) (*dynamodb.DescribeContinuousBackupsOutput, error) {
			return db.DescribeContinuousBackups(ctx, in, o...)
		}),
	}
}

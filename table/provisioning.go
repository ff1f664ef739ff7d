package table

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Provisioning is how a table is run in production: backups, encryption,
// protection against deletion and capacity. The zero value is what
// CreateTable gives by default: on-demand capacity, the AWS owned key, no
// point-in-time recovery and no deletion protection.
//
// EnsureTable creates a missing table with these settings and checks an
// existing table against them, reporting every difference as a
// *DriftError (ErrDrift). It changes nothing on an existing table: whether
// to fix drift (and how: a capacity change, a key rotation) is the
// operator's decision, made with the admin policy.
type Provisioning struct {
	// PointInTimeRecovery turns on continuous backups with restore to any
	// second of the last 35 days (the journey and jobs designs ask for
	// it: docs/systems/journey.md, docs/systems/jobs.md). False means "not
	// required": an existing table with recovery on is not drift.
	PointInTimeRecovery bool
	// Encryption chooses the key DynamoDB encrypts the table with.
	Encryption Encryption
	// DeletionProtection makes DeleteTable fail until it is turned off.
	// False means "not required".
	DeletionProtection bool
	// Capacity, when set, provisions read and write capacity instead of
	// on-demand billing (the jobs design's production plan).
	Capacity *Capacity
	// TableClass is the table's storage class: STANDARD, or
	// STANDARD_INFREQUENT_ACCESS (Standard-IA: storage about 60% cheaper,
	// reads and writes about 25% dearer; it pays where storage dominates
	// the bill, cold data kept for years). It applies to the whole table
	// and its indexes: DynamoDB moves no partition between classes by
	// itself, and an UpdateTable changes the class (at most twice in 30
	// days). "" means "not required": any class is no drift.
	TableClass types.TableClass
}

// RecoveryAndKMS is what the journey and jobs designs (docs/systems/journey.md, docs/systems/jobs.md) ask of their tables: point-in-
// time recovery (restore to any second of the last 35 days) and
// encryption at rest with the AWS managed KMS key (alias/aws/dynamodb), on
// on-demand capacity. The journey and jobs schemas use it by default; each
// store has an option to replace it (journey.Provisioning,
// jobs.Provisioning).
func RecoveryAndKMS() Provisioning {
	return Provisioning{PointInTimeRecovery: true, Encryption: Encryption{KMS: true}}
}

// Encryption is server-side encryption at rest. DynamoDB always encrypts;
// the choice is the key. The zero value is the AWS owned key (free,
// invisible in the account); KMS uses a KMS key in the account, the AWS
// managed one (alias/aws/dynamodb) unless KMSKeyID names a customer
// managed key (the jobs design (docs/systems/jobs.md): "AWS-managed KMS"; the journey design (docs/systems/journey.md): "AWS KMS").
type Encryption struct {
	KMS bool
	// KMSKeyID is a key ARN, key id, alias name ("alias/...") or alias
	// ARN. Only with KMS. EnsureTable checks a key ARN or key id against
	// the key DynamoDB reports; an alias cannot be resolved without KMS,
	// so for an alias only "a KMS key" is checked.
	KMSKeyID string
}

// Capacity is provisioned throughput, in capacity units per second.
type Capacity struct {
	Read, Write int64
	// Indexes sets a GSI's own throughput; an index not named here gets
	// the table's Read and Write.
	Indexes map[string]Throughput
	// AutoScaling declares the targets Application Auto Scaling should
	// keep, for the table and for every index not named in Indexes (which
	// follows the table's throughput: a GSI whose capacity cannot grow
	// with the table's throttles the table's writes). tablekit does not
	// call Application Auto Scaling (it is another service, with its own
	// API and IAM role): apply these with your infrastructure tool
	// (aws_appautoscaling_target and aws_appautoscaling_policy in
	// Terraform, one pair for the table and one per such index).
	// EnsureTable accepts any current capacity within [Min, Max] as no
	// drift, since the scaler moves it.
	AutoScaling *AutoScaling
}

// AutoScaled is provisioned capacity that starts at its floor: read and
// write units, which Application Auto Scaling keeps between the floor and
// maxRead and maxWrite at targetPercent utilization, for the table and
// every index (a production plan as the designs state one: a base that is
// also the minimum, a ceiling, a target).
func AutoScaled(read, maxRead, write, maxWrite int64, targetPercent float64) Capacity {
	return Capacity{
		Read: read, Write: write,
		AutoScaling: &AutoScaling{
			MinRead: read, MaxRead: maxRead,
			MinWrite: write, MaxWrite: maxWrite,
			TargetUtilization: targetPercent,
		},
	}
}

// Throughput is one index's provisioned read and write capacity.
type Throughput struct {
	Read, Write int64
}

// AutoScaling is a target-tracking policy for read and write capacity.
type AutoScaling struct {
	MinRead, MaxRead   int64
	MinWrite, MaxWrite int64
	// TargetUtilization is the consumed/provisioned percentage the scaler
	// aims at: 20 to 90, Application Auto Scaling's range (the jobs design (docs/systems/jobs.md): 70).
	TargetUtilization float64
}

// BackupsAPI is the continuous-backups pair of API: what EnsureTable and
// Check use to turn on and read point-in-time recovery.
type BackupsAPI interface {
	UpdateContinuousBackups(ctx context.Context, in *dynamodb.UpdateContinuousBackupsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateContinuousBackupsOutput, error)
	DescribeContinuousBackups(ctx context.Context, in *dynamodb.DescribeContinuousBackupsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeContinuousBackupsOutput, error)
}

var _ BackupsAPI = (*dynamodb.Client)(nil)

// ErrDrift: EnsureTable found an existing table whose settings (billing,
// capacity, encryption, deletion protection, point-in-time recovery)
// differ from Schema.Provisioning, or Check found any difference from the
// schema. Returned as *DriftError.
var ErrDrift = errors.New("table: existing table's settings differ from the schema")

// Drift is one setting that differs.
type Drift struct {
	Setting string // "BillingMode", "ReadCapacity", "index GSI1 WriteCapacity", "Encryption", ...
	Want    string
	Got     string
}

// DriftError lists every setting of an existing table that differs from
// its schema's Provisioning.
type DriftError struct {
	Table  string
	Drifts []Drift
}

func (e *DriftError) Error() string {
	return fmt.Sprintf("table: %s drifted from its schema:%s", e.Table, formatDrifts(e.Drifts))
}

// formatDrifts renders drifts as " setting is got, want want; ...".
func formatDrifts(drifts []Drift) string {
	var b strings.Builder
	for i, d := range drifts {
		if i > 0 {
			b.WriteByte(';')
		}
		fmt.Fprintf(&b, " %s is %s, want %s", d.Setting, d.Got, d.Want)
	}
	return b.String()
}

func (e *DriftError) Unwrap() error { return ErrDrift }

// validate checks p against the schema's indexes.
func (p Provisioning) validate(s Schema) error {
	switch p.TableClass {
	case "", types.TableClassStandard, types.TableClassStandardInfrequentAccess:
	default:
		return inputErr("schema.Provisioning.TableClass", string(p.TableClass), "a table class is STANDARD or STANDARD_INFREQUENT_ACCESS")
	}
	if p.Encryption.KMSKeyID != "" && !p.Encryption.KMS {
		return inputErr("schema.Provisioning.Encryption.KMSKeyID", p.Encryption.KMSKeyID, "a KMS key needs Encryption.KMS")
	}
	c := p.Capacity
	if c == nil {
		return nil
	}
	if c.Read < 1 || c.Write < 1 {
		return inputErr("schema.Provisioning.Capacity", fmt.Sprintf("%d/%d", c.Read, c.Write), "read and write capacity must be at least 1")
	}
	for name, t := range c.Indexes {
		ix, ok := s.Index(name)
		if !ok {
			return inputErr("schema.Provisioning.Capacity.Indexes", name, "no such index in the schema")
		}
		if ix.Local {
			return inputErr("schema.Provisioning.Capacity.Indexes", name, "a local secondary index uses the table's capacity: it has none of its own")
		}
		if t.Read < 1 || t.Write < 1 {
			return inputErr("schema.Provisioning.Capacity.Indexes["+name+"]", fmt.Sprintf("%d/%d", t.Read, t.Write), "read and write capacity must be at least 1")
		}
	}
	if a := c.AutoScaling; a != nil {
		field := "schema.Provisioning.Capacity.AutoScaling"
		switch {
		case a.MinRead < 1 || a.MinWrite < 1 || a.MaxRead < a.MinRead || a.MaxWrite < a.MinWrite:
			return inputErr(field, fmt.Sprintf("read %d-%d, write %d-%d", a.MinRead, a.MaxRead, a.MinWrite, a.MaxWrite), "minimums must be at least 1 and not above the maximums")
		case c.Read < a.MinRead || c.Read > a.MaxRead || c.Write < a.MinWrite || c.Write > a.MaxWrite:
			return inputErr(field, fmt.Sprintf("read %d, write %d", c.Read, c.Write), "the initial capacity must lie within the auto-scaling range")
		case a.TargetUtilization < 20 || a.TargetUtilization > 90:
			return inputErr(field+".TargetUtilization", fmt.Sprint(a.TargetUtilization), "must be 20 to 90 (percent)")
		}
	}
	return nil
}

// throughput returns the provisioned throughput of the table ("") or an
// index.
func (c *Capacity) throughput(index string) *types.ProvisionedThroughput {
	t := Throughput{Read: c.Read, Write: c.Write}
	if it, ok := c.Indexes[index]; ok && index != "" {
		t = it
	}
	return &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(t.Read), WriteCapacityUnits: aws.Int64(t.Write)}
}

// provision adds p's settings to a CreateTable request.
func (p Provisioning) provision(in *dynamodb.CreateTableInput) {
	if c := p.Capacity; c != nil {
		in.BillingMode = types.BillingModeProvisioned
		in.ProvisionedThroughput = c.throughput("")
		for i := range in.GlobalSecondaryIndexes {
			in.GlobalSecondaryIndexes[i].ProvisionedThroughput = c.throughput(aws.ToString(in.GlobalSecondaryIndexes[i].IndexName))
		}
	}
	if p.Encryption.KMS {
		in.SSESpecification = &types.SSESpecification{Enabled: aws.Bool(true), SSEType: types.SSETypeKms}
		if p.Encryption.KMSKeyID != "" {
			in.SSESpecification.KMSMasterKeyId = aws.String(p.Encryption.KMSKeyID)
		}
	}
	if p.DeletionProtection {
		in.DeletionProtectionEnabled = aws.Bool(true)
	}
	in.TableClass = p.TableClass
}

// pitrEnabled reports whether point-in-time recovery is on (or turning on).
func pitrEnabled(ctx context.Context, b BackupsAPI, name string) (bool, error) {
	out, err := b.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(name)})
	if err != nil {
		return false, wrapError("describe continuous backups", name, "", err)
	}
	d := out.ContinuousBackupsDescription
	if d == nil || d.PointInTimeRecoveryDescription == nil {
		return false, nil
	}
	st := d.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus
	return st == types.PointInTimeRecoveryStatusEnabled || st == "ENABLING", nil
}

// enableRecovery turns point-in-time recovery on for a table just created
// (d describes it).
func (s Schema) enableRecovery(ctx context.Context, db API, d *types.TableDescription) error {
	if !s.Provisioning.PointInTimeRecovery || dynamoDBLocal(d) {
		return nil
	}
	if on, err := pitrEnabled(ctx, db, s.Name); err != nil || on {
		return err
	}
	_, err := db.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{
		TableName:                        aws.String(s.Name),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)},
	})
	return wrapError("update continuous backups", s.Name, "", err)
}

// drift compares an existing table with s.Provisioning, s.Stream's view
// and, when tags is set, s.Tags: a *DriftError listing every difference,
// or nil. A missing stream is not drift here: EnsureTable turns it on.
func (s Schema) drift(ctx context.Context, db API, d *types.TableDescription, tags bool) error {
	drifts, err := s.provisioningDrifts(ctx, db, d)
	if err != nil {
		return err
	}
	if tags {
		td, err := s.tagDrifts(ctx, db, d)
		if err != nil {
			return err
		}
		drifts = append(drifts, td...)
	}
	if sd, ok := s.streamDrift(d); ok && streaming(d) {
		drifts = append(drifts, sd)
	}
	if len(drifts) > 0 {
		return &DriftError{Table: s.Name, Drifts: drifts}
	}
	return nil
}

// provisioningDrifts lists the settings of an existing table that differ
// from s.Provisioning.
func (s Schema) provisioningDrifts(ctx context.Context, db API, d *types.TableDescription) ([]Drift, error) {
	p := s.Provisioning
	var drifts []Drift
	add := func(setting, want, got string) {
		drifts = append(drifts, Drift{Setting: setting, Want: want, Got: got})
	}

	// BillingModeSummary is absent for tables that were always
	// provisioned (the API reference: "PROVISIONED" is the default).
	billing := types.BillingModeProvisioned
	if d.BillingModeSummary != nil && d.BillingModeSummary.BillingMode != "" {
		billing = d.BillingModeSummary.BillingMode
	}
	wantBilling := types.BillingModePayPerRequest
	if p.Capacity != nil {
		wantBilling = types.BillingModeProvisioned
	}
	if billing != wantBilling {
		add("BillingMode", string(wantBilling), string(billing))
	} else if c := p.Capacity; c != nil {
		check := func(prefix string, scaled bool, want *types.ProvisionedThroughput, got *types.ProvisionedThroughputDescription) {
			var gr, gw int64
			if got != nil {
				gr, gw = aws.ToInt64(got.ReadCapacityUnits), aws.ToInt64(got.WriteCapacityUnits)
			}
			wr, ww := aws.ToInt64(want.ReadCapacityUnits), aws.ToInt64(want.WriteCapacityUnits)
			if a := c.AutoScaling; a != nil && scaled {
				// The scaler moves the capacity within its range.
				if gr < a.MinRead || gr > a.MaxRead {
					add(prefix+"ReadCapacity", fmt.Sprintf("%d-%d (auto-scaling)", a.MinRead, a.MaxRead), fmt.Sprint(gr))
				}
				if gw < a.MinWrite || gw > a.MaxWrite {
					add(prefix+"WriteCapacity", fmt.Sprintf("%d-%d (auto-scaling)", a.MinWrite, a.MaxWrite), fmt.Sprint(gw))
				}
				return
			}
			if gr != wr {
				add(prefix+"ReadCapacity", fmt.Sprint(wr), fmt.Sprint(gr))
			}
			if gw != ww {
				add(prefix+"WriteCapacity", fmt.Sprint(ww), fmt.Sprint(gw))
			}
		}
		check("", true, c.throughput(""), d.ProvisionedThroughput)
		for _, ix := range d.GlobalSecondaryIndexes {
			name := aws.ToString(ix.IndexName)
			if _, ok := s.Index(name); ok {
				_, own := c.Indexes[name]
				check("index "+name+" ", !own, c.throughput(name), ix.ProvisionedThroughput)
			}
		}
	}

	// DynamoDB Local describes neither encryption nor recovery (see
	// dynamoDBLocal): on it these two are not compared.
	local := dynamoDBLocal(d)

	if e := p.Encryption; e.KMS && !local {
		sse := d.SSEDescription
		got := "AWS owned key"
		if sse != nil && sse.SSEType == types.SSETypeKms && (sse.Status == types.SSEStatusEnabled || sse.Status == types.SSEStatusEnabling || sse.Status == types.SSEStatusUpdating) {
			got = "KMS " + aws.ToString(sse.KMSMasterKeyArn)
		}
		want := "KMS"
		if e.KMSKeyID != "" {
			want += " " + e.KMSKeyID
		}
		if !strings.HasPrefix(got, "KMS") || !sameKey(e.KMSKeyID, strings.TrimPrefix(got, "KMS ")) {
			add("Encryption", want, got)
		}
	}

	if p.DeletionProtection && !aws.ToBool(d.DeletionProtectionEnabled) {
		add("DeletionProtection", "enabled", "disabled")
	}

	if p.TableClass != "" && !local {
		// A table never given a class is described without a summary:
		// it is STANDARD.
		got := types.TableClassStandard
		if d.TableClassSummary != nil && d.TableClassSummary.TableClass != "" {
			got = d.TableClassSummary.TableClass
		}
		if got != p.TableClass {
			add("TableClass", string(p.TableClass), string(got))
		}
	}

	if p.PointInTimeRecovery && !local {
		on, err := pitrEnabled(ctx, db, s.Name)
		if err != nil {
			return nil, err
		}
		if !on {
			add("PointInTimeRecovery", "enabled", "disabled")
		}
	}
	return drifts, nil
}

// dynamoDBLocal reports whether d was described by DynamoDB Local, whose
// ARNs name the region "ddblocal". Local departs from the API reference in
// three provisioning settings: it answers UnknownOperationException to
// UpdateContinuousBackups and DescribeContinuousBackups; it accepts a
// KMS SSESpecification but describes no SSEDescription (as if the table
// used the AWS owned key); and it accepts any TableClass (even one the
// API reference's enum refuses) and describes no TableClassSummary. On it
// Create sends the encryption and class it asks for but leaves
// point-in-time recovery to the API it lacks, and EnsureTable and Check
// compare none of the three, so a schema with the seeds' production
// defaults runs unchanged on Local; the fake and DynamoDB itself check
// them.
func dynamoDBLocal(d *types.TableDescription) bool {
	return d != nil && strings.HasPrefix(aws.ToString(d.TableArn), "arn:aws:dynamodb:ddblocal:")
}

// sameKey reports whether the key DynamoDB reports (a key ARN) can be the
// key the schema names: any KMS key when none is named or an alias is
// named (resolving an alias needs KMS), else the same ARN or key id.
func sameKey(want, gotARN string) bool {
	switch {
	case want == "", strings.HasPrefix(want, "alias/"), strings.Contains(want, ":alias/"):
		return true
	case strings.HasPrefix(want, "arn:"):
		return want == gotARN
	default:
		return strings.HasSuffix(gotARN, ":key/"+want)
	}
}

package table

import (
	"cmp"
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Check compares the existing table s names with s and changes nothing,
// for tooling that must report rather than repair (tablekit tables check).
// It returns nil when the table matches, an error matching
// ErrTableNotFound when there is no table, and otherwise a *DriftError
// (ErrDrift) listing every difference: the table's keys, each index's
// presence, keys and projection, the TTL attribute, Provisioning and the
// tags of Tags.
// EnsureTable, by contrast, refuses other keys or indexes with
// ErrSchemaMismatch and enables a missing TTL.
func (s Schema) Check(ctx context.Context, db API) error {
	if err := s.Validate(); err != nil {
		return err
	}
	if err := checkClient(ctx, db); err != nil {
		return err
	}
	out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(s.Name)})
	if err != nil {
		return wrapError("describe table", s.Name, "", err)
	}
	if out.Table == nil {
		return &Error{Op: "check table", Table: s.Name, Err: ErrTableNotFound}
	}
	drifts := s.keyDrifts(out.Table)
	ttl, err := db.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(s.Name)})
	if err != nil {
		return wrapError("describe time to live", s.Name, "", err)
	}
	got := "off"
	if d := ttl.TimeToLiveDescription; d != nil &&
		(d.TimeToLiveStatus == types.TimeToLiveStatusEnabled || d.TimeToLiveStatus == types.TimeToLiveStatusEnabling) {
		got = deref(d.AttributeName)
	}
	if want := cmp.Or(s.TTLAttribute, "off"); got != want {
		drifts = append(drifts, Drift{Setting: "TTL", Want: want, Got: got})
	}
	if sd, ok := s.streamDrift(out.Table); ok {
		drifts = append(drifts, sd)
	}
	more, err := s.provisioningDrifts(ctx, db, out.Table)
	if err != nil {
		return err
	}
	tags, err := s.tagDrifts(ctx, db, out.Table)
	if err != nil {
		return err
	}
	more = append(more, tags...)
	if drifts = append(drifts, more...); len(drifts) > 0 {
		return &DriftError{Table: s.Name, Drifts: drifts}
	}
	return nil
}

// checkClient refuses a nil client or context before a Schema call sends
// anything.
func checkClient(ctx context.Context, db API) error {
	if db == nil {
		return &InputError{Field: "db", Value: "nil", Reason: "a schema call needs a DynamoDB client", Err: ErrNoTable}
	}
	if ctx == nil {
		return inputErr("ctx", "nil", "pass context.Background() or a request's context")
	}
	return nil
}

package table

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// EnableStream turns on the DynamoDB Stream of the existing table
// tableName with view and returns the stream's ARN. A table that already
// streams view is left alone (its ARN is returned); one that streams
// another view is refused with a *DriftError (ErrDrift) naming both and
// left as it is: a new view starts a new stream, and the consumers of the
// old one would lose their place. changes.EnableStream and
// Schema.EnsureTable (for Schema.Stream) are this.
func EnableStream(ctx context.Context, db API, tableName string, view types.StreamViewType) (string, error) {
	if err := checkClient(ctx, db); err != nil {
		return "", err
	}
	if !validStreamView(view) {
		return "", inputErr("view", string(view), "a stream view is KEYS_ONLY, NEW_IMAGE, OLD_IMAGE or NEW_AND_OLD_IMAGES")
	}
	if len(tableName) < 3 || len(tableName) > 255 || !validName(tableName) {
		return "", inputErr("tableName", tableName, "table names are 3 to 255 characters of a-z, A-Z, 0-9, '_', '-' and '.'")
	}
	return Schema{Name: tableName, Stream: view}.enableStream(ctx, db)
}

// enableStream is EnableStream for s.Name and s.Stream, both valid.
func (s Schema) enableStream(ctx context.Context, db API) (string, error) {
	out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(s.Name)})
	if err != nil {
		return "", wrapError("describe table", s.Name, "", err)
	}
	if out.Table == nil {
		return "", &Error{Op: "enable stream", Table: s.Name, Err: ErrTableNotFound, Cause: errors.New("DescribeTable returned no table")}
	}
	if streaming(out.Table) {
		if d, drifted := s.streamDrift(out.Table); drifted {
			return "", &DriftError{Table: s.Name, Drifts: []Drift{d}}
		}
		return aws.ToString(out.Table.LatestStreamArn), nil
	}
	up, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(s.Name),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: s.Stream}})
	if err != nil {
		return "", wrapError("update table", s.Name, "", err)
	}
	if up.TableDescription == nil {
		return "", nil
	}
	return aws.ToString(up.TableDescription.LatestStreamArn), nil
}

// streaming reports whether the described table has its stream on.
func streaming(d *types.TableDescription) bool {
	spec := d.StreamSpecification
	return spec != nil && aws.ToBool(spec.StreamEnabled)
}

// streamDrift is the difference between s.Stream and the described
// table's stream, and whether there is one: none when s asks for no
// stream; "off" when the table has none; the other view when it streams
// one.
func (s Schema) streamDrift(d *types.TableDescription) (Drift, bool) {
	if s.Stream == "" {
		return Drift{}, false
	}
	got := "off"
	if streaming(d) {
		got = string(d.StreamSpecification.StreamViewType)
	}
	if got == string(s.Stream) {
		return Drift{}, false
	}
	return Drift{Setting: "Stream", Want: string(s.Stream), Got: got}, true
}

func validStreamView(v types.StreamViewType) bool {
	switch v {
	case types.StreamViewTypeKeysOnly, types.StreamViewTypeNewImage, types.StreamViewTypeOldImage, types.StreamViewTypeNewAndOldImages:
		return true
	}
	return false
}

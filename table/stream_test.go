package table_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/table"
)

func describeStream(t *testing.T, db table.API, name string) *types.StreamSpecification {
	t.Helper()
	out, err := db.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	require.NoError(t, err)
	return out.Table.StreamSpecification
}

// testSchemaStream: a schema's stream is created with the table; a table
// made without it is drift to Check, and EnsureTable turns it on; a table
// streaming another view is drift to both, and neither changes it.
func testSchemaStream(t *testing.T, db table.API, created, bare string) {
	ctx := t.Context()
	s := jobsSchema(created)
	s.Stream = types.StreamViewTypeNewAndOldImages
	require.NoError(t, s.EnsureTable(ctx, db))
	spec := describeStream(t, db, created)
	require.NotNil(t, spec, "CreateTable carried the stream")
	assert.True(t, aws.ToBool(spec.StreamEnabled))
	assert.Equal(t, types.StreamViewTypeNewAndOldImages, spec.StreamViewType)
	assert.NoError(t, s.Check(ctx, db))
	assert.NoError(t, s.EnsureTable(ctx, db))

	plain := jobsSchema(bare)
	require.NoError(t, plain.EnsureTable(ctx, db))
	want := plain
	want.Stream = types.StreamViewTypeNewImage
	var de *table.DriftError
	require.ErrorAs(t, want.Check(ctx, db), &de)
	assert.Equal(t, []table.Drift{{Setting: "Stream", Want: "NEW_IMAGE", Got: "off"}}, de.Drifts)
	assert.Nil(t, describeStream(t, db, bare), "Check changed nothing")
	require.NoError(t, want.EnsureTable(ctx, db), "EnsureTable turns a missing stream on")
	spec = describeStream(t, db, bare)
	require.NotNil(t, spec)
	assert.Equal(t, types.StreamViewTypeNewImage, spec.StreamViewType)
	assert.NoError(t, want.Check(ctx, db))
	assert.NoError(t, plain.Check(ctx, db), "a schema asking no stream accepts one")

	other := want
	other.Stream = types.StreamViewTypeKeysOnly
	for name, err := range map[string]error{"Check": other.Check(ctx, db), "EnsureTable": other.EnsureTable(ctx, db)} {
		require.ErrorAs(t, err, &de, name)
		assert.Equal(t, []table.Drift{{Setting: "Stream", Want: "KEYS_ONLY", Got: "NEW_IMAGE"}}, de.Drifts, name)
	}
	_, err := table.EnableStream(ctx, db, bare, types.StreamViewTypeKeysOnly)
	assert.ErrorIs(t, err, table.ErrDrift, "EnableStream refuses another view")
	assert.Equal(t, types.StreamViewTypeNewImage, describeStream(t, db, bare).StreamViewType, "the stream was left as it was")
	arn, err := table.EnableStream(ctx, db, bare, types.StreamViewTypeNewImage)
	require.NoError(t, err)
	assert.Contains(t, arn, bare+"/stream/", "the same view returns the stream's ARN")
}

func TestSchemaStreamOnTheFake(t *testing.T) {
	testSchemaStream(t, dynamotest.New(), "jobs-streamed", "jobs-bare")
}

func TestSchemaStreamIntegration(t *testing.T) {
	client := testenv.DynamoDB(t)
	created, bare := testenv.TableName(t, "streamed"), testenv.TableName(t, "bare")
	t.Cleanup(func() {
		for _, n := range []string{created, bare} {
			_, _ = client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(n)})
		}
	})
	testSchemaStream(t, client, created, bare)
}

func TestEnableStreamRefusesBadInputBeforeAnyCall(t *testing.T) {
	db := dynamotest.New()
	cases := map[string]func() error{
		"nil db": func() error {
			_, err := table.EnableStream(t.Context(), nil, "things", types.StreamViewTypeNewImage)
			return err
		},
		"bad view":   func() error { _, err := table.EnableStream(t.Context(), db, "things", "ALL"); return err },
		"empty view": func() error { _, err := table.EnableStream(t.Context(), db, "things", ""); return err },
		"bad name": func() error {
			_, err := table.EnableStream(t.Context(), db, "a/b", types.StreamViewTypeNewImage)
			return err
		},
		"nil ctx": func() error {
			_, err := table.EnableStream(nil, db, "things", types.StreamViewTypeNewImage)
			return err
		},
	}
	for name, call := range cases {
		assert.ErrorIs(t, call(), table.ErrInvalidInput, name)
	}
	assert.Zero(t, db.Calls("DescribeTable")+db.Calls("UpdateTable"), "a call was sent")
	s := jobsSchema("things")
	s.Stream = "ALL"
	assert.ErrorIs(t, s.Validate(), table.ErrInvalidInput)
	_, err := table.EnableStream(t.Context(), db, "missing", types.StreamViewTypeNewImage)
	assert.ErrorIs(t, err, table.ErrTableNotFound)
}

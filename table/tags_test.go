package table_test

import (
	"context"
	"strings"
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

// taggedJobs is the jobs design's table with its Terraform tags: Name =
// the table's name, and a team tag.
func taggedJobs(name string) table.Schema {
	s := jobsSchema(name)
	s.Tags = map[string]string{"Name": name, "team": "photo editor"}
	return s
}

// tagsOf lists a table's tags on the fake.
func tagsOf(t *testing.T, db *dynamotest.DB, name string) map[string]string {
	t.Helper()
	d, err := db.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	require.NoError(t, err)
	out, err := db.ListTagsOfResource(t.Context(), &dynamodb.ListTagsOfResourceInput{ResourceArn: d.Table.TableArn})
	require.NoError(t, err)
	got := map[string]string{}
	for _, tg := range out.Tags {
		got[aws.ToString(tg.Key)] = aws.ToString(tg.Value)
	}
	return got
}

func TestCreateTagsTheTableAndEnsureTableAcceptsItsOwnTags(t *testing.T) {
	db := dynamotest.New()
	s := taggedJobs("photoeditor-prod-jobs")
	require.NoError(t, s.EnsureTable(t.Context(), db))
	assert.Equal(t, map[string]string{"Name": "photoeditor-prod-jobs", "team": "photo editor"}, tagsOf(t, db, s.Name))
	in := s.CreateTableInput()
	require.Len(t, in.Tags, 2)
	assert.Equal(t, "Name", aws.ToString(in.Tags[0].Key), "in key order, so requests are deterministic")
	assert.NoError(t, s.EnsureTable(t.Context(), db), "the tags it made are no drift")
	assert.NoError(t, s.Check(t.Context(), db))
}

// An existing table without the schema's tags, or with another value, is
// drift for EnsureTable and Check alike; neither tags the table
// (TagResource is the operator's call). Tags beyond the schema's are not
// drift.
func TestEnsureTableReportsMissingAndChangedTagsAndTagsNothing(t *testing.T) {
	ctx := t.Context()
	db := dynamotest.New()
	name := "photoeditor-prod-jobs"
	require.NoError(t, jobsSchema(name).EnsureTable(ctx, db), "an untagged table, made before the tags")
	d, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	require.NoError(t, err)
	_, err = db.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: d.Table.TableArn,
		Tags: []types.Tag{{Key: aws.String("team"), Value: aws.String("search")}, {Key: aws.String("cost-centre"), Value: aws.String("42")}}})
	require.NoError(t, err)
	before := tagsOf(t, db, name)

	s := taggedJobs(name)
	want := []table.Drift{
		{Setting: "Tag Name", Want: name, Got: "absent"},
		{Setting: "Tag team", Want: "photo editor", Got: "search"},
	}
	for what, call := range map[string]func(context.Context, table.API) error{"EnsureTable": s.EnsureTable, "Check": s.Check} {
		err := call(ctx, db)
		require.ErrorIs(t, err, table.ErrDrift, what)
		var de *table.DriftError
		require.ErrorAs(t, err, &de)
		assert.Equal(t, want, de.Drifts, what)
	}
	assert.Zero(t, db.Calls("TagResource")-1, "only the test's own TagResource was sent")
	assert.Equal(t, before, tagsOf(t, db, name), "nothing was tagged")

	_, err = db.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: d.Table.TableArn,
		Tags: []types.Tag{{Key: aws.String("Name"), Value: aws.String(name)}, {Key: aws.String("team"), Value: aws.String("photo editor")}}})
	require.NoError(t, err)
	assert.NoError(t, s.EnsureTable(ctx, db), "tagged by the operator; cost-centre is not the schema's and not drift")
}

func TestTagsAreCheckedBeforeAnyCall(t *testing.T) {
	many := map[string]string{}
	for i := range table.MaxTags + 1 {
		many[strings.Repeat("k", i+1)] = "v"
	}
	cases := map[string]map[string]string{
		"too many":          many,
		"empty key":         {"": "v"},
		"key too long":      {strings.Repeat("k", 129): "v"},
		"aws: prefix":       {"aws:createdBy": "me"},
		"AWS: prefix":       {"AWS:createdBy": "me"},
		"bad key character": {"team#1": "v"},
		"value too long":    {"k": strings.Repeat("v", 257)},
		"bad value":         {"k": "a;b"},
	}
	for name, tags := range cases {
		db := dynamotest.New()
		s := jobsSchema("jobs-tags")
		s.Tags = tags
		assert.ErrorIs(t, s.Validate(), table.ErrInvalidInput, name)
		assert.ErrorIs(t, s.EnsureTable(t.Context(), db), table.ErrInvalidInput, name)
		assert.Zero(t, db.Calls("CreateTable")+db.Calls("DescribeTable"), "%s: a call was sent", name)
	}
	ok := jobsSchema("jobs-tags")
	ok.Tags = map[string]string{"Name": "photoeditor-prod-jobs", "owner": "photo-team@example.com", "path": "a/b c=d+e:f", "empty": "", "名前": "写真"}
	assert.NoError(t, ok.Validate())
}

func TestWithNameMovesAMatchingNameTagOnly(t *testing.T) {
	s := taggedJobs("photoeditor-dev-jobs")
	prod := s.WithName("photoeditor-prod-jobs")
	assert.Equal(t, "photoeditor-prod-jobs", prod.Tags["Name"])
	assert.Equal(t, "photoeditor-dev-jobs", s.Tags["Name"], "the original keeps its tags")
	s.Tags["Name"] = "photo editor jobs"
	assert.Equal(t, "photo editor jobs", s.WithName("x-jobs").Tags["Name"], "a Name that is not the table's stays")
}

// On DynamoDB Local, which accepts a CreateTable with Tags but has no
// ListTagsOfResource ("Tagging is not currently supported in DynamoDB
// Local"), a tagged schema creates its table and ensures it again: tags are
// not compared there, as encryption and recovery are not.
func TestIntegrationATaggedSchemaRunsOnDynamoDBLocal(t *testing.T) {
	client := testenv.DynamoDB(t)
	name := testenv.TableName(t, "tags")
	t.Cleanup(func() {
		_, _ = client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	s := taggedJobs(name)
	require.NoError(t, s.EnsureTable(t.Context(), client))
	assert.NoError(t, s.EnsureTable(t.Context(), client))
	assert.NoError(t, s.Check(t.Context(), client))
}

// racedCreate is a DynamoDB where another process creates the table
// between EnsureTable's DescribeTable and its CreateTable, and whose
// ListTagsOfResource does not show that creator's tags yet (it is
// eventually consistent: the API reference's TagResource notes).
type racedCreate struct {
	*dynamotest.DB
}

func (r racedCreate) CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, o ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	untagged := *in
	untagged.Tags = nil
	if _, err := r.DB.CreateTable(ctx, &untagged, o...); err != nil {
		return nil, err
	}
	return r.DB.CreateTable(ctx, in, o...) // ResourceInUseException
}

// EnsureTable that loses the race to create its table does not read the
// winner's tags as missing: the winner tagged it in its CreateTable.
func TestEnsureTableThatLostTheCreateRaceDoesNotCompareTags(t *testing.T) {
	db := racedCreate{dynamotest.New()}
	s := taggedJobs("photoeditor-prod-jobs")
	require.NoError(t, s.EnsureTable(t.Context(), db))
	assert.Equal(t, 2, db.Calls("CreateTable"), "the other process's create and the refused one")
	assert.ErrorIs(t, s.Check(t.Context(), db), table.ErrDrift, "while the tags do not show, Check (an operator's, later) reports them")
}

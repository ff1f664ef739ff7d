package conformance

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Tagger is what the tagging cases need beyond table.API; a
// *dynamodb.Client and dynamotest's DB have it.
type Tagger interface {
	TagResource(ctx context.Context, in *dynamodb.TagResourceInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TagResourceOutput, error)
	UntagResource(ctx context.Context, in *dynamodb.UntagResourceInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UntagResourceOutput, error)
	ListTagsOfResource(ctx context.Context, in *dynamodb.ListTagsOfResourceInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ListTagsOfResourceOutput, error)
}

// LimitsDescriber is what the DescribeLimits case needs beyond table.API.
type LimitsDescriber interface {
	DescribeLimits(ctx context.Context, in *dynamodb.DescribeLimitsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeLimitsOutput, error)
}

// tagger returns the case's API as a Tagger, skipping the case when it is
// not one.
func (c *C) tagger() Tagger {
	c.Helper()
	tg, ok := c.API.(Tagger)
	if !ok {
		c.Skip("the backend's API has no TagResource, UntagResource and ListTagsOfResource")
	}
	return tg
}

// tableARN returns the case table's ARN from DescribeTable.
func (c *C) tableARN() *string {
	c.Helper()
	out, err := c.API.DescribeTable(c.Ctx, &dynamodb.DescribeTableInput{TableName: c.TableName()})
	c.OK(err)
	return out.Table.TableArn
}

// Tags builds tags from key, value pairs.
func Tags(kv ...string) []types.Tag {
	var out []types.Tag
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, types.Tag{Key: aws.String(kv[i]), Value: aws.String(kv[i+1])})
	}
	return out
}

// renderTags renders tags as "k=v" in the order given.
func renderTags(tags []types.Tag) string {
	s := make([]string, len(tags))
	for i, t := range tags {
		s[i] = aws.ToString(t.Key) + "=" + aws.ToString(t.Value)
	}
	return strings.Join(s, ",")
}

func tagCases() []Case {
	// DynamoDB Local answers every tagging call with UnknownOperationException
	// ("Tagging is not currently supported in DynamoDB Local"), so these
	// cases follow the API reference and the Developer Guide's tagging
	// restrictions.
	const localNoTagging = "DynamoDB Local does not support tagging (UnknownOperationException); the cases follow the API reference"
	tagCase := func(name string, run func(c *C, tg Tagger, arn *string)) Case {
		return skipOn(Case{Name: "tags/" + name, Run: func(c *C) { run(c, c.tagger(), c.tableARN()) }}, DynamoDBLocal, localNoTagging)
	}
	list := func(c *C, tg Tagger, arn *string) string {
		c.Helper()
		out, err := tg.ListTagsOfResource(c.Ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: arn})
		c.OK(err)
		return renderTags(out.Tags)
	}
	expect := func(c *C, got, want string) {
		c.Helper()
		if got != want {
			c.Errorf("tags %q; want %q", got, want)
		}
	}
	return []Case{
		tagCase("new-table-has-none", func(c *C, tg Tagger, arn *string) { expect(c, list(c, tg, arn), "") }),
		tagCase("tag-list-untag", func(c *C, tg Tagger, arn *string) {
			_, err := tg.TagResource(c.Ctx, &dynamodb.TagResourceInput{ResourceArn: arn, Tags: Tags("b", "2", "a", "1", "empty", "")})
			c.OK(err)
			expect(c, list(c, tg, arn), "a=1,b=2,empty=")
			_, err = tg.TagResource(c.Ctx, &dynamodb.TagResourceInput{ResourceArn: arn, Tags: Tags("b", "22")})
			c.OK(err)
			expect(c, list(c, tg, arn), "a=1,b=22,empty=")
			_, err = tg.UntagResource(c.Ctx, &dynamodb.UntagResourceInput{ResourceArn: arn, TagKeys: []string{"a", "never-set"}})
			c.OK(err)
			expect(c, list(c, tg, arn), "b=22,empty=")
		}),
		tagCase("unknown-table-is-resource-not-found", func(c *C, tg Tagger, arn *string) {
			other := aws.String(*arn + "-gone")
			_, err := tg.TagResource(c.Ctx, &dynamodb.TagResourceInput{ResourceArn: other, Tags: Tags("a", "1")})
			c.ExpectErr(err, "ResourceNotFoundException")
			_, err = tg.ListTagsOfResource(c.Ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: other})
			c.ExpectErr(err, "ResourceNotFoundException")
			_, err = tg.UntagResource(c.Ctx, &dynamodb.UntagResourceInput{ResourceArn: other, TagKeys: []string{"a"}})
			c.ExpectErr(err, "ResourceNotFoundException")
		}),
		tagCase("reserved-prefix-is-refused", func(c *C, tg Tagger, arn *string) {
			_, err := tg.TagResource(c.Ctx, &dynamodb.TagResourceInput{ResourceArn: arn, Tags: Tags("ok", "1", "aws:owner", "x")})
			c.ExpectErr(err, "ValidationException", "aws:")
			expect(c, list(c, tg, arn), "")
		}),
		tagCase("key-and-value-lengths", func(c *C, tg Tagger, arn *string) {
			_, err := tg.TagResource(c.Ctx, &dynamodb.TagResourceInput{ResourceArn: arn, Tags: Tags(strings.Repeat("k", 129), "v")})
			c.ExpectErr(err, "ValidationException")
			_, err = tg.TagResource(c.Ctx, &dynamodb.TagResourceInput{ResourceArn: arn, Tags: Tags("k", strings.Repeat("v", 257))})
			c.ExpectErr(err, "ValidationException")
			_, err = tg.TagResource(c.Ctx, &dynamodb.TagResourceInput{ResourceArn: arn, Tags: Tags(strings.Repeat("k", 128), strings.Repeat("v", 256))})
			c.OK(err)
		}),
		tagCase("at-most-fifty-per-table", func(c *C, tg Tagger, arn *string) {
			var kv []string
			for i := range 51 {
				kv = append(kv, fmt.Sprintf("k%03d", i), "v")
			}
			_, err := tg.TagResource(c.Ctx, &dynamodb.TagResourceInput{ResourceArn: arn, Tags: Tags(kv[:100]...)})
			c.OK(err)
			_, err = tg.TagResource(c.Ctx, &dynamodb.TagResourceInput{ResourceArn: arn, Tags: Tags(kv[100:]...)})
			c.ExpectErr(err, "LimitExceededException")
			_, err = tg.TagResource(c.Ctx, &dynamodb.TagResourceInput{ResourceArn: arn, Tags: Tags("k000", "replaced")})
			c.OK(err)
		}),
		skipOn(Case{Name: "tags/create-table-with-tags", NoTable: true, Run: func(c *C) {
			tg := c.tagger()
			name := c.UniqueTableName("tagged")
			in := PK.CreateTableInput(name)
			in.Tags = Tags("team", "data")
			out, err := c.API.CreateTable(c.Ctx, in)
			c.OK(err)
			c.Cleanup(func() {
				_, _ = c.API.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
			})
			expect(c, list(c, tg, out.TableDescription.TableArn), "team=data")
		}}, DynamoDBLocal, localNoTagging),
		{Name: "limits/describe-limits-reports-the-defaults", NoTable: true, Run: func(c *C) {
			ld, ok := c.API.(LimitsDescriber)
			if !ok {
				c.Skip("the backend's API has no DescribeLimits")
			}
			out, err := ld.DescribeLimits(c.Ctx, &dynamodb.DescribeLimitsInput{})
			c.OK(err)
			if aws.ToInt64(out.AccountMaxReadCapacityUnits) <= 0 || aws.ToInt64(out.TableMaxReadCapacityUnits) <= 0 ||
				aws.ToInt64(out.AccountMaxWriteCapacityUnits) <= 0 || aws.ToInt64(out.TableMaxWriteCapacityUnits) <= 0 {
				c.Errorf("DescribeLimits = %+v; want every limit positive", out)
			}
			if aws.ToInt64(out.TableMaxReadCapacityUnits) > aws.ToInt64(out.AccountMaxReadCapacityUnits) {
				c.Errorf("a table's read limit %d exceeds the account's %d", aws.ToInt64(out.TableMaxReadCapacityUnits), aws.ToInt64(out.AccountMaxReadCapacityUnits))
			}
		}},
	}
}

package dynamotest

import (
	"context"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// DynamoDB's tag limits (Developer Guide, "Tagging restrictions").
const (
	maxTagsPerResource = 50
	maxTagKeyLength    = 128
	maxTagValueLength  = 256
)

// TagResource adds tags to a table (or replaces the values of keys it has
// already), by the table's ARN.
func (db *DB) TagResource(ctx context.Context, in *dynamodb.TagResourceInput, _ ...func(*dynamodb.Options)) (res *dynamodb.TagResourceOutput, err error) {
	defer acknowledged(db, &res, &err)
	in = orEmpty(in)
	if _, err := db.stats.begin(ctx, opTagResource); err != nil {
		return nil, err
	}
	if in.Tags == nil {
		return nil, constraint("null", "tags", "Member must not be null")
	}
	if err := checkTags(in.Tags); err != nil {
		return nil, err
	}
	t, err := db.tableByARN(in.ResourceArn)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.deleted {
		return nil, resourceNotFound()
	}
	t.changed()
	return &dynamodb.TagResourceOutput{}, t.addTags(in.Tags)
}

// UntagResource removes the tags with the given keys from a table; keys it
// does not have are ignored.
func (db *DB) UntagResource(ctx context.Context, in *dynamodb.UntagResourceInput, _ ...func(*dynamodb.Options)) (res *dynamodb.UntagResourceOutput, err error) {
	defer acknowledged(db, &res, &err)
	in = orEmpty(in)
	if _, err := db.stats.begin(ctx, opUntagResource); err != nil {
		return nil, err
	}
	if in.TagKeys == nil {
		return nil, constraint("null", "tagKeys", "Member must not be null")
	}
	for _, k := range in.TagKeys {
		if err := checkTagKey(k); err != nil {
			return nil, err
		}
	}
	t, err := db.tableByARN(in.ResourceArn)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.deleted {
		return nil, resourceNotFound()
	}
	for _, k := range in.TagKeys {
		delete(t.tags, k)
	}
	t.changed()
	return &dynamodb.UntagResourceOutput{}, nil
}

// ListTagsOfResource lists a table's tags in key order (DynamoDB documents
// no order; the fake's is total), all on one page: a table has at most 50.
func (db *DB) ListTagsOfResource(ctx context.Context, in *dynamodb.ListTagsOfResourceInput, _ ...func(*dynamodb.Options)) (res *dynamodb.ListTagsOfResourceOutput, err error) {
	defer acknowledged(db, &res, &err)
	in = orEmpty(in)
	if _, err := db.stats.begin(ctx, opListTagsOfResource); err != nil {
		return nil, err
	}
	t, err := db.tableByARN(in.ResourceArn)
	if err != nil {
		return nil, err
	}
	t.mu.RLock()
	defer t.mu.RUnlock()
	if t.deleted {
		return nil, resourceNotFound()
	}
	keys := make([]string, 0, len(t.tags))
	for k := range t.tags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := &dynamodb.ListTagsOfResourceOutput{Tags: make([]types.Tag, len(keys))}
	for i, k := range keys {
		out.Tags[i] = types.Tag{Key: aws.String(k), Value: aws.String(t.tags[k])}
	}
	return out, nil
}

// tableByARN finds the table an ARN names: a table's own ARN (an index's
// or a stream's ARN is not a taggable resource).
func (db *DB) tableByARN(arn *string) (*dbTable, error) {
	s := aws.ToString(arn)
	if len(s) < 1 || len(s) > 1283 {
		return nil, constraint(s, "resourceArn", "Member must have length less than or equal to 1283 and greater than or equal to 1")
	}
	prefix, name, ok := strings.Cut(s, ":table/")
	if !ok || !strings.HasPrefix(prefix, "arn:") || name == "" {
		return nil, validationf("Invalid TableArn: Invalid ResourceArn provided as input %s", s)
	}
	t := db.table(name)
	if t == nil || t.arn != s {
		return nil, &types.ResourceNotFoundException{Message: aws.String("Requested resource not found: ResourcArn: " + s + " not found")}
	}
	return t, nil
}

// checkTags applies DynamoDB's rules to the tags of a TagResource or
// CreateTable request.
func checkTags(tags []types.Tag) error {
	seen := make(map[string]bool, len(tags))
	for _, tag := range tags {
		k := aws.ToString(tag.Key)
		if err := checkTagKey(k); err != nil {
			return err
		}
		if strings.HasPrefix(k, "aws:") {
			return validationf("One or more parameter values were invalid: Tag keys starting with 'aws:' are reserved for system use: %s", k)
		}
		if tag.Value == nil {
			return constraint("null", "tags.member.value", "Member must not be null")
		}
		if utf8.RuneCountInString(*tag.Value) > maxTagValueLength {
			return constraint(*tag.Value, "tags.member.value", "Member must have length less than or equal to 256")
		}
		if seen[k] {
			return validationf("One or more parameter values were invalid: Duplicate tag keys found: %s", k)
		}
		seen[k] = true
	}
	return nil
}

func checkTagKey(k string) error {
	if n := utf8.RuneCountInString(k); n < 1 || n > maxTagKeyLength {
		return constraint(k, "tags.member.key", "Member must have length less than or equal to 128 and greater than or equal to 1")
	}
	return nil
}

// addTags sets checked tags on the table, refusing to pass the limit of
// tags per resource. The caller holds t.mu.
func (t *dbTable) addTags(tags []types.Tag) error {
	added := 0
	for _, tag := range tags {
		if _, ok := t.tags[*tag.Key]; !ok {
			added++
		}
	}
	if len(t.tags)+added > maxTagsPerResource {
		return &types.LimitExceededException{Message: aws.String("The number of tags exceeds the per-resource limit of 50 tags")}
	}
	if t.tags == nil {
		t.tags = make(map[string]string, len(tags))
	}
	for _, tag := range tags {
		t.tags[*tag.Key] = *tag.Value
	}
	return nil
}

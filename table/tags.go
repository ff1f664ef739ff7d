package table

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// DynamoDB's tagging restrictions (the developer guide, "Tagging
// restrictions in DynamoDB"): at most 50 user tags a table, keys of 1 to
// 128 Unicode characters, values of at most 256, of letters, digits,
// spaces and _ . : / = + - @, and no key starting with "aws:" (AWS's own).
const (
	MaxTags        = 50
	maxTagKeyLen   = 128
	maxTagValueLen = 256
)

// validTagText reports whether s uses only the characters DynamoDB allows
// in tag keys and values.
func validTagText(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsSpace(r) && !strings.ContainsRune("_.:/=+-@", r) {
			return false
		}
	}
	return true
}

// validateTags checks s.Tags against DynamoDB's restrictions, so a bad tag
// fails before CreateTable rather than in it.
func (s Schema) validateTags() error {
	if len(s.Tags) > MaxTags {
		return inputErr("schema.Tags", fmt.Sprint(len(s.Tags)), fmt.Sprintf("a table has at most %d tags", MaxTags))
	}
	for _, k := range slices.Sorted(maps.Keys(s.Tags)) {
		v := s.Tags[k]
		field := "schema.Tags[" + k + "]"
		switch n := utf8.RuneCountInString(k); {
		case n < 1 || n > maxTagKeyLen:
			return inputErr("schema.Tags", fmt.Sprintf("%q", k), fmt.Sprintf("a tag key is 1 to %d characters", maxTagKeyLen))
		case strings.HasPrefix(strings.ToLower(k), "aws:"):
			return inputErr("schema.Tags", fmt.Sprintf("%q", k), `keys starting with "aws:" are reserved for AWS`)
		case !utf8.ValidString(k) || !validTagText(k):
			return inputErr("schema.Tags", fmt.Sprintf("%q", k), "a tag key holds letters, digits, spaces and _ . : / = + - @ only")
		case utf8.RuneCountInString(v) > maxTagValueLen:
			return inputErr(field, fmt.Sprintf("%.40q...", v), fmt.Sprintf("a tag value is at most %d characters", maxTagValueLen))
		case !utf8.ValidString(v) || !validTagText(v):
			return inputErr(field, fmt.Sprintf("%q", v), "a tag value holds letters, digits, spaces and _ . : / = + - @ only")
		}
	}
	return nil
}

// tagList is s.Tags as CreateTable takes them, in key order; nil for none.
func (s Schema) tagList() []types.Tag {
	if len(s.Tags) == 0 {
		return nil
	}
	out := make([]types.Tag, 0, len(s.Tags))
	for k, v := range s.Tags {
		out = append(out, types.Tag{Key: aws.String(k), Value: aws.String(v)})
	}
	slices.SortFunc(out, func(a, b types.Tag) int { return strings.Compare(*a.Key, *b.Key) })
	return out
}

// tagDrifts lists the tags of s.Tags the existing table d lacks or carries
// with another value ("Tag Name" is absent, want photoeditor-prod-jobs).
// Tags the table carries beyond s.Tags are not drift: an infrastructure
// tool adds its own (cost centre, owner). Nothing is changed: tagging an
// existing table (TagResource) is the operator's call.
//
// DynamoDB Local answers ListTagsOfResource with UnknownOperationException
// ("Tagging is not currently supported in DynamoDB Local") although it
// accepts a CreateTable with Tags: on it tags are not compared, as
// encryption and recovery are not (see dynamoDBLocal).
func (s Schema) tagDrifts(ctx context.Context, db API, d *types.TableDescription) ([]Drift, error) {
	if len(s.Tags) == 0 || dynamoDBLocal(d) {
		return nil, nil
	}
	arn := aws.ToString(d.TableArn)
	if arn == "" {
		return nil, &Error{Op: "list tags", Table: s.Name, Cause: fmt.Errorf("DescribeTable returned no TableArn")}
	}
	got := map[string]string{}
	in := &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(arn)}
	for {
		out, err := db.ListTagsOfResource(ctx, in)
		if err != nil {
			return nil, wrapError("list tags of resource", s.Name, "", err)
		}
		for _, t := range out.Tags {
			got[aws.ToString(t.Key)] = aws.ToString(t.Value)
		}
		if aws.ToString(out.NextToken) == "" {
			break
		}
		in.NextToken = out.NextToken
	}
	var drifts []Drift
	for _, t := range s.tagList() {
		k, want := aws.ToString(t.Key), aws.ToString(t.Value)
		g, ok := got[k]
		switch {
		case !ok:
			drifts = append(drifts, Drift{Setting: "Tag " + k, Want: want, Got: "absent"})
		case g != want:
			drifts = append(drifts, Drift{Setting: "Tag " + k, Want: want, Got: g})
		}
	}
	return drifts, nil
}

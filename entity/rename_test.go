package entity_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/table"
)

// Profile has attributes being renamed: name → displayName, visits →
// visitCount, tags → labels, note → memo.
type Profile struct {
	UserID string                          `dynamodbav:"userId"`
	Name   string                          `dynamodbav:"name"`
	Visits int                             `dynamodbav:"visits,omitempty"`
	Tags   []string                        `dynamodbav:"tags,omitempty"`
	Note   string                          `dynamodbav:"note,omitempty"`
	Expiry int64                           `dynamodbav:"expiresAt,omitempty"`
	Ver    int                             `dynamodbav:"version,omitempty"`
	Extra  map[string]types.AttributeValue `dynamodbav:"-"`
}

// ProfileName is a projection of Profile.
type ProfileName struct {
	Name string `dynamodbav:"name"`
}

var profileRenames = map[string]string{"name": "displayName", "visits": "visitCount", "tags": "labels", "note": "memo"}

func declareProfiles(t *testing.T, e *env) *entity.Entity[Profile] {
	t.Helper()
	opts := []func(*entity.Options){entity.Key("PROFILE#{userId}", "PROFILE"), entity.Extra("Extra")}
	for from, to := range profileRenames {
		opts = append(opts, entity.RenameAttribute(from, to))
	}
	profiles, err := entity.New[Profile](e.reg, "profile", opts...)
	require.NoError(t, err)
	return profiles
}

// testARenamedAttributeIsWrittenUnderBothNamesAndReadFromTheNewFirst:
// every write of a renamed attribute (Create, each kind of update, Remove,
// an update in a transaction) leaves it under both names with one value;
// reads take the new name first and do not show it as an extra.
func testARenamedAttributeIsWrittenUnderBothNamesAndReadFromTheNewFirst(t *testing.T, mk makeEnv) {
	e := mk(t)
	profiles := declareProfiles(t, e)
	both := func(step string) table.Item {
		t.Helper()
		item := e.raw(t, "PROFILE#u1", "PROFILE")
		for from, to := range profileRenames {
			assert.Equal(t, item[from], item[to], "%s: %s and %s", step, from, to)
		}
		return item
	}
	_, err := profiles.Create(ctx, Profile{UserID: "u1", Name: "Ann", Visits: 1, Tags: []string{"a"}})
	require.NoError(t, err)
	item := both("create")
	assert.Equal(t, "Ann", rawS(t, item["displayName"]))
	assert.Equal(t, "1", rawN(t, item["visitCount"]))

	p, err := profiles.Patch(Profile{UserID: "u1"}).Set("name", "Anna").Add("visits", 2).Append("tags", "b").SetIfNotExists("note", "hi").Run(ctx)
	require.NoError(t, err)
	item = both("patch")
	assert.Equal(t, "3", rawN(t, item["visitCount"]), "1 + 2 under the new name too")
	assert.Len(t, item["labels"].(*types.AttributeValueMemberL).Value, 2)
	assert.Equal(t, Profile{UserID: "u1", Name: "Anna", Visits: 3, Tags: []string{"a", "b"}, Note: "hi"}, p, "no new name left for Extra")

	_, err = profiles.Patch(Profile{UserID: "u1"}).SetIfNotExists("note", "ignored").Run(ctx)
	require.NoError(t, err)
	assert.Equal(t, "hi", rawS(t, both("set if not exists")["memo"]))

	require.NoError(t, entity.Transact(ctx, profiles.Patch(Profile{UserID: "u1"}).Add("visits", 4).Set("name", "Anne").Remove("note").Action()))
	item = both("transaction")
	assert.Equal(t, "7", rawN(t, item["visitCount"]))
	assert.NotContains(t, item, "memo", "removed under both names")

	// An item written before the rename has the old names only: an Add
	// counts the new name from the old's value, and a read falls back.
	for _, id := range []string{"u2", "u4"} {
		_, err = e.t.DB().PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(e.t.Name()), Item: table.Item{
			"pk": s("PROFILE#" + id), "sk": s("PROFILE"), "_type": s("profile"), "userId": s(id), "name": s("Bo"),
			"visits": &types.AttributeValueMemberN{Value: "5"}, "note": s("old"),
			"tags": &types.AttributeValueMemberL{Value: []types.AttributeValue{s("t")}}}})
		require.NoError(t, err)
	}
	got, err := profiles.Get(ctx, Profile{UserID: "u2"})
	require.NoError(t, err)
	assert.Equal(t, "Bo", got.Name)
	_, err = profiles.Patch(Profile{UserID: "u2"}).Add("visits", 1).Run(ctx)
	require.NoError(t, err)
	assert.Equal(t, "6", rawN(t, e.raw(t, "PROFILE#u2", "PROFILE")["visitCount"]))
	_, err = profiles.Patch(Profile{UserID: "u2"}).SetIfNotExists("note", "new").Append("tags", "u").Run(ctx)
	require.NoError(t, err)
	assert.Equal(t, "old", rawS(t, e.raw(t, "PROFILE#u2", "PROFILE")["memo"]), "the old name's value, kept")
	assert.Len(t, e.raw(t, "PROFILE#u2", "PROFILE")["labels"].(*types.AttributeValueMemberL).Value, 2, "appended to the old name's list")
	require.NoError(t, entity.Transact(ctx, profiles.Patch(Profile{UserID: "u4"}).SetIfNotExists("note", "new").Action()))
	assert.Equal(t, "old", rawS(t, e.raw(t, "PROFILE#u4", "PROFILE")["memo"]), "in a transaction too")

	// The new name is read first: a newer writer's value wins.
	_, err = e.t.DB().UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(e.t.Name()),
		Key: table.Key{"pk": s("PROFILE#u1"), "sk": s("PROFILE")}, UpdateExpression: aws.String("SET displayName = :n"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":n": s("Annie")}})
	require.NoError(t, err)
	got, err = profiles.Get(ctx, Profile{UserID: "u1"})
	require.NoError(t, err)
	assert.Equal(t, "Annie", got.Name)
	assert.Empty(t, got.Extra)
	name, err := entity.GetAs[ProfileName](ctx, profiles, Profile{UserID: "u1"})
	require.NoError(t, err)
	assert.Equal(t, "Annie", name.Name, "a projection reads the new name first too")
	var listed []Profile
	for p, err := range profiles.Items(ctx, Profile{UserID: "u1"}) {
		require.NoError(t, err)
		listed = append(listed, p)
	}
	require.Len(t, listed, 1)
	assert.Equal(t, "Annie", listed[0].Name)

	// Conditions name the old attribute, which every writer writes.
	_, err = profiles.Patch(Profile{UserID: "u1"}).Set("note", "x").If(expression.Name("name").Equal(expression.Value("Anne"))).Run(ctx)
	require.NoError(t, err)

	// Extra cannot write the new name by hand.
	_, err = profiles.Put(ctx, Profile{UserID: "u3", Name: "C", Extra: map[string]types.AttributeValue{"displayName": s("D")}})
	var ie *table.InputError
	require.ErrorAs(t, err, &ie)
}

func TestARenamedAttributeIsWrittenUnderBothNamesAndReadFromTheNewFirst(t *testing.T) {
	testARenamedAttributeIsWrittenUnderBothNamesAndReadFromTheNewFirst(t, fakeEnv)
}

func TestIntegrationARenamedAttributeIsWrittenUnderBothNamesAndReadFromTheNewFirst(t *testing.T) {
	testARenamedAttributeIsWrittenUnderBothNamesAndReadFromTheNewFirst(t, localEnv)
}

func TestARenameOfAKeyOrKeptAttributeOrToAKnownNameIsRefused(t *testing.T) {
	e := newEnv(t)
	cases := map[string][]func(*entity.Options){
		"table key field":   {entity.Key("PROFILE#{userId}", "PROFILE"), entity.RenameAttribute("userId", "uid")},
		"index key field":   {entity.Key("PROFILE#{userId}", "PROFILE"), entity.Index("GSI1", "NAME#{name}", "PROFILE"), entity.RenameAttribute("name", "n")},
		"TTL":               {entity.Key("PROFILE#{userId}", "PROFILE"), entity.TTL("expiresAt", 0), entity.RenameAttribute("expiresAt", "v")},
		"Version":           {entity.Key("PROFILE#{userId}", "PROFILE"), entity.Version("version"), entity.RenameAttribute("version", "v")},
		"to a known name":   {entity.Key("PROFILE#{userId}", "PROFILE"), entity.RenameAttribute("name", "note")},
		"to a key":          {entity.Key("PROFILE#{userId}", "PROFILE"), entity.RenameAttribute("name", "pk")},
		"twice":             {entity.Key("PROFILE#{userId}", "PROFILE"), entity.RenameAttribute("name", "a"), entity.RenameAttribute("name", "b")},
		"two to one name":   {entity.Key("PROFILE#{userId}", "PROFILE"), entity.RenameAttribute("name", "a"), entity.RenameAttribute("note", "a")},
		"empty new name":    {entity.Key("PROFILE#{userId}", "PROFILE"), entity.RenameAttribute("name", "")},
		"unknown attribute": {entity.Key("PROFILE#{userId}", "PROFILE"), entity.RenameAttribute("nickname", "nick")},
	}
	for name, opts := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := entity.New[Profile](e.reg, "profile", opts...)
			var de *entity.DeclarationError
			require.ErrorAs(t, err, &de)
		})
	}
}

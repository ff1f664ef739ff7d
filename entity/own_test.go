package entity_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/table"
)

// A table whose keys are the item's own attributes, as the jobs table's
// are: jobId, and an index on userId and createdAt (Unix ms, a number).
type ownJob struct {
	ID        string                          `dynamodbav:"jobId"`
	UserID    string                          `dynamodbav:"userId"`
	CreatedAt int64                           `dynamodbav:"createdAt"`
	Extra     map[string]types.AttributeValue `dynamodbav:"-"`
}

func ownJobs(t *testing.T) (*dynamotest.DB, *entity.Entity[ownJob]) {
	t.Helper()
	db := dynamotest.New()
	s := table.Schema{Name: "own-jobs", PartitionKey: table.Attribute{Name: "jobId", Type: types.ScalarAttributeTypeS},
		Indexes: []table.Index{{Name: "byUser", PartitionKey: table.Attribute{Name: "userId", Type: types.ScalarAttributeTypeS},
			SortKey: table.Attribute{Name: "createdAt", Type: types.ScalarAttributeTypeN}}}}
	require.NoError(t, s.EnsureTable(ctx, db))
	reg, err := entity.NewRegistry(table.New(db, s), entity.NoTypeAttribute())
	require.NoError(t, err)
	jobs, err := entity.New[ownJob](reg, "job", entity.Key("{jobId}", ""), entity.Index("byUser", "{userId}", "{createdAt}"), entity.Extra("Extra"))
	require.NoError(t, err)
	return db, jobs
}

func TestKeysThatAreTheItemsOwnAttributesAndNumberSortConditions(t *testing.T) {
	db, jobs := ownJobs(t)
	for i, id := range []string{"j1", "j2", "j3", "j4"} {
		_, err := jobs.Create(ctx, ownJob{ID: id, UserID: "u", CreatedAt: int64(1000 + i)})
		require.NoError(t, err)
	}
	out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("own-jobs"), Key: table.Item{"jobId": s("j1")}})
	require.NoError(t, err)
	assert.Len(t, out.Item, 3, "no computed attribute: the keys are the attributes")

	list := func(opts ...func(*entity.ListOptions)) (ids []string) {
		for j, err := range jobs.Items(ctx, ownJob{UserID: "u"}, append(opts, entity.ByIndex("byUser"))...) {
			require.NoError(t, err)
			ids = append(ids, j.ID)
		}
		return ids
	}
	assert.Equal(t, []string{"j2", "j3"}, list(entity.SortBetween([]any{1001}, []any{1002})))
	assert.Equal(t, []string{"j4", "j3"}, list(entity.SortGreater(1001), entity.Descending()))
	assert.Equal(t, []string{"j1"}, list(entity.SortLess(1001)))
	_, err = jobs.List(ctx, ownJob{UserID: "u"}, "", entity.ByIndex("byUser"), entity.SortBetween([]any{1, 2}, []any{3}))
	require.ErrorIs(t, err, table.ErrInvalidInput, "one attribute, one value")
	_, err = jobs.Get(ctx, ownJob{})
	require.ErrorIs(t, err, table.ErrInvalidInput, "an empty key attribute")
}

func TestExtraKeepsTheAttributesTheStructHasNoFieldFor(t *testing.T) {
	db, jobs := ownJobs(t)
	_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("own-jobs"),
		Item: table.Item{"jobId": s("j1"), "userId": s("u"), "createdAt": &types.AttributeValueMemberN{Value: "1"}, "newField": s("from newer code")}})
	require.NoError(t, err)
	j, err := jobs.Get(ctx, ownJob{ID: "j1"})
	require.NoError(t, err)
	assert.Equal(t, map[string]types.AttributeValue{"newField": s("from newer code")}, j.Extra)
	j.Extra["renamed"] = s("x")
	_, err = jobs.Put(ctx, j)
	require.NoError(t, err)
	again, err := jobs.Get(ctx, ownJob{ID: "j1"})
	require.NoError(t, err)
	assert.Len(t, again.Extra, 2, "written back with the item")
	j.Extra = map[string]types.AttributeValue{"userId": s("clash")}
	_, err = jobs.Put(ctx, j)
	require.ErrorIs(t, err, table.ErrInvalidInput, "an extra may not stand for a known attribute")
	decoded, err := jobs.Decode(ctx, table.Item{"jobId": s("j9"), "odd": s("y")})
	require.NoError(t, err)
	assert.Equal(t, "j9", decoded.ID)
	assert.Contains(t, decoded.Extra, "odd")
}

package table_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
)

func TestExpiredFromTheSecondTheTTLNames(t *testing.T) {
	at := time.Date(2026, 9, 23, 10, 0, 0, 0, time.UTC)
	assert.False(t, table.Expired(0, at), "no ttl never expires")
	assert.False(t, table.Expired(at.Unix()+1, at))
	assert.True(t, table.Expired(at.Unix(), at))
	assert.True(t, table.Expired(at.Unix()-1, at))

	n := func(v string) table.Item { return table.Item{"ttl": &types.AttributeValueMemberN{Value: v}} }
	assert.True(t, table.ItemExpired(n("1790000000"), "ttl", at))
	assert.False(t, table.ItemExpired(n("1900000000"), "ttl", at))
	assert.True(t, table.ItemExpired(n("1.5e9"), "ttl", at), "a number compares by its value, as the condition compares it")
	assert.False(t, table.ItemExpired(n("0"), "ttl", at), "0 never expires")
	assert.False(t, table.ItemExpired(n("-5"), "ttl", at))
	assert.False(t, table.ItemExpired(n("0.5"), "ttl", at), "below 1")
	assert.False(t, table.ItemExpired(table.Item{"ttl": &types.AttributeValueMemberS{Value: "1"}}, "ttl", at), "not a number: ignored")
	assert.False(t, table.ItemExpired(table.Item{}, "ttl", at))
}

func TestTTLNeverExpiresBeforeItsTime(t *testing.T) {
	at := time.Date(2026, 9, 23, 10, 0, 0, 0, time.UTC)
	assert.Equal(t, at.Unix(), table.TTL(at))
	assert.Equal(t, at.Unix()+1, table.TTL(at.Add(time.Microsecond)))
}

type ttlThing struct {
	PK   string `dynamodbav:"PK"`
	SK   string `dynamodbav:"SK"`
	Name string `dynamodbav:"name"`
	TTL  int64  `dynamodbav:"ttl,omitempty"`
}

// TestIfNotExistsOrExpiredReplacesOnlyAnExpiredItem: DynamoDB deletes
// expired items days late; until then a create must see the key as free.
func TestIfNotExistsOrExpiredReplacesOnlyAnExpiredItem(t *testing.T) {
	ctx := context.Background()
	db := dynamotest.New()
	s := table.Schema{Name: "ttl", PartitionKey: table.Attribute{Name: "PK", Type: types.ScalarAttributeTypeS},
		SortKey: table.Attribute{Name: "SK", Type: types.ScalarAttributeTypeS}}
	require.NoError(t, s.EnsureTable(ctx, db)) // no TTL enabled: the fake never deletes, as DynamoDB's lag
	tbl := table.New(db, s)
	now := db.Now()

	require.NoError(t, tbl.Put(ctx, ttlThing{PK: "a", SK: "1", Name: "live", TTL: now.Unix() + 60}))
	err := tbl.Put(ctx, ttlThing{PK: "a", SK: "1", Name: "new"}, table.IfNotExistsOrExpired("ttl", now))
	require.ErrorIs(t, err, table.ErrAlreadyExists, "a live item keeps its key")

	require.NoError(t, tbl.Put(ctx, ttlThing{PK: "a", SK: "2", Name: "kept", TTL: 0}))
	err = tbl.Put(ctx, ttlThing{PK: "a", SK: "2", Name: "new"}, table.IfNotExistsOrExpired("ttl", now))
	require.ErrorIs(t, err, table.ErrAlreadyExists, "an item without ttl never expires")

	require.NoError(t, tbl.Put(ctx, table.Item{"PK": &types.AttributeValueMemberS{Value: "a"}, "SK": &types.AttributeValueMemberS{Value: "0"},
		"ttl": &types.AttributeValueMemberN{Value: "0"}}))
	err = tbl.Put(ctx, ttlThing{PK: "a", SK: "0", Name: "new"}, table.IfNotExistsOrExpired("ttl", now))
	require.ErrorIs(t, err, table.ErrAlreadyExists, "a ttl of 0 never expires")

	require.NoError(t, tbl.Put(ctx, ttlThing{PK: "a", SK: "3", Name: "old", TTL: now.Unix()}))
	require.NoError(t, tbl.Put(ctx, ttlThing{PK: "a", SK: "3", Name: "new"}, table.IfNotExistsOrExpired("ttl", now)))
	require.NoError(t, tbl.Put(ctx, ttlThing{PK: "a", SK: "4", Name: "new"}, table.IfNotExistsOrExpired("ttl", now)))
	require.NoError(t, tbl.WriteTx().Put(ttlThing{PK: "a", SK: "5", Name: "tx"}, table.IfNotExistsOrExpired("ttl", now)).Run(ctx))
	err = tbl.WriteTx().Put(ttlThing{PK: "a", SK: "1", Name: "tx"}, table.IfNotExistsOrExpired("ttl", now)).Run(ctx)
	require.ErrorIs(t, err, table.ErrAlreadyExists, "in a transaction too")

	var got ttlThing
	require.NoError(t, tbl.Get(ctx, tbl.Key("a", "3"), &got))
	assert.Equal(t, "new", got.Name)
	require.NoError(t, tbl.Get(ctx, tbl.Key("a", "1"), &got))
	assert.Equal(t, "live", got.Name)
}

// testExpiredMeansOneThing writes items with every kind of TTL value and
// asks each form of "expired" about them — ItemExpired in Go, Alive as a
// filter, ExpiredText as a filter's text — which must agree item by item
// (issue 32: List treated a ttl of 0 as expired while Get did not).
func testExpiredMeansOneThing(t *testing.T, be backend) {
	ctx := context.Background()
	tbl := newJobs(t, be)
	now := time.Date(2026, 9, 23, 10, 0, 0, 0, time.UTC)
	secs := now.Unix()
	values := map[string]types.AttributeValue{
		"absent": nil,
		"zero":   &types.AttributeValueMemberN{Value: "0"},
		"neg":    &types.AttributeValueMemberN{Value: "-5"},
		"half":   &types.AttributeValueMemberN{Value: "0.5"},
		"one":    &types.AttributeValueMemberN{Value: "1"},
		"past":   &types.AttributeValueMemberN{Value: fmt.Sprint(secs - 1)},
		"now":    &types.AttributeValueMemberN{Value: fmt.Sprint(secs)},
		"future": &types.AttributeValueMemberN{Value: fmt.Sprint(secs + 1)},
		"dec":    &types.AttributeValueMemberN{Value: "1.5e9"},
		"text":   &types.AttributeValueMemberS{Value: "1"},
	}
	var goAlive []string
	for name, v := range values {
		item := table.Item{"PK": &types.AttributeValueMemberS{Value: "P"}, "SK": &types.AttributeValueMemberS{Value: name}}
		if v != nil {
			item["expiresAt"] = v
		}
		require.NoError(t, tbl.Put(ctx, item))
		if !table.ItemExpired(item, "expiresAt", now) {
			goAlive = append(goAlive, name)
		}
	}
	slices.Sort(goAlive)
	assert.Equal(t, []string{"absent", "future", "half", "neg", "text", "zero"}, goAlive)

	alive := table.Alive("expiresAt", now)
	var filtered []string
	for j, err := range table.QueryAll[job](ctx, tbl, table.Query{Partition: "P", Filter: &alive, Consistent: true}) {
		require.NoError(t, err)
		filtered = append(filtered, j.SK)
	}
	assert.Equal(t, goAlive, filtered, "Alive as a filter")

	out, err := tbl.DB().Query(ctx, &dynamodb.QueryInput{TableName: aws.String(tbl.Name()), ConsistentRead: aws.Bool(true),
		KeyConditionExpression:   aws.String("PK = :p"),
		FilterExpression:         aws.String("NOT " + table.ExpiredText("#ttl", ":one", ":now")),
		ExpressionAttributeNames: map[string]string{"#ttl": "expiresAt"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: "P"},
			":one": &types.AttributeValueMemberN{Value: "1"}, ":now": &types.AttributeValueMemberN{Value: fmt.Sprint(secs)}}})
	require.NoError(t, err)
	var texts []string
	for _, it := range out.Items {
		texts = append(texts, it["SK"].(*types.AttributeValueMemberS).Value)
	}
	assert.Equal(t, goAlive, texts, "ExpiredText")
}

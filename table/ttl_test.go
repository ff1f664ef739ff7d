package table_test

import (
	"context"
	"testing"
	"time"

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
	assert.False(t, table.ItemExpired(n("1.5e9"), "ttl", at), "not an integer: ignored, as DynamoDB ignores it")
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

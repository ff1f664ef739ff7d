package entity_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

func TestBatchPutAndGetMoveEveryItemEvenWhenDynamoDBLeavesSomeUnprocessed(t *testing.T) {
	e := newEnv(t)
	e.db.Inject(dynamotest.UnprocessedFraction("BatchWriteItem", 0.5))
	e.db.Inject(dynamotest.UnprocessedFraction("BatchGetItem", 0.5))
	var ps []Photo
	for i := range 60 {
		ps = append(ps, Photo{AlbumID: "a", ID: fmt.Sprintf("p%02d", i), OwnerID: "u", TakenAt: e.db.Now()})
	}
	written, err := e.photos.BatchPut(ctx, ps)
	require.NoError(t, err)
	require.Len(t, written, 60)
	assert.False(t, written[0].UpdatedAt.IsZero(), "written items are stamped")
	assert.Equal(t, 60, e.count(t))

	keys := append([]Photo{{AlbumID: "a", ID: "missing"}}, ps...)
	got, err := e.photos.BatchGet(ctx, keys)
	require.NoError(t, err)
	assert.Equal(t, ids(ps), ids(got), "in the keys' order, the missing one left out")

	require.NoError(t, e.photos.BatchDelete(ctx, ps[:30]))
	assert.Equal(t, 30, e.count(t))
}

func TestBatchRefusesBadInputBeforeWritingAny(t *testing.T) {
	e := newEnv(t)
	_, err := e.photos.BatchPut(ctx, []Photo{{AlbumID: "a", ID: "ok", OwnerID: "u", TakenAt: e.db.Now()}, {AlbumID: "a", ID: "bad#id", OwnerID: "u", TakenAt: e.db.Now()}})
	require.ErrorIs(t, err, keys.ErrDelimiter)
	assert.Contains(t, err.Error(), "vs[1]")
	_, err = e.photos.BatchGet(ctx, []Photo{{AlbumID: "a", ID: "x"}, {AlbumID: "a", ID: "x"}})
	require.ErrorIs(t, err, table.ErrInvalidInput, "a key twice")
	assert.Equal(t, 0, e.count(t))
}

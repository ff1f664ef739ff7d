package entity_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/table"
)

func TestEveryCallIsOneSpanWithItsError(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	db := dynamotest.New()
	s := testSchema("traced")
	require.NoError(t, s.EnsureTable(ctx, db))
	reg, err := entity.NewRegistry(table.New(db, s, table.TracerProvider(tp)))
	require.NoError(t, err)
	albums, err := entity.New[Album](reg, "album", albumOptions()...)
	require.NoError(t, err)

	_, err = albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "t"})
	require.NoError(t, err)
	_, err = albums.Get(ctx, Album{ID: "nosuch"})
	require.ErrorIs(t, err, table.ErrNotFound)
	_, err = albums.Patch(Album{ID: "a1"}).Add("photoCount", 1).Run(ctx)
	require.NoError(t, err)
	_, err = albums.List(ctx, Album{OwnerID: "u1"}, "", entity.ByIndex("GSI1"))
	require.NoError(t, err)
	require.NoError(t, entity.Transact(ctx, albums.TxDelete(Album{ID: "a1"})))

	var names []string
	byName := map[string]sdktrace.ReadOnlySpan{}
	for _, sp := range spans.Ended() {
		names = append(names, sp.Name())
		byName[sp.Name()] = sp
	}
	assert.Equal(t, []string{"album.Create", "album.Get", "album.Patch", "album.List", "entity.Transact"}, names)
	assert.Equal(t, codes.Error, byName["album.Get"].Status().Code, "the failed call's span records its error")
	assert.NotEqual(t, codes.Error, byName["album.Create"].Status().Code)
}

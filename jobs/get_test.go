package jobs_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/table"
)

func TestGetReturnsWhatCreateStored(t *testing.T) {
	f := newFixture(t)
	created := f.create(t, "u1")
	got, err := f.store.Get(context.Background(), created.ID)
	require.NoError(t, err)
	require.Falsef(t, got.ID != created.ID || got.UserID != "u1" || got.Status != jobs.StatusQueued || got.FileSize != 2_500_000 || !got.CreatedAt.Equal(epoch) || !got.ExpiresAt.Equal(created.ExpiresAt) || got.Provider != "gemini" || got.Extra != nil, "Get = %+v, want %+v", got, created)
}

func TestGetMissingJobIsNotFound(t *testing.T) {
	f := newFixture(t)
	_, err := f.store.Get(context.Background(), "01ARZ3NDEKTSV4RRFFQ69G5FAV")
	require.Falsef(t, !errors.Is(err, jobs.ErrNotFound) || !errors.Is(err, table.ErrNotFound), "got %v, want ErrNotFound", err)
}

func TestExpiredJobIsAbsentFromGetAndListsBeforeTheFakeDeletesIt(t *testing.T) {
	f := newFixture(t, func(o *jobs.Options) { o.Retention = 24 * time.Hour })
	ctx := context.Background()
	old := f.create(t, "u1")
	f.db.Advance(time.Hour)
	fresh := f.create(t, "u1")

	// 24h after the first job: its ttl has passed. SetTime would sweep, so
	// the store's clock moves alone and the fake still holds the item.
	late := epoch.Add(24 * time.Hour)
	store := newStore(t, f.db, f.blobs, func(o *jobs.Options) {
		o.TableName = jobs.TableNameForEnv("test")
		o.Clock = func() time.Time { return late }
	})

	_, err := f.store.Get(ctx, old.ID)
	require.NoError(t, err, "before the ttl (fake's clock) Get failed")
	_, err = store.Get(ctx, old.ID)
	require.ErrorIs(t, err, jobs.ErrNotFound, "Get of an expired job")
	page, err := store.ByUser("u1").Page(ctx, "")
	require.NoError(t, err)
	require.Falsef(t, len(page.Items) != 1 || page.Items[0].ID != fresh.ID, "user list after expiry: %v, want only %s", ids(page.Items), fresh.ID)
	page, err = store.Maintenance().ByStatus(jobs.StatusQueued).Page(ctx, "")
	require.NoError(t, err)
	require.Falsef(t, len(page.Items) != 1 || page.Items[0].ID != fresh.ID, "status list after expiry: %v, want only %s", ids(page.Items), fresh.ID)
	// The fake has not deleted it: the store hid it on its own.
	raw, err := table.QueryPage[table.Item](ctx, f.store.Table(), table.Query{Index: jobs.IndexUserCreatedAt, Partition: "u1"}, "")
	require.Falsef(t, err != nil || len(raw.Items) != 2, "raw query found %d items (%v), want both still stored", len(raw.Items), err)

	// Once the fake's clock passes the ttl it deletes the item for good.
	f.db.SetTime(late.Add(time.Second))
	raw, err = table.QueryPage[table.Item](ctx, f.store.Table(), table.Query{Index: jobs.IndexUserCreatedAt, Partition: "u1"}, "")
	require.Falsef(t, err != nil || len(raw.Items) != 1, "after the fake's sweep %d items remain (%v), want 1", len(raw.Items), err)
}

func TestGetRejectsBadIDBeforeAnyRequest(t *testing.T) {
	f := newFixture(t)
	for _, id := range []string{"", "\xff\xfe", string(make([]byte, 2049))} {
		f.noRequests(t, func() {
			_, err := f.store.Get(context.Background(), id)
			wantInputError(t, err, "jobId")
		})
	}
}

func ids(js []jobs.Job) []string {
	out := make([]string, len(js))
	for i, j := range js {
		out[i] = j.ID
	}
	return out
}

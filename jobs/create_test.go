package jobs_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/oklog/ulid/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/table"
)

func TestCreateStoresTheSeedsLayout(t *testing.T) {
	f := newFixture(t)
	job := f.create(t, "user-12345")

	id, err := ulid.ParseStrict(job.ID)
	require.NoError(t, err, "job id")
	require.Truef(t, ulid.Time(id.Time()).Equal(epoch), "ULID time %v, want the store's clock %v", ulid.Time(id.Time()), epoch)
	out, err := f.db.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: aws.String("photoeditor-test-jobs"),
		Key:       map[string]types.AttributeValue{"jobId": &types.AttributeValueMemberS{Value: job.ID}},
	})
	require.NoError(t, err)
	want := map[string]string{
		"jobId":            "S:" + job.ID,
		"userId":           "S:user-12345",
		"status":           "S:QUEUED",
		"createdAt":        "N:1795320000000", // 2026-11-22T04:00:00Z in Unix ms
		"updatedAt":        "N:1795320000000",
		"fileSize":         "N:2500000",
		"fileType":         "S:image/jpeg",
		"originalFileName": "S:beach.jpg",
		"s3TempKey":        "S:uploads/user-12345/beach.jpg",
		"provider":         "S:gemini",
		"correlationId":    "S:corr-1",
		"traceId":          "S:1-5f84c7a5-0a1b2c3d4e5f",
		"ttl":              "N:1803096000", // 90 days later, Unix seconds
	}
	assert.Len(t, out.Item, len(want), "stored")
	for name, w := range want {
		got := scalar(out.Item[name])
		assert.Equal(t, w, got)
	}
	assert.Truef(t, job.ExpiresAt.Equal(epoch.Add(jobs.DefaultRetention)), "ExpiresAt %v, want 90 days after creation", job.ExpiresAt)
}

func scalar(v types.AttributeValue) string {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return "S:" + v.Value
	case *types.AttributeValueMemberN:
		return "N:" + v.Value
	case nil:
		return "<absent>"
	}
	return "<other>"
}

func TestCreateHonoursTTLAndIDOptions(t *testing.T) {
	f := newFixture(t, func(o *jobs.Options) {
		o.Retention = 48 * time.Hour
		o.NewID = func(time.Time) string { return "job-12345" }
	})
	job := f.create(t, "u1")
	require.Falsef(t, job.ID != "job-12345" || !job.ExpiresAt.Equal(epoch.Add(48*time.Hour)), "job %q expires %v; want job-12345 expiring after 48h", job.ID, job.ExpiresAt)
	// The same id again must not overwrite the first job.
	_, _, err := f.store.Create(context.Background(), upload("u2"))
	require.ErrorIs(t, err, table.ErrAlreadyExists, "second create with a reused id")
	got, err := f.store.Get(context.Background(), "job-12345")
	require.Falsef(t, err != nil || got.UserID != "u1", "first job after the refused create: %+v, %v", got, err)
}

func TestCreateIDsAreUniqueAndSortByCreation(t *testing.T) {
	f := newFixture(t)
	prev := ""
	for range 200 {
		j := f.create(t, "u1") // same millisecond: the monotonic entropy keeps order
		require.Falsef(t, j.ID <= prev, "id %s does not sort after %s", j.ID, prev)
		prev = j.ID
	}
}

func TestCreateRejectsBadInputBeforeAnyRequest(t *testing.T) {
	f := newFixture(t)
	cases := []struct {
		name, field string
		edit        func(*jobs.CreateInput)
	}{
		{"empty user", "userId", func(in *jobs.CreateInput) { in.UserID = "" }},
		{"user too long", "userId", func(in *jobs.CreateInput) { in.UserID = strings.Repeat("u", 2049) }},
		{"negative size", "fileSize", func(in *jobs.CreateInput) { in.FileSize = -1 }},
		{"no file type", "fileType", func(in *jobs.CreateInput) { in.FileType = "" }},
		{"not a MIME type", "fileType", func(in *jobs.CreateInput) { in.FileType = "jpeg" }},
		{"no provider", "provider", func(in *jobs.CreateInput) { in.Provider = "" }},
		{"temp key too long", "s3TempKey", func(in *jobs.CreateInput) { in.S3TempKey = strings.Repeat("k", 1025) }},
		{"file name not UTF-8", "originalFileName", func(in *jobs.CreateInput) { in.OriginalFileName = "\xc3\x28.jpg" }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := upload("u1")
			c.edit(&in)
			f.noRequests(t, func() {
				_, _, err := f.store.Create(context.Background(), in)
				wantInputError(t, err, c.field)
			})
		})
	}
}

package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/jobs"
)

// putRaw writes an item the way an older service might have, bypassing the
// store.
func (f *fixture) putRaw(t testing.TB, item map[string]types.AttributeValue) {
	t.Helper()
	_, err := f.db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(f.store.Table().Name()), Item: item})
	require.NoError(t, err, "PutItem")
}

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func n(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }

func TestReadJobWrittenBeforeFieldsExisted(t *testing.T) {
	f := newFixture(t)
	created := epoch.Add(-time.Hour)
	f.putRaw(t, map[string]types.AttributeValue{
		"jobId":     s("job-12345"),
		"userId":    s("user-12345"),
		"status":    s("FAILED"),
		"createdAt": n("1795316400000"),
		"fileSize":  n("1024"),
		"fileType":  s("image/jpeg"),
		"fileName":  s("old-name.jpg"), // renamed to originalFileName later
		"error":     &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"code": s("E"), "message": s("m")}},
	})
	job, err := f.store.Get(context.Background(), "job-12345")
	require.NoError(t, err)
	assert.True(t, job.CreatedAt.Equal(created), "CreatedAt %v, want %v", job.CreatedAt, created)
	assert.True(t, job.UpdatedAt.Equal(job.CreatedAt), "a missing updatedAt reads as %v, want createdAt", job.UpdatedAt)
	assert.True(t, job.ExpiresAt.IsZero(), "a missing ttl reads as zero (never expires)")
	assert.Empty(t, job.Provider, "absent fields read as zero")
	assert.Nil(t, job.AnalysisResult)
	assert.Nil(t, job.EditResult)
	require.NotNil(t, job.Error)
	assert.Equal(t, 0, job.Error.RetryCount, "error without retryCount")
	assert.Equal(t, "E", job.Error.Code)
	assert.Len(t, job.Extra, 1)
	assert.Equal(t, "S:old-name.jpg", scalar(job.Extra["fileName"]), "the unknown fileName is kept")
	// It can still be replayed, and keeps its error.
	replayed, err := f.store.Maintenance().Replay(context.Background(), "job-12345")
	require.Falsef(t, err != nil || replayed.Error.RetryCount != 1 || replayed.Error.Code != "E", "Replay of the old job: %+v, %v", replayed, err)
}

func TestReplayOfFailedJobWithoutErrorMapRecordsUnknown(t *testing.T) {
	f := newFixture(t)
	f.putRaw(t, map[string]types.AttributeValue{
		"jobId": s("legacy-1"), "userId": s("u1"), "status": s("FAILED"), "createdAt": n("1795316400000"),
	})
	job, err := f.store.Maintenance().Replay(context.Background(), "legacy-1")
	require.NoError(t, err)
	require.Falsef(t, job.Status != jobs.StatusQueued || job.Error == nil || job.Error.Code != jobs.UnknownErrorCode || job.Error.RetryCount != 1, "replayed legacy job: %+v (error %+v)", job, job.Error)
}

func TestJobWithoutStatusCannotMove(t *testing.T) {
	f := newFixture(t)
	f.putRaw(t, map[string]types.AttributeValue{"jobId": s("nostatus"), "userId": s("u1"), "createdAt": n("1")})
	_, err := f.store.StartProcessing(context.Background(), "nostatus")
	var te *jobs.TransitionError
	require.Falsef(t, !asTransition(err, &te) || te.Current != "", "move of a job without status: %v, want TransitionError with empty Current", err)
}

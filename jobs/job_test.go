package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/jobs"
)

// putRaw writes an item the way an older service might have, bypassing the
// store.
func (f *fixture) putRaw(t testing.TB, item map[string]types.AttributeValue) {
	t.Helper()
	_, err := f.db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(f.store.Table().Name()), Item: item})
	if err != nil {
		t.Fatalf("PutItem: %v", err)
	}
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
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case !job.CreatedAt.Equal(created):
		t.Errorf("CreatedAt %v, want %v", job.CreatedAt, created)
	case !job.UpdatedAt.Equal(job.CreatedAt):
		t.Errorf("a missing updatedAt reads as %v, want createdAt", job.UpdatedAt)
	case !job.ExpiresAt.IsZero():
		t.Errorf("a missing ttl reads as %v, want zero (never expires)", job.ExpiresAt)
	case job.Provider != "" || job.AnalysisResult != nil || job.EditResult != nil:
		t.Errorf("absent fields read as %+v", job)
	case job.Error == nil || job.Error.RetryCount != 0 || job.Error.Code != "E":
		t.Errorf("error without retryCount read as %+v", job.Error)
	case scalar(job.Extra["fileName"]) != "S:old-name.jpg" || len(job.Extra) != 1:
		t.Errorf("Extra = %v, want the unknown fileName kept", job.Extra)
	}
	// It can still be replayed, and keeps its error.
	replayed, err := f.store.Replay(context.Background(), "job-12345")
	if err != nil || replayed.Error.RetryCount != 1 || replayed.Error.Code != "E" {
		t.Fatalf("Replay of the old job: %+v, %v", replayed, err)
	}
}

func TestReplayOfFailedJobWithoutErrorMapRecordsUnknown(t *testing.T) {
	f := newFixture(t)
	f.putRaw(t, map[string]types.AttributeValue{
		"jobId": s("legacy-1"), "userId": s("u1"), "status": s("FAILED"), "createdAt": n("1795316400000"),
	})
	job, err := f.store.Replay(context.Background(), "legacy-1")
	if err != nil {
		t.Fatal(err)
	}
	if job.Status != jobs.StatusQueued || job.Error == nil || job.Error.Code != jobs.UnknownErrorCode || job.Error.RetryCount != 1 {
		t.Fatalf("replayed legacy job: %+v (error %+v)", job, job.Error)
	}
}

func TestJobWithoutStatusCannotMove(t *testing.T) {
	f := newFixture(t)
	f.putRaw(t, map[string]types.AttributeValue{"jobId": s("nostatus"), "userId": s("u1"), "createdAt": n("1")})
	_, err := f.store.StartProcessing(context.Background(), "nostatus")
	var te *jobs.TransitionError
	if !asTransition(err, &te) || te.Current != "" {
		t.Fatalf("move of a job without status: %v, want TransitionError with empty Current", err)
	}
}

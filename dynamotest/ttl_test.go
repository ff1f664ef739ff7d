package dynamotest_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
)

func TestTTLDeletesExpiredItemsWhenClockMoves(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	spec := jobs
	db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return now } })
	_, err := db.CreateTable(ctx, spec.input())
	require.NoError(t, err)
	expiring := func(id string, at time.Time) item {
		it := job(id, "queued", 1)
		it["expires"] = N(fmt.Sprint(at.Unix()))
		return it
	}
	put(t, db, "jobs", expiring("past", now.Add(-time.Hour)))
	put(t, db, "jobs", expiring("soon", now.Add(time.Hour)))
	put(t, db, "jobs", expiring("later", now.Add(48*time.Hour)))
	put(t, db, "jobs", job("forever", "queued", 1))
	notNumber := job("string", "queued", 1)
	notNumber["expires"] = S("0")
	put(t, db, "jobs", notNumber)

	_, err = db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("jobs"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("expires"), Enabled: aws.Bool(true)}})
	require.NoError(t, err)
	d, err := db.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("jobs")})
	require.Falsef(t, err != nil || d.TimeToLiveDescription.TimeToLiveStatus != types.TimeToLiveStatusEnabled || aws.ToString(d.TimeToLiveDescription.AttributeName) != "expires", "DescribeTimeToLive %+v %v", d, err)
	count := func() int {
		out, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("jobs")})
		require.NoError(t, err)
		return int(out.Count)
	}
	// Expired but not yet swept: still visible, as in DynamoDB.
	n := count()
	require.EqualValuesf(t, 5, n, "%d items before the clock moved", n)
	db.Advance(2 * time.Hour)
	n = count()
	assert.EqualValuesf(t, 3, n, "%d items after 2h, want 3", n)
	out := queryIndex(t, db, "all", "queued", 0)
	assert.EqualValuesf(t, 3, out.Count, "index still holds %d items", out.Count)
	db.SetTime(now.Add(72 * time.Hour))
	n = count()
	assert.EqualValuesf(t, 2, n, "%d items after 72h, want 2 (no TTL, TTL not a number)", n)
	// Expiry follows updates: a new TTL attribute value moves the deadline.
	put(t, db, "jobs", expiring("moved", db.Now().Add(time.Hour)))
	_, err = db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("jobs"), Key: item{"pk": S("JOB#moved"), "sk": S("META")},
		UpdateExpression: aws.String("SET expires = :e"), ExpressionAttributeValues: item{":e": N(fmt.Sprint(db.Now().Add(5 * time.Hour).Unix()))}})
	require.NoError(t, err)
	db.Advance(2 * time.Hour)
	assert.NotNil(t, get(t, db, "jobs", item{"pk": S("JOB#moved"), "sk": S("META")}), "item deleted at its old expiry")
	db.Advance(4 * time.Hour)
	assert.Nil(t, get(t, db, "jobs", item{"pk": S("JOB#moved"), "sk": S("META")}), "item kept past its new expiry")
}

func TestUpdateTimeToLiveRejects(t *testing.T) {
	db := newDB(t, simple)
	spec := func(name string, on bool) *dynamodb.UpdateTimeToLiveInput {
		return &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("simple"),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(name), Enabled: aws.Bool(on)}}
	}
	_, err := db.UpdateTimeToLive(ctx, spec("ttl", false))
	wantValidation(t, err, "TimeToLive is already disabled")
	_, err = db.UpdateTimeToLive(ctx, spec("ttl", true))
	require.NoError(t, err)
	_, err = db.UpdateTimeToLive(ctx, spec("ttl", true))
	wantValidation(t, err, "TimeToLive is already enabled")
	_, err = db.UpdateTimeToLive(ctx, spec("other", true))
	wantValidation(t, err, "TimeToLive is active on a different AttributeName: current AttributeName is ttl")
}

// DynamoDB marks an item expired once its TTL is less than the current time,
// so an item whose TTL is exactly now is still alive.
func TestTTLItemExpiringNowIsKeptUntilTheNextSecond(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return now } })
	_, err := db.CreateTable(ctx, jobs.input())
	require.NoError(t, err)
	_, err = db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("jobs"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("expires"), Enabled: aws.Bool(true)}})
	require.NoError(t, err)
	it := job("edge", "queued", 1)
	it["expires"] = N(fmt.Sprint(now.Add(time.Minute).Unix()))
	put(t, db, "jobs", it)
	key := item{"pk": S("JOB#edge"), "sk": S("META")}
	db.SetTime(now.Add(time.Minute))
	require.NotNil(t, get(t, db, "jobs", key), "item deleted when its TTL equals the current time")
	db.Advance(time.Second)
	require.Nil(t, get(t, db, "jobs", key), "item kept once its TTL is in the past")
}

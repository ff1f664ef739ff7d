package dynamotest_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
)

// eventualDB is a DB in the eventual mode with a lag of one second, on a
// clock that moves only when the test moves it, holding the jobs table.
func eventualDB(t *testing.T, opts ...func(*dynamotest.Options)) *dynamotest.DB {
	t.Helper()
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	opts = append([]func(*dynamotest.Options){
		func(o *dynamotest.Options) { o.Clock = func() time.Time { return start } },
		dynamotest.EventualConsistency(time.Second),
	}, opts...)
	db := dynamotest.New(opts...)
	_, err := db.CreateTable(ctx, jobs.input())
	require.NoError(t, err)
	return db
}

var jobKey = item{"pk": S("JOB#1"), "sk": S("META")}

// readJob reads job 1 with GetItem, consistently or not; nil when missing.
func readJob(t *testing.T, api table.API, consistent bool) item {
	t.Helper()
	out, err := api.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("jobs"), Key: jobKey, ConsistentRead: aws.Bool(consistent)})
	require.NoError(t, err)
	return out.Item
}

func queued(t *testing.T, api table.API, index string) []item {
	t.Helper()
	out, err := api.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("jobs"), IndexName: aws.String(index),
		KeyConditionExpression:    aws.String("#s = :s"),
		ExpressionAttributeNames:  map[string]string{"#s": "status"},
		ExpressionAttributeValues: item{":s": S("queued")}})
	require.NoError(t, err)
	return out.Items
}

func TestEventualIndexReadSeesAWriteOnlyOnceTheLagHasPassed(t *testing.T) {
	db := eventualDB(t)
	put(t, db, "jobs", job("1", "queued", 10))

	assert.Empty(t, queued(t, db, "all"), "an index read at once misses the write")
	db.Advance(time.Second - time.Nanosecond)
	assert.Empty(t, queued(t, db, "keys"), "still within the lag")
	db.Advance(time.Nanosecond)
	assert.Len(t, queued(t, db, "all"), 1, "the write is a lag old")
	assert.Len(t, queued(t, db, "include"), 1, "every index follows")
}

func TestEventualReadReturnsTheNewestVersionAtLeastTheLagOld(t *testing.T) {
	db := eventualDB(t)
	put(t, db, "jobs", job("1", "queued", 1))
	db.Advance(600 * time.Millisecond)
	put(t, db, "jobs", job("1", "running", 2))
	db.Advance(500 * time.Millisecond)

	stale := readJob(t, db, false)
	require.NotNil(t, stale, "the first version is 1.1 s old")
	assert.Equal(t, "queued", str(t, stale, "status"), "the second version is only 0.5 s old")
	assert.Equal(t, "running", str(t, readJob(t, db, true), "status"), "a consistent read sees the newest")

	_, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("jobs"), Key: jobKey})
	require.NoError(t, err)
	db.Advance(500 * time.Millisecond)
	assert.Equal(t, "running", str(t, readJob(t, db, false), "status"), "the deletion is within the lag")
	assert.Nil(t, readJob(t, db, true))
	db.Advance(500 * time.Millisecond)
	assert.Nil(t, readJob(t, db, false), "the deletion is a lag old")
}

func TestEventualScanBatchGetAndPartiQLReadStaleUnlessConsistent(t *testing.T) {
	db := eventualDB(t)
	put(t, db, "jobs", job("1", "queued", 1))

	scan, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("jobs")})
	require.NoError(t, err)
	assert.Empty(t, scan.Items)
	scan, err = db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("jobs"), ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	assert.Len(t, scan.Items, 1)

	batch := func(consistent bool) []item {
		out, err := db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
			"jobs": {Keys: []item{jobKey}, ConsistentRead: aws.Bool(consistent)}}})
		require.NoError(t, err)
		return out.Responses["jobs"]
	}
	assert.Empty(t, batch(false))
	assert.Len(t, batch(true), 1)

	partiql := func(consistent bool) []item {
		out, err := db.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{
			Statement: aws.String(`SELECT * FROM "jobs" WHERE pk = 'JOB#1'`), ConsistentRead: aws.Bool(consistent)})
		require.NoError(t, err)
		return out.Items
	}
	assert.Empty(t, partiql(false))
	assert.Len(t, partiql(true), 1)

	db.Advance(time.Second)
	assert.Len(t, batch(false), 1)
	assert.Len(t, partiql(false), 1)
}

func TestEventualConsistentReadsTransactionsAndConditionsSeeEveryWriteAtOnce(t *testing.T) {
	db := eventualDB(t)
	put(t, db, "jobs", job("1", "queued", 1))

	assert.NotNil(t, readJob(t, db, true))
	tx, err := db.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
		{Get: &types.Get{TableName: aws.String("jobs"), Key: jobKey}}}})
	require.NoError(t, err)
	assert.NotNil(t, tx.Responses[0].Item, "a transaction reads the newest version")

	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("jobs"), Item: job("1", "queued", 1),
		ConditionExpression: aws.String("attribute_not_exists(pk)")})
	var ccf *types.ConditionalCheckFailedException
	assert.ErrorAs(t, err, &ccf, "a condition sees the write made a moment ago")

	up, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("jobs"), Key: jobKey,
		UpdateExpression: aws.String("ADD attempts :one"), ExpressionAttributeValues: item{":one": N("1")},
		ReturnValues: types.ReturnValueAllNew})
	require.NoError(t, err)
	assert.Equal(t, "queued", str(t, up.Attributes, "status"), "an update starts from the newest version")
	assert.Equal(t, "1", num(t, up.Attributes, "attempts"))
}

func TestEventualLocalIndexServesConsistentReadsExactly(t *testing.T) {
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return start } },
		dynamotest.EventualConsistency(time.Second))
	_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("lsi"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{attrDef("pk", "S"), attrDef("sk", "S"), attrDef("at", "N")},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: aws.String("byAt"),
			KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String("at"), KeyType: types.KeyTypeRange}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}})
	require.NoError(t, err)
	put(t, db, "lsi", item{"pk": S("a"), "sk": S("1"), "at": N("5")})

	count := func(consistent bool) int32 {
		out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("lsi"), IndexName: aws.String("byAt"),
			KeyConditionExpression: aws.String("pk = :a"), ExpressionAttributeValues: item{":a": S("a")}, ConsistentRead: aws.Bool(consistent)})
		require.NoError(t, err)
		return out.Count
	}
	assert.EqualValues(t, 0, count(false), "an eventually consistent read of a local index lags")
	assert.EqualValues(t, 1, count(true), "a consistent read of a local index is exact")
}

func TestEventualIndexCreatedByUpdateTableBackfillsWhatTheViewHolds(t *testing.T) {
	db := eventualDB(t)
	put(t, db, "jobs", item{"pk": S("JOB#1"), "sk": S("META"), "owner": S("ann")})
	db.Advance(2 * time.Second)
	put(t, db, "jobs", item{"pk": S("JOB#2"), "sk": S("META"), "owner": S("ann")})
	_, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("jobs"),
		AttributeDefinitions: []types.AttributeDefinition{attrDef("owner", "S")},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName: aws.String("byOwner"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
			KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("owner"), KeyType: types.KeyTypeHash}}}}}})
	require.NoError(t, err)
	db.Advance(time.Millisecond) // the backfill finishes when the clock moves

	byOwner := func() int32 {
		out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("jobs"), IndexName: aws.String("byOwner"),
			KeyConditionExpression: aws.String("#o = :o"), ExpressionAttributeNames: map[string]string{"#o": "owner"},
			ExpressionAttributeValues: item{":o": S("ann")}})
		require.NoError(t, err)
		return out.Count
	}
	assert.EqualValues(t, 1, byOwner(), "only the write older than the lag")
	db.Advance(time.Second)
	assert.EqualValues(t, 2, byOwner())
}

func TestEventualStreamsRecordEveryWriteAtOnce(t *testing.T) {
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return start } },
		dynamotest.EventualConsistency(time.Hour))
	in := hashOnly.input()
	in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewImage}
	created, err := db.CreateTable(ctx, in)
	require.NoError(t, err)
	put(t, db, "hashonly", item{"id": S("a")})

	desc, err := db.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: created.TableDescription.LatestStreamArn})
	require.NoError(t, err)
	it, err := db.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: created.TableDescription.LatestStreamArn,
		ShardId: desc.StreamDescription.Shards[0].ShardId, ShardIteratorType: "TRIM_HORIZON"})
	require.NoError(t, err)
	recs, err := db.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it.ShardIterator})
	require.NoError(t, err)
	assert.Len(t, recs.Records, 1, "the stream has the write at once, an hour before eventual reads do")
}

func TestEventualModeOverHTTP(t *testing.T) {
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	srv := dynamotest.NewServer(func(o *dynamotest.Options) { o.Clock = func() time.Time { return start } },
		dynamotest.EventualConsistency(time.Second))
	t.Cleanup(srv.Close)
	client := srv.Client()
	_, err := client.CreateTable(ctx, jobs.input())
	require.NoError(t, err)
	_, err = client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("jobs"), Item: job("1", "queued", 1)})
	require.NoError(t, err)

	assert.Empty(t, queued(t, client, "all"))
	assert.Nil(t, readJob(t, client, false))
	assert.NotNil(t, readJob(t, client, true))
	scan, err := client.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("jobs")})
	require.NoError(t, err)
	assert.Empty(t, scan.Items)

	srv.DB.Advance(time.Second)
	assert.Len(t, queued(t, client, "all"), 1)
	assert.NotNil(t, readJob(t, client, false))
}

func TestEventualEnvTurnsTheModeOnForEveryNewDB(t *testing.T) {
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func(o *dynamotest.Options) { o.Clock = func() time.Time { return start } }
	t.Setenv(dynamotest.EventualEnv, "1s")

	db := dynamotest.New(clock)
	_, err := db.CreateTable(ctx, jobs.input())
	require.NoError(t, err)
	put(t, db, "jobs", job("1", "queued", 1))
	assert.Nil(t, readJob(t, db, false), "the variable turned the mode on")

	off := dynamotest.New(clock, dynamotest.EventualConsistency(-1))
	_, err = off.CreateTable(ctx, jobs.input())
	require.NoError(t, err)
	put(t, off, "jobs", job("1", "queued", 1))
	assert.NotNil(t, readJob(t, off, false), "a negative lag keeps the mode off")

	t.Setenv(dynamotest.EventualEnv, "soon")
	assert.PanicsWithValue(t, `dynamotest: TABLEKIT_DYNAMOTEST_EVENTUAL="soon" is not a duration (for example 1s): time: invalid duration "soon"`,
		func() { dynamotest.New() }, "a mistyped lag must not pass as a run in the default mode")
}

func TestDefaultModeReadsEveryWriteAtOnce(t *testing.T) {
	db := newDB(t, jobs)
	put(t, db, "jobs", job("1", "queued", 1))
	assert.Len(t, queued(t, db, "all"), 1)
	assert.NotNil(t, readJob(t, db, false))
}

func TestEventualReadsAndWritesConcurrently(t *testing.T) {
	db := eventualDB(t)
	done := make(chan struct{})
	for w := range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range 200 {
				_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("jobs"), Item: job(fmt.Sprint(w*1000+i), "queued", i)})
				assert.NoError(t, err)
				_, err = db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("jobs"), IndexName: aws.String("all"),
					KeyConditionExpression:    aws.String("#s = :s"),
					ExpressionAttributeNames:  map[string]string{"#s": "status"},
					ExpressionAttributeValues: item{":s": S("queued")}, Limit: aws.Int32(5)})
				assert.NoError(t, err)
				db.Advance(10 * time.Millisecond) // writes become due while others read and write
			}
		}()
	}
	for range 4 {
		<-done
	}
	db.Advance(time.Second)
	out, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("jobs"), Select: types.SelectCount})
	require.NoError(t, err)
	assert.EqualValues(t, 800, out.Count, "every write reaches eventually consistent reads")
}

// An item deleted (by each kind of write that deletes) or updated out of
// the indexes' keys stays in every eventually consistent read of every
// index until the lag has passed, and is gone from each of them after: the
// view replays the deletion into its indexes, not only its items.
func TestEventualDeletedItemLeavesEveryIndexAfterTheLag(t *testing.T) {
	db := eventualDB(t)
	in := jobs.input()
	in.TableName = aws.String("jobs-lsi")
	in.LocalSecondaryIndexes = []types.LocalSecondaryIndex{{IndexName: aws.String("byUpdated"),
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("updated"), KeyType: types.KeyTypeRange}},
		Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}}
	_, err := db.CreateTable(ctx, in)
	require.NoError(t, err)
	const table = "jobs-lsi"
	for i := 1; i <= 6; i++ {
		put(t, db, table, job(fmt.Sprint(i), "queued", i))
	}
	db.Advance(time.Second)
	key := func(i int) item { return item{"pk": S(fmt.Sprint("JOB#", i)), "sk": S("META")} }
	// The index entries of each job, read eventually: from each global
	// index, by Query and by Scan, and from the local one.
	inIndexes := func() map[string][]string {
		found := map[string][]string{}
		for _, index := range []string{"all", "keys", "include"} {
			q, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String(index),
				KeyConditionExpression: aws.String("#s = :s"), ExpressionAttributeNames: map[string]string{"#s": "status"},
				ExpressionAttributeValues: item{":s": S("queued")}})
			require.NoError(t, err)
			s, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), IndexName: aws.String(index)})
			require.NoError(t, err)
			for _, it := range append(q.Items, s.Items...) {
				found[str(t, it, "pk")] = append(found[str(t, it, "pk")], index)
			}
		}
		for i := 1; i <= 6; i++ {
			q, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("byUpdated"),
				KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: item{":p": key(i)["pk"]}})
			require.NoError(t, err)
			for _, it := range q.Items {
				found[str(t, it, "pk")] = append(found[str(t, it, "pk")], "byUpdated")
			}
		}
		return found
	}
	everywhere := []string{"all", "all", "keys", "keys", "include", "include", "byUpdated"}
	require.Len(t, inIndexes(), 6)

	_, err = db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: key(1)})
	require.NoError(t, err)
	_, err = db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
		table: {{DeleteRequest: &types.DeleteRequest{Key: key(2)}}}}})
	require.NoError(t, err)
	_, err = db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Delete: &types.Delete{TableName: aws.String(table), Key: key(3)}}}})
	require.NoError(t, err)
	_, err = db.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(`DELETE FROM "jobs-lsi" WHERE pk = 'JOB#4' AND sk = 'META'`)})
	require.NoError(t, err)
	_, err = db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key(5),
		UpdateExpression: aws.String("REMOVE #s, updated"), ExpressionAttributeNames: map[string]string{"#s": "status"}})
	require.NoError(t, err)

	db.Advance(time.Second - time.Nanosecond)
	within := inIndexes()
	for i := 1; i <= 6; i++ {
		assert.Equalf(t, everywhere, within[fmt.Sprint("JOB#", i)], "job %d within the lag: in every index, as before the write", i)
	}
	db.Advance(time.Nanosecond)
	assert.Equal(t, map[string][]string{"JOB#6": everywhere}, inIndexes(), "after the lag only job 6 is in any index")
	scan, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table)})
	require.NoError(t, err)
	assert.Len(t, scan.Items, 2, "the table keeps jobs 5 (updated out of the indexes) and 6")
}

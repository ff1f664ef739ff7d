package dynamotest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamstypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest/internal/wire"
)

// openT opens a persistent DB on dir with a fake clock that starts at a
// fixed time, so that two runs over the same directory see the same times.
func openT(t *testing.T, dir string, clock func() time.Time) *DB {
	t.Helper()
	db, err := Open(Persist(dir), func(o *Options) { o.Clock = clock })
	require.NoError(t, err)
	return db
}

// crash abandons db as a killed process would: no snapshot, no final
// sync beyond what was acknowledged, the lock released.
func crash(db *DB) {
	p := db.persist
	p.snapMu.Lock()
	p.closed = true
	p.snapMu.Unlock()
	p.snapWG.Wait()
	db.fail(ErrClosed)
	p.j.mu.Lock()
	p.j.err = ErrClosed
	p.j.f.Close()
	p.j.mu.Unlock()
	p.lock.Close()
}

var pctx = context.Background()

func fixedClock() func() time.Time {
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	return func() time.Time { return base }
}

// dump renders everything a client can read of db, in a stable order: two
// DBs with the same state dump the same text.
func dump(t *testing.T, db *DB) string {
	t.Helper()
	var b strings.Builder
	tables, err := db.ListTables(pctx, &dynamodb.ListTablesInput{})
	require.NoError(t, err)
	for _, name := range tables.TableNames {
		d, err := db.DescribeTable(pctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		require.NoError(t, err)
		fmt.Fprintf(&b, "table %s\n%s\n", name, wire.Marshal(d.Table))
		ttl, err := db.DescribeTimeToLive(pctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
		require.NoError(t, err)
		fmt.Fprintf(&b, "ttl %s\n", wire.Marshal(ttl.TimeToLiveDescription))
		cb, err := db.DescribeContinuousBackups(pctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(name)})
		require.NoError(t, err)
		fmt.Fprintf(&b, "backups %s\n", wire.Marshal(cb.ContinuousBackupsDescription))
		tags, err := db.ListTagsOfResource(pctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: d.Table.TableArn})
		require.NoError(t, err)
		fmt.Fprintf(&b, "tags %s\n", wire.Marshal(tags.Tags))
		b.WriteString(scanAll(t, db, name, nil))
		for _, ix := range d.Table.GlobalSecondaryIndexes {
			b.WriteString(scanAll(t, db, name, ix.IndexName))
		}
		for _, ix := range d.Table.LocalSecondaryIndexes {
			b.WriteString(scanAll(t, db, name, ix.IndexName))
		}
	}
	streams, err := db.ListStreams(pctx, &dynamodbstreams.ListStreamsInput{})
	require.NoError(t, err)
	for _, s := range streams.Streams {
		d, err := db.DescribeStream(pctx, &dynamodbstreams.DescribeStreamInput{StreamArn: s.StreamArn})
		require.NoError(t, err)
		fmt.Fprintf(&b, "stream %s %s %s\n", aws.ToString(s.StreamArn), d.StreamDescription.StreamStatus, d.StreamDescription.StreamViewType)
		for _, sh := range d.StreamDescription.Shards {
			fmt.Fprintf(&b, " shard %s parent %s range %s-%s\n", aws.ToString(sh.ShardId), aws.ToString(sh.ParentShardId),
				aws.ToString(sh.SequenceNumberRange.StartingSequenceNumber), aws.ToString(sh.SequenceNumberRange.EndingSequenceNumber))
			it, err := db.GetShardIterator(pctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: s.StreamArn, ShardId: sh.ShardId,
				ShardIteratorType: streamstypes.ShardIteratorTypeTrimHorizon})
			require.NoError(t, err)
			iter := it.ShardIterator
			for n := 0; iter != nil && n < 100; n++ {
				out, err := db.GetRecords(pctx, &dynamodbstreams.GetRecordsInput{ShardIterator: iter})
				require.NoError(t, err)
				for _, r := range out.Records {
					fmt.Fprintf(&b, "  %s %s %s %s by %v keys %s old %s new %s\n", aws.ToString(r.EventID), r.EventName,
						aws.ToString(r.Dynamodb.SequenceNumber), r.Dynamodb.ApproximateCreationDateTime.UTC().Format(time.RFC3339Nano),
						r.UserIdentity != nil, streamItem(r.Dynamodb.Keys), streamItem(r.Dynamodb.OldImage), streamItem(r.Dynamodb.NewImage))
				}
				if len(out.Records) == 0 {
					break
				}
				iter = out.NextShardIterator
			}
		}
	}
	return b.String()
}

func streamItem(m map[string]streamstypes.AttributeValue) string {
	keys := make([]string, 0, len(m))
	for k, v := range m {
		keys = append(keys, fmt.Sprintf("%s=%v", k, v))
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}

func scanAll(t *testing.T, db *DB, name string, index *string) string {
	t.Helper()
	var lines []string
	in := &dynamodb.ScanInput{TableName: aws.String(name), IndexName: index}
	for {
		out, err := db.Scan(pctx, in)
		require.NoError(t, err)
		for _, it := range out.Items {
			lines = append(lines, canonical(t, wire.AppendItem(nil, it)))
		}
		if out.LastEvaluatedKey == nil {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	sort.Strings(lines)
	return fmt.Sprintf("scan %s %s\n%s\n", name, aws.ToString(index), strings.Join(lines, "\n"))
}

// canonical rewrites JSON with its object keys sorted.
func canonical(t *testing.T, js []byte) string {
	var v any
	require.NoError(t, json.Unmarshal(js, &v))
	out, err := json.Marshal(v)
	require.NoError(t, err)
	return string(out)
}

func persistTable(name string) *dynamodb.CreateTableInput {
	return &dynamodb.CreateTableInput{
		TableName:   aws.String(name),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("l"), AttributeType: types.ScalarAttributeTypeN},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName:  aws.String("byG"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
		}},
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{
			IndexName: aws.String("byL"),
			KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String("l"), KeyType: types.KeyTypeRange}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"n"}},
		}},
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages},
		Tags:                []types.Tag{{Key: aws.String("team"), Value: aws.String("core")}},
		SSESpecification:    &types.SSESpecification{Enabled: aws.Bool(true), KMSMasterKeyId: aws.String("k1")},
		TableClass:          types.TableClassStandardInfrequentAccess,
	}
}

// workload applies n random operations of every kind that changes state:
// items (puts, updates with ADD, deletes, batches, transactions over two
// tables, PartiQL), settings (TTL, tags, PITR, billing, an index added or
// dropped, the stream off and on), and the clock (which expires items by
// TTL and rolls stream shards over).
func workload(t *testing.T, db *DB, rng *rand.Rand, n int, advance func(time.Duration)) {
	t.Helper()
	key := func() (string, string) { return fmt.Sprintf("p%d", rng.IntN(4)), fmt.Sprintf("s%d", rng.IntN(6)) }
	for range n {
		pk, sk := key()
		var err error
		switch op := rng.IntN(20); {
		case op < 6:
			it := map[string]types.AttributeValue{"pk": sv(pk), "sk": sv(sk), "n": nv(fmt.Sprint(rng.IntN(100))),
				"exp": nv(fmt.Sprint(db.Now().Unix() + int64(rng.IntN(7200))))}
			if rng.IntN(2) == 0 {
				it["g"] = sv(fmt.Sprintf("g%d", rng.IntN(3)))
			}
			if rng.IntN(2) == 0 {
				it["l"] = nv(fmt.Sprint(rng.IntN(5)))
			}
			_, err = db.PutItem(pctx, &dynamodb.PutItemInput{TableName: aws.String("aaa"), Item: it})
		case op < 9:
			_, err = db.UpdateItem(pctx, &dynamodb.UpdateItemInput{TableName: aws.String("aaa"),
				Key:              map[string]types.AttributeValue{"pk": sv(pk), "sk": sv(sk)},
				UpdateExpression: aws.String("ADD c :one SET g = :g"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":one": nv("1"),
					":g": sv(fmt.Sprintf("g%d", rng.IntN(3)))}})
		case op < 11:
			_, err = db.DeleteItem(pctx, &dynamodb.DeleteItemInput{TableName: aws.String("aaa"),
				Key: map[string]types.AttributeValue{"pk": sv(pk), "sk": sv(sk)}})
		case op < 13:
			_, err = db.TransactWriteItems(pctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: aws.String("aaa"), Item: map[string]types.AttributeValue{"pk": sv(pk), "sk": sv("tx"), "l": nv("1")}}},
				{Update: &types.Update{TableName: aws.String("bbb"), Key: map[string]types.AttributeValue{"id": sv(pk)},
					UpdateExpression: aws.String("ADD c :one"), ExpressionAttributeValues: map[string]types.AttributeValue{":one": nv("1")}}},
			}})
		case op < 14:
			_, err = db.BatchWriteItem(pctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
				"aaa": {{DeleteRequest: &types.DeleteRequest{Key: map[string]types.AttributeValue{"pk": sv(pk), "sk": sv(sk)}}}},
				"bbb": {{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"id": sv(sk), "v": sv("batch")}}}},
			}})
		case op < 15:
			_, err = db.ExecuteStatement(pctx, &dynamodb.ExecuteStatementInput{
				Statement: aws.String(fmt.Sprintf(`UPDATE "bbb" SET v = 'partiql' WHERE id = '%s'`, pk))})
			var cf *types.ConditionalCheckFailedException
			if errors.As(err, &cf) {
				err = nil
			}
		case op < 16:
			advance(time.Duration(rng.IntN(3)) * time.Hour)
		default:
			err = settingsChange(db, rng)
		}
		require.NoError(t, err)
	}
}

// settingsChange makes one valid settings change to table a.
func settingsChange(db *DB, rng *rand.Rand) error {
	d, err := db.DescribeTable(pctx, &dynamodb.DescribeTableInput{TableName: aws.String("aaa")})
	if err != nil {
		return err
	}
	switch rng.IntN(6) {
	case 0:
		ttl, err := db.DescribeTimeToLive(pctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("aaa")})
		if err != nil {
			return err
		}
		on := ttl.TimeToLiveDescription.TimeToLiveStatus != types.TimeToLiveStatusEnabled
		_, err = db.UpdateTimeToLive(pctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("aaa"),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(on)}})
		return err
	case 1:
		_, err = db.TagResource(pctx, &dynamodb.TagResourceInput{ResourceArn: d.Table.TableArn,
			Tags: []types.Tag{{Key: aws.String(fmt.Sprintf("k%d", rng.IntN(3))), Value: aws.String(fmt.Sprint(rng.IntN(9)))}}})
		return err
	case 2:
		_, err = db.UpdateContinuousBackups(pctx, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("aaa"),
			PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(rng.IntN(2) == 0)}})
		return err
	case 3:
		for _, ix := range d.Table.GlobalSecondaryIndexes {
			if aws.ToString(ix.IndexName) == "byN" {
				_, err = db.UpdateTable(pctx, &dynamodb.UpdateTableInput{TableName: aws.String("aaa"),
					GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("byN")}}}})
				return err
			}
		}
		_, err = db.UpdateTable(pctx, &dynamodb.UpdateTableInput{TableName: aws.String("aaa"),
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("n"), AttributeType: types.ScalarAttributeTypeN}},
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
				IndexName:  aws.String("byN"),
				KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("n"), KeyType: types.KeyTypeHash}},
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}}})
		return err
	case 4:
		on := d.Table.StreamSpecification == nil
		spec := &types.StreamSpecification{StreamEnabled: aws.Bool(on)}
		if on {
			spec.StreamViewType = types.StreamViewTypeNewImage
		}
		_, err = db.UpdateTable(pctx, &dynamodb.UpdateTableInput{TableName: aws.String("aaa"), StreamSpecification: spec})
		return err
	default:
		_, err = db.UpdateTable(pctx, &dynamodb.UpdateTableInput{TableName: aws.String("bbb"), BillingMode: types.BillingModeProvisioned,
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(int64(1 + rng.IntN(9))), WriteCapacityUnits: aws.Int64(5)}})
		return err
	}
}

func createPersistTables(t *testing.T, db *DB) {
	t.Helper()
	_, err := db.CreateTable(pctx, persistTable("aaa"))
	require.NoError(t, err)
	_, err = db.CreateTable(pctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("bbb"),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
	})
	require.NoError(t, err)
}

// TestPersistRestoresEverythingAClientReads runs random workloads over a
// persistent DB, restarting it on the same directory after each, after a
// crash or a clean close and with or without a snapshot in between, and
// checks after every restart that a client reads exactly what it read
// before: tables, settings, items, every index, TTL, tags, backups and
// every stream record.
func TestPersistRestoresEverythingAClientReads(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	dir := t.TempDir()
	var offset time.Duration
	clock := func() time.Time { return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC).Add(offset) }
	db := openT(t, dir, clock)
	createPersistTables(t, db)
	for round := range 12 {
		advance := func(d time.Duration) { db.Advance(d) }
		if round%3 == 2 {
			// The wall clock moves instead of the fake's offset.
			advance = func(d time.Duration) { offset += d }
		}
		workload(t, db, rng, 60, advance)
		if round%4 == 1 {
			require.NoError(t, db.persist.snapshot())
			workload(t, db, rng, 20, advance)
		}
		// An index UpdateTable added reports CREATING once; a restart
		// finishes it, as a clock move does. Settle it before comparing.
		dump(t, db)
		want := dump(t, db)
		if round%2 == 0 {
			crash(db)
		} else {
			require.NoError(t, db.Close())
		}
		db = openT(t, dir, clock)
		require.Equal(t, want, dump(t, db), "round %d (seed %d)", round, seed)
	}
	require.NoError(t, db.Close())
}

// lastSegment is the path of the newest log segment in dir.
func lastSegment(t *testing.T, dir string) string {
	t.Helper()
	_, segs, err := dataFiles(dir)
	require.NoError(t, err)
	require.NotEmpty(t, segs)
	return filepath.Join(dir, segmentName(segs[len(segs)-1]))
}

// TestPersistDropsATornTransaction cuts the log inside the record of a
// transaction over two tables, as a crash while writing it would: after
// the restart neither table holds any of the transaction, everything
// before it is there, and the torn bytes are gone from the file.
func TestPersistDropsATornTransaction(t *testing.T) {
	for _, cut := range []int{1, 7, 8, 20, -1} {
		t.Run(fmt.Sprintf("cut=%d", cut), func(t *testing.T) {
			dir := t.TempDir()
			db := openT(t, dir, fixedClock())
			createPersistTables(t, db)
			_, err := db.PutItem(pctx, &dynamodb.PutItemInput{TableName: aws.String("bbb"), Item: map[string]types.AttributeValue{"id": sv("before")}})
			require.NoError(t, err)
			want := dump(t, db)
			seg := lastSegment(t, dir)
			fi, err := os.Stat(seg)
			require.NoError(t, err)
			_, err = db.TransactWriteItems(pctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: aws.String("aaa"), Item: map[string]types.AttributeValue{"pk": sv("x"), "sk": sv("y")}}},
				{Put: &types.Put{TableName: aws.String("bbb"), Item: map[string]types.AttributeValue{"id": sv("tx")}}},
			}})
			require.NoError(t, err)
			crash(db)
			after, err := os.Stat(seg)
			require.NoError(t, err)
			size := after.Size() - int64(cut) // cut bytes off the end
			if cut < 0 {
				// Damage the checksum instead: the record is whole but wrong.
				size = after.Size()
				f, err := os.OpenFile(seg, os.O_RDWR, 0)
				require.NoError(t, err)
				_, err = f.WriteAt([]byte{0xff}, fi.Size()+5)
				require.NoError(t, err)
				require.NoError(t, f.Close())
			}
			require.NoError(t, os.Truncate(seg, size))

			db = openT(t, dir, fixedClock())
			assert.Equal(t, want, dump(t, db), "the torn transaction is dropped whole")
			cutTo, err := os.Stat(seg)
			require.NoError(t, err)
			assert.Equal(t, fi.Size(), cutTo.Size(), "the torn tail is cut off the file")
			// And the log goes on from there.
			_, err = db.PutItem(pctx, &dynamodb.PutItemInput{TableName: aws.String("bbb"), Item: map[string]types.AttributeValue{"id": sv("after")}})
			require.NoError(t, err)
			want = dump(t, db)
			crash(db)
			db = openT(t, dir, fixedClock())
			assert.Equal(t, want, dump(t, db))
			require.NoError(t, db.Close())
		})
	}
}

// TestPersistRefusesDamageBeforeTheEnd: a damaged record followed by more
// log is not a crash's torn tail but damage, refused with ErrDataCorrupt
// and left as it is.
func TestPersistRefusesDamageBeforeTheEnd(t *testing.T) {
	dir := t.TempDir()
	db := openT(t, dir, fixedClock())
	createPersistTables(t, db)
	crash(db)
	// A second segment makes the first one not the last.
	db = openT(t, dir, fixedClock())
	_, err := db.PutItem(pctx, &dynamodb.PutItemInput{TableName: aws.String("bbb"), Item: map[string]types.AttributeValue{"id": sv("x")}})
	require.NoError(t, err)
	crash(db)
	_, segs, err := dataFiles(dir)
	require.NoError(t, err)
	first := filepath.Join(dir, segmentName(segs[0]))
	data, err := os.ReadFile(first)
	require.NoError(t, err)
	data[fileHeaderSize+10] ^= 0xff
	require.NoError(t, os.WriteFile(first, data, 0o644))

	_, err = Open(Persist(dir))
	require.ErrorIs(t, err, ErrDataCorrupt)
	var dd *DataDirError
	require.ErrorAs(t, err, &dd)
	assert.Equal(t, dir, dd.Dir)
	after, err := os.ReadFile(first)
	require.NoError(t, err)
	assert.Equal(t, data, after, "nothing rewritten")
}

// TestPersistSurvivesTwoCrashesAfterATornSegmentStart: a crash while a
// log segment was being started leaves it without a whole header. The
// restart drops that file, and a second crash before any snapshot still
// restarts: the dropped segment is not left behind, empty, in the middle
// of the log, where it would read as damage.
func TestPersistSurvivesTwoCrashesAfterATornSegmentStart(t *testing.T) {
	dir := t.TempDir()
	db := openT(t, dir, fixedClock())
	createPersistTables(t, db)
	_, err := db.PutItem(pctx, &dynamodb.PutItemInput{TableName: aws.String("bbb"), Item: map[string]types.AttributeValue{"id": sv("x")}})
	require.NoError(t, err)
	want := dump(t, db)
	crash(db)
	// The next start began its segment and died writing the header.
	db = openT(t, dir, fixedClock())
	crash(db)
	require.NoError(t, os.Truncate(lastSegment(t, dir), fileHeaderSize/2))

	db = openT(t, dir, fixedClock())
	assert.Equal(t, want, dump(t, db))
	crash(db)
	db = openT(t, dir, fixedClock())
	assert.Equal(t, want, dump(t, db), "a second crash before any snapshot still restarts")
	require.NoError(t, db.Close())
}

// TestPersistCountsTheReplayedLogTowardTheNextSnapshot: the log a restart
// replays counts toward the next snapshot, so a server killed before any
// one run wrote enough log for a snapshot still takes one once the log of
// all its runs is long enough, and a start never replays an ever longer
// log.
func TestPersistCountsTheReplayedLogTowardTheNextSnapshot(t *testing.T) {
	dir := t.TempDir()
	db := openT(t, dir, fixedClock())
	createPersistTables(t, db)
	for i := range 20 {
		_, err := db.PutItem(pctx, &dynamodb.PutItemInput{TableName: aws.String("bbb"), Item: map[string]types.AttributeValue{"id": sv(fmt.Sprint("item-", i))}})
		require.NoError(t, err)
	}
	crash(db)
	_, segs, err := dataFiles(dir)
	require.NoError(t, err)
	var logged int64
	for _, n := range segs {
		fi, err := os.Stat(filepath.Join(dir, segmentName(n)))
		require.NoError(t, err)
		logged += fi.Size() - fileHeaderSize
	}
	require.Positive(t, logged)

	db = openT(t, dir, fixedClock())
	p := db.persist
	p.j.mu.Lock()
	assert.Equal(t, logged, p.j.since, "the replayed log is counted")
	// A snapshot is due once the log since the last one reaches what was
	// replayed: the next write is past it.
	p.j.grow = logged
	p.j.mu.Unlock()
	_, err = db.PutItem(pctx, &dynamodb.PutItemInput{TableName: aws.String("bbb"), Item: map[string]types.AttributeValue{"id": sv("one more")}})
	require.NoError(t, err)
	p.snapWG.Wait()
	snaps, _, err := dataFiles(dir)
	require.NoError(t, err)
	assert.NotEmpty(t, snaps, "the log of both runs together started a snapshot")
	require.NoError(t, db.Close())
}

// TestPersistKeepsClientRequestTokensAcrossRestarts: a client whose
// transaction was applied but whose answer was lost in a crash retries
// with the same ClientRequestToken after the restart, and is answered as
// DynamoDB answers a replay inside the ten-minute window: the first
// call's consumed capacity, nothing applied twice; other parameters with
// the token are refused; past the window the token is free again. Both
// ways a restart finds the token: in the log (a crash) and in the
// snapshot a clean Close writes.
func TestPersistKeepsClientRequestTokensAcrossRestarts(t *testing.T) {
	for _, restart := range []string{"crash", "close"} {
		t.Run(restart, func(t *testing.T) {
			dir := t.TempDir()
			now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
			clock := func() time.Time { return now }
			db := openT(t, dir, clock)
			createPersistTables(t, db)
			add := func(token string, by string) *dynamodb.TransactWriteItemsInput {
				return &dynamodb.TransactWriteItemsInput{
					ClientRequestToken:     aws.String(token),
					ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
					TransactItems: []types.TransactWriteItem{{Update: &types.Update{
						TableName:                 aws.String("bbb"),
						Key:                       map[string]types.AttributeValue{"id": sv("counter")},
						UpdateExpression:          aws.String("ADD n :by"),
						ExpressionAttributeValues: map[string]types.AttributeValue{":by": &types.AttributeValueMemberN{Value: by}},
					}}},
				}
			}
			counter := func(db *DB) string {
				t.Helper()
				out, err := db.GetItem(pctx, &dynamodb.GetItemInput{TableName: aws.String("bbb"), Key: map[string]types.AttributeValue{"id": sv("counter")}})
				require.NoError(t, err)
				require.NotNil(t, out.Item)
				return out.Item["n"].(*types.AttributeValueMemberN).Value
			}
			first, err := db.TransactWriteItems(pctx, add("retry-me", "1"))
			require.NoError(t, err)
			// Another token's call after it, so the one under test is not
			// simply the log's last record.
			_, err = db.TransactWriteItems(pctx, add("other", "10"))
			require.NoError(t, err)
			if restart == "crash" {
				crash(db)
			} else {
				require.NoError(t, db.Close())
			}

			db = openT(t, dir, clock)
			replay, err := db.TransactWriteItems(pctx, add("retry-me", "1"))
			require.NoError(t, err, "a replay after the restart is answered")
			assert.Equal(t, first.ConsumedCapacity, replay.ConsumedCapacity, "with the first call's consumed capacity")
			assert.Equal(t, "11", counter(db), "and applied once")
			_, err = db.TransactWriteItems(pctx, add("retry-me", "2"))
			var mismatch *types.IdempotentParameterMismatchException
			assert.ErrorAs(t, err, &mismatch, "the token with other parameters is refused")
			assert.Equal(t, "11", counter(db))

			now = now.Add(10 * time.Minute)
			_, err = db.TransactWriteItems(pctx, add("retry-me", "1"))
			require.NoError(t, err)
			assert.Equal(t, "12", counter(db), "past its window the token applies again")
			require.NoError(t, db.Close())
		})
	}
}

func TestEventualReadsSeeTheItemsAPersistentDBStartsWith(t *testing.T) {
	// An item written long before a restart is seen by eventually
	// consistent reads and index reads at once after it, as before it;
	// a write within the lag before a crash may still lag.
	dir := t.TempDir()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	open := func() *DB {
		db, err := Open(Persist(dir), EventualConsistency(time.Hour), func(o *Options) { o.Clock = clock })
		require.NoError(t, err)
		return db
	}
	key := func(sk string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}, "sk": &types.AttributeValueMemberS{Value: sk}}
	}
	putItem := func(db *DB, sk string) {
		it := key(sk)
		it["g"] = &types.AttributeValueMemberS{Value: "x"}
		_, err := db.PutItem(pctx, &dynamodb.PutItemInput{TableName: aws.String("lagged"), Item: it})
		require.NoError(t, err)
	}
	seen := func(db *DB) (get bool, index int) {
		out, err := db.GetItem(pctx, &dynamodb.GetItemInput{TableName: aws.String("lagged"), Key: key("old")})
		require.NoError(t, err)
		q, err := db.Query(pctx, &dynamodb.QueryInput{TableName: aws.String("lagged"), IndexName: aws.String("byG"),
			KeyConditionExpression:    aws.String("g = :g"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":g": &types.AttributeValueMemberS{Value: "x"}}})
		require.NoError(t, err)
		return out.Item != nil, len(q.Items)
	}

	db := open()
	_, err := db.CreateTable(pctx, persistTable("lagged"))
	require.NoError(t, err)
	putItem(db, "old")
	now = now.Add(2 * time.Hour)
	get, index := seen(db)
	require.True(t, get, "the old item is an hour past the lag")
	require.Equal(t, 1, index)

	require.NoError(t, db.Close()) // a snapshot
	db = open()
	get, index = seen(db)
	assert.True(t, get, "after a restart from a snapshot")
	assert.Equal(t, 1, index, "after a restart from a snapshot")

	putItem(db, "new") // within the lag before the crash
	crash(db)
	db = open()
	get, index = seen(db)
	assert.True(t, get, "after a crash")
	assert.Equal(t, 1, index, "after a crash: the recent write still lags")
	now = now.Add(time.Hour)
	_, index = seen(db)
	assert.Equal(t, 2, index, "an hour later")
	require.NoError(t, db.Close())
}

package dynamotest_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConcurrentVersionedUpdatesLoseNothing runs 32 goroutines doing
// optimistic-locking increments (read the version, update if it is still
// that version) on the same few items, plus readers and a transaction
// writer. Every successful update must count: the final counter equals the
// number of successes, and the version equals the counter.
func TestConcurrentVersionedUpdatesLoseNothing(t *testing.T) {
	db := newDB(t, jobs)
	const items, workers, perWorker = 4, 32, 40
	for i := 0; i < items; i++ {
		it := job(fmt.Sprint(i), "queued", 0)
		it["version"] = N("0")
		it["count"] = N("0")
		put(t, db, "jobs", it)
	}
	key := func(i int) item { return item{"pk": S(fmt.Sprintf("JOB#%d", i)), "sk": S("META")} }

	var wg sync.WaitGroup
	var mu sync.Mutex
	succeeded := make([]int, items)
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for n := 0; n < perWorker; n++ {
				i := (w + n) % items
				got, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("jobs"), Key: key(i), ConsistentRead: aws.Bool(true)})
				if err != nil {
					errs <- err
					return
				}
				version := got.Item["version"].(*types.AttributeValueMemberN).Value
				// Callers own what they read: scribbling on it must not race.
				got.Item["version"] = N("scribbled")
				_, err = db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("jobs"), Key: key(i),
					UpdateExpression:          aws.String("SET version = version + :one, #c = #c + :one, updated = :u"),
					ConditionExpression:       aws.String("version = :v"),
					ExpressionAttributeNames:  map[string]string{"#c": "count"},
					ExpressionAttributeValues: item{":one": N("1"), ":v": N(version), ":u": N(fmt.Sprint(w*1000 + n))}})
				var ccf *types.ConditionalCheckFailedException
				switch {
				case err == nil:
					mu.Lock()
					succeeded[i]++
					mu.Unlock()
				case errors.As(err, &ccf):
					// Lost the race: another worker moved the version on.
				default:
					errs <- err
					return
				}
			}
		}(w)
	}
	// Readers over the index and the table while the writers run.
	for r := 0; r < 4; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < 50; n++ {
				out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("jobs"), IndexName: aws.String("all"),
					KeyConditionExpression: aws.String("#s = :s"), ExpressionAttributeNames: map[string]string{"#s": "status"},
					ExpressionAttributeValues: item{":s": S("queued")}})
				if err != nil {
					errs <- err
					return
				}
				if out.Count != items {
					errs <- fmt.Errorf("index query saw %d items mid-update, want %d", out.Count, items)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	total := 0
	for i := 0; i < items; i++ {
		got := get(t, db, "jobs", key(i))
		c, v := num(t, got, "count"), num(t, got, "version")
		assert.Falsef(t, c != fmt.Sprint(succeeded[i]) || v != c, "item %d: count %s version %s, %d updates succeeded", i, c, v, succeeded[i])
		total += succeeded[i]
	}
	assert.False(t, total == 0, "no update succeeded")
}

// TestConcurrentTransactionsAcrossTablesNeitherDeadlockNorTear moves
// units between two accounts in two tables, in both directions at once:
// the lock order keeps them from deadlocking and the sum never changes.
func TestConcurrentTransactionsAcrossTablesNeitherDeadlockNorTear(t *testing.T) {
	db := newDB(t, simple, numbered)
	put(t, db, "simple", item{"pk": S("acct"), "sk": S("a"), "bal": N("1000")})
	put(t, db, "numbered", item{"pk": S("acct"), "n": N("1"), "bal": N("1000")})
	a := types.Update{TableName: aws.String("simple"), Key: item{"pk": S("acct"), "sk": S("a")}}
	b := types.Update{TableName: aws.String("numbered"), Key: item{"pk": S("acct"), "n": N("1")}}
	move := func(from, to types.Update) error {
		from.UpdateExpression, from.ConditionExpression = aws.String("SET bal = bal - :x"), aws.String("bal >= :x")
		from.ExpressionAttributeValues = item{":x": N("1")}
		to.UpdateExpression, to.ExpressionAttributeValues = aws.String("SET bal = bal + :x"), item{":x": N("1")}
		_, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{Update: &from}, {Update: &to}}})
		return err
	}
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for w := 0; w < 32; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for n := 0; n < 30; n++ {
				var err error
				if w%2 == 0 {
					err = move(a, b)
				} else {
					err = move(b, a)
				}
				if err != nil {
					errs <- err
					return
				}
				out, err := db.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
					{Get: &types.Get{TableName: aws.String("simple"), Key: a.Key}}, {Get: &types.Get{TableName: aws.String("numbered"), Key: b.Key}}}})
				if err != nil {
					errs <- err
					return
				}
				var sum int
				for _, r := range out.Responses {
					var v int
					fmt.Sscan(r.Item["bal"].(*types.AttributeValueMemberN).Value, &v)
					sum += v
				}
				if sum != 2000 {
					errs <- fmt.Errorf("snapshot sums to %d", sum)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

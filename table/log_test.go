package table_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
)

// logged is a fake with the jobs table and a table that logs to a buffer
// as JSON, one record a line.
func logged(t *testing.T, level slog.Level) (*dynamotest.DB, *table.Table, func() []map[string]any) {
	t.Helper()
	db, plain := fakeJobs(t)
	var buf bytes.Buffer
	tbl := table.New(db, plain.Schema(), func(o *table.Options) {
		o.Backoff = table.Backoff{Initial: 50 * time.Microsecond, Max: time.Millisecond}
		o.Logger = slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: level}))
	})
	records := func() []map[string]any {
		var out []map[string]any
		for _, line := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
			if len(line) == 0 {
				continue
			}
			var r map[string]any
			require.NoError(t, json.Unmarshal(line, &r))
			out = append(out, r)
		}
		return out
	}
	return db, tbl, records
}

func TestLoggerRecordsEveryUnprocessedBatchRound(t *testing.T) {
	db, tbl, records := logged(t, slog.LevelDebug)
	db.Inject(dynamotest.UnprocessedFraction("BatchWriteItem", 0.5))
	var puts []any
	for i := range 100 {
		puts = append(puts, job{PK: "U", SK: fmt.Sprintf("J%03d", i)})
	}
	require.NoError(t, tbl.BatchWrite(context.Background(), puts, nil))

	rs := records()
	require.NotEmpty(t, rs, "half of every batch came back unprocessed")
	// One record per round that left items behind: every call but the
	// rounds that took everything was one.
	assert.LessOrEqual(t, len(rs), db.Calls("BatchWriteItem"))
	for _, r := range rs {
		assert.Equal(t, "INFO", r["level"])
		assert.Equal(t, "jobs", r["table"])
		assert.Equal(t, "batch write", r["operation"])
		assert.GreaterOrEqual(t, r["attempt"], 2.0)
		assert.Contains(t, r, "delay")
		assert.Greater(t, r["unprocessed"], 0.0)
	}
}

func TestLoggerRecordsThrottledBatchAndTransactionRetriesAsWarnings(t *testing.T) {
	db, tbl, records := logged(t, slog.LevelDebug)
	ctx := context.Background()
	db.Inject(dynamotest.Throttle("BatchGetItem", 2))
	_, err := table.BatchGet[job](ctx, tbl, []table.Key{tbl.Key("U", "J")})
	require.NoError(t, err)
	db.ClearFaults()
	db.Inject(dynamotest.Throttle("TransactWriteItems", 2))
	require.NoError(t, tbl.WriteTx().Create(job{PK: "U", SK: "J"}).Put(job{PK: "U", SK: "K"}).Run(ctx))

	rs := records()
	require.Len(t, rs, 4, "two throttled batch gets, two throttled transactions")
	for i, op := range []string{"batch get", "batch get", "transact write", "transact write"} {
		assert.Equal(t, "WARN", rs[i]["level"], i)
		assert.Equal(t, "jobs", rs[i]["table"], i)
		assert.Equal(t, op, rs[i]["operation"], i)
		assert.Equal(t, float64(2+i%2), rs[i]["attempt"], "attempt %d", i)
		assert.Contains(t, rs[i]["error"], "throttl", i)
	}
}

func TestLoggerBelowItsLevelAndNilLoggerStaySilent(t *testing.T) {
	db, tbl, records := logged(t, slog.LevelError)
	db.Inject(dynamotest.Throttle("TransactWriteItems", 1))
	require.NoError(t, tbl.WriteTx().Create(job{PK: "U", SK: "J"}).Run(context.Background()))
	assert.Empty(t, records())

	// No logger at all: the retry still happens, and nothing panics.
	db2, silent := fakeJobs(t)
	db2.Inject(dynamotest.Throttle("TransactWriteItems", 1))
	require.NoError(t, silent.WriteTx().Create(job{PK: "U", SK: "J"}).Run(context.Background()))
	assert.Equal(t, 2, db2.Calls("TransactWriteItems"))
}

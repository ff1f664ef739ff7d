package journey

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/table"
)

// benchStore is a store on a Meter in front of the fake, or of DynamoDB
// Local when TABLEKIT_DYNAMODB_ENDPOINT is set, with its table created and
// one journey, JRN-BENCH, whose stages run in any order. Requests and
// write units are exact on the fake; round trips are an upper bound there
// (the fake answers in microseconds, so requests sent together need not
// overlap): TestIngestLogsRoundTrips and TestStartJobIsTwoRoundTrips count
// them exactly. BenchmarkHotCalls (cost_test.go) reports the other hot
// calls.
func benchStore(b *testing.B, opts ...func(*Options)) (*Store, *dynamotest.Meter) {
	b.Helper()
	ctx := context.Background()
	var db table.API
	name := DefaultTableName
	if ep := os.Getenv(testenv.DynamoDBEndpointVar); ep != "" {
		db = testenv.NewDynamoDB(ep)
		name = testenv.TableName(b, DefaultTableName)
	} else {
		db = dynamotest.New()
	}
	require.NoError(b, Schema(name).EnsureTable(ctx, db))
	m := dynamotest.NewMeter(db)
	s := mustStore(b, m, blobstore.NewMemory(), append([]func(*Options){func(o *Options) { o.TableName = name }, inAnyOrder}, opts...)...)
	_, err := s.Journeys().Create(ctx, NewJourney{ID: "JRN-BENCH", Name: "bench", Configuration: Configuration{RetryAttempts: 999}})
	require.NoError(b, err)
	return s, m
}

// BenchmarkIngestLogs ingests 10,000 log entries of one job step (the
// seed's figure for one job): the S3 file, the DynamoDB summaries and the
// per-level counts. "sequential" writes the summaries one PutItem at a
// time; "batched" in BatchWriteItem requests of 25, 8 in flight
// (DefaultBatchWriteConcurrency). Reported per 10,000 entries: requests,
// round trips, write units, and entries per second; on DynamoDB Local
// when TABLEKIT_DYNAMODB_ENDPOINT is set (-benchtime=1x there: the
// sequential case is 10,000 round trips).
func BenchmarkIngestLogs(b *testing.B) {
	const entries = 10_000
	for _, mode := range []string{"sequential", "batched"} {
		b.Run(mode, func(b *testing.B) {
			ctx := context.Background()
			s, m := benchStore(b)
			details := map[string]any{"table": "products", "rows": 1200, "duration_seconds": 0.25}
			var total dynamotest.Usage
			var elapsed time.Duration
			for i := 0; b.Loop(); i++ {
				job, err := s.Jobs().Start(ctx, NewJob{JourneyID: "JRN-BENCH", StageID: DefaultStages()[i%6].StageID})
				require.NoError(b, err)
				l, err := s.Logs().Logger(job.Ref(), "ingest")
				require.NoError(b, err)
				l.sequential = mode == "sequential"
				for n := range entries {
					l.Info(fmt.Sprintf("Processed batch %d of table products", n), details)
				}
				start := time.Now()
				total = total.Add(m.Measure(func() { err = l.Close(ctx) }))
				elapsed += time.Since(start)
				require.NoError(b, err)
				_, err = s.Jobs().Finish(ctx, job.Ref(), Finish{Status: JobFailed})
				require.NoError(b, err)
			}
			total.Report(b)
			b.ReportMetric(float64(entries*b.N)/elapsed.Seconds(), "entries/s")
		})
	}
}

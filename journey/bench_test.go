package journey

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/table"
)

// BenchmarkIngestLogs ingests 10,000 log entries of one job step (the
// seed's figure for one job): the S3 file, the DynamoDB summaries and the
// per-level counts, with summaries written one PutItem at a time against
// BatchWriteItem (25 a request). Reported as entries per second, on the
// fake, or on DynamoDB Local when TABLEKIT_DYNAMODB_ENDPOINT is set
// (-benchtime=1x there: the sequential case is 10,000 round trips).
func BenchmarkIngestLogs(b *testing.B) {
	const entries = 10_000
	for _, mode := range []string{"sequential", "batched"} {
		b.Run(mode, func(b *testing.B) {
			ctx := context.Background()
			var db table.API
			var fake *dynamotest.DB
			name := DefaultTableName
			if ep := os.Getenv(testenv.DynamoDBEndpointVar); ep != "" {
				db = testenv.NewDynamoDB(ep)
				name = testenv.TableName(b, DefaultTableName)
			} else {
				fake = dynamotest.New()
				db = fake
			}
			require.NoError(b, Schema(name).EnsureTable(ctx, db))
			s := mustStore(b, db, blobstore.NewMemory(), func(o *Options) { o.TableName = name })
			_, err := s.Journeys().Create(ctx, NewJourney{ID: "JRN-BENCH", Name: "bench"})
			require.NoError(b, err)
			details := map[string]any{"table": "products", "rows": 1200, "duration_seconds": 0.25}
			requests := 0
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				job, err := s.Jobs().Start(ctx, NewJob{JourneyID: "JRN-BENCH", StageID: DefaultStages()[i%6].StageID})
				require.NoError(b, err)
				l, err := s.Logs().Logger(job.Ref(), "ingest")
				require.NoError(b, err)
				l.sequential = mode == "sequential"
				if fake != nil {
					fake.ResetCalls()
				}
				b.StartTimer()
				for n := range entries {
					l.Info(fmt.Sprintf("Processed batch %d of table products", n), details)
				}
				require.NoError(b, l.Close(ctx))
				if fake != nil {
					requests += fake.Calls("PutItem") + fake.Calls("BatchWriteItem") + fake.Calls("TransactWriteItems")
				}
			}
			b.ReportMetric(float64(entries*b.N)/b.Elapsed().Seconds(), "entries/s")
			if fake != nil {
				b.ReportMetric(float64(requests)/float64(b.N), "requests/op")
			}
		})
	}
}

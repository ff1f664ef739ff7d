package dynamotest

import (
	"context"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest/internal/wire"
	"github.com/tablekit/tablekit/table"
)

// BenchmarkBackends measures GetItem, PutItem of a 1 KB item and a 25-item
// Query page through the same SDK client against each backend, in
// partitions of 1,000 and 100,000 items of a table that also holds 200
// other partitions:
//
//	backend=inprocess       the fake called directly, no client at all
//	backend=fake-http       the fake behind NewHandler, over HTTP
//	backend=canned          an HTTP server that answers every call with a
//	                        canned response of the same size: what the SDK
//	                        client and HTTP cost on their own, the floor
//	backend=dynamodb-local  DynamoDB Local at TABLEKIT_DYNAMODB_ENDPOINT
//
// The fake over HTTP is meant to stay within 1.2x of the canned floor.
// dynamotest/bench.sh runs it and prints one table. The engine's own
// in-process benchmarks (BenchmarkGetItem, BenchmarkPutItem,
// BenchmarkQueryPage, BenchmarkLoad in bench_test.go) cover one-core
// throughput and loading.
func BenchmarkBackends(b *testing.B) {
	fx := benchFixture(b)
	backends := []struct {
		name string
		api  func(b *testing.B) table.API
	}{
		{"inprocess", func(*testing.B) table.API { return fx.db }},
		{"fake-http", func(*testing.B) table.API { return fx.fakeHTTP() }},
		{"canned", func(*testing.B) table.API { return fx.canned() }},
		{"dynamodb-local", fx.dynamoDBLocal},
	}
	for _, op := range benchOps {
		for _, part := range benchPartitions {
			for _, be := range backends {
				b.Run(fmt.Sprintf("%s/partition=%d/backend=%s", op.name, part.n, be.name), func(b *testing.B) {
					api := be.api(b)
					tableName := benchTableName
					if be.name == "dynamodb-local" {
						tableName = benchLocalTableName
					}
					call := op.prepare(api, tableName, part.pk, part.n)
					b.ReportAllocs()
					// Each backend starts from a collected heap, so none pays
					// for the garbage the one before it left (the in-process
					// run, just before fake-http, leaves the most).
					runtime.GC()
					start := benchCPU()
					for b.Loop() {
						if err := call(); err != nil {
							b.Fatal(err)
						}
					}
					if d := benchCPU() - start; b.N > 0 {
						b.ReportMetric(float64(d.Nanoseconds())/float64(b.N), "cpu-ns/op")
					}
				})
			}
		}
	}
}

const (
	benchTableName      = "bench"
	benchLocalTableName = "tablekit_bench_backends"
)

var benchPartitions = []struct {
	pk string
	n  int
}{{"SMALL", 1000}, {"LARGE", 100000}}

// benchPayload makes an item of the SMALL or LARGE partition 1,024 bytes by
// DynamoDB's measure: attribute names plus values.
var benchPayload = strings.Repeat("x", 1024-len("pk")-len("SMALL")-len("sk")-len("ITEM#000000")-len("data"))

func benchItem(pk string, i int) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"pk":   &types.AttributeValueMemberS{Value: pk},
		"sk":   &types.AttributeValueMemberS{Value: fmt.Sprintf("ITEM#%06d", i)},
		"data": &types.AttributeValueMemberS{Value: benchPayload},
	}
}

func benchKey(pk string, i int) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: pk},
		"sk": &types.AttributeValueMemberS{Value: fmt.Sprintf("ITEM#%06d", i)},
	}
}

func benchTable(name string) *dynamodb.CreateTableInput {
	return &dynamodb.CreateTableInput{
		TableName:   aws.String(name),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
	}
}

// benchItems lists every item of the benchmark table, partition by
// partition.
func benchItems(yield func(map[string]types.AttributeValue) bool) {
	for _, part := range benchPartitions {
		for i := range part.n {
			if !yield(benchItem(part.pk, i)) {
				return
			}
		}
	}
	for p := range 200 {
		for i := range 50 {
			if !yield(benchItem(fmt.Sprintf("OTHER%03d", p), i)) {
				return
			}
		}
	}
}

// A benchCall prepares one operation against api and returns a function
// that makes one call of it.
type benchCall func(api table.API, tableName, pk string, n int) func() error

var benchOps = []struct {
	name    string
	prepare benchCall
}{
	{"GetItem", prepareGetItem},
	{"PutItem", preparePutItem},
	{"Query", prepareQueryPage},
}

// prepareGetItem reads random items of the partition.
func prepareGetItem(api table.API, tableName, pk string, n int) func() error {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(1, 2))
	keys := make([]map[string]types.AttributeValue, 1024)
	for i := range keys {
		keys[i] = benchKey(pk, r.IntN(n))
	}
	in := &dynamodb.GetItemInput{TableName: aws.String(tableName)}
	i := 0
	return func() error {
		in.Key = keys[i%len(keys)]
		i++
		out, err := api.GetItem(ctx, in)
		if err == nil && out.Item == nil {
			err = fmt.Errorf("GetItem found nothing at %v", in.Key)
		}
		return err
	}
}

// preparePutItem replaces random items of the partition, so it keeps its
// size.
func preparePutItem(api table.API, tableName, pk string, n int) func() error {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(3, 4))
	items := make([]map[string]types.AttributeValue, 1024)
	for i := range items {
		items[i] = benchItem(pk, r.IntN(n))
	}
	in := &dynamodb.PutItemInput{TableName: aws.String(tableName)}
	i := 0
	return func() error {
		in.Item = items[i%len(items)]
		i++
		_, err := api.PutItem(ctx, in)
		return err
	}
}

// prepareQueryPage reads 25 items with begins_with on the sort key,
// starting in the middle of the partition, as a client paging through it
// does.
func prepareQueryPage(api table.API, tableName, pk string, n int) func() error {
	ctx := context.Background()
	in := benchQueryInput(tableName, pk, n)
	return func() error {
		out, err := api.Query(ctx, in)
		if err == nil && len(out.Items) != 25 {
			err = fmt.Errorf("Query returned %d items, want 25", len(out.Items))
		}
		return err
	}
}

func benchQueryInput(tableName, pk string, n int) *dynamodb.QueryInput {
	return &dynamodb.QueryInput{
		TableName:              aws.String(tableName),
		KeyConditionExpression: aws.String("pk = :p AND begins_with(sk, :prefix)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":p":      &types.AttributeValueMemberS{Value: pk},
			":prefix": &types.AttributeValueMemberS{Value: "ITEM#"},
		},
		ExclusiveStartKey: benchKey(pk, n/2),
		Limit:             aws.Int32(25),
	}
}

// benchCPU is the process's CPU time so far. On a shared machine the wall
// clock also counts time spent waiting for a core; the CPU time does not.
func benchCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// backendsFixture is built once per test binary: loading 111,000 items
// takes a while, and every backend reads the same data.
type backendsFixture struct {
	db *DB

	httpOnce   sync.Once
	httpClient *dynamodb.Client

	cannedOnce   sync.Once
	cannedClient *dynamodb.Client

	localOnce   sync.Once
	localClient *dynamodb.Client
	localErr    error
}

var (
	backendsOnce sync.Once
	backends     *backendsFixture
)

func benchFixture(b *testing.B) *backendsFixture {
	backendsOnce.Do(func() {
		ctx := context.Background()
		db := New()
		if _, err := db.CreateTable(ctx, benchTable(benchTableName)); err != nil {
			b.Fatal(err)
		}
		in := &dynamodb.PutItemInput{TableName: aws.String(benchTableName)}
		for item := range benchItems {
			in.Item = item
			if _, err := db.PutItem(ctx, in); err != nil {
				b.Fatal(err)
			}
		}
		backends = &backendsFixture{db: db}
	})
	return backends
}

// fakeHTTP serves the fixture's DB over HTTP. The server lives as long as
// the test binary.
func (fx *backendsFixture) fakeHTTP() *dynamodb.Client {
	fx.httpOnce.Do(func() {
		srv := httptest.NewServer(NewHandler(fx.db))
		fx.httpClient = NewClient(srv.URL)
	})
	return fx.httpClient
}

// canned serves, for each operation, the response the fake gives to the
// benchmark's request, precomputed: the server does no work but read the
// request and write bytes, so its clients measure the SDK and HTTP alone.
func (fx *backendsFixture) canned() *dynamodb.Client {
	fx.cannedOnce.Do(func() {
		ctx := context.Background()
		get, err := fx.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(benchTableName), Key: benchKey("LARGE", 1)})
		if err != nil {
			panic(err)
		}
		query, err := fx.db.Query(ctx, benchQueryInput(benchTableName, "LARGE", 100000))
		if err != nil {
			panic(err)
		}
		bodies := map[string][]byte{
			targetPrefix + "GetItem": wire.Marshal(get),
			targetPrefix + "PutItem": wire.Marshal(&dynamodb.PutItemOutput{}),
			targetPrefix + "Query":   wire.Marshal(query),
		}
		crcs := map[string]string{}
		for target, body := range bodies {
			crcs[target] = strconv.FormatUint(uint64(crc32.ChecksumIEEE(body)), 10)
		}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			target := r.Header.Get("X-Amz-Target")
			body := bodies[target]
			h := w.Header()
			h["Content-Type"] = []string{"application/x-amz-json-1.0"}
			h["Content-Length"] = []string{strconv.Itoa(len(body))}
			h["X-Amz-Crc32"] = []string{crcs[target]}
			h["x-amzn-RequestId"] = []string{"CANNED"}
			w.Write(body)
		}))
		fx.cannedClient = NewClient(srv.URL)
	})
	return fx.cannedClient
}

// dynamoDBLocal returns a client of DynamoDB Local with the benchmark table
// loaded, or skips when TABLEKIT_DYNAMODB_ENDPOINT is unset. The table is
// kept between runs: loading 111,000 items into DynamoDB Local takes about
// a minute, so a marker item records a finished load.
func (fx *backendsFixture) dynamoDBLocal(b *testing.B) table.API {
	endpoint := os.Getenv("TABLEKIT_DYNAMODB_ENDPOINT")
	if endpoint == "" {
		b.Skip("TABLEKIT_DYNAMODB_ENDPOINT not set: no DynamoDB Local to compare with")
	}
	fx.localOnce.Do(func() {
		fx.localClient = NewClient(endpoint)
		fx.localErr = loadDynamoDBLocal(fx.localClient)
	})
	if fx.localErr != nil {
		b.Fatal("loading DynamoDB Local:", fx.localErr)
	}
	return fx.localClient
}

func loadDynamoDBLocal(client *dynamodb.Client) error {
	ctx := context.Background()
	marker := map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "LOADED"},
		"sk": &types.AttributeValueMemberS{Value: "v1"},
	}
	if out, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(benchLocalTableName), Key: marker}); err == nil && out.Item != nil {
		return nil
	}
	client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(benchLocalTableName)})
	if _, err := client.CreateTable(ctx, benchTable(benchLocalTableName)); err != nil {
		return err
	}
	batches := make(chan []types.WriteRequest)
	errs := make(chan error, 4)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for batch := range batches {
				req := map[string][]types.WriteRequest{benchLocalTableName: batch}
				for len(req) > 0 {
					out, err := client.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: req})
					if err != nil {
						errs <- err
						for range batches {
							// Drain, so the producer never blocks.
						}
						return
					}
					req = out.UnprocessedItems
				}
			}
		})
	}
	var batch []types.WriteRequest
	for item := range benchItems {
		batch = append(batch, types.WriteRequest{PutRequest: &types.PutRequest{Item: item}})
		if len(batch) == 25 {
			batches <- batch
			batch = nil
		}
	}
	if len(batch) > 0 {
		batches <- batch
	}
	close(batches)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	_, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(benchLocalTableName), Item: marker})
	return err
}

// BenchmarkFakeVsFloor alternates calls to the fake over HTTP and to the
// canned floor and reports the median latency of each and their ratio. On a
// machine whose other load comes and goes, alternating gives both backends
// the same conditions, and the median ignores the calls that waited for a
// core; BenchmarkBackends' means and CPU times are at the mercy of both.
func BenchmarkFakeVsFloor(b *testing.B) {
	fx := benchFixture(b)
	for _, op := range benchOps {
		for _, part := range benchPartitions {
			b.Run(fmt.Sprintf("%s/partition=%d", op.name, part.n), func(b *testing.B) {
				calls := []func() error{
					op.prepare(fx.fakeHTTP(), benchTableName, part.pk, part.n),
					op.prepare(fx.canned(), benchTableName, part.pk, part.n),
				}
				var took [2][]time.Duration
				for b.Loop() {
					for k, call := range calls {
						start := time.Now()
						if err := call(); err != nil {
							b.Fatal(err)
						}
						took[k] = append(took[k], time.Since(start))
					}
				}
				fake, floor := medianDuration(took[0]), medianDuration(took[1])
				b.ReportMetric(float64(fake.Nanoseconds()), "fake-p50-ns")
				b.ReportMetric(float64(floor.Nanoseconds()), "canned-p50-ns")
				b.ReportMetric(float64(fake)/float64(floor), "fake/canned")
			})
		}
	}
}

func medianDuration(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return d[len(d)/2]
}

// BenchmarkHandlerServerSide measures what the fake over HTTP adds to a
// call on the server's side alone (decoding, the engine, encoding, headers)
// by calling the handler directly, without a client or a connection. Next to
// the canned backend's figure it says how far from the floor the server
// can be, whatever the machine's load does to the end-to-end figures.
func BenchmarkHandlerServerSide(b *testing.B) {
	fx := benchFixture(b)
	handler := NewHandler(fx.db)
	for _, part := range benchPartitions {
		for _, op := range []struct {
			name string
			in   any
		}{
			{"GetItem", &dynamodb.GetItemInput{TableName: aws.String(benchTableName), Key: benchKey(part.pk, part.n/3)}},
			{"PutItem", &dynamodb.PutItemInput{TableName: aws.String(benchTableName), Item: benchItem(part.pk, part.n/3)}},
			{"Query", benchQueryInput(benchTableName, part.pk, part.n)},
		} {
			b.Run(fmt.Sprintf("%s/partition=%d", op.name, part.n), func(b *testing.B) {
				body := wire.Marshal(op.in)
				reader := new(bytesReader)
				req := httptest.NewRequest(http.MethodPost, "/", reader)
				req.Header.Set("X-Amz-Target", targetPrefix+op.name)
				req.ContentLength = int64(len(body))
				w := &discardWriter{header: http.Header{}}
				b.ReportAllocs()
				start := benchCPU()
				for b.Loop() {
					reader.reset(body)
					clear(w.header)
					handler.ServeHTTP(w, req)
					if w.status != http.StatusOK {
						b.Fatalf("status %d", w.status)
					}
				}
				b.ReportMetric(float64((benchCPU()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// bytesReader is a request body that can be rewound without allocating.
type bytesReader struct {
	b   []byte
	off int
}

func (r *bytesReader) reset(b []byte) { r.b, r.off = b, 0 }

func (r *bytesReader) Read(p []byte) (int, error) {
	if r.off >= len(r.b) {
		return 0, io.EOF
	}
	n := copy(p, r.b[r.off:])
	r.off += n
	return n, nil
}

type discardWriter struct {
	header http.Header
	status int
}

func (w *discardWriter) Header() http.Header         { return w.header }
func (w *discardWriter) WriteHeader(status int)      { w.status = status }
func (w *discardWriter) Write(p []byte) (int, error) { return len(p), nil }

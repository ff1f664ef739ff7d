package bench

import (
	"context"
	"fmt"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"
	"github.com/guregu/dynamo/v2/dynamodbiface"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
)

// job is a typical item: a key, a status, an owner, counters and times.
// The tags are tablekit's (the SDK's dynamodbav) and guregu's (dynamo).
type job struct {
	PK        string    `dynamodbav:"pk" dynamo:"pk,hash"`
	SK        string    `dynamodbav:"sk" dynamo:"sk,range"`
	Status    string    `dynamodbav:"status" dynamo:"status"`
	Owner     string    `dynamodbav:"owner" dynamo:"owner"`
	Attempts  int       `dynamodbav:"attempts" dynamo:"attempts"`
	Size      int64     `dynamodbav:"size" dynamo:"size"`
	CreatedAt time.Time `dynamodbav:"createdAt" dynamo:"createdAt"`
	UpdatedAt time.Time `dynamodbav:"updatedAt" dynamo:"updatedAt"`
}

const (
	tableName = "bench"
	keys      = 1024 // items the writes cycle over, and the partition queried
)

var ctx = context.Background()

// fixture is the fake with one table of keys items in one partition, and
// the three ways of calling it.
type fixture struct {
	db     *dynamotest.DB
	tbl    *table.Table
	guregu dynamo.Table
	jobs   []job
}

func newFixture(b *testing.B) *fixture {
	b.Helper()
	db := dynamotest.New()
	schema := table.Schema{
		Name:         tableName,
		PartitionKey: table.Attribute{Name: "pk", Type: types.ScalarAttributeTypeS},
		SortKey:      table.Attribute{Name: "sk", Type: types.ScalarAttributeTypeS},
	}
	tbl := table.New(db, schema)
	if err := tbl.EnsureTable(ctx); err != nil {
		b.Fatal(err)
	}
	f := &fixture{db: db, tbl: tbl, guregu: dynamo.NewFromIface(gureguAPI{db: db}).Table(tableName)}
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := range keys {
		j := job{PK: "USER#1", SK: fmt.Sprintf("JOB#%06d", i), Status: "queued", Owner: "u1", Size: 1 << 20, CreatedAt: at, UpdatedAt: at}
		if err := tbl.Put(ctx, j); err != nil {
			b.Fatal(err)
		}
		f.jobs = append(f.jobs, j)
	}
	return f
}

// gureguAPI is the fake as guregu's client interface. The benchmarks call
// only the methods defined here; the embedded interface, nil, stands for
// the operations the fake does not serve.
type gureguAPI struct {
	dynamodbiface.DynamoDBAPI
	db *dynamotest.DB
}

func (g gureguAPI) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return g.db.PutItem(ctx, in, o...)
}

func (g gureguAPI) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return g.db.UpdateItem(ctx, in, o...)
}

func (g gureguAPI) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return g.db.GetItem(ctx, in, o...)
}

func (g gureguAPI) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	return g.db.Query(ctx, in, o...)
}

// lib is one way of sending an operation's request: call sends the i-th.
type lib struct {
	name string
	call func(f *fixture, i int) error
}

// ops are the requests compared, each sent the same way by the raw SDK
// (expressions written by hand, items marshaled with attributevalue),
// tablekit and guregu.
var ops = []struct {
	name string
	libs []lib
}{
	{"Put", []lib{
		// A whole item replaced under a condition on its status.
		{"sdk", func(f *fixture, i int) error {
			av, err := attributevalue.MarshalMap(f.jobs[i%keys])
			if err != nil {
				return err
			}
			_, err = f.db.PutItem(ctx, &dynamodb.PutItemInput{
				TableName: aws.String(tableName), Item: av,
				ConditionExpression:       aws.String("#0 <> :0"),
				ExpressionAttributeNames:  map[string]string{"#0": "status"},
				ExpressionAttributeValues: map[string]types.AttributeValue{":0": &types.AttributeValueMemberS{Value: "archived"}},
			})
			return err
		}},
		{"tablekit", func(f *fixture, i int) error {
			return f.tbl.Put(ctx, f.jobs[i%keys], table.If(expression.Name("status").NotEqual(expression.Value("archived"))))
		}},
		{"guregu", func(f *fixture, i int) error {
			return f.guregu.Put(f.jobs[i%keys]).If("$ <> ?", "status", "archived").Run(ctx)
		}},
	}},
	{"Update", []lib{
		// Two attributes set and a counter added, on an item that must exist.
		{"sdk", func(f *fixture, i int) error {
			j := f.jobs[i%keys]
			at, err := attributevalue.Marshal(j.UpdatedAt)
			if err != nil {
				return err
			}
			_, err = f.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
				TableName: aws.String(tableName),
				Key: map[string]types.AttributeValue{
					"pk": &types.AttributeValueMemberS{Value: j.PK}, "sk": &types.AttributeValueMemberS{Value: j.SK},
				},
				UpdateExpression:         aws.String("SET #0 = :0, #1 = :1 ADD #2 :2"),
				ConditionExpression:      aws.String("attribute_exists(#3)"),
				ExpressionAttributeNames: map[string]string{"#0": "status", "#1": "updatedAt", "#2": "attempts", "#3": "pk"},
				ExpressionAttributeValues: map[string]types.AttributeValue{
					":0": &types.AttributeValueMemberS{Value: "running"}, ":1": at, ":2": &types.AttributeValueMemberN{Value: "1"},
				},
			})
			return err
		}},
		{"tablekit", func(f *fixture, i int) error {
			j := f.jobs[i%keys]
			u := expression.Set(expression.Name("status"), expression.Value("running")).
				Set(expression.Name("updatedAt"), expression.Value(j.UpdatedAt)).
				Add(expression.Name("attempts"), expression.Value(1))
			return f.tbl.Update(ctx, f.tbl.Key(j.PK, j.SK), u, table.IfExists())
		}},
		{"guregu", func(f *fixture, i int) error {
			j := f.jobs[i%keys]
			return f.guregu.Update("pk", j.PK).Range("sk", j.SK).
				Set("status", "running").Set("updatedAt", j.UpdatedAt).Add("attempts", 1).
				If("attribute_exists($)", "pk").Run(ctx)
		}},
	}},
	{"Get", []lib{
		{"sdk", func(f *fixture, i int) error {
			j := f.jobs[i%keys]
			out, err := f.db.GetItem(ctx, &dynamodb.GetItemInput{
				TableName: aws.String(tableName),
				Key: map[string]types.AttributeValue{
					"pk": &types.AttributeValueMemberS{Value: j.PK}, "sk": &types.AttributeValueMemberS{Value: j.SK},
				},
			})
			if err != nil {
				return err
			}
			var got job
			return attributevalue.UnmarshalMap(out.Item, &got)
		}},
		{"tablekit", func(f *fixture, i int) error {
			j := f.jobs[i%keys]
			var got job
			return f.tbl.Get(ctx, f.tbl.Key(j.PK, j.SK), &got)
		}},
		{"guregu", func(f *fixture, i int) error {
			j := f.jobs[i%keys]
			var got job
			return f.guregu.Get("pk", j.PK).Range("sk", dynamo.Equal, j.SK).One(ctx, &got)
		}},
	}},
	{"Query", []lib{
		// The first page of 25 items of a partition.
		{"sdk", func(f *fixture, i int) error {
			out, err := f.db.Query(ctx, &dynamodb.QueryInput{
				TableName:                 aws.String(tableName),
				KeyConditionExpression:    aws.String("#0 = :0"),
				ExpressionAttributeNames:  map[string]string{"#0": "pk"},
				ExpressionAttributeValues: map[string]types.AttributeValue{":0": &types.AttributeValueMemberS{Value: "USER#1"}},
				Limit:                     aws.Int32(25),
			})
			if err != nil {
				return err
			}
			var got []job
			return attributevalue.UnmarshalListOfMaps(out.Items, &got)
		}},
		{"tablekit", func(f *fixture, i int) error {
			_, err := table.QueryPage[job](ctx, f.tbl, table.Query{Partition: "USER#1", Limit: 25}, "")
			return err
		}},
		{"guregu", func(f *fixture, i int) error {
			var got []job
			return f.guregu.Get("pk", "USER#1").SearchLimit(25).Limit(25).All(ctx, &got)
		}},
	}},
}

// cpuTime is the process's user and system CPU time so far: on a shared
// machine the wall clock also counts time spent waiting for a core.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkTyped sends each operation's request through each library, as
// sub-benchmarks benchstat compares (-col /lib).
func BenchmarkTyped(b *testing.B) {
	f := newFixture(b)
	for _, op := range ops {
		for _, l := range op.libs {
			b.Run(fmt.Sprintf("op=%s/lib=%s", op.name, l.name), func(b *testing.B) {
				b.ReportAllocs()
				start := cpuTime()
				i := 0
				for b.Loop() {
					if err := l.call(f, i); err != nil {
						b.Fatal(err)
					}
					i++
				}
				b.ReportMetric(float64((cpuTime()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// BenchmarkRatio reports each library's CPU time per operation over the
// raw SDK's (tablekit/sdk, guregu/sdk), with the libraries' calls
// interleaved in blocks, so that a machine whose speed comes and goes
// slows them alike. The ratio of medians over the blocks is reported.
func BenchmarkRatio(b *testing.B) {
	f := newFixture(b)
	const block = 64
	for _, op := range ops {
		b.Run("op="+op.name, func(b *testing.B) {
			per := make([][]float64, len(op.libs)) // CPU ns per call, per block
			i := 0
			for b.Loop() {
				for k, l := range op.libs {
					start := cpuTime()
					for n := range block {
						if err := l.call(f, i+n); err != nil {
							b.Fatal(err)
						}
					}
					per[k] = append(per[k], float64((cpuTime()-start).Nanoseconds())/block)
				}
				i += block
			}
			med := make([]float64, len(per))
			for k := range per {
				med[k] = median(per[k])
			}
			for k, l := range op.libs[1:] {
				if med[0] > 0 {
					b.ReportMetric(med[k+1]/med[0], l.name+"/sdk")
				}
			}
			b.ReportMetric(med[0], "sdk-cpu-ns/call")
		})
	}
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

package observe_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/table"
)

type thing struct {
	PK string `dynamodbav:"pk"`
	G  string `dynamodbav:"g"`
}

var things = table.Schema{
	Name:         "things",
	PartitionKey: table.Attribute{Name: "pk", Type: types.ScalarAttributeTypeS},
}

// saveThing is a store call as stores write them.
func saveThing(ctx context.Context, tbl *table.Table, pk string) (err error) {
	ctx, span := tbl.Start(ctx, "things.Save")
	defer span.End(&err)
	return tbl.Put(ctx, thing{PK: pk, G: "G"})
}

func TestStoreCallSpanParentsItsRequestsAndLabelsTheirMetrics(t *testing.T) {
	r := newRig(t)
	tbl := table.New(r.api, things, table.TracerProvider(r.tp))

	require.NoError(t, saveThing(context.Background(), tbl, "a"))
	_, err := r.put(t, context.Background(), "b") // a request outside any store call
	require.NoError(t, err)

	ended := r.spans.Ended()
	require.Len(t, ended, 3)
	put, call := ended[0], ended[1]
	assert.Equal(t, "DynamoDB.PutItem", put.Name())
	assert.Equal(t, "things.Save", call.Name())
	assert.Equal(t, call.SpanContext().SpanID(), put.Parent().SpanID(), "the request nests under the store call")

	requests := r.sums(t, "tablekit.dynamodb.requests")
	assert.Equal(t, 1.0, requests["db.collection.name=things,db.operation.name=PutItem,tablekit.operation=things.Save,tablekit.outcome=ok"])
	assert.Equal(t, 1.0, requests["db.collection.name=things,db.operation.name=PutItem,tablekit.outcome=ok"])
	capacity := r.sums(t, "tablekit.dynamodb.consumed_capacity")
	assert.Equal(t, 1.0, capacity["aws.dynamodb.index_name=,db.collection.name=things,tablekit.capacity.kind=write,tablekit.operation=things.Save"])
}

func TestStoreCallLabelsMetricsWithoutATracer(t *testing.T) {
	r := newRig(t)
	tbl := table.New(r.api, things) // no TracerProvider: the observed API alone asks for the label

	require.NoError(t, saveThing(context.Background(), tbl, "a"))

	assert.Len(t, r.spans.Ended(), 1, "only the request's own span")
	requests := r.sums(t, "tablekit.dynamodb.requests")
	assert.Equal(t, 1.0, requests["db.collection.name=things,db.operation.name=PutItem,tablekit.operation=things.Save,tablekit.outcome=ok"])
}

package observe_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/observe"
	"github.com/tablekit/tablekit/table"
)

// BenchmarkGetItem compares a point read on the fake unwrapped, wrapped
// with the global (no-op) providers, and wrapped with the OpenTelemetry SDK
// recording every span and metric:
//
//	go test -run '^$' -bench GetItem -benchmem ./observe
func BenchmarkGetItem(b *testing.B) {
	db := dynamotest.New()
	ctx := context.Background()
	_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("bench"),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
	})
	if err != nil {
		b.Fatal(err)
	}
	key := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("bench"), Item: key}); err != nil {
		b.Fatal(err)
	}
	noop, err := observe.DynamoDB(db)
	if err != nil {
		b.Fatal(err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(tracetest.NewSpanRecorder()))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	sdk, err := observe.DynamoDB(db, observe.TracerProvider(tp), observe.MeterProvider(mp))
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		api  table.API
	}{{"unwrapped", db}, {"noop", noop}, {"sdk", sdk}} {
		b.Run(bc.name, func(b *testing.B) {
			in := &dynamodb.GetItemInput{TableName: aws.String("bench"), Key: key}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.api.GetItem(ctx, in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

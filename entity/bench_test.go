package entity_test

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

// The benchmarks compare each entity call with the raw SDK call that
// sends the same request and decodes the same answer, on the in-process
// fake: the entity's cost over it is what the package adds. Both run in
// one benchmark, in alternating blocks, and each reports the CPU time it
// took per operation (raw-cpu-ns/op, entity-cpu-ns/op) and their ratio
// (entity/raw): on a shared machine other processes slow both alike, where
// two benchmarks run one after the other would see different loads.
//
//	go test -run '^$' -bench . -benchtime 20000x -count 5 ./entity

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// compare runs raw and ent b.N times each, in alternating blocks, and
// reports the CPU time of each per operation and the ratio.
func compare(b *testing.B, raw, ent func()) {
	const block = 200
	var rawCPU, entCPU time.Duration
	b.ReportAllocs()
	for i := 0; i < 3; i++ { // warm both paths up
		raw()
		ent()
	}
	b.ResetTimer()
	for done := 0; done < b.N; {
		n := min(block, b.N-done)
		t0 := cpuTime()
		for range n {
			raw()
		}
		t1 := cpuTime()
		for range n {
			ent()
		}
		t2 := cpuTime()
		rawCPU += t1 - t0
		entCPU += t2 - t1
		done += n
	}
	b.ReportMetric(float64(rawCPU.Nanoseconds())/float64(b.N), "raw-cpu-ns/op")
	b.ReportMetric(float64(entCPU.Nanoseconds())/float64(b.N), "entity-cpu-ns/op")
	if rawCPU > 0 {
		b.ReportMetric(float64(entCPU)/float64(rawCPU), "entity/raw")
	}
}

// benchPhoto is a typical photo item (~400 bytes).
func benchPhoto(e *env, i int) Photo {
	return Photo{AlbumID: "bench", ID: fmt.Sprintf("p%04d", i), OwnerID: "u1",
		TakenAt: time.Date(2025, 6, 1, 0, 0, i, 0, time.UTC), Caption: "a photo taken on a mountain, with a long caption"}
}

func benchEnv(b *testing.B, n int) *env {
	e := newEnv(b)
	for i := range n {
		if _, err := e.photos.Create(ctx, benchPhoto(e, i)); err != nil {
			b.Fatal(err)
		}
	}
	return e
}

func rawKey(albumID, photoID string) table.Item {
	return table.Item{"pk": &types.AttributeValueMemberS{Value: "ALBUM#" + albumID}, "sk": &types.AttributeValueMemberS{Value: "PHOTO#" + photoID}}
}

func BenchmarkGet(b *testing.B) {
	e := benchEnv(b, 1)
	name := aws.String(e.t.Name())
	compare(b, func() {
		out, err := e.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: name, Key: rawKey("bench", "p0000"), ConsistentRead: aws.Bool(false)})
		if err != nil || len(out.Item) == 0 {
			b.Fatal(err)
		}
		var p Photo
		if err := attributevalue.UnmarshalMap(out.Item, &p); err != nil {
			b.Fatal(err)
		}
	}, func() {
		if _, err := e.photos.Get(ctx, Photo{AlbumID: "bench", ID: "p0000"}); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkPut replaces one photo: its item carries the table and index
// keys, the type attribute and the updated timestamp.
func BenchmarkPut(b *testing.B) {
	e := benchEnv(b, 1)
	p := benchPhoto(e, 0)
	name := aws.String(e.t.Name())
	compare(b, func() {
		{
			v := p
			v.UpdatedAt = e.db.Now()
			if v.CreatedAt.IsZero() {
				v.CreatedAt = v.UpdatedAt
			}
			item, err := attributevalue.MarshalMap(&v)
			if err != nil {
				b.Fatal(err)
			}
			item["pk"] = &types.AttributeValueMemberS{Value: "ALBUM#" + v.AlbumID}
			item["sk"] = &types.AttributeValueMemberS{Value: "PHOTO#" + v.ID}
			item["gsi1pk"] = &types.AttributeValueMemberS{Value: "USER#" + v.OwnerID}
			item["gsi1sk"] = &types.AttributeValueMemberS{Value: "PHOTO#" + keys.FormatTime(v.TakenAt) + "#" + v.ID}
			item["_type"] = &types.AttributeValueMemberS{Value: "photo"}
			if _, err := e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: name, Item: item}); err != nil {
				b.Fatal(err)
			}
		}
	}, func() {
		if _, err := e.photos.Put(ctx, p); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkUpdate patches one photo's caption and returns the photo.
func BenchmarkUpdate(b *testing.B) {
	e := benchEnv(b, 1)
	name := aws.String(e.t.Name())
	names := map[string]string{"#pk": "pk", "#c": "caption", "#u": "updatedAt"}
	compare(b, func() {
		{
			out, err := e.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: name, Key: rawKey("bench", "p0000"),
				UpdateExpression:         aws.String("SET #c = :c, #u = :u"),
				ConditionExpression:      aws.String("attribute_exists(#pk)"),
				ExpressionAttributeNames: names,
				ExpressionAttributeValues: map[string]types.AttributeValue{
					":c": &types.AttributeValueMemberS{Value: "new caption"},
					":u": &types.AttributeValueMemberS{Value: e.db.Now().Format(time.RFC3339Nano)}},
				ReturnValues:                        types.ReturnValueAllNew,
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld})
			if err != nil {
				b.Fatal(err)
			}
			var p Photo
			if err := attributevalue.UnmarshalMap(out.Attributes, &p); err != nil {
				b.Fatal(err)
			}
		}
	}, func() {
		if _, err := e.photos.Patch(Photo{AlbumID: "bench", ID: "p0000"}).Set("caption", "new caption").Run(ctx); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkQuery reads the first page of 25 photos of an album of 100.
func BenchmarkQuery(b *testing.B) {
	e := benchEnv(b, 100)
	name := aws.String(e.t.Name())
	compare(b, func() {
		{
			out, err := e.db.Query(ctx, &dynamodb.QueryInput{TableName: name,
				KeyConditionExpression:   aws.String("#pk = :pk AND begins_with(#sk, :sk)"),
				ExpressionAttributeNames: map[string]string{"#pk": "pk", "#sk": "sk"},
				ExpressionAttributeValues: map[string]types.AttributeValue{
					":pk": &types.AttributeValueMemberS{Value: "ALBUM#bench"}, ":sk": &types.AttributeValueMemberS{Value: "PHOTO#"}},
				Limit: aws.Int32(25)})
			if err != nil || len(out.Items) != 25 {
				b.Fatal(err)
			}
			var ps []Photo
			if err := attributevalue.UnmarshalListOfMaps(out.Items, &ps); err != nil {
				b.Fatal(err)
			}
		}
	}, func() {
		page, err := e.photos.List(ctx, Photo{AlbumID: "bench"}, "", entity.Limit(25))
		if err != nil || len(page.Items) != 25 {
			b.Fatal(err)
		}
	})
}

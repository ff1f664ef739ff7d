package blobstore_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
)

func ExampleMemory() {
	ctx := context.Background()
	store := blobstore.NewMemory()
	err := store.Put(ctx, "logs/job-1.log", strings.NewReader("stage 1 done\nstage 2 done\n"),
		blobstore.WithContentType("text/plain"),
		blobstore.WithMetadata(map[string]string{"job-id": "job-1"}))
	if err != nil {
		log.Fatal(err)
	}
	// The second line only: a range read.
	body, info, err := store.Get(ctx, "logs/job-1.log", blobstore.WithRange(13, 0))
	if err != nil {
		log.Fatal(err)
	}
	defer body.Close()
	line, _ := io.ReadAll(body)
	fmt.Printf("%q of %d bytes, %s, job %s\n", line, info.Size, info.ContentType, info.Metadata["job-id"])
	// Output: "stage 2 done\n" of 26 bytes, text/plain, job job-1
}

func ExampleDir() {
	root, _ := os.MkdirTemp("", "blobs")
	defer os.RemoveAll(root)
	store, err := blobstore.NewDir(root)
	if err != nil {
		log.Fatal(err)
	}
	err = store.Put(context.Background(), "../outside", strings.NewReader("x"))
	fmt.Println(err)
	// Output: blobstore: invalid key "../outside": path segment ".." would leave or alias a directory
}

func ExampleMemory_EnablePresign() {
	ctx := context.Background()
	store := blobstore.NewMemory()
	srv := httptest.NewServer(store)
	defer srv.Close()
	if err := store.EnablePresign(srv.URL); err != nil {
		log.Fatal(err)
	}

	// Hand an uploader a URL instead of credentials.
	opts := []func(*blobstore.PutOptions){blobstore.WithContentType("text/csv")}
	url, err := store.PresignPut(ctx, "inputs/p-1.csv", 15*time.Minute, opts...)
	if err != nil {
		log.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPut, url, strings.NewReader("a,b\n1,2\n"))
	req.Header, _ = blobstore.PutHeaders(opts...)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()

	info, _ := store.Head(ctx, "inputs/p-1.csv")
	fmt.Println(resp.StatusCode, info.Size, info.ContentType)
	// Output: 200 8 text/csv
}

func ExampleOpen() {
	ctx := context.Background()
	// From configuration: mem://, file:///var/lib/app/blobs or
	// s3://bucket?region=eu-west-1 (endpoint= for s3rver or MinIO).
	store, err := blobstore.Open(ctx, "mem://")
	if err != nil {
		log.Fatal(err)
	}
	for _, k := range []string{"reports/b.json", "reports/a.json", "logs/x.log"} {
		if err := store.Put(ctx, k, strings.NewReader("{}")); err != nil {
			log.Fatal(err)
		}
	}
	for info, err := range store.List(ctx, "reports/") {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(info.Key, info.Size)
	}
	// Output:
	// reports/a.json 2
	// reports/b.json 2
}

func ExampleOffloader_Put() {
	ctx := context.Background()
	db := dynamotest.New()
	schema := table.Schema{
		Name:         "TransformationSystem",
		PartitionKey: table.Attribute{Name: "PK", Type: types.ScalarAttributeTypeS},
		SortKey:      table.Attribute{Name: "SK", Type: types.ScalarAttributeTypeS},
	}
	if err := schema.Create(ctx, db); err != nil {
		log.Fatal(err)
	}
	t := table.New(db, schema)
	off, err := blobstore.NewOffloader(blobstore.NewMemory(), func(o *blobstore.OffloadOptions) { o.Prefix = "attrs/" })
	if err != nil {
		log.Fatal(err)
	}

	report := table.Item{
		"PK":     &types.AttributeValueMemberS{Value: "JOB#42"},
		"SK":     &types.AttributeValueMemberS{Value: "REPORT"},
		"status": &types.AttributeValueMemberS{Value: "done"},
		"body":   &types.AttributeValueMemberS{Value: strings.Repeat("row\n", 256<<10)}, // 1 MB
	}
	if err := off.Put(ctx, t, "JOB#42/REPORT", report); err != nil {
		log.Fatal(err)
	}

	key := table.Key{"PK": report["PK"], "SK": report["SK"]}
	var stored table.Item
	if err := t.Get(ctx, key, &stored); err != nil {
		log.Fatal(err)
	}
	p, _ := blobstore.PointerOf(stored["body"])
	fmt.Println("item in DynamoDB:", table.ItemSize(stored) < blobstore.DefaultOffloadThreshold, "bytes under threshold")
	fmt.Println("body in the store:", p.Size, "bytes,", p.Key[:len("attrs/JOB#42/REPORT/body/")]+"<sha256>")

	full, err := off.Get(ctx, t, key)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("read back:", len(full["body"].(*types.AttributeValueMemberS).Value), "bytes")
	// Output:
	// item in DynamoDB: true bytes under threshold
	// body in the store: 1048576 bytes, attrs/JOB#42/REPORT/body/<sha256>
	// read back: 1048576 bytes
}

func ExampleOffloader_RemoveOrphans() {
	ctx := context.Background()
	db := dynamotest.New()
	schema := table.Schema{Name: "Files", PartitionKey: table.Attribute{Name: "id", Type: types.ScalarAttributeTypeS}}
	if err := schema.Create(ctx, db); err != nil {
		log.Fatal(err)
	}
	t := table.New(db, schema)
	off, err := blobstore.NewOffloader(blobstore.NewMemory(), func(o *blobstore.OffloadOptions) {
		o.OrphanMinAge = 0 // in production, longer than any Put takes
	})
	if err != nil {
		log.Fatal(err)
	}

	// The DynamoDB write fails after the upload: the object is an orphan.
	db.Inject(dynamotest.FailNth("PutItem", 1, &types.InternalServerError{}))
	item := table.Item{
		"id":   &types.AttributeValueMemberS{Value: "f1"},
		"data": &types.AttributeValueMemberB{Value: make([]byte, 200<<10)},
	}
	fmt.Println("put failed:", off.Put(ctx, t, "files/f1", item) != nil)

	removed, err := off.RemoveOrphans(ctx, t, "files/")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("removed", len(removed), "orphan")
	// Output:
	// put failed: true
	// removed 1 orphan
}

package connect_test

import (
	"context"
	"fmt"
	"log"

	"github.com/tablekit/tablekit/connect"
	"github.com/tablekit/tablekit/jobs"
)

func ExampleOpen() {
	ctx := context.Background()
	// connect.Open(ctx) reaches AWS through the default chain, and
	// connect.Open(ctx, connect.Endpoint("http://127.0.0.1:8000")) DynamoDB
	// Local; in memory needs nothing at all.
	conn, err := connect.Open(ctx, connect.InMemory())
	if err != nil {
		log.Fatal(err)
	}
	store, err := jobs.NewStore(conn.DB, nil)
	if err != nil {
		log.Fatal(err)
	}
	if err := store.EnsureTable(ctx); err != nil {
		log.Fatal(err)
	}
	fmt.Println("jobs on", conn)
	// Output: jobs on in-memory fake
}

package access_test

import (
	"fmt"

	"github.com/tablekit/tablekit/access"
)

// A store declares how it uses its table in its patterns.go; package
// datamodel costs the declaration and derives the IAM policy from it.
func ExamplePattern() {
	patterns := []access.Pattern{
		{
			Name:          "Create job",
			Operation:     access.PutItem,
			KeyCondition:  "jobId = :jobId",
			ItemSize:      1024,
			RatePerSecond: 0.4,
			Partition:     "{jobId}",
			// The job enters the per-user index: one more write.
			IndexWrites: []access.IndexWrite{{Index: "userId-createdAt-index", Partition: "{userId}"}},
		},
		{
			Name:            "List user jobs",
			Operation:       access.Query,
			Index:           "userId-createdAt-index",
			KeyCondition:    "userId = :userId",
			ItemSize:        1024,
			ItemsPerRequest: 20,
			RatePerSecond:   0.4,
			Partition:       "{userId}",
		},
	}
	for _, p := range patterns {
		fmt.Println(p.Name, p.Operation, p.Operation.IsRequest())
	}
	// Output:
	// Create job PutItem true
	// List user jobs Query true
}

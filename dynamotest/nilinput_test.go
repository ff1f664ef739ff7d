package dynamotest_test

import (
	"context"
	"github.com/stretchr/testify/assert"
	"testing"

	"github.com/tablekit/tablekit/dynamotest"
)

// A service that passes a nil input by mistake must get an error back from
// the fake, as it would from the SDK client, not a panic that takes its whole
// test binary down.
func TestNilInputIsAnErrorNotAPanic(t *testing.T) {
	db := dynamotest.New()
	ctx := context.Background()
	calls := map[string]func() error{
		"CreateTable":        func() error { _, err := db.CreateTable(ctx, nil); return err },
		"DeleteTable":        func() error { _, err := db.DeleteTable(ctx, nil); return err },
		"DescribeTable":      func() error { _, err := db.DescribeTable(ctx, nil); return err },
		"UpdateTimeToLive":   func() error { _, err := db.UpdateTimeToLive(ctx, nil); return err },
		"DescribeTimeToLive": func() error { _, err := db.DescribeTimeToLive(ctx, nil); return err },
		"GetItem":            func() error { _, err := db.GetItem(ctx, nil); return err },
		"PutItem":            func() error { _, err := db.PutItem(ctx, nil); return err },
		"UpdateItem":         func() error { _, err := db.UpdateItem(ctx, nil); return err },
		"DeleteItem":         func() error { _, err := db.DeleteItem(ctx, nil); return err },
		"Query":              func() error { _, err := db.Query(ctx, nil); return err },
		"Scan":               func() error { _, err := db.Scan(ctx, nil); return err },
		"BatchGetItem":       func() error { _, err := db.BatchGetItem(ctx, nil); return err },
		"BatchWriteItem":     func() error { _, err := db.BatchWriteItem(ctx, nil); return err },
		"TransactGetItems":   func() error { _, err := db.TransactGetItems(ctx, nil); return err },
		"TransactWriteItems": func() error { _, err := db.TransactWriteItems(ctx, nil); return err },
	}
	for op, call := range calls {
		err := call()
		assert.Errorf(t, err, "%s(nil) succeeded; want an error", op)
	}
	// ListTables takes no required field: nil lists the (empty) catalogue.
	out, err := db.ListTables(ctx, nil)
	assert.Falsef(t, err != nil || len(out.TableNames) != 0, "ListTables(nil) = %v, %v; want no tables and no error", out, err)
}

package table

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A Table that cannot send a request (nil, or not made by New with an
// API), and a nil context, are refused with an *InputError before anything
// is sent: a miswired service gets an error, not a panic in a handler.
func TestCallsOnAnUnusableTableOrWithoutContextAreInputErrors(t *testing.T) {
	calls := newCalls(nil)
	good := New(calls, thingsSchema)
	var nilTable *Table
	var noCtx context.Context
	ctx := context.Background()
	key := good.Key("a", "b")
	var out thing
	item := thing{PK: "a", SK: "b"}
	set := expression.Set(expression.Name("name"), expression.Value("x"))
	q := Query{Partition: "a"}

	type call struct {
		name string
		run  func() error
	}
	var cases []call
	for _, tc := range []struct {
		name string
		t    *Table
		ctx  context.Context
	}{
		{"nil table", nilTable, ctx},
		{"zero table", &Table{}, ctx},
		{"table without API", New(nil, thingsSchema), ctx},
		{"nil context", good, noCtx},
	} {
		tb, c := tc.t, tc.ctx
		cases = append(cases,
			call{tc.name + "/Get", func() error { return tb.Get(c, key, &out) }},
			call{tc.name + "/Put", func() error { return tb.Put(c, item) }},
			call{tc.name + "/Update", func() error { return tb.Update(c, key, set) }},
			call{tc.name + "/Delete", func() error { return tb.Delete(c, key) }},
			call{tc.name + "/BatchWrite", func() error { return tb.BatchWrite(c, []any{item}, nil) }},
			call{tc.name + "/BatchGet", func() error { _, err := BatchGet[thing](c, tb, []Key{key}); return err }},
			call{tc.name + "/QueryPage", func() error { _, err := QueryPage[thing](c, tb, q, ""); return err }},
			call{tc.name + "/QueryAll", func() error {
				for _, err := range QueryAll[thing](c, tb, q) {
					return err
				}
				return nil
			}},
			call{tc.name + "/ScanPage", func() error { _, err := ScanPage[thing](c, tb, Scan{}, ""); return err }},
			call{tc.name + "/ScanAll", func() error {
				for _, err := range ScanAll[thing](c, tb, Scan{}) {
					return err
				}
				return nil
			}},
			call{tc.name + "/ParallelScan", func() error {
				return ParallelScan(c, tb, 2, func(context.Context, int, Item) error { return nil })
			}},
			call{tc.name + "/WriteTx", func() error { return tb.WriteTx().Put(item).Run(c) }},
			call{tc.name + "/GetTx", func() error { return tb.GetTx().Get(key, &out).Run(c) }},
			call{tc.name + "/EnsureTable", func() error { return tb.EnsureTable(c) }},
		)
	}
	cases = append(cases,
		call{"nil WriteTx", func() error { var tx *WriteTx; return tx.Put(item).Update(key, set).Token("t").On(good).Run(ctx) }},
		call{"zero WriteTx", func() error {
			return (&WriteTx{}).Delete(key).Check(key, expression.AttributeExists(expression.Name("pk"))).Run(ctx)
		}},
		call{"nil GetTx", func() error { var g *GetTx; return g.Get(key, &out).Run(ctx) }},
		call{"tx on a nil table", func() error { return good.WriteTx().Put(item).On(nil).Put(item).Run(ctx) }},
		call{"Schema.EnsureTable without API", func() error { return thingsSchema.EnsureTable(ctx, nil) }},
		call{"Schema.Create without context", func() error { return thingsSchema.Create(noCtx, calls) }},
		call{"Schema.Check without API", func() error { return thingsSchema.Check(ctx, nil) }},
	)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var err error
			require.NotPanics(t, func() { err = c.run() })
			ie := mustInputError(t, err)
			assert.Contains(t, []string{"table", "ctx", "db", "tx.On"}, ie.Field, "the error names what is missing: %v", err)
		})
	}
	assert.Zero(t, calls.total(), "nothing is sent")
	assert.Empty(t, nilTable.Name())
	assert.Zero(t, nilTable.Schema())
	assert.Nil(t, nilTable.DB())
	assert.Nil(t, nilTable.Key("a", "b"))
}

package dynamotest

import (
	"context"
	"math"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Capacity is the capacity a table and its indexes consumed, in DynamoDB's
// read and write units.
type Capacity struct {
	ReadUnits, WriteUnits float64
}

// Consumed returns the capacity consumed on the named table and its
// indexes since New or ResetConsumed, by DynamoDB's rules: the figures an
// on-demand bill or a provisioned table's metrics would show. It counts
// every call, whether or not the caller asked for ReturnConsumedCapacity.
func (db *DB) Consumed(tableName string) Capacity {
	ts, ok := db.stats.tables.Load(tableName)
	if !ok {
		return Capacity{}
	}
	return Capacity{
		ReadUnits:  float64(ts.(*tableStats).readHalf.Load()) / 2,
		WriteUnits: float64(ts.(*tableStats).writeHalf.Load()) / 2,
	}
}

// ResetConsumed sets every table's consumed capacity to zero.
func (db *DB) ResetConsumed() {
	db.stats.tables.Range(func(_, ts any) bool {
		ts.(*tableStats).readHalf.Store(0)
		ts.(*tableStats).writeHalf.Store(0)
		return true
	})
}

const (
	readUnitBytes  = 4 * 1024
	writeUnitBytes = 1024
)

// readUnits is what reading size bytes costs: 4 KB units, rounded up, at
// least one; half for an eventually consistent read. Query and Scan pass the
// sum of the items they read, so rounding happens once per request, while
// GetItem and each BatchGetItem key round on their own.
func readUnits(size int, consistent bool) float64 {
	u := float64(max(1, (size+readUnitBytes-1)/readUnitBytes))
	if !consistent {
		u /= 2
	}
	return u
}

// writeUnits is what writing an item of size bytes costs: 1 KB units,
// rounded up, at least one.
func writeUnits(size int) float64 {
	return float64(max(1, (size+writeUnitBytes-1)/writeUnitBytes))
}

// usage accumulates one request's consumption on one table.
type usage struct {
	table       string
	read, write float64
	indexes     map[string]*Capacity
	local       map[string]bool // the indexes that are local secondary indexes
}

// indexOf is index for ix, remembering whether it is local, which decides
// where ReturnConsumedCapacity INDEXES reports it.
func (u *usage) indexOf(ix *dbIndex) *Capacity {
	if ix.local {
		if u.local == nil {
			u.local = map[string]bool{}
		}
		u.local[ix.name] = true
	}
	return u.index(ix.name)
}

func (u *usage) index(name string) *Capacity {
	if u.indexes == nil {
		u.indexes = make(map[string]*Capacity)
	}
	c := u.indexes[name]
	if c == nil {
		c = &Capacity{}
		u.indexes[name] = c
	}
	return c
}

func (u *usage) scale(f float64) {
	u.read *= f
	u.write *= f
	for _, c := range u.indexes {
		c.ReadUnits *= f
		c.WriteUnits *= f
	}
}

func (u *usage) total() Capacity {
	c := Capacity{ReadUnits: u.read, WriteUnits: u.write}
	for _, ic := range u.indexes {
		c.ReadUnits += ic.ReadUnits
		c.WriteUnits += ic.WriteUnits
	}
	return c
}

// record adds the request's consumption to the running totals, and to the
// Meter whose call ctx carries (see usage.go).
func (db *DB) record(ctx context.Context, us ...*usage) {
	for _, u := range us {
		if u == nil || u.table == "" {
			continue
		}
		t := u.total()
		meteredCallOf(ctx).add(t)
		ts := db.stats.table(u.table)
		ts.readHalf.Add(int64(math.Round(t.ReadUnits * 2)))
		ts.writeHalf.Add(int64(math.Round(t.WriteUnits * 2)))
	}
}

// capacityOf renders c as DynamoDB reports capacity: CapacityUnits, and
// the read and write units apart only for a transaction (split).
//
// What DynamoDB returns: the AWS CLI reference's examples of GetItem,
// PutItem, Query and the rest show ConsumedCapacity as TableName and
// CapacityUnits alone (with Table and the indexes' CapacityUnits under
// INDEXES), and so do DynamoDB Local and dynalite's tests written against
// AWS. A conformance suite characterised against DynamoDB itself
// (paritysuite/dynamodb-conformance, issue 69 and pull request 74) found
// ReadCapacityUnits/WriteCapacityUnits only on TransactWriteItems,
// TransactGetItems and ExecuteTransaction, as SDK users report
// (aws-sdk-java issue 1986, aws-sdk-go issue 2699: none on a Query, the
// write units on TransactWriteItems).
func capacityOf(c Capacity, split bool) *types.Capacity {
	out := &types.Capacity{CapacityUnits: aws.Float64(c.ReadUnits + c.WriteUnits)}
	if split && c.ReadUnits > 0 {
		out.ReadCapacityUnits = aws.Float64(c.ReadUnits)
	}
	if split && c.WriteUnits > 0 {
		out.WriteCapacityUnits = aws.Float64(c.WriteUnits)
	}
	return out
}

// consumedCapacity renders u as the output's ConsumedCapacity for mode, or
// nil when the caller did not ask (NONE or unset).
func (u *usage) consumedCapacity(mode types.ReturnConsumedCapacity) *types.ConsumedCapacity {
	return u.render(mode, false)
}

// render is consumedCapacity, with the read and write units apart when
// split (a transaction's; see capacityOf).
func (u *usage) render(mode types.ReturnConsumedCapacity, split bool) *types.ConsumedCapacity {
	if u == nil || (mode != types.ReturnConsumedCapacityTotal && mode != types.ReturnConsumedCapacityIndexes) {
		return nil
	}
	t := capacityOf(u.total(), split)
	out := &types.ConsumedCapacity{
		TableName:          aws.String(u.table),
		CapacityUnits:      t.CapacityUnits,
		ReadCapacityUnits:  t.ReadCapacityUnits,
		WriteCapacityUnits: t.WriteCapacityUnits,
	}
	if mode == types.ReturnConsumedCapacityIndexes {
		out.Table = capacityOf(Capacity{ReadUnits: u.read, WriteUnits: u.write}, split)
		for name, c := range u.indexes {
			dst := &out.GlobalSecondaryIndexes
			if u.local[name] {
				dst = &out.LocalSecondaryIndexes
			}
			if *dst == nil {
				*dst = make(map[string]types.Capacity, len(u.indexes))
			}
			(*dst)[name] = *capacityOf(*c, split)
		}
	}
	return out
}

// consumedList renders several tables' usage, for batches and (split)
// transactions.
func consumedList(mode types.ReturnConsumedCapacity, us []*usage, split bool) []types.ConsumedCapacity {
	var out []types.ConsumedCapacity
	for _, u := range us {
		if c := u.render(mode, split); c != nil {
			out = append(out, *c)
		}
	}
	return out
}

// validConsumedMode checks ReturnConsumedCapacity.
func validConsumedMode(mode types.ReturnConsumedCapacity) error {
	switch mode {
	case "", types.ReturnConsumedCapacityNone, types.ReturnConsumedCapacityTotal, types.ReturnConsumedCapacityIndexes:
		return nil
	}
	return constraint(string(mode), "returnConsumedCapacity", "Member must satisfy enum value set: [INDEXES, TOTAL, NONE]")
}

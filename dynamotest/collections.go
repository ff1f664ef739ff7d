package dynamotest

import (
	"math"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// maxItemCollection is DynamoDB's limit on an item collection in a table
// with local secondary indexes: 10 GB.
const maxItemCollection = 10 << 30

// collectionBytes is what an item adds to its item collection: its own
// size and the size of its entry in each local secondary index that holds
// it. Zero for no item.
func (t *dbTable) collectionBytes(item map[string]types.AttributeValue, size int) int64 {
	if item == nil {
		return 0
	}
	n := int64(size)
	for _, ix := range t.indexes {
		if !ix.local {
			continue
		}
		if _, e := t.indexEntry(ix, item, "", size, false); e != nil {
			n += int64(e.Size)
		}
	}
	return n
}

// collectionAfter is the size the item collection of the write's item
// would have after the outcome, and whether that passes the limit while
// growing. Only for a table with local secondary indexes.
func (w *writeOp) collectionAfter(o outcome) (int64, error) {
	t := w.t
	_, id, _ := t.keyOf(w.key)
	var oldSize int
	if o.old != nil {
		oldSize = o.old.Size
	}
	oldItem := o.oldItem
	if o.old != nil && oldItem == nil {
		oldItem = o.old.Item()
	}
	delta := t.collectionBytes(o.newItem, o.newSize) - t.collectionBytes(oldItem, oldSize)
	size := t.collections[id] + delta
	if delta > 0 && size > t.collectionLimit {
		return size, &types.ItemCollectionSizeLimitExceededException{Message: aws.String("Collection size exceeded")}
	}
	return size, nil
}

// itemCollectionMetrics renders ReturnItemCollectionMetrics SIZE for a
// write to a table with local secondary indexes: the item's partition key
// and DynamoDB's estimate of its collection's size, a range of whole
// gigabytes around it. nil otherwise.
func (w *writeOp) itemCollectionMetrics(mode types.ReturnItemCollectionMetrics, o outcome) *types.ItemCollectionMetrics {
	if mode != types.ReturnItemCollectionMetricsSize || w.t.collections == nil {
		return nil
	}
	gb := math.Floor(float64(o.collection) / (1 << 30))
	return &types.ItemCollectionMetrics{
		ItemCollectionKey:   map[string]types.AttributeValue{w.t.pk.name: copyValue(w.key[w.t.pk.name])},
		SizeEstimateRangeGB: []float64{gb, gb + 1},
	}
}

// checkCollectionMetricsMode checks ReturnItemCollectionMetrics.
func checkCollectionMetricsMode(mode types.ReturnItemCollectionMetrics) error {
	switch mode {
	case "", types.ReturnItemCollectionMetricsNone, types.ReturnItemCollectionMetricsSize:
		return nil
	}
	return constraint(string(mode), "returnItemCollectionMetrics", "Member must satisfy enum value set: [SIZE, NONE]")
}

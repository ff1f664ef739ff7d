package datamodel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/datamodel"
)

// The method's size constraints: an aggregate over 100 KB is never a
// single item, and an item collection over 300 KB is flagged (a child
// kept in its own partition is not a collection).
func TestAggregateSizeThresholds(t *testing.T) {
	req := func(m datamodel.Model) string {
		out, err := datamodel.RenderRequirements(m)
		require.NoError(t, err)
		return string(out)
	}
	m := shopModel() // 1 KB user + up to 100 × 2 KB orders = 201 KB, in the user's partition
	doc := req(m)
	assert.Contains(t, doc, "at most 201 KB (100 per parent); over 100 KB: never a single item (the method forces an item collection or separate items)\n")
	assert.NotContains(t, doc, "300 KB")

	m.Entities[1].MaxPerParent = 200 // 401 KB
	doc = req(m)
	assert.Contains(t, doc, "at most 401 KB (200 per parent); ⚠️ an item collection of 401 KB, over the method's 300 KB\n")
	assert.Contains(t, doc, "| ≤ 401 KB ⚠️ over 300 KB |")

	m.Entities[1].Partition = "ORDER#{orderId}"
	doc = req(m)
	assert.NotContains(t, doc, "300 KB", "orders in their own partitions make no collection")
	assert.Contains(t, doc, "over 100 KB: never a single item")

	// Above 90% correlation a single item is a candidate only under 100 KB.
	m = shopModel()
	m.Patterns = append(m.Patterns[:0:0], m.Patterns[1:]...) // no user-only GetItem
	m.Entities[1].MaxPerParent = 40                          // 81 KB
	doc = req(m)
	assert.Contains(t, doc, "single-item aggregate candidate (>90% correlation, bounded under 100 KB)")
	assert.NotContains(t, doc, "never a single item")
	m.Entities[1].MaxPerParent = 60 // 121 KB
	doc = req(m)
	assert.NotContains(t, doc, "single-item aggregate candidate")
	assert.Contains(t, doc, "item collection (>70% correlation, bounded)")
}

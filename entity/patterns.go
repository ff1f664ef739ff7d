package entity

import (
	"sync/atomic"

	"github.com/tablekit/tablekit/table"
)

// usage counts an operation's calls and samples the sizes of the items it
// moved (the first call and every 64th), from which Registry.Patterns
// describes it without costing a size computation per call.
type usage struct {
	calls   atomic.Int64
	maxSize atomic.Int64
	items   atomic.Int64 // most items in one call (reads, batches)
	sorts   atomic.Uint32
}

// count counts a call and reports whether to sample its sizes.
func (u *usage) count() bool {
	n := u.calls.Add(1)
	return n == 1 || n&63 == 0
}

// sample records an item size and a count of items.
func (u *usage) sample(size, items int) {
	storeMax(&u.maxSize, int64(size))
	storeMax(&u.items, int64(items))
}

func storeMax(a *atomic.Int64, v int64) {
	for {
		cur := a.Load()
		if v <= cur || a.CompareAndSwap(cur, v) {
			return
		}
	}
}

// record counts a call that moved known sizes.
func (u *usage) record(size, items int) {
	if u.count() {
		u.sample(size, items)
	}
}

// recordItem counts a call that read item, sizing it when sampled.
func (u *usage) recordItem(item table.Item) {
	if u.count() {
		u.sample(table.ItemSize(item), 1)
	}
}

type patternLog struct{}

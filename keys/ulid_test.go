package keys

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// Ids made in one millisecond by many goroutines are all distinct, and
// those one goroutine makes sort in the order it made them.
func TestULIDsAreUniqueAndSortInCreationOrder(t *testing.T) {
	next := ULIDs()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	seen := map[string]bool{}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []string
			for range 500 {
				mine = append(mine, next(at))
			}
			assert.True(t, slices.IsSorted(mine), "ids from one goroutine sort in creation order")
			mu.Lock()
			for _, id := range mine {
				assert.False(t, seen[id], "duplicate id %s", id)
				seen[id] = true
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	assert.Len(t, seen, 4000, "distinct ids")
}

package keys

import (
	"slices"
	"sync"
	"testing"
	"time"
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
			if !slices.IsSorted(mine) {
				t.Error("ids from one goroutine do not sort in creation order")
			}
			mu.Lock()
			for _, id := range mine {
				if seen[id] {
					t.Errorf("duplicate id %s", id)
				}
				seen[id] = true
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	if len(seen) != 4000 {
		t.Fatalf("%d distinct ids, want 4000", len(seen))
	}
}

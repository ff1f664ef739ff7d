package keys

import (
	"crypto/rand"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"
)

// ULIDs returns a generator of ULIDs for the ids that go into keys: the
// timestamp comes first and the entropy is monotonic within a millisecond,
// so the ids one generator makes sort as strings in the order it made them.
// It is safe for concurrent use (ulid's monotonic reader is not, hence the
// lock). Should the monotonic entropy run out within one millisecond (2^80
// random bits make that practically impossible), a plain random ULID stands in.
func ULIDs() func(t time.Time) string {
	var mu sync.Mutex
	entropy := ulid.Monotonic(rand.Reader, 0)
	return func(t time.Time) string {
		mu.Lock()
		defer mu.Unlock()
		id, err := ulid.New(ulid.Timestamp(t), entropy)
		if err != nil {
			id = ulid.MustNew(ulid.Timestamp(t), rand.Reader)
		}
		return id.String()
	}
}

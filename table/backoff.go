package table

import (
	"context"
	"math/rand/v2"
	"time"
)

// delay is the wait before retry n (counting from 0): full jitter over an
// exponentially growing window, as AWS recommends for DynamoDB retries, so
// many clients retrying at once spread out instead of colliding again.
func (b Backoff) delay(n int) time.Duration {
	window := b.Initial
	for i := 0; i < n && window < b.Max; i++ {
		window *= 2
	}
	window = min(window, b.Max)
	if window <= 0 {
		return 0
	}
	return rand.N(window)
}

// Delay is the wait before retry n (counting from 0), jittered as above,
// for callers that pace retries themselves rather than sleep: a queue that
// makes a failed task claimable again only after a backoff, a worker that
// polls an empty queue less often. One mechanism, so every retry in the
// module is bounded and jittered the same way.
func (b Backoff) Delay(n int) time.Duration { return b.delay(n) }

// sleep waits the delay for retry n or until ctx ends, returning ctx.Err()
// in that case.
func (b Backoff) sleep(ctx context.Context, n int) error {
	return wait(ctx, b.delay(n))
}

// wait waits d or until ctx ends, returning ctx.Err() in that case.
func wait(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Sleep waits the jittered delay before retry n (counting from 0), or until
// ctx ends, returning ctx.Err() then. Packages that retry their own calls
// (a stream consumer re-running a handler) use it, so every retry in
// tablekit backs off the same way.
func (b Backoff) Sleep(ctx context.Context, n int) error { return b.sleep(ctx, n) }

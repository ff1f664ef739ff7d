package table

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBackoffDelayStaysWithinExponentialWindow(t *testing.T) {
	b := Backoff{Initial: 10 * time.Millisecond, Max: 200 * time.Millisecond}
	windows := []time.Duration{10, 20, 40, 80, 160, 200, 200, 200}
	for n, w := range windows {
		w *= time.Millisecond
		var top time.Duration
		for range 2000 {
			d := b.delay(n)
			require.GreaterOrEqual(t, d, time.Duration(0), "delay(%d)", n)
			require.Less(t, d, w, "delay(%d)", n)
			top = max(top, d)
		}
		// Full jitter spreads over the whole window, not just its start.
		assert.GreaterOrEqual(t, top, w/2, "delay(%d): the largest of 2000 draws (window %v)", n, w)
	}
	assert.Less(t, b.delay(1000), b.Max, "delay(1000) stays below Max")
}

func TestBackoffSleepEndsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b := Backoff{Initial: time.Hour, Max: time.Hour}
	assert.ErrorIs(t, b.sleep(ctx, 3), context.Canceled, "sleep on a canceled context")
}

func TestNewAppliesDefaultBackoff(t *testing.T) {
	tbl := New(nil, thingsSchema)
	assert.Equal(t, Backoff{Initial: 20 * time.Millisecond, Max: 2 * time.Second}, tbl.opts.Backoff, "default backoff")
	tbl = New(nil, thingsSchema, func(o *Options) { o.Backoff = Backoff{Initial: time.Second, Max: time.Millisecond} })
	assert.GreaterOrEqual(t, tbl.opts.Backoff.Max, tbl.opts.Backoff.Initial, "Max below Initial is not kept: %+v", tbl.opts.Backoff)
}

package table

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestBackoffDelayStaysWithinExponentialWindow(t *testing.T) {
	b := Backoff{Initial: 10 * time.Millisecond, Max: 200 * time.Millisecond}
	windows := []time.Duration{10, 20, 40, 80, 160, 200, 200, 200}
	for n, w := range windows {
		w *= time.Millisecond
		var top time.Duration
		for range 2000 {
			d := b.delay(n)
			if d < 0 || d >= w {
				t.Fatalf("delay(%d) = %v, want in [0, %v)", n, d, w)
			}
			top = max(top, d)
		}
		// Full jitter spreads over the whole window, not just its start.
		if top < w/2 {
			t.Errorf("delay(%d) never exceeded %v in 2000 draws (window %v)", n, top, w)
		}
	}
	if d := b.delay(1000); d >= b.Max {
		t.Fatalf("delay(1000) = %v, want below Max %v", d, b.Max)
	}
}

func TestBackoffSleepEndsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b := Backoff{Initial: time.Hour, Max: time.Hour}
	if err := b.sleep(ctx, 3); !errors.Is(err, context.Canceled) {
		t.Fatalf("sleep on a canceled context = %v, want context.Canceled", err)
	}
}

func TestNewAppliesDefaultBackoff(t *testing.T) {
	tbl := New(nil, thingsSchema)
	if tbl.opts.Backoff != (Backoff{Initial: 20 * time.Millisecond, Max: 2 * time.Second}) {
		t.Fatalf("default backoff = %+v", tbl.opts.Backoff)
	}
	tbl = New(nil, thingsSchema, func(o *Options) { o.Backoff = Backoff{Initial: time.Second, Max: time.Millisecond} })
	if tbl.opts.Backoff.Max < tbl.opts.Backoff.Initial {
		t.Fatalf("Max below Initial kept: %+v", tbl.opts.Backoff)
	}
}

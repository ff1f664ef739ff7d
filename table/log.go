package table

import (
	"context"
	"log/slog"
	"time"
)

// logRetry records one retry on the table's logger, if it has one.
func (t *Table) logRetry(ctx context.Context, level slog.Level, msg, op string, attempt int, delay time.Duration, why slog.Attr) {
	l := t.opts.Logger
	if l == nil || !l.Enabled(ctx, level) {
		return
	}
	l.LogAttrs(ctx, level, msg,
		slog.String("table", t.Name()),
		slog.String("operation", op),
		slog.Int("attempt", attempt),
		slog.Duration("delay", delay),
		why)
}

// batchRetryLog is drainBatches' retry hook for operation op: a request
// that failed (throttled) is a warning, a round that left items
// unprocessed is information.
func (t *Table) batchRetryLog(op string) func(ctx context.Context, attempt int, delay time.Duration, unprocessed int, err error) {
	return func(ctx context.Context, attempt int, delay time.Duration, unprocessed int, err error) {
		if err != nil {
			t.logRetry(ctx, slog.LevelWarn, "table: batch request throttled, retrying", op, attempt, delay, slog.String("error", wrapError(op, t.Name(), "", err).Error()))
			return
		}
		t.logRetry(ctx, slog.LevelInfo, "table: batch left items unprocessed, retrying them", op, attempt, delay, slog.Int("unprocessed", unprocessed))
	}
}

package jobs

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
)

// MeterProvider gives the job worker its instruments (below), and the
// work queue's tasks store its own (tasks' metrics). Nil, the default,
// records nothing and costs nothing.
//
// Instruments of the meter "github.com/tablekit/tablekit/jobs", each with
// db.collection.name (the jobs table):
//
//	tablekit.jobs.attempts   counter  tablekit.jobs.outcome: completed, retried, failed,
//	                                  released (given back at a shutdown), lost (taken over)
//	tablekit.jobs.takeovers  counter  jobs taken over from a worker that died holding them
//	tablekit.jobs.failed     counter  jobs the worker moved to FAILED (the jobs' dead
//	                                  letters), with error.type: the job's error code
func MeterProvider(mp metric.MeterProvider) func(*Options) {
	return func(o *Options) { o.meterProvider = mp }
}

// Outcomes of an attempt, the values of tablekit.jobs.outcome.
const (
	outcomeCompleted = "completed"
	outcomeRetried   = "retried"
	outcomeFailed    = "failed"
	outcomeReleased  = "released"
	outcomeLost      = "lost"
)

// meterName is the instrumentation scope of the job worker's instruments.
const meterName = "github.com/tablekit/tablekit/jobs"

type workerMetrics struct {
	table                         attribute.KeyValue
	attempts, takeovers, failures metric.Int64Counter
}

func newWorkerMetrics(s *Store) *workerMetrics {
	mp := s.opts.meterProvider
	if mp == nil {
		mp = noop.NewMeterProvider()
	}
	m := mp.Meter(meterName)
	wm := &workerMetrics{table: attribute.String("db.collection.name", s.t.Name())}
	// An instrument the provider refuses is a no-op one: metrics never
	// stop a worker.
	var err error
	if wm.attempts, err = m.Int64Counter("tablekit.jobs.attempts",
		metric.WithDescription("Attempts at jobs the job worker settled, by outcome.")); err != nil {
		wm.attempts, _ = noop.Meter{}.Int64Counter("")
	}
	if wm.takeovers, err = m.Int64Counter("tablekit.jobs.takeovers",
		metric.WithDescription("Jobs taken over from a worker that died holding them.")); err != nil {
		wm.takeovers, _ = noop.Meter{}.Int64Counter("")
	}
	if wm.failures, err = m.Int64Counter("tablekit.jobs.failed",
		metric.WithDescription("Jobs the job worker moved to FAILED, by error code.")); err != nil {
		wm.failures, _ = noop.Meter{}.Int64Counter("")
	}
	return wm
}

func (m *workerMetrics) attempt(ctx context.Context, outcome string) {
	m.attempts.Add(ctx, 1, metric.WithAttributes(m.table, attribute.String("tablekit.jobs.outcome", outcome)))
}

func (m *workerMetrics) takeover(ctx context.Context) {
	m.takeovers.Add(ctx, 1, metric.WithAttributes(m.table))
}

func (m *workerMetrics) failed(ctx context.Context, code string) {
	m.failures.Add(ctx, 1, metric.WithAttributes(m.table, attribute.String("error.type", code)))
}

package tasks

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
)

// MeterProvider gives the store its instruments (below), beside the spans
// of TracerProvider. Nil, the default, records nothing and costs nothing.
//
// Instruments of the meter "github.com/tablekit/tablekit/tasks", each with
// db.collection.name (the table), counted by the store calls that decide
// them, so a service that drives the queue itself is counted as the
// worker runtime is:
//
//	tablekit.tasks.attempts   counter  attempts that ended, by tablekit.tasks.outcome:
//	                                   completed, failed (retried after its backoff),
//	                                   dead (a Fail on its last attempt), released,
//	                                   expired (its lease ran out: taken over or reclaimed)
//	tablekit.tasks.takeovers  counter  expired leases taken over by a claim or moved back
//	                                   by ReclaimExpired: a worker died holding the task
//	tablekit.tasks.dead       counter  tasks moved to DEAD, the dead letters, by
//	                                   tablekit.tasks.cause: failed or lease_expired
//	tablekit.tasks.queue.depth gauge   tasks in the queue as Maintenance.Depth last counted them,
//	                                   by tablekit.tasks.state: claimable, waiting,
//	                                   processing, dead (recorded by each Depth call)
func MeterProvider(mp metric.MeterProvider) func(*Options) {
	return func(o *Options) { o.MeterProvider = mp }
}

// Outcomes of an attempt, the values of tablekit.tasks.outcome.
const (
	outcomeCompleted = "completed"
	outcomeFailed    = "failed"
	outcomeDead      = "dead"
	outcomeReleased  = "released"
	outcomeExpired   = "expired"
)

// Causes of a dead letter, the values of tablekit.tasks.cause.
const (
	causeFailed  = "failed"
	causeExpired = "lease_expired"
)

// meterName is the instrumentation scope of the store's instruments.
const meterName = "github.com/tablekit/tablekit/tasks"

type storeMetrics struct {
	table                     attribute.KeyValue
	attempts, takeovers, dead metric.Int64Counter
	depth                     metric.Int64Gauge
}

func newStoreMetrics(mp metric.MeterProvider, tableName string) *storeMetrics {
	if mp == nil {
		mp = noop.NewMeterProvider()
	}
	m := mp.Meter(meterName)
	sm := &storeMetrics{table: attribute.String("db.collection.name", tableName)}
	// An instrument the provider refuses is a no-op one: metrics never
	// stop a queue.
	counter := func(name, description string) metric.Int64Counter {
		c, err := m.Int64Counter(name, metric.WithDescription(description))
		if err != nil {
			c, _ = noop.Meter{}.Int64Counter(name)
		}
		return c
	}
	sm.attempts = counter("tablekit.tasks.attempts", "Attempts at tasks that ended, by outcome.")
	sm.takeovers = counter("tablekit.tasks.takeovers", "Expired leases taken over or reclaimed: a worker died holding the task.")
	sm.dead = counter("tablekit.tasks.dead", "Tasks moved to DEAD (dead letters), by cause.")
	depth, err := m.Int64Gauge("tablekit.tasks.queue.depth", metric.WithDescription("Tasks in the queue as Maintenance.Depth last counted them, by state."), metric.WithUnit("{task}"))
	if err != nil {
		depth, _ = noop.Meter{}.Int64Gauge("tablekit.tasks.queue.depth")
	}
	sm.depth = depth
	return sm
}

func (m *storeMetrics) attempt(ctx context.Context, outcome string) {
	m.attempts.Add(ctx, 1, metric.WithAttributes(m.table, attribute.String("tablekit.tasks.outcome", outcome)))
}

func (m *storeMetrics) takeover(ctx context.Context) {
	m.takeovers.Add(ctx, 1, metric.WithAttributes(m.table))
}

// queueDepth records d, a count Maintenance.Depth made.
func (m *storeMetrics) queueDepth(ctx context.Context, d QueueDepth) {
	for state, n := range map[string]int64{"claimable": d.Claimable, "waiting": d.Waiting, "processing": d.Processing, "dead": d.Dead} {
		m.depth.Record(ctx, n, metric.WithAttributes(m.table, attribute.String("tablekit.tasks.state", state)))
	}
}

func (m *storeMetrics) died(ctx context.Context, cause string) {
	m.dead.Add(ctx, 1, metric.WithAttributes(m.table, attribute.String("tablekit.tasks.cause", cause)))
}

package dynamotest

import (
	"testing"
)

// Cost is one of a store's frequent calls whose cost a test keeps from
// rising: what it sends and what it is billed, exact on the fake. F is
// the test's fixture (a store built on a Meter, say).
type Cost[F any] struct {
	Name string
	// Prepare readies the state the call needs, through the fixture (its
	// requests are not counted), and returns the call.
	Prepare func(tb testing.TB, f F) (call func() error)
	// Max is what the call costs today, at most. RoundTrips counts
	// requests that overlap in time once, so without a Meter latency in a
	// synctest bubble it is exact only for calls that send one request
	// at a time.
	Max Usage
}

// CheckCosts runs each call once on a fixture of its own (fixture returns
// it and the Meter its store sends through) and fails t when the call
// sends more requests or round trips, or is billed more read or write
// units, than its Max: a rise is a regression, as a failing test.
func CheckCosts[F any](t *testing.T, fixture func(testing.TB) (F, *Meter), costs []Cost[F]) {
	if t == nil || fixture == nil {
		return
	}
	for _, c := range costs {
		t.Run(c.Name, func(t *testing.T) {
			f, m := fixture(t)
			call := c.Prepare(t, f)
			var err error
			u := m.Measure(func() { err = call() })
			if err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			t.Logf("%d requests, %d round trips, %g WCU, %g RCU", u.Requests, u.RoundTrips, u.WriteUnits, u.ReadUnits)
			if !u.Within(c.Max) {
				t.Errorf("%s costs %d requests, %d round trips, %g WCU, %g RCU; at most %d, %d, %g, %g before",
					c.Name, u.Requests, u.RoundTrips, u.WriteUnits, u.ReadUnits,
					c.Max.Requests, c.Max.RoundTrips, c.Max.WriteUnits, c.Max.ReadUnits)
			}
		})
	}
}

// BenchmarkCosts runs each call b.N times on one fixture, preparing each
// time outside the measure, and reports its usage per call (Usage.Report:
// requests/op, round-trips/op, RCU/op, WCU/op).
func BenchmarkCosts[F any](b *testing.B, fixture func(testing.TB) (F, *Meter), costs []Cost[F]) {
	if b == nil || fixture == nil {
		return
	}
	for _, c := range costs {
		b.Run(c.Name, func(b *testing.B) {
			f, m := fixture(b)
			var total Usage
			for b.Loop() {
				call := c.Prepare(b, f)
				var err error
				total = total.Add(m.Measure(func() { err = call() }))
				if err != nil {
					b.Fatalf("%s: %v", c.Name, err)
				}
			}
			total.Report(b)
		})
	}
}

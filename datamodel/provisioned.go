package datamodel

import (
	"fmt"
	"math"

	"github.com/tablekit/tablekit/table"
)

// Provisioned capacity prices in US dollars, per capacity unit and hour:
// AWS's provisioned-capacity pricing for US East (N. Virginia), the
// region of the on-demand prices above. The data-modelling method states
// on-demand prices only; a provisioned plan (the jobs design's production
// plan) is priced with these.
const (
	PricePerRCUHour = 0.00013
	PricePerWCUHour = 0.00065
	// HoursPerMonth is the method's month (SecondsPerMonth) in hours.
	HoursPerMonth = SecondsPerMonth / 3600
)

// Load is what the table ("" Index) or one GSI serves at the declared
// rates, in capacity units per second: reads of the patterns on it and
// the writes it takes (the table's own writes, or the index entries the
// writes cost). A local secondary index has no capacity of its own: the
// table's Load includes its reads and entries (its own Load is its share).
type Load struct {
	Index                     string
	PeakRead, PeakWrite       float64
	AverageRead, AverageWrite float64
}

// Load returns what the table (index "") or the GSI index serves.
func (e *Estimate) Load(index string) Load {
	l := Load{Index: index}
	if e == nil {
		return l
	}
	served := func(ix string) bool { return ix == index || index == "" && e.local[ix] }
	for _, pe := range e.Patterns {
		ap := pe.Pattern
		avg := averageOf(ap)
		if served(ap.Index) {
			l.PeakRead += pe.ReadPerSecond
			l.AverageRead += pe.AverageReadPerSecond
		}
		if index == "" {
			l.PeakWrite += pe.TableWriteUnits * ap.RatePerSecond
			l.AverageWrite += pe.TableWriteUnits * avg
		}
		for _, iu := range pe.IndexWriteUnits {
			if served(iu.Index) {
				l.PeakWrite += iu.Units * ap.RatePerSecond
				l.AverageWrite += iu.Units * avg
			}
		}
	}
	return l
}

// ProvisionedPlan is a provisioned capacity plan (table.Capacity) set
// against an estimate: what it costs a month and whether it serves the
// declared peaks.
type ProvisionedPlan struct {
	Capacity table.Capacity
	// Parts are the table and each of its GSIs, in schema order.
	Parts []ProvisionedPart
	// MonthlyCost is the month at the capacity the plan keeps at the
	// average rates (the auto-scaling minimum, or more where the
	// average load at the target utilization needs more), plus storage:
	// what the month is billed. MinimumMonthlyCost is the base capacity
	// alone all month, MaximumMonthlyCost the auto-scaling maxima all
	// month (both with storage).
	MonthlyCost, MinimumMonthlyCost, MaximumMonthlyCost float64
	// Serves reports whether every part's peak fits its capacity: within
	// the auto-scaling maximum at the target utilization, or within the
	// fixed capacity.
	Serves bool
}

// ProvisionedPart is the table or one GSI under a plan.
type ProvisionedPart struct {
	Load
	// Read and Write are the base (minimum) capacity; MaxRead and
	// MaxWrite what auto-scaling may raise it to (the base without it).
	Read, Write, MaxRead, MaxWrite int64
	// AtPeakRead and AtPeakWrite are the capacity the plan holds in the
	// busiest second: the peak at the target utilization, within
	// [base, max] (the base without auto-scaling).
	AtPeakRead, AtPeakWrite float64
	// MonthlyCost is the part's capacity at the average rates, all month.
	MonthlyCost float64
	// Serves: the peak fits.
	Serves bool
}

// Provisioned prices capacity c on the table of schema s at the rates of
// e (the estimate of s's patterns): for the table and every GSI, the base
// capacity, what auto-scaling holds at the peak and at the average, the
// month's cost at DynamoDB's provisioned prices (PricePerRCUHour,
// PricePerWCUHour) and whether the peak fits. Auto-scaling covers the
// table and every index without throughput of its own, as
// table.Capacity says. Storage is billed as on demand.
func (e *Estimate) Provisioned(s table.Schema, c table.Capacity) (ProvisionedPlan, error) {
	if e == nil {
		return ProvisionedPlan{}, fmt.Errorf("datamodel: provisioned plan of a nil Estimate: %w", table.ErrInvalidInput)
	}
	p := table.Provisioning{Capacity: &c}
	s.Provisioning = p
	if err := s.Validate(); err != nil {
		return ProvisionedPlan{}, fmt.Errorf("datamodel: provisioned plan: %w", err)
	}
	plan := ProvisionedPlan{Capacity: c, Serves: true}
	parts := []string{""}
	for _, ix := range s.Indexes {
		if !ix.Local { // served by the table's capacity (Load)
			parts = append(parts, ix.Name)
		}
	}
	monthly := func(read, write float64) float64 {
		return (read*PricePerRCUHour + write*PricePerWCUHour) * HoursPerMonth
	}
	for _, name := range parts {
		part := ProvisionedPart{Load: e.Load(name), Read: c.Read, Write: c.Write}
		t, own := c.Indexes[name]
		if own && name != "" {
			part.Read, part.Write = t.Read, t.Write
		}
		part.MaxRead, part.MaxWrite = part.Read, part.Write
		a := c.AutoScaling
		scaled := a != nil && (name == "" || !own)
		if scaled {
			part.Read, part.Write, part.MaxRead, part.MaxWrite = a.MinRead, a.MinWrite, a.MaxRead, a.MaxWrite
		}
		held := func(load float64, base, most int64) float64 {
			if !scaled {
				return float64(base)
			}
			return math.Min(math.Max(load/(a.TargetUtilization/100), float64(base)), float64(most))
		}
		part.AtPeakRead, part.AtPeakWrite = held(part.PeakRead, part.Read, part.MaxRead), held(part.PeakWrite, part.Write, part.MaxWrite)
		part.MonthlyCost = monthly(held(part.AverageRead, part.Read, part.MaxRead), held(part.AverageWrite, part.Write, part.MaxWrite))
		part.Serves = part.PeakRead <= part.AtPeakRead && part.PeakWrite <= part.AtPeakWrite
		if scaled {
			// The scaler aims at the target: a peak it cannot hold under
			// it at the maximum is throttled in bursts.
			ratio := a.TargetUtilization / 100
			part.Serves = part.PeakRead <= float64(part.MaxRead)*ratio && part.PeakWrite <= float64(part.MaxWrite)*ratio
		}
		plan.Parts = append(plan.Parts, part)
		plan.Serves = plan.Serves && part.Serves
		plan.MonthlyCost += part.MonthlyCost
		plan.MinimumMonthlyCost += monthly(float64(part.Read), float64(part.Write))
		plan.MaximumMonthlyCost += monthly(float64(part.MaxRead), float64(part.MaxWrite))
	}
	plan.MonthlyCost += e.StorageCost
	plan.MinimumMonthlyCost += e.StorageCost
	plan.MaximumMonthlyCost += e.StorageCost
	return plan, nil
}

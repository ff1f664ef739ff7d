package datamodel

import (
	"fmt"
	"math"
	"reflect"
	"slices"

	"github.com/tablekit/tablekit/access"
	"github.com/tablekit/tablekit/table"
)

// S3 Standard prices in US dollars for US East (N. Virginia), the region
// of the DynamoDB prices: what a body offloaded to S3 costs (the method
// prices DynamoDB only).
const (
	S3PricePerGBMonth      = 0.023  // S3 Standard storage
	S3PricePerThousandPuts = 0.005  // PUT, COPY, POST, LIST requests
	S3PricePerThousandGets = 0.0004 // GET and other reads
)

// Plan is a provisioned capacity plan a model prices beside on demand:
// the design's production plan as a store's preset (tasks.ProductionCapacity,
// jobs.ProductionCapacity).
type Plan struct {
	Name     string // how the document names it: "tasks.ProductionCapacity()"
	Capacity table.Capacity
}

// Offload is a large body the design keeps in S3 or inline in the table,
// priced both ways (the method: "Integration patterns detailed for
// non-DynamoDB functionality"; the item limit is 400 KB).
type Offload struct {
	// What the body is ("a job's full log").
	What string
	// Parts is how many items the body makes inline (a log's entries; 0
	// means 1) and PartBytes each one's size, which must fit an item.
	Parts     int
	PartBytes int
	// Writes and Reads are bodies written and read a second, on average.
	Writes, Reads float64
	// Kept is how many bodies are stored at once.
	Kept float64
	// HostBytes is, for a body kept inline as an attribute (Parts 1), the
	// size of the item holding it without it, and HostWrites how often
	// that item is written a second (every write rewrites the body; 0
	// means Writes): inline costs only the units the body adds to it.
	// HostBytes 0: the body is items of its own.
	HostBytes  int
	HostWrites float64
	// Inline says the design keeps the body in the table; else in S3,
	// one object a body.
	Inline bool
}

// Alternative is one design the method discusses, priced at the model's
// rates beside the design chosen for the same decision.
type Alternative struct {
	// Key names the decision for Prose.Alternatives: "capacity",
	// "gsi:<index>", "offload:<What>", "split:<child entity>".
	Key string
	// Decision groups the options that answer one question ("capacity
	// mode", "GSI1: index or application copy").
	Decision string
	Option   string
	// MonthlyCost is the month of what the decision changes: the whole
	// table (on demand unless the option is a plan) for capacity mode, a
	// GSI's copy and a table split; the body alone (S3, or its items'
	// units and storage) for an offload. Delta is its difference from the
	// chosen option's.
	MonthlyCost, Delta float64
	Chosen             bool
	// Note says how the option is priced, and what it gives or lacks.
	Note string
}

// Alternatives prices, for the model, the alternatives the method
// discusses beside the design chosen: on demand against each of its
// Plans and a provisioned plan sized to the declared load; each GSI
// against a copy the application writes in a transaction; each Offload
// in S3 and inline; and each parent-child pair the consolidation
// framework would place otherwise, in one table or two. GSI projections
// are priced by Projections.
func (m Model) Alternatives() ([]Alternative, error) {
	e, err := m.Estimate()
	if err != nil {
		return nil, err
	}
	var out []Alternative
	add := func(alts []Alternative) {
		var chosen float64
		for _, a := range alts {
			if a.Chosen {
				chosen = a.MonthlyCost
			}
		}
		for i := range alts {
			alts[i].Delta = alts[i].MonthlyCost - chosen
		}
		out = append(out, alts...)
	}

	// Capacity mode.
	const mode = "Capacity mode"
	onDemand := m.Schema.Provisioning.Capacity == nil
	alts := []Alternative{{Key: "capacity", Decision: mode, Option: "on demand", MonthlyCost: e.MonthlyCost, Chosen: onDemand,
		Note: "every request billed at the average rates; no capacity to plan, no throttling below a partition's limits"}}
	plans := slices.Clone(m.Plans)
	plans = append(plans, Plan{Name: "provisioned, auto-scaled to the declared load", Capacity: sizedPlan(e, m.Schema)})
	for i, p := range plans {
		plan, err := e.Provisioned(m.Schema, p.Capacity)
		if err != nil {
			return nil, err
		}
		note := fmt.Sprintf("%s RCU / %s WCU held at the average rates", num(float64(plan.Parts[0].Read)), num(float64(plan.Parts[0].Write)))
		if a := p.Capacity.AutoScaling; a != nil {
			note = fmt.Sprintf("auto-scaling %s-%s RCU / %s-%s WCU at %s%% on the table and every GSI, billed at what it holds at the average rates", num(float64(a.MinRead)), num(float64(a.MaxRead)), num(float64(a.MinWrite)), num(float64(a.MaxWrite)), num(a.TargetUtilization))
		}
		if plan.Serves {
			note += "; serves the declared peaks"
		} else {
			note += "; does **not** serve the declared peaks (throttles)"
		}
		chosen := !onDemand && i < len(m.Plans) && reflect.DeepEqual(*m.Schema.Provisioning.Capacity, p.Capacity)
		alts = append(alts, Alternative{Key: "capacity", Decision: mode, Option: p.Name, MonthlyCost: plan.MonthlyCost, Chosen: chosen, Note: note})
	}
	if !onDemand && !slices.ContainsFunc(alts, func(a Alternative) bool { return a.Chosen }) {
		plan, err := e.Provisioned(m.Schema, *m.Schema.Provisioning.Capacity)
		if err != nil {
			return nil, err
		}
		alts = append(alts, Alternative{Key: "capacity", Decision: mode, Option: "the schema's capacity", MonthlyCost: plan.MonthlyCost, Chosen: true})
	}
	add(alts)

	// Each GSI against a copy the application keeps.
	for _, ix := range m.Schema.Indexes {
		extra := copyExtraWrites(m.Schema, e, ix.Name)
		d := "GSI " + ix.Name + ": index or application copy"
		add([]Alternative{
			{Key: "gsi:" + ix.Name, Decision: d, Option: "the GSI (DynamoDB keeps it)", MonthlyCost: e.MonthlyCost, Chosen: true,
				Note: "index writes counted in the estimate; reads eventually consistent"},
			{Key: "gsi:" + ix.Name, Decision: d, Option: "a copy item the application writes with the base item, in a transaction", MonthlyCost: e.MonthlyCost + monthly(extra, PricePerMillionWrites),
				Note: fmt.Sprintf("+%s WCU/s on average: every write the index takes becomes a TransactWriteItems (the base item's write and the copy's cost double); reads of the copy may be strongly consistent", num(extra))},
		})
	}

	// Large bodies in S3 or inline.
	for _, o := range m.Offloads {
		d := "Where " + o.What + " lives"
		s3, inline, fits := offloadCosts(o)
		s3Alt := Alternative{Key: "offload:" + o.What, Decision: d, Option: "S3, one object each, the item keeping its key", MonthlyCost: s3, Chosen: !o.Inline,
			Note: fmt.Sprintf("%s PUTs and %s GETs a month, %s GB at S3 Standard", num(math.Round(o.Writes*SecondsPerMonth)), num(math.Round(o.Reads*SecondsPerMonth)), num(math.Round(o.Kept*float64(max(o.Parts, 1)*o.PartBytes)/bytesPerGB*100)/100))}
		in := Alternative{Key: "offload:" + o.What, Decision: d, Option: fmt.Sprintf("inline, %s item(s) of %s B each", num(float64(max(o.Parts, 1))), num(float64(o.PartBytes))), MonthlyCost: inline, Chosen: o.Inline,
			Note: "its write units, eventually consistent reads (1 MB pages) and storage in the table, at DynamoDB's prices"}
		if o.HostBytes > 0 {
			in.Option = fmt.Sprintf("inline, an attribute of %s B in an item of %s B", num(float64(o.PartBytes)), num(float64(o.HostBytes)))
			in.Note = "the write and read units it adds to its item (every write of the item rewrites it) and its bytes, at DynamoDB's prices"
		}
		if !fits {
			in.Note = "not possible: a part passes the 400 KB item limit"
		}
		add([]Alternative{s3Alt, in})
	}

	// One table or two, where the consolidation framework's overlap
	// places a pair otherwise than the design.
	for _, r := range relationships(m, e) {
		if !r.samePartition || r.verdict == consolidate || r.both == 0 && r.verdict != separate {
			continue
		}
		extra := r.both * (readUnits(r.parent.Size, false) + readUnits(min(r.child.PerParent*r.child.Size, maxPageBytes), false) -
			readUnits(min(r.parent.Size+r.child.PerParent*r.child.Size, maxPageBytes), false))
		d := fmt.Sprintf("%s: one table or two (%s%% access overlap)", r.name(), num(math.Round(r.correlation()*1000)/10))
		add([]Alternative{
			{Key: "split:" + r.child.Name, Decision: d, Option: "one item collection (the parent's partition)", MonthlyCost: e.MonthlyCost, Chosen: true,
				Note: "a read of both is one Query"},
			{Key: "split:" + r.child.Name, Decision: d, Option: r.child.Name + " in a table of its own", MonthlyCost: e.MonthlyCost + monthly(extra, PricePerMillionReads),
				Note: fmt.Sprintf("%s reads a second need both, each then two requests (+%s RCU/s); its own stream, backups and scaling", num(r.both), num(extra))},
		})
	}
	return out, nil
}

// sizedPlan is a provisioned plan fitted to the estimate: auto-scaling at
// 70% from the table's or busiest GSI's average load to its peak.
func sizedPlan(e *Estimate, s table.Schema) table.Capacity {
	const target = 70.0
	var avgR, avgW, peakR, peakW float64
	parts := []string{""}
	for _, ix := range s.Indexes {
		parts = append(parts, ix.Name)
	}
	for _, p := range parts {
		l := e.Load(p)
		avgR, avgW = max(avgR, l.AverageRead), max(avgW, l.AverageWrite)
		peakR, peakW = max(peakR, l.PeakRead), max(peakW, l.PeakWrite)
	}
	units := func(load float64) int64 { return max(1, int64(math.Ceil(load/(target/100)))) }
	minR, minW := units(avgR), units(avgW)
	return table.Capacity{Read: minR, Write: minW, AutoScaling: &table.AutoScaling{
		MinRead: minR, MaxRead: max(minR, units(peakR)), MinWrite: minW, MaxWrite: max(minW, units(peakW)), TargetUtilization: target}}
}

// copyExtraWrites is what keeping index ix as an application-written
// copy adds, in write units a second at the average rates: each write
// that writes an entry becomes transactional, doubling the base item's
// write and the copy's (an already transactional write adds nothing).
func copyExtraWrites(s table.Schema, e *Estimate, index string) float64 {
	var extra float64
	for _, pe := range e.Patterns {
		ap := pe.Pattern
		if isRead(ap.Operation) || ap.Operation == access.TransactWriteItems || ap.Transactional {
			continue
		}
		avg := averageOf(ap)
		for _, it := range itemsOf(ap) {
			for _, iw := range it.IndexWrites {
				if iw.Index != index {
					continue
				}
				ix, _ := s.Index(index)
				u := indexEntryUnits(ix, it.Size)
				if iw.Move {
					u *= 2
				}
				n := float64(max(it.Count, 1))
				extra += avg * n * (writeUnits(it.Size) + u)
			}
		}
	}
	return extra
}

// offloadCosts prices a body a month in S3 (requests and storage) and
// inline (write and read units, storage); fits says every part fits an
// item.
func offloadCosts(o Offload) (s3, inline float64, fits bool) {
	parts := float64(max(o.Parts, 1))
	body := parts * float64(o.PartBytes)
	s3 = o.Writes*SecondsPerMonth/1000*S3PricePerThousandPuts + o.Reads*SecondsPerMonth/1000*S3PricePerThousandGets +
		o.Kept*body/bytesPerGB*S3PricePerGBMonth
	if o.HostBytes > 0 {
		// An attribute of the host item: the units it adds to each of
		// the host's writes and to each read of the body, and its bytes.
		hw := o.HostWrites
		if hw == 0 {
			hw = o.Writes
		}
		w := writeUnits(o.HostBytes+o.PartBytes) - writeUnits(o.HostBytes)
		r := readUnits(o.HostBytes+o.PartBytes, false) - readUnits(o.HostBytes, false)
		inline = monthly(hw*w, PricePerMillionWrites) + monthly(o.Reads*r, PricePerMillionReads) + o.Kept*float64(o.PartBytes)/bytesPerGB*PricePerGBMonth
		return s3, inline, o.HostBytes+o.PartBytes <= table.MaxItemSize
	}
	// Items of its own: each part written; a read queries the parts
	// (1 MB pages, each rounded), eventually consistent.
	pages := math.Ceil(body / maxPageBytes)
	readPerBody := pages * readUnits(int(math.Min(body, maxPageBytes)), false)
	inline = monthly(o.Writes*parts*writeUnits(o.PartBytes), PricePerMillionWrites) + monthly(o.Reads*readPerBody, PricePerMillionReads) +
		o.Kept*parts*float64(o.PartBytes+itemOverheadBytes)/bytesPerGB*PricePerGBMonth
	return s3, inline, o.PartBytes <= table.MaxItemSize
}

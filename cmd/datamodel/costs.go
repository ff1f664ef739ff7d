package main

import (
	"fmt"
	"strings"

	"github.com/tablekit/tablekit/access"
	"github.com/tablekit/tablekit/datamodel"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/journey"
	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

// seedFigure is one estimate a seed document makes about its system, next
// to the figure datamodel derives from the store's declaration.
type seedFigure struct {
	What, Seed string
	// Ours computes our figure from the store's estimate (and may run
	// another estimate of the model, at the seed's own volume).
	Ours func(m datamodel.Model, est *datamodel.Estimate) (string, error)
	// Why explains the difference.
	Why string
}

// seedFigures are the seeds' own capacity and cost figures, by store.
func seedFigures() map[string][]seedFigure {
	return map[string][]seedFigure{
		"jobs": {
			{
				What: "On-demand cost (dev/staging)", Seed: "~$8/month for 50k jobs",
				Ours: func(m datamodel.Model, est *datamodel.Estimate) (string, error) {
					half := map[string]float64{}
					for _, ap := range m.Patterns {
						half[ap.Name] = ap.AveragePerSecond / 2
					}
					at50k, err := datamodel.EstimateSchema(m.Schema, m.Patterns, append([]func(*datamodel.Options){datamodel.WithEntities(m.Entities), datamodel.WithAverages(half)}, m.Options...)...)
					if err != nil {
						return "", err
					}
					work := 0.0
					for _, o := range m.OtherTables {
						halfOther := map[string]float64{}
						for _, ap := range o.Patterns {
							halfOther[ap.Name] = ap.AveragePerSecond / 2
						}
						est, err := o.Estimate(append([]func(*datamodel.Options){datamodel.WithAverages(halfOther)}, m.Options...)...)
						if err != nil {
							return "", err
						}
						work += est.MonthlyCost
					}
					return fmt.Sprintf("$%.2f/month for 50k jobs (reads $%.2f, writes $%.2f, storage %.2f GB $%.2f), and $%.2f for their work on the tasks table", at50k.MonthlyCost, at50k.ReadCost, at50k.WriteCost, at50k.StorageGB, at50k.StorageCost, work), nil
				},
				Why: "The seed's figure is an order of magnitude above ours and gives no breakdown, so we cannot say what it covers. Ours bills each job's create (a transaction with its task: 6 WCU on the jobs table with both ALL-projection indexes) and three status moves (4 WCU each; no job heartbeat, the task's lease is the job's), the job worker's read of each job, ten polls and a history page at the data-modelling design's on-demand prices, and 90 days of jobs at ~1 KB in the table and both indexes. " +
					"The work (the task's items, its claim, heartbeat and completion, idle workers' polls of the tasks table) is billed on the tasks table, at the jobs' rates.",
			},
			{
				What: "Provisioned capacity (prod, planned)", Seed: "base 25 RCU / 10 WCU, auto-scaling 25-100 RCU and 10-50 WCU at 70% target utilization; ~$25/month for 100k jobs",
				Ours: productionPlan(jobs.ProductionCapacity()),
				Why: "`jobs.ProductionProvisioning()` is the seed's plan as a preset (`jobs.Provisioning(jobs.ProductionProvisioning())`; the default stays on demand): 25 RCU / 10 WCU, scaled 25-100 / 10-50 at 70%, on the table and both indexes, since every job write is also written to both (the seed does not say what its indexes get; an index that cannot grow with the table throttles the table's writes). " +
					"Priced at DynamoDB's provisioned prices for US East (N. Virginia), $0.00013 per RCU-hour and $0.00065 per WCU-hour (the data-modelling design gives on-demand prices only), over its 720-hour month. The declared peaks stay under the minimum at 70%, so the scaler never raises it and the month costs the base: three sets of 25 RCU and 10 WCU, about the seed's $25. " +
					"On demand the same traffic costs a small fraction of that: provisioned capacity buys a table that never waits on on-demand's adaptation to a sudden peak, at this volume for many times the price (the ratio beside); it pays once the traffic keeps most of the base busy.",
			},
		},
		"analytics": {
			{
				What: "Cost of the view", Seed: "none: the original leaves the jobs table's stream off (\"future: enable for analytics\")",
				Ours: analyticsCost,
				Why:  "A consumer polls the stream every second and hands `View.Apply` what one GetRecords returns (at most 100 records of one shard). At 100k jobs a month a batch holds about one change, so each of a job's four counted changes (created, started, editing, completed; a heartbeat's change counts nothing) is one row write: declared at one change per write, an upper bound. Measured on the fake with jobs arriving at random at the declared rates, half a minute in flight, the consumer polling every second: 2 changes a batch at the peak and 1.1 on average; the view wrote 3.24-3.98 WCU per job lifecycle at the peak and 3.78-4 on average (users in sessions of five uploads, or taking turns), the lease table 2 and 3.75 (`go test -run '^$' -bench ApplyAtTheDeclaredRates -benchtime 1x ./jobs/analytics`). Summing pays on a busier table: batches of 100 changes of ten users write 0.4 WCU per job lifecycle (`go test -run '^$' -bench ApplyPerJobLifecycle -benchtime 3x ./jobs/analytics`: 4 at a batch of 1 or 5, 0.4 at 100). The consumer also checkpoints each batch that had records in the lease table (`tablekit-changes`), 1 WCU, about once per stream record at this volume (every write of a job the jobs store declares: creation, moves, requeues, deletes; with `jobs.Work` a heartbeat writes the task, not the job); that table is not this one and its lease renewals are not counted here.",
			},
		},
		"tasks": {
			{
				What: "Write capacity, submission path", Seed: "~1,500 WCU/s at 500 tasks/s (event, idempotency item, META update: 1 WCU each)",
				Ours: func(_ datamodel.Model, est *datamodel.Estimate) (string, error) {
					var wcuPerSecond, wcu float64
					for _, name := range []string{"Check idempotency", "Submit: META", "Submit: SUBMITTED event"} {
						p, ok := est.Pattern(name)
						if !ok {
							return "", fmt.Errorf("tasks: no %q pattern", name)
						}
						wcuPerSecond, wcu = wcuPerSecond+p.WritePerSecond, wcu+p.WriteUnits
					}
					return fmt.Sprintf("%.0f WCU/s (%.0f WCU a submission)", wcuPerSecond, wcu), nil
				},
				Why: "Submission writes the seed's three rows, the SUBMITTED event, the IDEM item and META, and META's GSI1 entry, which the seed does not count: the pending queue workers claim from.",
			},
			{
				What: "Write capacity, total", Seed: "~3,500 WCU/s peak",
				Ours: func(_ datamodel.Model, est *datamodel.Estimate) (string, error) {
					return fmt.Sprintf("%.0f WCU/s peak (and %.0f RCU/s)", est.WritePerSecond, est.ReadPerSecond), nil
				},
				Why: "A task costs 13 WCU: submit 4 (IDEM item, META, its GSI1 entry, the SUBMITTED event), claim 5 (META, its GSI1 entry moving from STATUS#PENDING to STATUS#PROCESSING: a delete and a put, the WORKER item that holds the lease, the PROCESSING event), complete 4 (META, the entry leaving GSI1, the WORKER item's delete, the COMPLETED event); a heartbeat 1 (the WORKER item alone). The seed's 6 are the three event items, the IDEM item, the claim and META; it counts no index, no WORKER item and no completion of META. The gap is what makes the seed's rows a working queue: a queue whose workers find work and dead workers' leases by key condition writes its index entry in, across and out (4 WCU a task, 2,000 WCU/s), and the WORKER item's put and delete and META's completion are 3 more (1,500 WCU/s); below that a queue has to drop rows the seed specifies or find expired leases without an index. The rest: heartbeats, leases read and their index entries moved when heartbeated past them, the readiness signal, and the rarer changes (fail, release, expiry) as transactions.",
			},
			{
				What: "Compact history (`tasks.CompactHistory()`, an option)", Seed: "none: the seed writes every event as an item",
				Ours: func(m datamodel.Model, est *datamodel.Estimate) (string, error) {
					compact, err := datamodel.EstimateSchema(m.Schema, tasks.Patterns(tasks.CompactHistory()),
						append([]func(*datamodel.Options){datamodel.WithEntities(tasks.Entities(tasks.CompactHistory()))}, m.Options...)...)
					if err != nil {
						return "", err
					}
					return fmt.Sprintf("%.0f WCU/s peak (%.0f less), %.2f GB stored (%.2f less), $%.2f/month at average rates ($%.2f less)",
						compact.WritePerSecond, est.WritePerSecond-compact.WritePerSecond, compact.StorageGB, est.StorageGB-compact.StorageGB,
						compact.MonthlyCost, est.MonthlyCost-compact.MonthlyCost), nil
				},
				Why: "With the option META tells the three events of a plain life (its creation, its claim, its completion), which are then not written: 3 WCU a task less, and three items less per task kept for the retention. `History` and `EventFromChange` return the same events; a tool reading the table's event rows sees them only for tasks whose life was not plain. The default is the seed's layout.",
			},
			{
				What: "Provisioned capacity (prod)", Seed: "~1,500 WCU/s on the submission path → provision 2,000 WCU/s with auto-scaling; on-demand during development",
				Ours: productionPlan(tasks.ProductionCapacity()),
				Why: "`tasks.ProductionProvisioning()` is the design's plan as a preset (`tasks.Provisioning(tasks.ProductionProvisioning())`; the default stays on demand, the design's billing during development): the design's 2,000 WCU as the floor auto-scaling keeps, on the table and GSI1 (every META write is also GSI1's). " +
					"The design names the write base only, and counts 3,500 WCU/s at its peak without the index entries, the WORKER item and META's completion (above); the declared peaks (beside) are higher, so the ceiling is 7,000 WCU, which holds the table's peak at 70% (the jobs plan's target; the design names none), and reads, mostly GSI1's claim queries, scale 500-4,000 RCU. " +
					"Priced at DynamoDB's provisioned prices for US East ($0.00013 per RCU-hour, $0.00065 per WCU-hour). The declared rates are a constant 500 tasks a second (average = peak), so the scaler holds about the peak at 70% all month, and provisioned capacity costs well under on-demand's per-request price; a queue that idles most of the month still pays the floor (beside) where on demand it would pay almost nothing.",
			},
		},
		"journey": {
			{
				What: "Read cost of loading a journey", Seed: "~3 RCU (metadata 1, six stages 1, fifteen rules 1)",
				Ours: func(_ datamodel.Model, est *datamodel.Estimate) (string, error) {
					p, ok := est.Pattern(journey.PatternLoadJourney)
					if !ok {
						return "", fmt.Errorf("journey: no %q pattern", journey.PatternLoadJourney)
					}
					return fmt.Sprintf("%s RCU for the whole partition (%d items, jobs included); metadata, stages and rules alone: %s", trimFloat(p.ReadUnits), p.Pattern.ItemsPerRequest, loadWithoutJobs()), nil
				},
				Why: "Two eventually consistent Queries side by side, around the log summaries' range (one round trip), each round its items' total size once; the seed counts one unit per entity group, and our load also reads the jobs and catalog entries.",
			},
			{
				What: "Monthly cost of the hybrid design (100 jobs a day)", Seed: "$10/month (with S3 holding 180 GB of logs and reports for $4.14)",
				Ours: func(_ datamodel.Model, est *datamodel.Estimate) (string, error) {
					p, ok := est.Pattern(journey.PatternWriteLogSummaries)
					if !ok {
						return "", fmt.Errorf("journey: no %q pattern", journey.PatternWriteLogSummaries)
					}
					// The summaries' storage: the entity the pattern creates.
					var kept float64
					for _, st := range est.Storage {
						if st.Entity.CreatedBy == journey.PatternWriteLogSummaries {
							kept += st.GB() * datamodel.PricePerGBMonth
						}
					}
					return fmt.Sprintf("$%.2f/month for DynamoDB alone (reads $%.2f, writes $%.2f of which log summaries $%.2f, storage %.1f GB $%.2f of which log summaries $%.2f), S3 not included; without the log summaries' writes and storage $%.2f", est.MonthlyCost, est.ReadCost, est.WriteCost, p.MonthlyCost, est.StorageGB, est.StorageCost, kept, est.MonthlyCost-p.MonthlyCost-kept), nil
				},
				Why: "The seed's DynamoDB keeps metadata only; ours also writes its optional log summary per log entry (about a million a day at 100 jobs of 10,000), each an item and its GSI1 entry: two write units. They expire after a week (journey.DefaultLogSummaryRetention), so storage stays at a few GB; journey.Options.DisableLogSummaries drops their writes, which are most of what remains above the seed's figure.",
			},
		},
	}
}

// productionPlan prices a store's production capacity (jobs.ProductionCapacity,
// tasks.ProductionCapacity) on its table at
// the store's declared rates, beside its on-demand bill.
func productionPlan(c table.Capacity) func(datamodel.Model, *datamodel.Estimate) (string, error) {
	return func(m datamodel.Model, est *datamodel.Estimate) (string, error) {
		return priceProductionPlan(m, est, c)
	}
}

func priceProductionPlan(m datamodel.Model, est *datamodel.Estimate, c table.Capacity) (string, error) {
	plan, err := est.Provisioned(m.Schema, c)
	if err != nil {
		return "", err
	}
	var parts []string
	for _, p := range plan.Parts {
		name := "table"
		if p.Index != "" {
			name = "`" + p.Index + "`"
		}
		parts = append(parts, fmt.Sprintf("%s peaks at %s RCU/s and %s WCU/s, holds %s/%s ($%.2f)", name, trimFloat(p.PeakRead), trimFloat(p.PeakWrite), trimFloat(p.AtPeakRead), trimFloat(p.AtPeakWrite), p.MonthlyCost))
	}
	serves := "serves every declared peak"
	if !plan.Serves {
		serves = "does not serve every declared peak"
	}
	return fmt.Sprintf("$%.2f/month provisioned (%s; storage $%.2f), $%.2f with every part at its floor all month, $%.2f at its auto-scaling maximum; the plan %s. On demand at the same rates: $%.2f (provisioned/on-demand %.2f)",
		plan.MonthlyCost, strings.Join(parts, "; "), est.StorageCost, plan.MinimumMonthlyCost, plan.MaximumMonthlyCost, serves, est.MonthlyCost, plan.MonthlyCost/est.MonthlyCost), nil
}

// analyticsCost is the view's write units per job lifecycle at the
// declared batching, from its estimate and the jobs store's declared job
// rate, and what the consumer's checkpoints add in the lease table: one
// write unit per batch with records, about one per stream record at the
// jobs design's volume (each request of the jobs store's declared writes
// changes one job: one record).
func analyticsCost(_ datamodel.Model, est *datamodel.Estimate) (string, error) {
	jm := jobsModel()
	var jobsPerSecond, recordsPerSecond float64
	for _, ap := range jm.Patterns {
		switch {
		case ap.Name == "Create job":
			jobsPerSecond = ap.AveragePerSecond
			recordsPerSecond += ap.AveragePerSecond
		case ap.Operation == access.PutItem || ap.Operation == access.UpdateItem || ap.Operation == access.DeleteItem || ap.Operation == access.TransactWriteItems:
			recordsPerSecond += ap.AveragePerSecond
		}
	}
	if jobsPerSecond == 0 {
		return "", fmt.Errorf("jobs: no \"Create job\" pattern")
	}
	checkpoints := recordsPerSecond * datamodel.SecondsPerMonth / 1e6 * datamodel.PricePerMillionWrites
	return fmt.Sprintf("%s WCU per job lifecycle; %s WCU/s at peak, $%.2f/month at average rates (writes $%.2f, storage %s GB $%.2f, growing: rows are kept); the consumer's checkpoints add %s WCU/s on average in the lease table, $%.2f/month",
		trimFloat(est.AverageWritePerSecond/jobsPerSecond), trimFloat(est.WritePerSecond), est.MonthlyCost, est.WriteCost, trimFloat(est.StorageGB), est.StorageCost,
		trimFloat(recordsPerSecond), checkpoints), nil
}

// loadWithoutJobs is what the seed's 3-RCU load reads, by our rules: one
// Query over metadata, six stages and fifteen rules.
func loadWithoutJobs() string {
	const items = 7*1024 + 6*3*1024 + 15*2*1024
	units := float64((items+4095)/4096) / 2
	return trimFloat(units) + " RCU"
}

func trimFloat(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", f), "0"), ".")
}

// costs is docs/costs.md: every store's cost with peaks billed all month
// (a single-rate model) and at its average rates, and the seeds' own
// figures beside ours.
func costs(ms []datamodel.Model) ([]byte, error) {
	var b strings.Builder
	b.WriteString("# Costs: peak and average rates, and the original designs' own figures\n\n")
	b.WriteString("Generated by `go run ./cmd/datamodel`. Each access pattern declares a peak rate (capacity, hot partitions) and an average rate (the bill); storage is derived from each store's declared entities (size, growth at the creating pattern's average rate, TTL retention, or a year of growth for items kept until deleted). Prices are DynamoDB's on-demand prices as [systems/datamodel.md](systems/datamodel.md) gives them. A store's calls on another store's table (jobs' work, queued on the tasks table) have a row of their own below the store's, at the store's rates. Each store's section sets the figures its system's original design states (\"the seed\", described in `docs/systems/`) beside ours.\n\n")
	b.WriteString("| Store | Peak RCU/s | Peak WCU/s | Average RCU/s | Average WCU/s | Storage | $/month, peaks billed all month | $/month at average rates |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	ests := map[string]*datamodel.Estimate{}
	for _, m := range ms {
		est, err := m.Estimate()
		if err != nil {
			return nil, err
		}
		ests[m.Store] = est
		fmt.Fprintf(&b, "| [%s](%s/dynamodb_data_model.md) | %.2f | %.2f | %.2f | %.2f | %.2f GB | $%.2f | $%.2f |\n", m.Store, m.Store,
			est.ReadPerSecond, est.WritePerSecond, est.AverageReadPerSecond, est.AverageWritePerSecond, est.StorageGB, est.PeakMonthlyCost, est.MonthlyCost)
		others, err := m.OtherEstimates()
		if err != nil {
			return nil, err
		}
		for _, oe := range others {
			fmt.Fprintf(&b, "| [%s](%s/dynamodb_data_model.md)' calls on `%s` | %.2f | %.2f | %.2f | %.2f | %.2f GB | $%.2f | $%.2f |\n", m.Store, m.Store, oe.Table,
				oe.ReadPerSecond, oe.WritePerSecond, oe.AverageReadPerSecond, oe.AverageWritePerSecond, oe.StorageGB, oe.PeakMonthlyCost, oe.MonthlyCost)
		}
	}
	b.WriteString("\n")
	figs := seedFigures()
	for _, m := range ms {
		fs := figs[m.Store]
		fmt.Fprintf(&b, "## %s\n\n", m.Store)
		if m.Design != "" {
			fmt.Fprintf(&b, "The system and its original design: [%s](%s).\n\n", strings.TrimPrefix(m.Design, "../"), strings.TrimPrefix(m.Design, "../"))
		}
		if len(fs) == 0 {
			b.WriteString("The seed states no capacity or cost figures.\n\n")
			continue
		}
		b.WriteString("| Figure | The seed says | datamodel derives | Why they differ |\n|---|---|---|---|\n")
		for _, f := range fs {
			ours, err := f.Ours(m, ests[m.Store])
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", f.What, f.Seed, ours, f.Why)
		}
		b.WriteString("\n")
	}
	return []byte(b.String()), nil
}

package journey

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/tablekit/tablekit/table"
)

// Complete is everything in one journey's partition, typed and grouped.
type Complete struct {
	Journey Journey `json:"journey"`
	// Stages in execution order.
	Stages []Stage `json:"stages"`
	// Rules in execution order: stage order, then priority critical to
	// low, then index.
	Rules []Rule `json:"rules"`
	// Jobs by stage order, then execution number.
	Jobs []Job `json:"jobs"`
	// Reports are the report catalog entries, by job.
	Reports []ReportEntry `json:"reports,omitempty"`
	// Logs are the optional log summaries, by job, step and time: only
	// with IncludeLogSummaries.
	Logs []LogSummary `json:"logs,omitempty"`
	// Other holds items of entity types this package does not know, so
	// nothing in the partition goes unseen. (Raw attribute values have no
	// JSON form of their own; Export writes them in the seed's notation.)
	Other []table.Item `json:"-"`
}

// Stage returns the stage with the id, or nil.
func (c *Complete) Stage(stageID string) *Stage {
	if c == nil {
		return nil
	}
	for i := range c.Stages {
		if c.Stages[i].StageID == stageID {
			return &c.Stages[i]
		}
	}
	return nil
}

// StageRules returns the stage's rules in execution order.
func (c *Complete) StageRules(stageID string) []Rule {
	if c == nil {
		return nil
	}
	var out []Rule
	for _, r := range c.Rules {
		if r.StageID == stageID {
			out = append(out, r)
		}
	}
	return out
}

// StageJobs returns the stage's executions in execution order.
func (c *Complete) StageJobs(stageID string) []Job {
	if c == nil {
		return nil
	}
	var out []Job
	for _, j := range c.Jobs {
		if j.StageID == stageID {
			out = append(out, j)
		}
	}
	return out
}

// LatestJob returns the stage's latest execution, or nil.
func (c *Complete) LatestJob(stageID string) *Job {
	jobs := c.StageJobs(stageID)
	if len(jobs) == 0 {
		return nil
	}
	return &jobs[len(jobs)-1]
}

// RecentJobs returns up to n jobs, most recently started first.
func (c *Complete) RecentJobs(n int) []Job {
	if c == nil || n <= 0 {
		return nil
	}
	jobs := slices.Clone(c.Jobs)
	slices.SortStableFunc(jobs, func(a, b Job) int { return b.StartTime.Compare(a.StartTime.Time) })
	return jobs[:min(n, len(jobs))]
}

// loadJourney implements [Journeys.Load].
func (s *Store) loadJourney(ctx context.Context, id string, opts ...func(*ReadOptions)) (*Complete, error) {
	if err := checkID("journeyId", id); err != nil {
		return nil, err
	}
	o := applyReadOptions(opts)
	pk, _ := journeyPK.Build(id)
	queries := []table.Query{{Partition: pk, Consistent: o.Consistent}}
	if !o.IncludeLogSummaries {
		// "LOG$" is the first string after every "LOG#..." key.
		queries = []table.Query{
			{Partition: pk, Sort: table.SortLess("LOG#"), Consistent: o.Consistent},
			{Partition: pk, Sort: table.SortGreaterOrEqual("LOG$"), Consistent: o.Consistent},
		}
	}
	// The queries go side by side: one round trip.
	parts := make([][]table.Item, len(queries))
	errs := make([]error, len(queries))
	var wg sync.WaitGroup
	for i, q := range queries {
		wg.Go(func() {
			for item, err := range table.QueryAll[table.Item](ctx, s.t, q) {
				if err != nil {
					errs[i] = err
					return
				}
				parts[i] = append(parts[i], item)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	items := slices.Concat(parts...)
	c, err := s.decodePartition(ctx, items)
	if err != nil {
		return nil, err
	}
	if c == nil {
		return nil, notFound(ErrJourneyNotFound, id, nil)
	}
	return c, nil
}

// decodePartition groups a partition's items by entity type; nil when
// there is no METADATA item.
func (s *Store) decodePartition(ctx context.Context, items []table.Item) (*Complete, error) {
	c := &Complete{}
	found := false
	for _, item := range items {
		sk := stringAttr(item, attrSK)
		var err error
		switch stringAttr(item, attrEntityType) {
		case EntityJourney:
			c.Journey, err = decode(ctx, s.ents.journeys, item, journeyItem.journey)
			found = true
		case EntityStage:
			err = appendDecoded(ctx, &c.Stages, s.ents.stages, item, stageItem.stage)
		case EntityRule:
			err = appendDecoded(ctx, &c.Rules, s.ents.rules, item, ruleItem.rule)
		case EntityJob:
			err = appendDecoded(ctx, &c.Jobs, s.ents.jobs, item, jobItem.job)
		case EntityReport:
			err = appendDecoded(ctx, &c.Reports, s.ents.reports, item, reportItem.entry)
		case EntityLog:
			err = appendDecoded(ctx, &c.Logs, s.ents.logs, item, logItem.summary)
		default:
			c.Other = append(c.Other, item)
		}
		if err != nil {
			return nil, fmt.Errorf("journey: decode item %q: %w", sk, err)
		}
	}
	if !found {
		return nil, nil
	}
	order := make(map[string]int, len(c.Stages))
	for _, st := range c.Stages {
		order[st.StageID] = st.Order
	}
	sortRules(c.Rules, order)
	return c, nil
}

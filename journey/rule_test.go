package journey

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
)

// TestRulesForStageRunCriticalFirst: the seed's GSI1SK would list a
// stage's rules critical, high, low, medium; RulesForStage gives execution
// order, critical → high → medium → low, then index, from one Query.
func TestRulesForStageRunCriticalFirst(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.newJourney(t)
	for i, p := range []Priority{PriorityLow, PriorityMedium, PriorityHigh, PriorityCritical, PriorityMedium, PriorityLow} {
		if _, err := e.store.Rules().Add(ctx, NewRule{JourneyID: "JRN-T", StageID: "tmf_mapping", Title: fmt.Sprint(i),
			Type: RuleBusinessLogic, Priority: p}); err != nil {
			t.Fatal(err)
		}
	}
	// A rule of another stage whose id starts the same must not appear.
	if _, err := e.store.Rules().Add(ctx, NewRule{JourneyID: "JRN-T", StageID: "raw_analysis", Title: "other", Type: RuleFieldMapping}); err != nil {
		t.Fatal(err)
	}
	e.db.ResetCalls()
	rules := must[[]Rule](t)(e.store.Rules().ForStage(ctx, "JRN-T", "tmf_mapping"))
	if e.calls() != 1 {
		t.Errorf("%d requests", e.calls())
	}
	var got []string
	for _, r := range rules {
		got = append(got, fmt.Sprintf("%s/%d", r.Priority, r.Index))
	}
	if fmt.Sprint(got) != "[critical/4 high/3 medium/2 medium/5 low/1 low/6]" {
		t.Errorf("order %v", got)
	}
	if r := rules[0]; r.RuleID != "rule-tmf_mapping-business_logic-4" || r.Status != RuleActive || r.Scope != ScopeStage {
		t.Errorf("rule %+v", r)
	}
}

// TestConcurrentAddRuleTakesDistinctIndexes: 15 rules added at once to one
// stage get indexes 1..15 and the aggregates count all of them.
func TestConcurrentAddRuleTakesDistinctIndexes(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.newJourney(t)
	var wg sync.WaitGroup
	errs := make([]error, 15)
	for i := range errs {
		wg.Go(func() {
			_, errs[i] = e.store.Rules().Add(ctx, NewRule{JourneyID: "JRN-T", StageID: "raw_analysis", Title: "r",
				Type: RuleValidation, Status: []RuleStatus{RuleActive, RuleInactive, RuleActive}[i%3]})
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	rules := must[[]Rule](t)(e.store.Rules().ForStage(ctx, "JRN-T", "raw_analysis"))
	seen := map[int]bool{}
	for _, r := range rules {
		seen[r.Index] = true
	}
	if len(rules) != 15 || len(seen) != 15 || !seen[1] || !seen[15] {
		t.Errorf("%d rules with indexes %v", len(rules), seen)
	}
	a := must[*Journey](t)(e.store.Journeys().Get(ctx, "JRN-T")).Aggregates
	if a.TotalRules != 15 || a.ActiveRules != 10 {
		t.Errorf("aggregates %+v", a)
	}
}

func TestSetRuleStatusMovesActiveRules(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.newJourney(t)
	r := must[*Rule](t)(e.store.Rules().Add(ctx, NewRule{JourneyID: "JRN-T", StageID: "raw_analysis", Title: "r", Type: RuleComplianceCheck}))
	active := func() int { return must[*Journey](t)(e.store.Journeys().Get(ctx, "JRN-T")).Aggregates.ActiveRules }
	steps := []struct {
		to   RuleStatus
		want int
	}{{RuleInactive, 0}, {RuleDeprecated, 0}, {RuleActive, 1}, {RuleActive, 1}, {RuleDeprecated, 0}}
	for _, st := range steps {
		got := must[*Rule](t)(e.store.Rules().SetStatus(ctx, r.Ref(), st.to))
		if got.Status != st.to || active() != st.want {
			t.Errorf("to %s: status %s, activeRules %d, want %d", st.to, got.Status, active(), st.want)
		}
	}
	if stored := must[*Rule](t)(e.store.Rules().Get(ctx, r.Ref())); stored.Status != RuleDeprecated {
		t.Errorf("stored %s", stored.Status)
	}
	ref := r.Ref()
	ref.RuleID = "rule-missing"
	if _, err := e.store.Rules().SetStatus(ctx, ref, RuleActive); !errors.Is(err, ErrRuleNotFound) {
		t.Errorf("missing rule: %v", err)
	}
	if _, err := e.store.Rules().Add(ctx, NewRule{JourneyID: "JRN-T", StageID: "nope", Title: "r", Type: RuleValidation}); !errors.Is(err, ErrStageNotFound) {
		t.Errorf("unknown stage: %v", err)
	}
}

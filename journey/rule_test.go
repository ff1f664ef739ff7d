package journey

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/table"
)

// TestRulesForStageRunCriticalFirst: the seed's GSI1SK would list a
// stage's rules critical, high, low, medium; Rules.ForStage gives execution
// order, critical → high → medium → low, then index.
func TestRulesForStageRunCriticalFirst(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.newJourney(t)
	for i, p := range []Priority{PriorityLow, PriorityMedium, PriorityHigh, PriorityCritical, PriorityMedium, PriorityLow} {
		_, err := e.store.Rules().Add(ctx, NewRule{JourneyID: "JRN-T", StageID: "tmf_mapping", Title: fmt.Sprint(i),
			Type: RuleBusinessLogic, Priority: p})
		require.NoError(t, err)
	}
	// A rule of another stage must not appear.
	_, err := e.store.Rules().Add(ctx, NewRule{JourneyID: "JRN-T", StageID: "raw_analysis", Title: "other", Type: RuleFieldMapping})
	require.NoError(t, err)
	e.db.ResetCalls()
	rules, err := e.store.Rules().ForStage(ctx, "JRN-T", "tmf_mapping")
	require.NoError(t, err)
	assert.Equal(t, 2, e.calls(), "the journey's rules and the global rules: two Queries")
	var got []string
	for _, r := range rules {
		got = append(got, fmt.Sprintf("%s/%d", r.Priority, r.Index))
	}
	assert.Equal(t, []string{"critical/4", "high/3", "medium/2", "medium/5", "low/1", "low/6"}, got)
	require.NotEmpty(t, rules)
	assert.Equal(t, "rule-tmf_mapping-business_logic-4", rules[0].RuleID)
	assert.Equal(t, RuleActive, rules[0].Status)
	assert.Equal(t, ScopeStage, rules[0].Scope)
}

// TestRulesForStageHonourScope: the seed's scope. A stage rule applies to
// its stage and to metadata.applicableStages; a project rule to every stage
// of its journey (the project) unless applicableStages narrows it (to its
// own stage and those named); a
// global rule of the rule library to every journey. Rules of another
// journey, stage rules of another stage and non-global rules of
// the library are not returned.
func TestRulesForStageHonourScope(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for _, id := range []string{"JRN-A", "JRN-B"} {
		_, err := e.store.Journeys().Create(ctx, NewJourney{ID: id, Name: id})
		require.NoError(t, err)
	}
	_, err := e.store.Library().Create(ctx, nil)
	require.NoError(t, err)
	add := func(journeyID, stageID, title string, scope RuleScope, p Priority, applicable ...string) {
		t.Helper()
		in := NewRule{JourneyID: journeyID, StageID: stageID, Title: title, Type: RuleFieldMapping,
			Scope: scope, Priority: p, Metadata: RuleMetadata{ApplicableStages: applicable}}
		var err error
		if journeyID == GlobalRules {
			_, err = e.store.Library().Add(ctx, in)
		} else {
			_, err = e.store.Rules().Add(ctx, in)
		}
		require.NoError(t, err)
	}
	add("JRN-A", "raw_analysis", "A stage raw", ScopeStage, PriorityHigh)
	add("JRN-A", "raw_analysis", "A stage raw+tmf", ScopeStage, PriorityMedium, "raw_analysis", "tmf_mapping")
	add("JRN-A", "stripped_schema", "A stage stripped", ScopeStage, PriorityCritical)
	add("JRN-A", "raw_analysis", "A project", ScopeProject, PriorityLow)
	add("JRN-A", "raw_analysis", "A project migration only", ScopeProject, PriorityCritical, "data_migration")
	add("JRN-B", "tmf_mapping", "B stage tmf", ScopeStage, PriorityCritical)
	add("JRN-B", "raw_analysis", "B project", ScopeProject, PriorityCritical)
	add("JRN-B", "raw_analysis", "B global, kept in B", ScopeGlobal, PriorityCritical)
	add(GlobalRules, "raw_analysis", "global", ScopeGlobal, PriorityMedium)
	add(GlobalRules, "raw_analysis", "global validation only", ScopeGlobal, PriorityHigh, "verification_validation")
	add(GlobalRules, "tmf_mapping", "library stage rule", ScopeStage, PriorityCritical)

	titles := func(journeyID, stageID string) []string {
		t.Helper()
		rules, err := e.store.Rules().ForStage(ctx, journeyID, stageID, Consistent())
		require.NoError(t, err)
		var out []string
		for _, r := range rules {
			out = append(out, r.Title)
		}
		return out
	}
	assert.Equal(t, []string{"A stage raw+tmf", "global", "A project"}, titles("JRN-A", "tmf_mapping"),
		"applicableStages brings a raw_analysis rule to tmf_mapping; by priority, own before global")
	assert.Equal(t, []string{"A project migration only", "A stage raw", "global validation only", "A stage raw+tmf", "global", "A project"},
		titles("JRN-A", "raw_analysis"), "a rule always applies to the stage it is filed under")
	assert.Equal(t, []string{"A project migration only", "global", "A project"}, titles("JRN-A", "data_migration"))
	assert.Equal(t, []string{"A stage stripped", "global", "A project"}, titles("JRN-A", "stripped_schema"))
	assert.Equal(t, []string{"global validation only", "global", "A project"}, titles("JRN-A", "verification_validation"))
	assert.Equal(t, []string{"B project", "B global, kept in B", "B stage tmf", "global"}, titles("JRN-B", "tmf_mapping"),
		"a global rule kept in a journey applies to that journey only")
	lib, err := e.store.Library().Load(ctx, Consistent())
	require.NoError(t, err)
	assert.Len(t, lib.Rules, 3, "the library holds its rules of every scope")
	assert.Equal(t, []string{"global"}, titles("JRN-NONE", "tmf_mapping"), "a journey without rules still gets the global ones")
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
		require.NoError(t, err)
	}
	rules, err := e.store.Rules().ForStage(ctx, "JRN-T", "raw_analysis")
	require.NoError(t, err)
	seen := map[int]bool{}
	for _, r := range rules {
		seen[r.Index] = true
	}
	assert.Len(t, rules, 15)
	assert.Len(t, seen, 15)
	assert.True(t, seen[1], "index 1 taken: %v", seen)
	assert.True(t, seen[15], "index 15 taken: %v", seen)
	j, err := e.store.Journeys().Get(ctx, "JRN-T")
	require.NoError(t, err)
	assert.Equal(t, 15, j.Aggregates.TotalRules)
	assert.Equal(t, 10, j.Aggregates.ActiveRules)
}

func TestSetRuleStatusMovesActiveRules(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.newJourney(t)
	r, err := e.store.Rules().Add(ctx, NewRule{JourneyID: "JRN-T", StageID: "raw_analysis", Title: "r", Type: RuleComplianceCheck})
	require.NoError(t, err)
	active := func() int {
		j, err := e.store.Journeys().Get(ctx, "JRN-T")
		require.NoError(t, err)
		return j.Aggregates.ActiveRules
	}
	steps := []struct {
		to   RuleStatus
		want int
	}{{RuleInactive, 0}, {RuleDeprecated, 0}, {RuleActive, 1}, {RuleActive, 1}, {RuleDeprecated, 0}}
	for _, st := range steps {
		got, err := e.store.Rules().SetStatus(ctx, r.Ref(), st.to)
		require.NoError(t, err)
		assert.Equal(t, st.to, got.Status)
		assert.Equal(t, st.want, active(), "activeRules after moving to %s", st.to)
	}
	stored, err := e.store.Rules().Get(ctx, r.Ref())
	require.NoError(t, err)
	assert.Equal(t, RuleDeprecated, stored.Status)
	ref := r.Ref()
	ref.RuleID = "rule-missing"
	_, err = e.store.Rules().SetStatus(ctx, ref, RuleActive)
	assert.ErrorIs(t, err, ErrRuleNotFound)
	_, err = e.store.Rules().Add(ctx, NewRule{JourneyID: "JRN-T", StageID: "nope", Title: "r", Type: RuleValidation})
	assert.ErrorIs(t, err, ErrStageNotFound)
}

// TestARuleItemWhoseDataLacksItsJourneyIDReadsItFromTheKey: a rule item
// written by other tools without journeyId in Data reads its journey from
// the PK and its index from the SK, by Rules.Get and Journeys.Load alike.
func TestARuleItemWhoseDataLacksItsJourneyIDReadsItFromTheKey(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.newJourney(t)
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	item := table.Item{attrPK: s("JOURNEY#JRN-T"), attrSK: s("RULE#raw_analysis#007#rule-x"), attrEntityType: s(EntityRule),
		attrCreatedAt: s("2025-11-01T20:00:00.000000Z"),
		attrData:      &types.AttributeValueMemberM{Value: table.Item{"ruleId": s("rule-x"), "stageId": s("raw_analysis"), "title": s("x")}}}
	require.NoError(t, e.store.t.Put(ctx, item))
	want := RuleRef{JourneyID: "JRN-T", StageID: "raw_analysis", Index: 7, RuleID: "rule-x"}
	r, err := e.store.Rules().Get(ctx, want)
	require.NoError(t, err)
	assert.Equal(t, want, r.Ref())
	c, err := e.store.Journeys().Load(ctx, "JRN-T")
	require.NoError(t, err)
	require.Len(t, c.Rules, 1)
	assert.Equal(t, want, c.Rules[0].Ref())
}

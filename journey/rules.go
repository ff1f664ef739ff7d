package journey

import (
	"context"
)

// Rules is the handle of Second Brain rules.
type Rules struct{ s *Store }

// Rules returns the store's handle of rules.
func (s *Store) Rules() *Rules { return &Rules{s: s} }

// Add adds a rule to a stage with the stage's next index, and adds it
// to the journey's totalRules (and activeRules when active), in one
// transaction. Two concurrent AddRule calls never get the same index: the
// stage's lastRuleIndex moves forward by a conditional write, and the
// loser takes the next number.
func (h *Rules) Add(ctx context.Context, in NewRule) (_ *Rule, err error) {
	if err := h.s.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Rules.Add")
	defer span.End(&err)
	return h.s.addRule(ctx, in)
}

// Get reads one rule.
func (h *Rules) Get(ctx context.Context, ref RuleRef, opts ...func(*ReadOptions)) (_ *Rule, err error) {
	if err := h.s.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Rules.Get")
	defer span.End(&err)
	return h.s.getRule(ctx, ref, opts...)
}

// SetStatus enables, disables or deprecates a rule, and moves the
// journey's activeRules by ADD in the same transaction when the rule
// enters or leaves active. The write is conditional on the status read
// just before, so two concurrent changes cannot both count.
func (h *Rules) SetStatus(ctx context.Context, ref RuleRef, status RuleStatus) (_ *Rule, err error) {
	if err := h.s.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Rules.SetStatus")
	defer span.End(&err)
	return h.s.setRuleStatus(ctx, ref, status)
}

// ForStage returns a stage's rules in execution order: priority
// critical, high, medium, low, then index. One Query reads exactly the
// stage's rules (begins_with(SK, "RULE#{stageId}#")); the priority order is
// applied in memory because the seed's keys sort priorities alphabetically.
func (h *Rules) ForStage(ctx context.Context, journeyID, stageID string, opts ...func(*ReadOptions)) (_ []Rule, err error) {
	if err := h.s.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Rules.ForStage")
	defer span.End(&err)
	return h.s.rulesForStage(ctx, journeyID, stageID, opts...)
}

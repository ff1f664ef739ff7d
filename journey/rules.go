package journey

import (
	"context"
)

// Rules is the handle of Second Brain rules.
type Rules struct{ s *Store }

// Rules returns the store's handle of rules.
func (s *Store) Rules() *Rules { return &Rules{s: s} }

// ready refuses a nil handle, the handle of a Store NewStore did not make
// and a nil context, before any request.
func (h *Rules) ready(ctx context.Context) error {
	if h == nil {
		return ErrNoStore
	}
	return h.s.ready(ctx)
}

// Add adds a rule to a stage with the stage's next index, and adds it
// to the journey's totalRules (and activeRules when active), in one
// transaction. Two concurrent Add calls never get the same index: the
// stage's lastRuleIndex moves forward by a conditional write, and the
// loser takes the next number.
func (h *Rules) Add(ctx context.Context, in NewRule) (_ *Rule, err error) {
	if err := h.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Rules.Add")
	defer span.End(&err)
	if err := refuseReserved("NewRule.JourneyID", in.JourneyID); err != nil {
		return nil, err
	}
	return h.s.addRule(ctx, in)
}

// Get reads one rule.
func (h *Rules) Get(ctx context.Context, ref RuleRef, opts ...func(*ReadOptions)) (_ *Rule, err error) {
	if err := h.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Rules.Get")
	defer span.End(&err)
	if err := refuseReserved("RuleRef.JourneyID", ref.JourneyID); err != nil {
		return nil, err
	}
	if _, err := readOptions(getKind.named("Rules.Get"), opts); err != nil {
		return nil, err
	}
	return h.s.getRule(ctx, ref, opts...)
}

// SetStatus enables, disables or deprecates a rule, and moves the
// journey's activeRules by ADD in the same transaction when the rule
// enters or leaves active. The write is conditional on the status read
// just before, so two concurrent changes cannot both count.
func (h *Rules) SetStatus(ctx context.Context, ref RuleRef, status RuleStatus) (_ *Rule, err error) {
	if err := h.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Rules.SetStatus")
	defer span.End(&err)
	if err := refuseReserved("RuleRef.JourneyID", ref.JourneyID); err != nil {
		return nil, err
	}
	return h.s.setRuleStatus(ctx, ref, status)
}

// ForStage returns the rules that apply to a stage of a journey, as the
// seed's scope says:
//
//   - the journey's stage rules (scope "stage") filed under the stage, and
//     those whose metadata.applicableStages names it;
//   - the journey's project rules (scope "project"): the journey is the
//     seed's project, every rule key lives under JOURNEY#{journeyId} and the
//     seed names no other; they apply to every stage, or to their own and
//     those of applicableStages when it names any;
//   - the global rules (scope "global") of the rule library (Library),
//     likewise to every stage of every journey unless
//     applicableStages narrows them.
//
// A rule of another journey, a stage rule of another stage, and a rule of
// the library whose scope is not global are never returned. GlobalRules is
// refused as journeyID: Library.Load reads the library's own rules. Inactive and
// deprecated rules are returned with their status, for the caller to
// skip.
//
// The order is total, the order rules run in: priority critical, high,
// medium, low; then the journey's own rules before global ones; then by
// the stage they are filed under, index and rule id (the rule's key, unique
// in its journey). Priority is applied in memory because the seed's GSI1
// keys sort priorities alphabetically. Two Queries, begins_with(SK, "RULE#")
// on the journey and on the library: a
// journey holds a handful of rules, and reading them all is cheaper than a
// query per applicable stage.
func (h *Rules) ForStage(ctx context.Context, journeyID, stageID string, opts ...func(*ReadOptions)) (_ []Rule, err error) {
	if err := h.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Rules.ForStage")
	defer span.End(&err)
	if err := refuseReserved("journeyId", journeyID); err != nil {
		return nil, err
	}
	if _, err := readOptions(forStageKind.named("Rules.ForStage"), opts); err != nil {
		return nil, err
	}
	return h.s.rulesForStage(ctx, journeyID, stageID, opts...)
}

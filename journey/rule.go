package journey

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

// Rule keys (declared in declare).
const (
	// SK "RULE#raw_analysis#001#rule-raw_analysis-field_mapping-a1b2c3d4".
	// No GSI1 keys: the seed's JOURNEY#{id}#RULES entries are not
	// written (see "Stages and rules in GSI1" in the package doc).
	ruleSortKey = "RULE#{stageId}#{index:03d}#{ruleId}"
)

// ruleSK tells a rule's sort key (backups, patterns).
var ruleSK = keys.MustSort(ruleSortKey)

// RuleStatus enables or disables a rule.
type RuleStatus string

// The seed's rule statuses.
const (
	RuleActive     RuleStatus = "active"
	RuleInactive   RuleStatus = "inactive"
	RuleDeprecated RuleStatus = "deprecated"
)

func (s RuleStatus) valid() bool {
	return s == RuleActive || s == RuleInactive || s == RuleDeprecated
}

// RuleType is what a rule guides.
type RuleType string

// The seed's rule types.
const (
	RuleFieldMapping              RuleType = "field_mapping"
	RuleContextualRecommendations RuleType = "contextual_recommendations"
	RuleDataInterpretation        RuleType = "data_interpretation"
	RuleValidation                RuleType = "validation_rules"
	RuleBusinessLogic             RuleType = "business_logic"
	RuleComplianceCheck           RuleType = "compliance_check"
)

func (t RuleType) valid() bool {
	switch t {
	case RuleFieldMapping, RuleContextualRecommendations, RuleDataInterpretation,
		RuleValidation, RuleBusinessLogic, RuleComplianceCheck:
		return true
	}
	return false
}

// RuleScope is where a rule applies.
type RuleScope string

// The seed's scopes.
const (
	ScopeGlobal  RuleScope = "global"
	ScopeProject RuleScope = "project"
	ScopeStage   RuleScope = "stage"
)

func (s RuleScope) valid() bool { return s == ScopeGlobal || s == ScopeProject || s == ScopeStage }

// RuleMetadata describes a rule's origin.
type RuleMetadata struct {
	CreatedBy        string   `dynamodbav:"createdBy" json:"createdBy"`
	Version          string   `dynamodbav:"version" json:"version"`
	Tags             []string `dynamodbav:"tags" json:"tags"`
	ApplicableStages []string `dynamodbav:"applicableStages" json:"applicableStages"`
	RuleEngine       string   `dynamodbav:"ruleEngine" json:"ruleEngine"`
}

// Rule is a Second Brain rule (SK RULE#{stageId}#{index:03d}#{ruleId}).
type Rule struct {
	RuleID      string       `dynamodbav:"ruleId" json:"ruleId"`
	JourneyID   string       `dynamodbav:"journeyId" json:"journeyId"`
	StageID     string       `dynamodbav:"stageId" json:"stageId"`
	Title       string       `dynamodbav:"title" json:"title"`
	Description string       `dynamodbav:"description" json:"description"`
	Type        RuleType     `dynamodbav:"type" json:"type"`
	Priority    Priority     `dynamodbav:"priority" json:"priority"`
	Scope       RuleScope    `dynamodbav:"scope" json:"scope"`
	Status      RuleStatus   `dynamodbav:"status" json:"status"`
	Context     string       `dynamodbav:"context" json:"context"`
	Content     string       `dynamodbav:"content" json:"content"`
	Metadata    RuleMetadata `dynamodbav:"metadata" json:"metadata"`

	// Index is the rule's place among its stage's rules (from the key).
	Index     int  `dynamodbav:"-" json:"index"`
	CreatedAt Time `dynamodbav:"-" json:"createdAt"`
	UpdatedAt Time `dynamodbav:"-" json:"updatedAt"`
}

// RuleRef is what identifies a rule's item.
//
// Its JSON names are the rule's, so a Rule's JSON decodes as its RuleRef.
type RuleRef struct {
	JourneyID string `json:"journeyId"`
	StageID   string `json:"stageId"`
	Index     int    `json:"index"`
	RuleID    string `json:"ruleId"`
}

// Ref returns the rule's reference.
func (r Rule) Ref() RuleRef {
	return RuleRef{JourneyID: r.JourneyID, StageID: r.StageID, Index: r.Index, RuleID: r.RuleID}
}

// NewRule is what Rules.Add needs.
type NewRule struct {
	JourneyID string
	StageID   string
	// RuleID is the rule's id; "rule-{stageId}-{type}-..." when "".
	RuleID      string
	Title       string
	Description string
	Type        RuleType
	Priority    Priority   // PriorityMedium when ""
	Scope       RuleScope  // ScopeStage when ""
	Status      RuleStatus // RuleActive when ""
	Context     string
	Content     string
	Metadata    RuleMetadata
}

func (in *NewRule) check() error {
	if err := checkID("NewRule.JourneyID", in.JourneyID); err != nil {
		return err
	}
	if err := checkID("NewRule.StageID", in.StageID); err != nil {
		return err
	}
	if in.RuleID != "" {
		if err := checkID("NewRule.RuleID", in.RuleID); err != nil {
			return err
		}
	}
	switch {
	case in.Title == "":
		return inputError("NewRule.Title", `""`, "a rule needs a title")
	case !in.Type.valid():
		return inputError("NewRule.Type", fmt.Sprintf("%q", in.Type), "not one of the seed's rule types")
	case in.Priority != "" && !in.Priority.valid():
		return inputError("NewRule.Priority", fmt.Sprintf("%q", in.Priority), "must be low, medium, high or critical")
	case in.Scope != "" && !in.Scope.valid():
		return inputError("NewRule.Scope", fmt.Sprintf("%q", in.Scope), "must be global, project or stage")
	case in.Status != "" && !in.Status.valid():
		return inputError("NewRule.Status", fmt.Sprintf("%q", in.Status), "must be active, inactive or deprecated")
	}
	return nil
}

// ruleItem is a rule as stored (declare): the rule is Data, and its key
// parts, kept in the keys only, are copies of the rule's fields.
type ruleItem struct {
	JourneyID string `dynamodbav:"journeyId"`
	StageID   string `dynamodbav:"stageId"`
	Index     int    `dynamodbav:"index"`
	RuleID    string `dynamodbav:"ruleId"`
	CreatedAt string `dynamodbav:"CreatedAt"`
	UpdatedAt string `dynamodbav:"UpdatedAt,omitempty"`
	Data      Rule   `dynamodbav:"Data"`
}

func ruleItemOf(r Rule) ruleItem {
	return ruleItem{JourneyID: r.JourneyID, StageID: r.StageID, Index: r.Index, RuleID: r.RuleID,
		CreatedAt: r.CreatedAt.String(), UpdatedAt: r.UpdatedAt.String(), Data: r}
}

// rule is the stored rule: the index from the key, and the journey id
// the seed keeps in Data taken from the key where Data lacks it.
func (it ruleItem) rule() (Rule, error) {
	r := it.Data
	r.Index = it.Index
	if r.JourneyID == "" {
		r.JourneyID = it.JourneyID
	}
	if err := r.CreatedAt.parse(it.CreatedAt); err != nil {
		return r, err
	}
	return r, r.UpdatedAt.parse(it.UpdatedAt)
}

// maxRuleIndex is the largest {index:03d}.
const maxRuleIndex = 999

// addRule implements [Rules.Add].
func (s *Store) addRule(ctx context.Context, in NewRule) (*Rule, error) {
	if err := in.check(); err != nil {
		return nil, err
	}
	if in.Priority == "" {
		in.Priority = PriorityMedium
	}
	if in.Scope == "" {
		in.Scope = ScopeStage
	}
	if in.Status == "" {
		in.Status = RuleActive
	}
	if in.RuleID == "" {
		id, err := s.newID("rule-" + in.StageID + "-" + string(in.Type))
		if err != nil {
			return nil, err
		}
		in.RuleID = id
	}
	for attempt := 0; ; attempt++ {
		st, _, err := s.stage(ctx, in.JourneyID, in.StageID)
		if err != nil {
			return nil, err
		}
		last, err := s.lastRuleIndex(ctx, in.JourneyID, in.StageID)
		if err != nil {
			return nil, err
		}
		n := max(last, st.LastRuleIndex) + 1
		if n > maxRuleIndex {
			return nil, inputError("NewRule.StageID", in.StageID, fmt.Sprintf("the stage already has rule index %d, the most RULE#{stageId}#{index:03d} holds", maxRuleIndex))
		}
		now := s.now()
		r := Rule{RuleID: in.RuleID, JourneyID: in.JourneyID, StageID: in.StageID, Title: in.Title,
			Description: in.Description, Type: in.Type, Priority: in.Priority, Scope: in.Scope, Status: in.Status,
			Context: in.Context, Content: in.Content, Metadata: in.Metadata, Index: n,
			CreatedAt: Time{now}, UpdatedAt: Time{now}}
		stageKey, _ := s.stageKey(in.JourneyID, st.Order, st.StageID)
		journeyKey, _ := s.journeyKey(in.JourneyID)
		counter := expression.Name("Data.lastRuleIndex")
		aggregates := expression.Add(expression.Name("Data.aggregates.totalRules"), expression.Value(1)).
			Set(expression.Name(attrUpdatedAt), expression.Value(stamp(now)))
		if r.Status == RuleActive {
			aggregates = aggregates.Add(expression.Name("Data.aggregates.activeRules"), expression.Value(1))
		}
		tx := s.t.WriteTx().
			Update(stageKey, expression.Set(counter, expression.Value(n)),
				table.IfExists(), table.If(expression.AttributeNotExists(counter).Or(counter.LessThan(expression.Value(n)))))
		if err := s.ents.rules.TxCreate(ruleItemOf(r)).AddTo(ctx, tx); err != nil {
			return nil, err
		}
		err = tx.Update(journeyKey, aggregates, table.IfExists(), table.If(journeyOwn()), table.ItemOnConditionFailure()).
			Run(ctx)
		if err == nil {
			return &r, nil
		}
		switch failedAction(err) {
		case 0: // the stage: moved or removed (the next read tells), or another Rules.Add took index n
			if attempt+1 < raceAttempts {
				if err := s.lostRace(ctx, "Rules.Add", in.JourneyID+"/"+in.StageID, attempt); err != nil {
					return nil, err
				}
				continue
			}
		case 1:
			if errors.Is(err, table.ErrAlreadyExists) && attempt+1 < raceAttempts {
				if err := s.lostRace(ctx, "Rules.Add", in.JourneyID+"/"+in.StageID, attempt); err != nil {
					return nil, err
				}
				continue
			}
		case 2:
			return nil, metadataRefused(in.JourneyID, err, 2)
		}
		return nil, err
	}
}

// failedAction returns the index of the first action a canceled
// transaction failed on a condition, or -1.
func failedAction(err error) int {
	var txe *table.TxError
	if !errors.As(err, &txe) {
		return -1
	}
	for _, r := range txe.Reasons {
		if r.Code == "ConditionalCheckFailed" {
			return r.Index
		}
	}
	return -1
}

// lastRuleIndex is the index of the stage's last rule by key (0: none),
// read with one descending Query of Limit 1.
func (s *Store) lastRuleIndex(ctx context.Context, journeyID, stageID string) (int, error) {
	it, ok, err := firstOf(s.ents.rules.Items(ctx, ruleItem{JourneyID: journeyID}, entity.SortBeginsWith(stageID),
		entity.Descending(), entity.Limit(1), entity.Consistent()))
	if err != nil || !ok {
		return 0, err
	}
	return it.Index, nil
}

func (s *Store) ruleKey(ref RuleRef) (table.Key, error) {
	if err := checkID("RuleRef.JourneyID", ref.JourneyID); err != nil {
		return nil, err
	}
	if err := checkID("RuleRef.StageID", ref.StageID); err != nil {
		return nil, err
	}
	if err := checkID("RuleRef.RuleID", ref.RuleID); err != nil {
		return nil, err
	}
	return s.ents.rules.Key(ruleItem{JourneyID: ref.JourneyID, StageID: ref.StageID, Index: ref.Index, RuleID: ref.RuleID})
}

// getRule implements [Rules.Get].
func (s *Store) getRule(ctx context.Context, ref RuleRef, opts ...func(*ReadOptions)) (*Rule, error) {
	if _, err := s.ruleKey(ref); err != nil {
		return nil, err
	}
	it, err := get(ctx, s.ents.rules, ruleItem{JourneyID: ref.JourneyID, StageID: ref.StageID, Index: ref.Index, RuleID: ref.RuleID},
		opts, ErrRuleNotFound, ref.RuleID)
	if err != nil {
		return nil, err
	}
	r, err := it.rule()
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// setRuleStatus implements [Rules.SetStatus].
func (s *Store) setRuleStatus(ctx context.Context, ref RuleRef, status RuleStatus) (*Rule, error) {
	if !status.valid() {
		return nil, inputError("status", fmt.Sprintf("%q", status), "must be active, inactive or deprecated")
	}
	key, err := s.ruleKey(ref)
	if err != nil {
		return nil, err
	}
	journeyKey, _ := s.journeyKey(ref.JourneyID)
	for attempt := 0; ; attempt++ {
		r, err := s.getRule(ctx, ref, Consistent())
		if err != nil {
			return nil, err
		}
		if r.Status == status {
			return r, nil
		}
		now := s.now()
		delta := 0
		if r.Status == RuleActive {
			delta = -1
		} else if status == RuleActive {
			delta = 1
		}
		tx := s.t.WriteTx().Update(key,
			expression.Set(expression.Name("Data.status"), expression.Value(status)).
				Set(expression.Name(attrUpdatedAt), expression.Value(stamp(now))),
			table.If(expression.Name("Data.status").Equal(expression.Value(r.Status))))
		if delta != 0 {
			tx.Update(journeyKey, expression.Add(expression.Name("Data.aggregates.activeRules"), expression.Value(delta)).
				Set(expression.Name(attrUpdatedAt), expression.Value(stamp(now))),
				table.IfExists(), table.If(journeyOwn()), table.ItemOnConditionFailure())
		} else {
			// No count moves, but an import replacing the journey still
			// fences the rule.
			tx.Check(journeyKey, expression.AttributeExists(expression.Name(attrPK)).And(journeyOwn()))
		}
		err = tx.Run(ctx)
		if err == nil {
			r.Status, r.UpdatedAt = status, Time{now}
			return r, nil
		}
		switch failedAction(err) {
		case 0:
			if attempt+1 < raceAttempts {
				if err := s.lostRace(ctx, "Rules.SetStatus", ref.RuleID, attempt); err != nil {
					return nil, err
				}
				continue // changed since we read it
			}
		case 1:
			return nil, metadataRefused(ref.JourneyID, err, 1)
		}
		return nil, err
	}
}

// GlobalRules is the id of the rule library, the global rules every
// journey shares (PK JOURNEY#GLOBAL): a rule with scope global added to it
// with Library.Add applies to every journey. The id is reserved: the calls
// that take a journey id refuse it, and Store.Library reaches the library.
// Rules read from the library have it as their JourneyID.
const GlobalRules = "GLOBAL"

// appliesTo reports whether r, read from its journey's partition, applies
// to stage stageID of that journey (or, from GlobalRules, of any journey):
// a stage rule to its own stage and to those of applicableStages; a
// project or global rule to every stage, or to its own and those of
// applicableStages when it names any.
func (r Rule) appliesTo(stageID string) bool {
	if r.StageID == stageID || slices.Contains(r.Metadata.ApplicableStages, stageID) {
		return true
	}
	switch r.Scope {
	case ScopeProject, ScopeGlobal:
		return len(r.Metadata.ApplicableStages) == 0
	}
	return false
}

// journeyRules reads every rule of a journey: one Query,
// begins_with(SK, "RULE#").
func (s *Store) journeyRules(ctx context.Context, journeyID string, consistent bool) ([]Rule, error) {
	var out []Rule
	for it, err := range s.ents.rules.Items(ctx, ruleItem{JourneyID: journeyID}, entityRead(consistent)...) {
		if err != nil {
			return nil, err
		}
		r, err := it.rule()
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// rulesForStage implements [Rules.ForStage].
func (s *Store) rulesForStage(ctx context.Context, journeyID, stageID string, opts ...func(*ReadOptions)) ([]Rule, error) {
	if err := checkID("journeyId", journeyID); err != nil {
		return nil, err
	}
	if err := checkID("stageId", stageID); err != nil {
		return nil, err
	}
	consistent := applyReadOptions(opts).Consistent
	own, err := s.journeyRules(ctx, journeyID, consistent)
	if err != nil {
		return nil, err
	}
	var out []Rule
	for _, r := range own {
		if r.appliesTo(stageID) {
			out = append(out, r)
		}
	}
	if journeyID != GlobalRules {
		global, err := s.journeyRules(ctx, GlobalRules, consistent)
		if err != nil {
			return nil, err
		}
		for _, r := range global {
			if r.Scope == ScopeGlobal && r.appliesTo(stageID) {
				out = append(out, r)
			}
		}
	}
	slices.SortFunc(out, func(a, b Rule) int {
		if d := a.Priority.rank() - b.Priority.rank(); d != 0 {
			return d
		}
		if ga, gb := a.JourneyID == GlobalRules, b.JourneyID == GlobalRules; ga != gb {
			if ga {
				return 1
			}
			return -1
		}
		if c := strings.Compare(a.StageID, b.StageID); c != 0 {
			return c
		}
		if a.Index != b.Index {
			return a.Index - b.Index
		}
		return strings.Compare(a.RuleID, b.RuleID)
	})
	return out, nil
}

// sortRules orders rules by stage (stageOrder, then id for unknown
// stages), priority rank and index.
func sortRules(rules []Rule, stageOrder map[string]int) {
	slices.SortStableFunc(rules, func(a, b Rule) int {
		if a.StageID != b.StageID {
			oa, okA := stageOrder[a.StageID]
			ob, okB := stageOrder[b.StageID]
			switch {
			case okA && okB:
				return oa - ob
			case okA:
				return -1
			case okB:
				return 1
			}
			return strings.Compare(a.StageID, b.StageID)
		}
		if d := a.Priority.rank() - b.Priority.rank(); d != 0 {
			return d
		}
		if a.Index != b.Index {
			return a.Index - b.Index
		}
		return strings.Compare(a.RuleID, b.RuleID)
	})
}

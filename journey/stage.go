package journey

import (
	"context"
	"errors"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

// Stage keys (declared in declare).
const (
	// SK "STAGE#01#raw_analysis": stages sort in execution order.
	// No GSI1 keys: the seed's JOURNEY#{id}#STAGES entries are not
	// written (see "Stages and rules in GSI1" in the package doc).
	stageSortKey = "STAGE#{order:02d}#{stageId}"
)

// stageSK tells a stage's sort key (backups, patterns).
var stageSK = keys.MustSort(stageSortKey)

// StageStatus is a stage's state.
type StageStatus string

// Stage statuses: a stage is running while a job of it runs, and takes the
// status of its last finished job.
const (
	StagePending   StageStatus = "pending"
	StageRunning   StageStatus = "running"
	StageCompleted StageStatus = "completed"
	StageFailed    StageStatus = "failed"
	StageSkipped   StageStatus = "skipped"
	// StageCancelled: the journey was cancelled while a job of the stage ran.
	StageCancelled StageStatus = "cancelled"
)

// StepDefinition is one task of a stage.
type StepDefinition struct {
	StepID            string `dynamodbav:"stepId" json:"stepId"`
	Name              string `dynamodbav:"name" json:"name"`
	Description       string `dynamodbav:"description" json:"description"`
	AIAssisted        bool   `dynamodbav:"aiAssisted" json:"aiAssisted"`
	EstimatedDuration string `dynamodbav:"estimatedDuration" json:"estimatedDuration"`
}

// Stage is a stage definition (SK STAGE#{order:02d}#{stageId}).
type Stage struct {
	StageID            string           `dynamodbav:"stageId" json:"stageId"`
	Name               string           `dynamodbav:"name" json:"name"`
	Description        string           `dynamodbav:"description" json:"description"`
	Order              int              `dynamodbav:"order" json:"order"`
	CanSkip            bool             `dynamodbav:"canSkip" json:"canSkip"`
	EstimatedDuration  string           `dynamodbav:"estimatedDuration,omitempty" json:"estimatedDuration,omitempty"`
	Status             StageStatus      `dynamodbav:"status" json:"status"`
	SecondBrainEnabled bool             `dynamodbav:"secondBrainEnabled" json:"secondBrainEnabled"`
	RuleTypes          []string         `dynamodbav:"ruleTypes,omitempty" json:"ruleTypes,omitempty"`
	Steps              []StepDefinition `dynamodbav:"steps,omitempty" json:"steps,omitempty"`
	// LastExecution and LastRuleIndex are not in the seed: they are the
	// highest execution number and rule index handed out, which Jobs.Start
	// and Rules.Add advance by a conditional write so that two callers can
	// never take the same number (the job's and rule's sort keys also
	// hold a timestamp or a rule id, so the key alone would not stop it).
	LastExecution int `dynamodbav:"lastExecution,omitempty" json:"lastExecution,omitempty"`
	LastRuleIndex int `dynamodbav:"lastRuleIndex,omitempty" json:"lastRuleIndex,omitempty"`
	// LastJob is the execution Jobs.Start created last (not in the seed
	// either): the stage is running exactly while that job is active, so
	// Jobs.Start knows the job and its deadline without reading it.
	LastJob *StageJob `dynamodbav:"lastJob,omitempty" json:"lastJob,omitempty"`

	JourneyID string `dynamodbav:"-" json:"journeyId"`
	CreatedAt Time   `dynamodbav:"-" json:"createdAt"`
	UpdatedAt Time   `dynamodbav:"-" json:"updatedAt"`
}

// DefaultStages returns the seed's six stages in order. Only raw_analysis
// has steps and rule types in the seed; the others start without and take
// whatever step ids their jobs log under.
func DefaultStages() []Stage {
	return []Stage{
		{
			StageID: "raw_analysis", Name: "Raw Analysis", Description: "Analyze source schema and extract metadata",
			EstimatedDuration: "30m", SecondBrainEnabled: true, RuleTypes: []string{"field_mapping", "data_interpretation"},
			Steps: []StepDefinition{
				{StepID: "schema_extraction", Name: "Schema Extraction", Description: "Extract schema from source database", AIAssisted: true, EstimatedDuration: "10m"},
				{StepID: "metadata_analysis", Name: "Metadata Analysis", Description: "Analyze table relationships and constraints", AIAssisted: true, EstimatedDuration: "15m"},
				{StepID: "data_profiling", Name: "Data Profiling", Description: "Profile data patterns and quality", AIAssisted: false, EstimatedDuration: "5m"},
			},
		},
		{StageID: "stripped_schema", Name: "Stripped Schema", Description: "Extract and clean schema structure", SecondBrainEnabled: true},
		{StageID: "tmf_mapping", Name: "TMF Mapping", Description: "Map to TMF API specifications", SecondBrainEnabled: true},
		{StageID: "migration_planning", Name: "Migration Planning", Description: "Plan data migration strategy", SecondBrainEnabled: true},
		{StageID: "data_migration", Name: "Data Migration", Description: "Execute data transformation", SecondBrainEnabled: true},
		{StageID: "verification_validation", Name: "Verification Validation", Description: "Validate transformed data", SecondBrainEnabled: true},
	}
}

// stageItem is a stage definition as stored (declare): the stage is
// Data, and its key parts, kept in the keys only, are copies of the
// stage's fields.
type stageItem struct {
	JourneyID string `dynamodbav:"journeyId"`
	Order     int    `dynamodbav:"order"`
	StageID   string `dynamodbav:"stageId"`
	CreatedAt string `dynamodbav:"CreatedAt"`
	UpdatedAt string `dynamodbav:"UpdatedAt,omitempty"`
	Data      Stage  `dynamodbav:"Data"`
}

func stageItemOf(st Stage) stageItem {
	return stageItem{JourneyID: st.JourneyID, Order: st.Order, StageID: st.StageID,
		CreatedAt: st.CreatedAt.String(), UpdatedAt: st.UpdatedAt.String(), Data: st}
}

func (it stageItem) stage() (Stage, error) {
	st := it.Data
	st.JourneyID = it.JourneyID
	if err := st.CreatedAt.parse(it.CreatedAt); err != nil {
		return st, err
	}
	return st, st.UpdatedAt.parse(it.UpdatedAt)
}

// stageFromItem decodes a stage's item without a store (a change's image).
func stageFromItem(item table.Item) (Stage, error) {
	return decodeOffline(item, func(e entities) *entity.Entity[stageItem] { return e.stages }, stageItem.stage)
}

// listStages implements [Stages.List].
func (s *Store) listStages(ctx context.Context, journeyID, cursor string, o ListOptions) (table.Page[Stage], error) {
	if err := checkID("journeyId", journeyID); err != nil {
		return table.Page[Stage]{}, err
	}
	page, err := s.ents.stages.List(ctx, stageItem{JourneyID: journeyID}, cursor, entityList("", o)...)
	if err != nil {
		return table.Page[Stage]{}, err
	}
	return pageOf(page, stageItem.stage)
}

// stages returns a journey's stages in execution order (one Query, reading
// every page). A journey without stages, or no journey, gives an empty
// list.
func (s *Store) stages(ctx context.Context, journeyID string, opts ...func(*ReadOptions)) ([]Stage, error) {
	if err := checkID("journeyId", journeyID); err != nil {
		return nil, err
	}
	var out []Stage
	for it, err := range s.ents.stages.Items(ctx, stageItem{JourneyID: journeyID}, entityRead(applyReadOptions(opts).Consistent)...) {
		if err != nil {
			return nil, err
		}
		st, err := it.stage()
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

// getStage implements [Stages.Get].
func (s *Store) getStage(ctx context.Context, journeyID, stageID string, opts ...func(*ReadOptions)) (*Stage, error) {
	if err := checkID("journeyId", journeyID); err != nil {
		return nil, err
	}
	if err := checkID("stageId", stageID); err != nil {
		return nil, err
	}
	stages, err := s.stages(ctx, journeyID, opts...)
	if err != nil {
		return nil, err
	}
	for _, st := range stages {
		if st.StageID == stageID {
			return &st, nil
		}
	}
	return nil, notFound(ErrStageNotFound, journeyID+"/"+stageID, nil)
}

// stage finds a stage by id among the journey's stages, and returns how
// many stages there are. The stage's sort key holds its order, which
// callers only know by id, hence the Query.
func (s *Store) stage(ctx context.Context, journeyID, stageID string) (Stage, int, error) {
	stages, err := s.stages(ctx, journeyID, Consistent())
	if err != nil {
		return Stage{}, 0, err
	}
	for _, st := range stages {
		if st.StageID == stageID {
			return st, len(stages), nil
		}
	}
	// Not there: an import in progress may not have written it yet, which
	// is worth saying (one more read, on this failure path only).
	if _, err := s.getJourney(ctx, journeyID, Consistent()); errors.Is(err, ErrImportInProgress) || errors.Is(err, ErrDeleteInProgress) {
		return Stage{}, len(stages), err
	}
	return Stage{}, len(stages), notFound(ErrStageNotFound, journeyID+"/"+stageID, nil)
}

func (s *Store) stageKey(journeyID string, order int, stageID string) (table.Key, error) {
	return s.ents.stages.Key(stageItem{JourneyID: journeyID, Order: order, StageID: stageID})
}

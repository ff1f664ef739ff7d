package journey

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

// Journey metadata keys (declared in declare).
const (
	// SK "METADATA": one per journey.
	metadataSK = "METADATA"
	// GSI1PK "JOURNEYS", GSI1SK "2025-11-01T20:00:00.000000Z": every
	// listed journey's metadata by creation, for the dashboard. Sparse:
	// the rule library (Library.Create) and an import's claim are not
	// listed (no GSI1 keys).
	journeysIndexPartition = "JOURNEYS"
	journeysIndexSort      = "{listedAt:time}"
)

// journeyPK is every item's PK (the partition-wide reads: Load, backups,
// Delete).
var journeyPK = keys.MustPartition(journeyPartition)

// Status is a journey's state.
type Status string

// The seed's journey statuses.
const (
	StatusPending   Status = "pending"
	StatusRunning   Status = "running"
	StatusCompleted Status = "completed"
	StatusFailed    Status = "failed"
	StatusPaused    Status = "paused"
	StatusCancelled Status = "cancelled"
)

func (s Status) valid() bool {
	switch s {
	case StatusPending, StatusRunning, StatusCompleted, StatusFailed, StatusPaused, StatusCancelled:
		return true
	}
	return false
}

// statusFilter keeps the items whose Data.status is one of statuses (no
// option for none): the filter of every journey listing by status
// (Journeys.List, Journeys.ByPriority, Jobs.Recover), since GSI1 JOURNEYS
// sorts by creation time.
func statusFilter(statuses []Status) []func(*entity.ReadOptions) {
	if len(statuses) == 0 {
		return nil
	}
	return []func(*entity.ReadOptions){entity.Where(statusIn("Data.status", statuses...))}
}

// Priority orders journeys and rules: critical first, then high, medium,
// low. A journey's priority orders the processing of journeys (the seed's
// "priority determines processing order"): Journeys.ByPriority lists
// them, and Jobs.TimedOut and Jobs.Recover go through them, by priority
// then age (processingOrder). A rule's orders the rules of a stage
// (Rules.ForStage).
type Priority string

// The seed's priorities.
const (
	PriorityLow      Priority = "low"
	PriorityMedium   Priority = "medium"
	PriorityHigh     Priority = "high"
	PriorityCritical Priority = "critical"
)

// rank is the execution order of a priority: critical 0 ... low 3.
func (p Priority) rank() int {
	switch p {
	case PriorityCritical:
		return 0
	case PriorityHigh:
		return 1
	case PriorityMedium:
		return 2
	case PriorityLow:
		return 3
	}
	return 4
}

func (p Priority) valid() bool { return p.rank() < 4 }

// processingOrder is the order in which journeys' work is processed: by
// priority, critical first; then by age, the oldest createdAt first (a
// journey waiting longer goes first among equals); then by id, so the
// order is total. A priority the seed does not name (written by others)
// comes after low.
func processingOrder(a, b Journey) int {
	return cmp.Or(cmp.Compare(a.Priority.rank(), b.Priority.rank()),
		a.CreatedAt.Compare(b.CreatedAt.Time), cmp.Compare(a.ID, b.ID))
}

// Source is where a journey's data comes from.
type Source struct {
	Type          string `dynamodbav:"type" json:"type"`
	SchemaID      string `dynamodbav:"schemaId" json:"schemaId"`
	SchemaName    string `dynamodbav:"schemaName" json:"schemaName"`
	SchemaVersion string `dynamodbav:"schemaVersion" json:"schemaVersion"`
}

// Configuration is a journey's processing configuration.
type Configuration struct {
	Timeout               int    `dynamodbav:"timeout" json:"timeout"` // seconds
	MaxDepth              int    `dynamodbav:"maxDepth" json:"maxDepth"`
	TMFSpecVersion        string `dynamodbav:"tmfSpecVersion" json:"tmfSpecVersion"`
	OutputFormat          string `dynamodbav:"outputFormat" json:"outputFormat"`
	RetryAttempts         int    `dynamodbav:"retryAttempts" json:"retryAttempts"`
	EnableDetailedLogging bool   `dynamodbav:"enableDetailedLogging" json:"enableDetailedLogging"`
	ValidateAtEachStage   bool   `dynamodbav:"validateAtEachStage" json:"validateAtEachStage"`
	SecondBrainEnabled    bool   `dynamodbav:"secondBrainEnabled" json:"secondBrainEnabled"`
	RuleEngineVersion     string `dynamodbav:"ruleEngineVersion" json:"ruleEngineVersion"`
}

// Aggregates are a journey's running totals, kept by ADD so concurrent
// writers never lose a count.
type Aggregates struct {
	TotalJobs     int `dynamodbav:"totalJobs" json:"totalJobs"`
	CompletedJobs int `dynamodbav:"completedJobs" json:"completedJobs"`
	FailedJobs    int `dynamodbav:"failedJobs" json:"failedJobs"`
	// TotalExecutionTime is the seed's display form ("125m"). A string
	// cannot be added to, so the store keeps TotalExecutionSeconds by ADD
	// and derives this field from it (see the package doc).
	TotalExecutionTime    string  `dynamodbav:"totalExecutionTime" json:"totalExecutionTime"`
	TotalExecutionSeconds float64 `dynamodbav:"totalExecutionSeconds,omitempty" json:"totalExecutionSeconds,omitempty"`
	TotalLogs             int     `dynamodbav:"totalLogs" json:"totalLogs"`
	TotalErrors           int     `dynamodbav:"totalErrors" json:"totalErrors"`
	TotalWarnings         int     `dynamodbav:"totalWarnings" json:"totalWarnings"`
	TotalRules            int     `dynamodbav:"totalRules" json:"totalRules"`
	ActiveRules           int     `dynamodbav:"activeRules" json:"activeRules"`
}

// formatMinutes is the seed's "125m": whole minutes.
func formatMinutes(seconds float64) string {
	return strconv.Itoa(int(math.Floor(seconds/60))) + "m"
}

// Journey is a transformation journey's metadata (SK METADATA).
type Journey struct {
	ID                string            `dynamodbav:"journeyId" json:"journeyId"`
	Name              string            `dynamodbav:"name" json:"name"`
	Description       string            `dynamodbav:"description" json:"description"`
	Status            Status            `dynamodbav:"status" json:"status"`
	Priority          Priority          `dynamodbav:"priority" json:"priority"`
	CreatedBy         string            `dynamodbav:"createdBy" json:"createdBy"`
	ODAComponentType  string            `dynamodbav:"odaComponentType" json:"odaComponentType"`
	Source            Source            `dynamodbav:"source" json:"source"`
	Configuration     Configuration     `dynamodbav:"configuration" json:"configuration"`
	CurrentStageIndex int               `dynamodbav:"currentStageIndex" json:"currentStageIndex"`
	CurrentStageID    string            `dynamodbav:"currentStageId" json:"currentStageId"`
	OverallProgress   int               `dynamodbav:"overallProgress" json:"overallProgress"`
	CurrentJobs       map[string]string `dynamodbav:"currentJobs" json:"currentJobs"` // stage id -> latest job id
	// CompletedStages are the ids of the stages done (completed or
	// skipped) in stage order, a field the seed does not have:
	// overallProgress is counted from it, so a retried stage never moves
	// progress backwards and a stage counts once.
	CompletedStages []string   `dynamodbav:"completedStages,omitempty" json:"completedStages,omitempty"`
	Aggregates      Aggregates `dynamodbav:"aggregates" json:"aggregates"`
	// StageEdits counts the edits of the journey's stages (Stages.Add,
	// Move, Remove), a field the seed does not have: Jobs.Finish and
	// Stages.Skip write progress and the next stage from the stages they
	// read, conditioned on it being as read, so a move computed from the
	// stages before an edit never lands after it.
	StageEdits int `dynamodbav:"stageEdits,omitempty" json:"stageEdits,omitempty"`

	// From the item's CreatedAt and UpdatedAt, outside Data.
	CreatedAt Time `dynamodbav:"-" json:"createdAt"`
	UpdatedAt Time `dynamodbav:"-" json:"updatedAt"`
}

// NewJourney is what Journeys.Create needs.
type NewJourney struct {
	// ID is the journey id; a new "JRN-..." id when "".
	ID               string
	Name             string
	Description      string
	Priority         Priority // PriorityMedium when ""
	CreatedBy        string
	ODAComponentType string
	Source           Source
	// Configuration is the journey's; a Timeout of 0 takes the store's
	// Options.JobTimeout (the seed's 1800 s by default), and negative
	// numbers are refused.
	Configuration Configuration
	// Stages are the journey's stages in execution order, at least one;
	// DefaultStages() when nil. Order is taken from the position (1, 2, ...).
	Stages []Stage
}

func (s *Store) journeyKey(id string) (table.Key, error) {
	return s.ents.journeys.Key(journeyItem{JourneyID: id})
}

func (in *NewJourney) check() error {
	if in.ID != "" {
		if err := checkID("NewJourney.ID", in.ID); err != nil {
			return err
		}
	}
	if in.Name == "" {
		return inputError("NewJourney.Name", `""`, "a journey needs a name")
	}
	if in.Priority != "" && !in.Priority.valid() {
		return inputError("NewJourney.Priority", in.Priority, "must be low, medium, high or critical")
	}
	if in.Configuration.Timeout < 0 || in.Configuration.MaxDepth < 0 || in.Configuration.RetryAttempts < 0 {
		return inputError("NewJourney.Configuration", fmt.Sprintf("%+v", in.Configuration), "timeout, maxDepth and retryAttempts must not be negative")
	}
	if in.Stages != nil && len(in.Stages) == 0 {
		// A journey without stages could never run a job; nil asks for the
		// default six.
		return inputError("NewJourney.Stages", "[]", "a journey needs at least one stage (nil for DefaultStages())")
	}
	if len(in.Stages) > maxStages {
		// STAGE#{order:02d}, and one transaction of at most 100 actions.
		return inputError("NewJourney.Stages", len(in.Stages), "at most 99 stages")
	}
	seen := map[string]bool{}
	for i := range in.Stages {
		st := &in.Stages[i]
		field := fmt.Sprintf("NewJourney.Stages[%d]", i)
		if err := checkNewStage(field, *st, false); err != nil {
			return err
		}
		if seen[st.StageID] {
			return inputError(field+".StageID", st.StageID, "stage ids must be unique within a journey")
		}
		seen[st.StageID] = true
	}
	return nil
}

// createJourney implements [Journeys.Create] (listed) and
// [Library.Create] (not listed: its metadata has no GSI1 keys, so
// Journeys.List does not show the rule library).
func (s *Store) createJourney(ctx context.Context, in NewJourney, listed bool) (*Complete, error) {
	if err := in.check(); err != nil {
		return nil, err
	}
	if in.ID == "" {
		id, err := s.newID("JRN")
		if err != nil {
			return nil, err
		}
		if err := refuseReserved("Options.NewID(JRN)", id); err != nil {
			return nil, err
		}
		in.ID = id
	}
	if in.Priority == "" {
		in.Priority = PriorityMedium
	}
	stages := in.Stages
	if stages == nil {
		stages = DefaultStages()
	}
	now := s.now()
	in.Configuration.Timeout = s.timeout(in.Configuration.Timeout)
	j := Journey{
		ID: in.ID, Name: in.Name, Description: in.Description, Status: StatusPending, Priority: in.Priority,
		CreatedBy: in.CreatedBy, ODAComponentType: in.ODAComponentType, Source: in.Source,
		Configuration: in.Configuration, CurrentJobs: map[string]string{},
		Aggregates: Aggregates{TotalExecutionTime: formatMinutes(0)},
		CreatedAt:  Time{now}, UpdatedAt: Time{now},
	}
	if len(stages) > 0 {
		j.CurrentStageID = stages[0].StageID
	}
	c := &Complete{Journey: j}
	tx := s.t.WriteTx()
	if err := s.ents.journeys.TxCreate(journeyItemOf(j, listed)).AddTo(ctx, tx); err != nil {
		return nil, err
	}
	for i, st := range stages {
		st.JourneyID, st.Order = in.ID, i+1
		if st.Status == "" {
			st.Status = StagePending
		}
		st.CreatedAt, st.UpdatedAt = Time{now}, Time{now}
		if err := s.ents.stages.TxCreate(stageItemOf(st)).AddTo(ctx, tx); err != nil {
			return nil, err
		}
		c.Stages = append(c.Stages, st)
	}
	if err := tx.Run(ctx); err != nil {
		if errors.Is(err, table.ErrAlreadyExists) {
			return nil, fmt.Errorf("%w: %q: %w", ErrJourneyExists, in.ID, err)
		}
		return nil, err
	}
	return c, nil
}

// journeyItem is a journey's metadata as stored (declare): the journey is
// Data; its id, kept in the key only, is a copy of the journey's, and
// ListedAt, its creation time when it is listed, is GSI1SK's.
type journeyItem struct {
	JourneyID string    `dynamodbav:"journeyId"`
	ListedAt  time.Time `dynamodbav:"listedAt"`
	CreatedAt string    `dynamodbav:"CreatedAt"`
	UpdatedAt string    `dynamodbav:"UpdatedAt,omitempty"`
	Data      Journey   `dynamodbav:"Data"`
	// ImportID is set only on a METADATA item that is an import's claim
	// (see Backups.ImportFrom).
	ImportID string `dynamodbav:"ImportId,omitempty"`
	// DeletingAt is set only on a METADATA item Journeys.Delete marked:
	// the journey is being deleted.
	DeletingAt string `dynamodbav:"DeletingAt,omitempty"`
}

// journeyItemOf is j's metadata item, in GSI1 JOURNEYS when listed.
func journeyItemOf(j Journey, listed bool) journeyItem {
	if j.CurrentJobs == nil {
		j.CurrentJobs = map[string]string{}
	}
	it := journeyItem{JourneyID: j.ID, CreatedAt: j.CreatedAt.String(), UpdatedAt: j.UpdatedAt.String(), Data: j}
	if listed {
		it.ListedAt = j.CreatedAt.Time
	}
	return it
}

// journey is the stored journey; an import's claim and a journey being
// deleted are not one (ErrImportInProgress, ErrDeleteInProgress).
func (it journeyItem) journey() (Journey, error) {
	j := it.Data
	if it.ImportID != "" {
		return j, fmt.Errorf("%w: %q (import %s)", ErrImportInProgress, j.ID, it.ImportID)
	}
	if it.DeletingAt != "" {
		return j, deletingError(j.ID, nil)
	}
	if err := j.CreatedAt.parse(it.CreatedAt); err != nil {
		return j, err
	}
	if err := j.UpdatedAt.parse(it.UpdatedAt); err != nil {
		return j, err
	}
	if j.Aggregates.TotalExecutionSeconds > 0 {
		j.Aggregates.TotalExecutionTime = formatMinutes(j.Aggregates.TotalExecutionSeconds)
	}
	if j.CurrentJobs == nil {
		j.CurrentJobs = map[string]string{}
	}
	return j, nil
}

// journeyFromItem decodes a journey's metadata item without a store (a
// change's image).
func journeyFromItem(item table.Item) (Journey, error) {
	return decodeOffline(item, func(e entities) *entity.Entity[journeyItem] { return e.journeys }, journeyItem.journey)
}

// get reads one item of e with the caller's read options; a missing item is
// notFound(sentinel, what), so every Get* call reports absence the same way.
func get[T any](ctx context.Context, e *entity.Entity[T], key T, opts []func(*ReadOptions), sentinel error, what string) (T, error) {
	v, err := e.Get(ctx, key, entityRead(applyReadOptions(opts).Consistent)...)
	if errors.Is(err, table.ErrNotFound) {
		return v, notFound(sentinel, what, err)
	}
	return v, err
}

// entityRead is the entity read options of a read consistent or not.
func entityRead(consistent bool) []func(*entity.ReadOptions) {
	if consistent {
		return []func(*entity.ReadOptions){entity.Consistent()}
	}
	return nil
}

// getJourney implements [Journeys.Get].
func (s *Store) getJourney(ctx context.Context, id string, opts ...func(*ReadOptions)) (*Journey, error) {
	if err := checkID("journeyId", id); err != nil {
		return nil, err
	}
	it, err := get(ctx, s.ents.journeys, journeyItem{JourneyID: id}, opts, ErrJourneyNotFound, id)
	if err != nil {
		return nil, err
	}
	j, err := it.journey()
	if err != nil {
		return nil, err
	}
	return &j, nil
}

// listJourneys implements [Journeys.List].
func (s *Store) listJourneys(ctx context.Context, cursor string, o ListOptions) (table.Page[Journey], error) {
	o.NewestFirst = !o.OldestFirst
	page, err := s.ents.journeys.List(ctx, journeyItem{}, cursor, append(entityList(IndexGSI1, o), statusFilter(o.Statuses)...)...)
	if err != nil {
		return table.Page[Journey]{}, err
	}
	return pageOf(page, journeyItem.journey)
}

// journeysByPriority implements [Journeys.ByPriority] and lists the
// journeys Jobs.Recover goes through: every listed journey in one of
// statuses (all with none), read from GSI1 JOURNEYS (every page, with
// the status filter) and sorted by processingOrder. Journeys being
// imported are not listed (their claim has no GSI1 keys); one that reads
// as being imported is skipped.
func (s *Store) journeysByPriority(ctx context.Context, statuses []Status) ([]Journey, error) {
	var out []Journey
	for it, err := range s.ents.journeys.Items(ctx, journeyItem{}, append(statusFilter(statuses), entity.ByIndex(IndexGSI1))...) {
		if err != nil {
			return nil, err
		}
		j, err := it.journey()
		if errors.Is(err, ErrImportInProgress) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	slices.SortFunc(out, processingOrder)
	return out, nil
}

// pause implements [Journeys.Pause].
func (s *Store) pause(ctx context.Context, id string) (*Journey, error) {
	return s.move(ctx, id, "pause", StatusPaused, StatusPending, StatusRunning)
}

// resume implements [Journeys.Resume].
func (s *Store) resume(ctx context.Context, id string) (*Journey, error) {
	return s.move(ctx, id, "resume", StatusRunning, StatusPaused, StatusFailed)
}

// move is one conditional UpdateItem on the journey's current status. A
// refused move returns a *StatusError with the status DynamoDB returned
// along with the refusal.
func (s *Store) move(ctx context.Context, id, op string, to Status, from ...Status) (*Journey, error) {
	if err := checkID("journeyId", id); err != nil {
		return nil, err
	}
	key, err := s.journeyKey(id)
	if err != nil {
		return nil, err
	}
	u := expression.Set(expression.Name("Data.status"), expression.Value(to)).
		Set(expression.Name(attrUpdatedAt), expression.Value(stamp(s.now())))
	var item table.Item
	err = s.t.Update(ctx, key, u, table.IfExists(), table.If(statusIn("Data.status", from...).And(journeyOwn())),
		table.ItemOnConditionFailure(), table.ReturnNew(&item))
	if err != nil {
		return nil, s.journeyWriteError(id, op, from, err)
	}
	j, err := decode(ctx, s.ents.journeys, item, journeyItem.journey)
	if err != nil {
		return nil, err
	}
	return &j, nil
}

// journeyWriteError turns a refused conditional write on the METADATA
// item into ErrJourneyNotFound or a *StatusError.
func (s *Store) journeyWriteError(id, op string, allowed []Status, err error) error {
	if errors.Is(err, table.ErrNotFound) {
		return notFound(ErrJourneyNotFound, id, err)
	}
	var te *table.Error
	if errors.As(err, &te) && errors.Is(err, table.ErrConditionFailed) {
		if claimed(te.Item) {
			return claimedError(id, te.Item, err)
		}
		return &StatusError{Entity: "journey", ID: id, Op: op, Current: dataStatus(te.Item),
			Allowed: statusStrings(allowed), Cause: err}
	}
	return err
}

// statusIn is "path IN (from...)".
func statusIn[S ~string](path string, from ...S) expression.ConditionBuilder {
	ops := make([]expression.OperandBuilder, len(from))
	for i, f := range from {
		ops[i] = expression.Value(string(f))
	}
	return expression.Name(path).In(ops[0], ops[1:]...)
}

func statusStrings[S ~string](ss []S) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = string(s)
	}
	return out
}

// dataStatus reads Data.status from a raw item ("" when absent).
func dataStatus(item table.Item) string {
	var rec struct {
		Data struct {
			Status string `dynamodbav:"status"`
		} `dynamodbav:"Data"`
	}
	if len(item) == 0 || table.Unmarshal(item, &rec) != nil {
		return ""
	}
	return rec.Data.Status
}

// progressFor is the journey's overallProgress once the stage of the given
// order (1-based) of n stages completed: the share of completed stages,
// since stages run in order.
func progressFor(order, n int) int {
	if n <= 0 {
		return 0
	}
	return order * 100 / n
}

// elapsed is end - start in seconds, at millisecond precision like the
// seed's durations (125.5).
func elapsed(start, end time.Time) float64 {
	return math.Round(end.Sub(start).Seconds()*1000) / 1000
}

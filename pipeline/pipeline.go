package pipeline

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

// delimiter is the seed's key delimiter.
var delimiter = keys.WithDelimiter(":")

// Keys of a pipeline's current item (seed: pk "P:<pipelineId>",
// sk "PV:current", siKey1 "P"); the entity "pipeline" of schema.go.
var (
	// PK "P:01HF3Q0Z8W6T4X1N5R2K7M9C3D"
	pipelinePK = keys.MustPartition("P:{pipelineId}", delimiter)
)

const (
	// currentSK is the sort key of the current item. The seed's table says
	// PV:latest, its access patterns PV:current; see the package doc.
	currentSK = "PV:current"
	// pipelinesPartition is the GSI-1 partition of every current item.
	pipelinesPartition = "P"
)

// timeLayout is the seed's createdAt/updatedAt format: ISO-8601 UTC with
// milliseconds ("2022-08-10T23:55:20.322Z").
const timeLayout = "2006-01-02T15:04:05.000Z"

// State is a pipeline's state attribute (the seed's example: "enabled").
type State string

// The states the seed names; others are stored as given.
const (
	StateEnabled  State = "enabled"
	StateDisabled State = "disabled"
)

// Tag is one {key, value} of a pipeline. A value containing '/' is
// hierarchical ("usa/northwest/seattle") and matches Pipelines.ByTags at every
// level ("usa", "usa/northwest", "usa/northwest/seattle").
type Tag struct {
	Key   string `dynamodbav:"key" json:"key"`
	Value string `dynamodbav:"value" json:"value"`
}

// Transformer is the seed's transformer object: formulas over parameters.
type Transformer struct {
	Transforms []Transform `dynamodbav:"transforms" json:"transforms"`
	Parameters []Field     `dynamodbav:"parameters" json:"parameters"`
}

// Transform is one formula and the outputs it produces.
type Transform struct {
	Index   int     `dynamodbav:"index" json:"index"`
	Formula string  `dynamodbav:"formula" json:"formula"`
	Outputs []Field `dynamodbav:"outputs" json:"outputs"`
}

// Field is a transformer parameter or output.
type Field struct {
	Index       int    `dynamodbav:"index" json:"index"`
	Key         string `dynamodbav:"key" json:"key"`
	Label       string `dynamodbav:"label" json:"label"`
	Description string `dynamodbav:"description" json:"description"`
	Type        string `dynamodbav:"type" json:"type"`
}

// Pipeline is a pipeline as of one version: the current one from Get and
// List, an older one from Versions.Get and Versions.
type Pipeline struct {
	ID          string            `json:"pipelineId"`
	Name        string            `json:"name"`
	State       State             `json:"state"`
	CreatedAt   time.Time         `json:"createdAt"`
	UpdatedAt   time.Time         `json:"updatedAt"`
	CreatedBy   string            `json:"createdBy,omitempty"`
	UpdatedBy   string            `json:"updatedBy,omitempty"`
	Version     int               `json:"version"`
	Attributes  map[string]string `json:"attributes,omitempty"`
	Tags        []Tag             `json:"tags,omitempty"`
	Transformer *Transformer      `json:"transformer,omitempty"`
	Groups      []string          `json:"groups,omitempty"`
}

// Input is what a caller sets on Create and Update. Update replaces every
// field with what Input holds, as the seed's "update = create a new
// version" does.
type Input struct {
	// ID of a new pipeline; Create generates one (Options.NewID) when
	// empty. Update ignores it unless it differs from the id updated.
	ID    string
	Name  string
	State State // default StateEnabled
	// By is the user making the change: createdBy and updatedBy on Create,
	// updatedBy on Update.
	By          string
	Attributes  map[string]string
	Tags        []Tag
	Transformer *Transformer
	Groups      []string
}

// pipelineItem is the stored layout of the current item and of version
// items (entities "pipeline" and "version"): the id is in pk only.
type pipelineItem struct {
	ID          string            `dynamodbav:"pipelineId"`
	Name        string            `dynamodbav:"name"`
	State       State             `dynamodbav:"state"`
	CreatedAt   string            `dynamodbav:"createdAt"`
	UpdatedAt   string            `dynamodbav:"updatedAt"`
	CreatedBy   string            `dynamodbav:"createdBy,omitempty"`
	UpdatedBy   string            `dynamodbav:"updatedBy,omitempty"`
	Version     int               `dynamodbav:"version"`
	Attributes  map[string]string `dynamodbav:"attributes,omitempty"`
	Tags        []Tag             `dynamodbav:"tags,omitempty"`
	Transformer *Transformer      `dynamodbav:"transformer,omitempty"`
	Groups      []string          `dynamodbav:"groups,omitempty"`
	// Deleting is set (to the time Delete started) on the current item of
	// a pipeline being deleted.
	Deleting string `dynamodbav:"deleting,omitempty"`
}

func (it *pipelineItem) pipeline() (*Pipeline, error) {
	created, err1 := time.Parse(timeLayout, it.CreatedAt)
	updated, err2 := time.Parse(timeLayout, it.UpdatedAt)
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("pipeline: item of %s version %d: %w", it.ID, it.Version, err)
	}
	return &Pipeline{
		ID: it.ID, Name: it.Name, State: it.State,
		CreatedAt: created, UpdatedAt: updated, CreatedBy: it.CreatedBy, UpdatedBy: it.UpdatedBy,
		Version: it.Version, Attributes: it.Attributes, Tags: it.Tags, Transformer: it.Transformer, Groups: it.Groups,
	}, nil
}

// itemOf is the stored form of p: the current item, and (through the
// "version" entity) its version's item.
func itemOf(p *Pipeline) pipelineItem {
	return pipelineItem{
		ID: p.ID, Name: p.Name, State: p.State,
		CreatedAt: p.CreatedAt.UTC().Format(timeLayout), UpdatedAt: p.UpdatedAt.UTC().Format(timeLayout),
		CreatedBy: p.CreatedBy, UpdatedBy: p.UpdatedBy, Version: p.Version,
		Attributes: p.Attributes, Tags: p.Tags, Transformer: p.Transformer, Groups: p.Groups,
	}
}

// Create writes a new pipeline as version 1, in one transaction with its
// tag items (every level of hierarchical tags), the tag aggregates (ADD 1)
// and its group memberships. A pipeline with in.ID that exists already
// fails with an error matching table.ErrAlreadyExists; bad input and more
// tags than one transaction holds (*TooManyTagsError) fail before any
// request.
func (s *Store) Create(ctx context.Context, in Input) (_ *Pipeline, err error) {
	ctx, span := s.start(ctx, "pipeline.Create")
	defer span.End(&err)
	if err := s.ready(ctx); err != nil {
		return nil, err
	}
	now := s.now()
	if in.ID == "" {
		in.ID = s.opts.NewID(now)
	}
	p, err := s.newPipeline(in, now)
	if err != nil {
		return nil, err
	}
	p.CreatedBy, p.Version = in.By, 1
	entries := tagEntries(p.Tags)
	if n := 2 + len(p.Groups) + 2*len(entries); n > maxTxActions {
		return nil, &TooManyTagsError{PipelineID: p.ID, Actions: n, Max: maxTxActions}
	}
	tx := []entity.Action{s.current.TxCreate(itemOf(p)), s.versions.TxCreate(itemOf(p))}
	for _, g := range p.Groups {
		tx = append(tx, s.groups.TxPut(groupItem{PipelineID: p.ID, GroupID: g}))
	}
	for _, e := range entries {
		tx = append(tx, s.tags.TxPut(e.item(p.ID)), s.aggregateAdd(e, 1))
	}
	if err := entity.Transact(ctx, tx...); err != nil {
		return nil, fmt.Errorf("pipeline: create %q: %w", p.ID, err)
	}
	return p, nil
}

// newPipeline validates in and returns the record it describes at now
// (version and createdBy left to the caller).
func (s *Store) newPipeline(in Input, now time.Time) (*Pipeline, error) {
	if err := validateInput(in); err != nil {
		return nil, err
	}
	if in.State == "" {
		in.State = StateEnabled
	}
	return &Pipeline{
		ID: in.ID, Name: in.Name, State: in.State,
		CreatedAt: now, UpdatedAt: now, UpdatedBy: in.By,
		Attributes: in.Attributes, Tags: slices.Clone(in.Tags), Transformer: in.Transformer,
		Groups: slices.Clone(in.Groups),
	}, nil
}

// maxTxActions is DynamoDB's limit on actions per TransactWriteItems.
const maxTxActions = 100

// Update writes version+1 of pipeline id from in, based on version: the
// current item is replaced only if its version is still that one, so of two
// updates based on the same version one wins and the other gets a
// *ConflictError (ErrConflict) and writes nothing. In the same transaction
// the new version item is created, tag items of removed tags are deleted
// and of new tags written, the aggregates adjusted by ADD -1/+1, and group
// memberships added and removed. A missing pipeline is ErrNotFound.
func (s *Store) Update(ctx context.Context, id string, version int, in Input) (_ *Pipeline, err error) {
	ctx, span := s.start(ctx, "pipeline.Update")
	defer span.End(&err)
	if err := s.ready(ctx); err != nil {
		return nil, err
	}
	if err := validateID("id", id); err != nil {
		return nil, err
	}
	if version < 1 {
		return nil, inputError("version", version, "versions start at 1")
	}
	if in.ID != "" && in.ID != id {
		return nil, inputError("in.ID", in.ID, fmt.Sprintf("differs from the pipeline updated (%q)", id))
	}
	in.ID = id
	now := s.now()
	next, err := s.newPipeline(in, now)
	if err != nil {
		return nil, err
	}
	// The diff of tags and groups is taken against the item the condition
	// below guards, so it is exactly what the stored index holds.
	cur, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if cur.Version != version {
		return nil, &ConflictError{PipelineID: id, Expected: version, Current: cur.Version}
	}
	next.Version, next.CreatedAt, next.CreatedBy = version+1, cur.CreatedAt, cur.CreatedBy
	if next.Version > maxVersion {
		return nil, inputError("version", version, "no version follows it")
	}
	added, removed := diffEntries(tagEntries(cur.Tags), tagEntries(next.Tags))
	joined, left := diffStrings(cur.Groups, next.Groups)
	if n := 2 + 2*len(added) + 2*len(removed) + len(joined) + len(left); n > maxTxActions {
		return nil, &TooManyTagsError{PipelineID: id, Actions: n, Max: maxTxActions}
	}
	sameVersion := expression.Name("version").Equal(expression.Value(version)).
		And(expression.AttributeNotExists(expression.Name(attrDeleting)))
	tx := []entity.Action{s.current.TxPut(itemOf(next), entity.If(sameVersion)), s.versions.TxCreate(itemOf(next))}
	for _, e := range removed {
		tx = append(tx, s.tags.TxDelete(e.item(id), entity.Unchecked()), s.aggregateAdd(e, -1))
	}
	for _, e := range added {
		tx = append(tx, s.tags.TxPut(e.item(id)), s.aggregateAdd(e, 1))
	}
	for _, g := range left {
		tx = append(tx, s.groups.TxDelete(groupItem{PipelineID: id, GroupID: g}, entity.Unchecked()))
	}
	for _, g := range joined {
		tx = append(tx, s.groups.TxPut(groupItem{PipelineID: id, GroupID: g}))
	}
	if err := entity.Transact(ctx, tx...); err != nil {
		return nil, updateError(id, version, err)
	}
	// Counts of removed tags that reached zero go in a write of their own:
	// a transaction cannot see that its ADD -1 made zero. The update has
	// happened; a failure here leaves a zero count, which the listings
	// hide and the next Update or Delete of that tag removes.
	if err := s.removeZeroCounts(ctx, removed); err != nil {
		s.log(ctx, "zero tag counts left after update", "operation", "update", "key", id, "error", err)
	}
	return next, nil
}

// updateError turns the cancellation of an update's transaction into the
// conflict it means: the current item's version moved (action 0), or a
// racing update created version+1 first (action 1).
func updateError(id string, version int, err error) error {
	var txe *table.TxError
	if errors.As(err, &txe) {
		for _, r := range txe.Reasons {
			if r.Index > 1 || r.Code != "ConditionalCheckFailed" {
				continue
			}
			ce := &ConflictError{PipelineID: id, Expected: version, Cause: err}
			var cur pipelineItem
			if r.Item != nil && table.Unmarshal(r.Item, &cur) == nil {
				if r.Index == 0 && cur.Deleting != "" {
					return notFound("pipeline", id, err)
				}
				ce.Current = cur.Version
			}
			return ce
		}
	}
	return fmt.Errorf("pipeline: update %q: %w", id, err)
}

// Get returns the current version of pipeline id (a strongly consistent
// read, so a caller that just wrote sees its write).
func (s *Store) Get(ctx context.Context, id string) (_ *Pipeline, err error) {
	ctx, span := s.start(ctx, "pipeline.Get")
	defer span.End(&err)
	if err := s.ready(ctx); err != nil {
		return nil, err
	}
	if err := validateID("id", id); err != nil {
		return nil, err
	}
	it, err := s.current.Get(ctx, pipelineItem{ID: id}, entity.Consistent())
	if err != nil {
		if errors.Is(err, table.ErrNotFound) {
			return nil, notFound("pipeline", id, err)
		}
		return nil, err
	}
	if it.Deleting != "" {
		return nil, notFound("pipeline", id, nil)
	}
	return it.pipeline()
}

// List is the listing of every pipeline (ListOptions.Limit per page; 0:
// what one DynamoDB page holds), from GSI-1's partition "P", in pipeline
// id order (pk P:<pipelineId>, unique per current item, so there are no
// ties).
func (h *Pipelines) List(opts ...func(*ListOptions)) table.List[*Pipeline] {
	s := h.store()
	limit, err := pageLimit(opts)
	return newList(s, "pipeline.Pipelines.List", err,
		func(ctx context.Context, cursor string) (table.Page[*Pipeline], error) {
			return pipelinePage(s.current.List(ctx, pipelineItem{}, cursor, entity.ByIndex(IndexGSI1), entity.Where(onlyCurrent), limit))
		})
}

// onlyCurrent keeps "list pipelines" to current items: the seed's base
// table gives version items siKey1 P too, so a table written by a service
// that follows it has them in GSI-1's partition P.
var onlyCurrent = expression.Name(attrSK).Equal(expression.Value(currentSK))

func pipelinePage(page table.Page[pipelineItem], err error) (table.Page[*Pipeline], error) {
	if err != nil {
		return table.Page[*Pipeline]{}, err
	}
	out := table.Page[*Pipeline]{Items: make([]*Pipeline, 0, len(page.Items)), Next: page.Next}
	for i := range page.Items {
		p, err := page.Items[i].pipeline()
		if err != nil {
			return table.Page[*Pipeline]{}, err
		}
		out.Items = append(out.Items, p)
	}
	return out, nil
}

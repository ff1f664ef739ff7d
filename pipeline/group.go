package pipeline

import (
	"context"
	"iter"
	"slices"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/table"
)

// A group membership is an item under the pipeline's pk (seed: sk
// "G:<groupId>", siKey1 "G:<groupId>"), so GSI-1's partition G:<groupId>
// holds the group's pipelines sorted by pk, P:<pipelineId>: the entity
// "group" of schema.go, keys only.
type groupItem struct {
	PipelineID string `dynamodbav:"pipelineId"`
	GroupID    string `dynamodbav:"groupId"`
}

// diffStrings returns the strings of next not in cur and of cur not in next.
func diffStrings(cur, next []string) (added, removed []string) {
	for _, g := range next {
		if !slices.Contains(cur, g) {
			added = append(added, g)
		}
	}
	for _, g := range cur {
		if !slices.Contains(next, g) {
			removed = append(removed, g)
		}
	}
	return added, removed
}

// ListGroup returns one page of pipelines of group groupID
// (ListOptions.Limit; 0: what one DynamoDB page holds) in pipeline id
// order (GSI-1 sorts memberships by pk P:<pipelineId>, unique within a
// group), and the next page's cursor: the memberships from GSI-1, then the
// pipelines' current items with one BatchGet. A pipeline being deleted is
// left out, so a page may hold fewer than Limit.
func (s *Store) ListGroup(ctx context.Context, groupID, cursor string, opts ...func(*ListOptions)) (_ table.Page[*Pipeline], err error) {
	ctx, span := s.start(ctx, "pipeline.ListGroup")
	defer span.End(&err)
	if err := s.ready(ctx); err != nil {
		return table.Page[*Pipeline]{}, err
	}
	if err := validateID("groupID", groupID); err != nil {
		return table.Page[*Pipeline]{}, err
	}
	limit, err := pageLimit(opts)
	if err != nil {
		return table.Page[*Pipeline]{}, err
	}
	members, err := s.groups.List(ctx, groupItem{GroupID: groupID}, cursor, entity.ByIndex(IndexGSI1), limit)
	if err != nil {
		return table.Page[*Pipeline]{}, err
	}
	page := table.Page[*Pipeline]{Items: []*Pipeline{}, Next: members.Next}
	if len(members.Items) == 0 {
		return page, nil
	}
	ks := make([]pipelineItem, len(members.Items))
	for i, m := range members.Items {
		ks[i] = pipelineItem{ID: m.PipelineID}
	}
	items, err := s.current.BatchGet(ctx, ks)
	if err != nil {
		return table.Page[*Pipeline]{}, err
	}
	for i := range items {
		if items[i].Deleting != "" {
			continue // Delete is removing it
		}
		p, err := items[i].pipeline()
		if err != nil {
			return table.Page[*Pipeline]{}, err
		}
		page.Items = append(page.Items, p)
	}
	return page, nil
}

// Group iterates over every pipeline of group groupID in ListGroup's order.
func (s *Store) Group(ctx context.Context, groupID string, opts ...func(*ListOptions)) iter.Seq2[*Pipeline, error] {
	return table.Walk(func(cursor string) (table.Page[*Pipeline], error) {
		return s.ListGroup(ctx, groupID, cursor, opts...)
	})
}

package pipeline

import (
	"context"
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

// InGroup is the listing of the pipelines of group groupID
// (ListOptions.Limit per page; 0: what one DynamoDB page holds) in
// pipeline id order (GSI-1 sorts memberships by pk P:<pipelineId>, unique
// within a group): each page is the memberships from GSI-1, then the
// pipelines' current items with one BatchGet. A pipeline being deleted is
// left out, so a page may hold fewer than Limit.
func (h *Pipelines) InGroup(groupID string, opts ...func(*ListOptions)) table.List[*Pipeline] {
	s := h.store()
	limit, err := pageLimit(opts)
	return newList(s, "pipeline.Pipelines.InGroup", firstErr(validateID("groupID", groupID), err),
		func(ctx context.Context, cursor string) (table.Page[*Pipeline], error) {
			return s.groupPage(ctx, groupID, cursor, limit)
		})
}

func (s *Store) groupPage(ctx context.Context, groupID, cursor string, limit func(*entity.ListOptions)) (table.Page[*Pipeline], error) {
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

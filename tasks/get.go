package tasks

import (
	"context"
	"errors"
	"fmt"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/table"
)

// Get returns the task with id, read strongly consistently (the seed's
// "Get task metadata": GetItem on TASK#id / META). A task that finished
// longer than Options.Retention ago is ErrNotFound, whether or not
// DynamoDB's TTL process has deleted it yet. For a PROCESSING task it also
// reads the lease from the worker's claim item, where Heartbeat extends
// it, for LeaseExpiresAt.
func (s *Store) Get(ctx context.Context, id string) (_ *Task, err error) {
	ctx, span := s.start(ctx, "tasks.Get")
	defer span.End(&err)
	if err := s.check(checkTaskID(id)); err != nil {
		return nil, err
	}
	m, err := s.meta(ctx, id)
	if err != nil {
		return nil, err
	}
	t, err := m.task()
	if err != nil || t.Status != StatusProcessing {
		return t, err
	}
	ls, err := s.readLease(ctx, m)
	if err != nil {
		return nil, err
	}
	t.LeaseExpiresAt = ls.expires
	return t, nil
}

// get is Get without the lease: META alone.
func (s *Store) get(ctx context.Context, id string) (*Task, error) {
	m, err := s.meta(ctx, id)
	if err != nil {
		return nil, err
	}
	return m.task()
}

// meta reads the META item of task id, strongly consistent.
func (s *Store) meta(ctx context.Context, id string) (*metaItem, error) {
	// A task finished longer than Retention ago is gone (entity's TTL),
	// though DynamoDB may not have deleted it yet.
	m, err := s.ent.tasks.Get(ctx, metaItem{TaskID: id}, entity.Consistent())
	if err != nil {
		if errors.Is(err, table.ErrNotFound) {
			return nil, notFound(id, err)
		}
		return nil, fmt.Errorf("tasks: get %q: %w", id, err)
	}
	return &m, nil
}

package tasks

import (
	"context"
	"errors"
	"fmt"

	"github.com/tablekit/tablekit/table"
)

// Get returns the task with id, read strongly consistently (the seed's
// "Get task metadata": GetItem on TASK#id / META).
func (s *Store) Get(ctx context.Context, id string) (_ *Task, err error) {
	ctx, span := s.start(ctx, "tasks.Get")
	defer span.End(&err)
	if err := s.check(checkTaskID(id)); err != nil {
		return nil, err
	}
	var m metaItem
	if err := s.t.Get(ctx, s.metaKey(id), &m, table.Consistent()); err != nil {
		if errors.Is(err, table.ErrNotFound) {
			return nil, notFound(id, err)
		}
		return nil, fmt.Errorf("tasks: get %q: %w", id, err)
	}
	return m.task()
}

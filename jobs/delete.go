package jobs

import (
	"context"
	"errors"
	"fmt"

	"github.com/tablekit/tablekit/table"
)

// Delete removes the job with id before its TTL would. A missing or already
// expired job is ErrNotFound, as it is for Get. Results the job had
// offloaded to the blob store stay there until [Maintenance.RemoveOrphans] finds
// them unreferenced.
func (s *Store) Delete(ctx context.Context, id string) (err error) {
	ctx, span := s.start(ctx, "jobs.Delete")
	defer span.End(&err)
	if err := s.check(); err != nil {
		return err
	}
	if err := checkID(id); err != nil {
		return err
	}
	// Conditional on the job existing and its ttl not having passed.
	if _, err := s.jobs.Delete(ctx, record{JobID: id}); err != nil {
		if errors.Is(err, table.ErrConditionFailed) {
			return notFound(id, err)
		}
		return fmt.Errorf("jobs: delete job %q: %w", id, err)
	}
	return nil
}

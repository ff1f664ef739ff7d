package jobs

import (
	"context"
	"errors"
	"fmt"

	"github.com/tablekit/tablekit/table"
)

// GetOptions configure Get.
type GetOptions struct {
	// Consistent asks for a strongly consistent read, so a worker sees the
	// move it just made. Default false, the seed's GetItem.
	Consistent bool
}

// Consistent makes Get strongly consistent.
func Consistent() func(*GetOptions) { return func(o *GetOptions) { o.Consistent = true } }

// Get returns the job with id. A missing job, and one whose ttl has passed
// but that DynamoDB has not deleted yet, is ErrNotFound: GetItem cannot
// filter, so the expiry is checked here against the store's clock.
func (s *Store) Get(ctx context.Context, id string, opts ...func(*GetOptions)) (_ *Job, err error) {
	ctx, span := s.start(ctx, "jobs.Get")
	defer span.End(&err)
	if err := s.check(); err != nil {
		return nil, err
	}
	if err := checkID(id); err != nil {
		return nil, err
	}
	var o GetOptions
	for _, f := range opts {
		f(&o)
	}
	var gopts []func(*table.GetOptions)
	if o.Consistent {
		gopts = append(gopts, table.Consistent())
	}
	var item table.Item
	if err := s.t.Get(ctx, s.t.Key(id), &item, gopts...); err != nil {
		if errors.Is(err, table.ErrNotFound) {
			return nil, notFound(id, err)
		}
		return nil, fmt.Errorf("jobs: get job %q: %w", id, err)
	}
	if table.ItemExpired(item, attrTTL, s.now()) {
		return nil, notFound(id, nil)
	}
	return s.jobFromStored(ctx, item)
}

// jobFromStored follows offload pointers, then reads the item.
func (s *Store) jobFromStored(ctx context.Context, item table.Item) (*Job, error) {
	item, err := s.restore(ctx, item)
	if err != nil {
		return nil, err
	}
	return jobFromItem(item)
}

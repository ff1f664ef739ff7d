package jobs

import (
	"context"
	"errors"
	"fmt"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/entity"
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
	var gopts []func(*entity.ReadOptions)
	if o.Consistent {
		gopts = append(gopts, entity.Consistent())
	}
	rec, err := s.jobs.Get(ctx, record{JobID: id}, gopts...)
	if err != nil {
		if errors.Is(err, table.ErrNotFound) {
			return nil, notFound(id, err) // missing, or expired
		}
		return nil, s.readError(fmt.Sprintf("%q", id), err)
	}
	return rec.job(), nil
}

// jobFromStored reads an item the store read or wrote: renamed attributes
// from their new names first, offloaded results restored, unknown
// attributes in Extra.
func (s *Store) jobFromStored(ctx context.Context, item table.Item) (*Job, error) {
	rec, err := s.jobs.Decode(ctx, item)
	if err != nil {
		return nil, s.readError(idOf(item), err)
	}
	return rec.job(), nil
}

// readError names a read's failure: a job with offloaded results read by
// a store made without a blob store is ErrNoBlobStore.
func (s *Store) readError(id string, err error) error {
	if errors.Is(err, blobstore.ErrUnsupported) && s.offload == nil {
		return fmt.Errorf("jobs: job %s has results in a blob store, and the store was made without one: %w", id, ErrNoBlobStore)
	}
	return fmt.Errorf("jobs: get job %s: %w", id, err)
}

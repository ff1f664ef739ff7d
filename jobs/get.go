package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

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
	if itemExpired(item, s.now()) {
		return nil, notFound(id, nil)
	}
	return s.jobFromStored(ctx, item)
}

// itemExpired reads the ttl of a stored item. A ttl that is not a number is
// ignored, as DynamoDB's TTL process ignores it.
func itemExpired(item table.Item, now time.Time) bool {
	n, ok := item[attrTTL].(*types.AttributeValueMemberN)
	if !ok {
		return false
	}
	var secs int64
	if _, err := fmt.Sscan(n.Value, &secs); err != nil {
		return false
	}
	return expired(fromUnixSeconds(secs), now)
}

// jobFromStored follows offload pointers, then reads the item.
func (s *Store) jobFromStored(ctx context.Context, item table.Item) (*Job, error) {
	item, err := s.restore(ctx, item)
	if err != nil {
		return nil, err
	}
	return jobFromItem(item)
}

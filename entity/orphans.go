package entity

import (
	"context"
	"github.com/tablekit/tablekit/blobstore"
	"iter"
)

// Orphans yields the keys of offloaded objects no item of the table
// points at any more (items deleted or replaced, writes refused after
// their objects were written), in key order, without deleting them: the
// dry run of RemoveOrphans. Objects younger than the registry's
// OrphanMinAge are not reported. It lists the registry's OffloadPrefix and
// scans the table, so run it as occasional maintenance.
func (r *Registry) Orphans(ctx context.Context) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		off, err := r.offloaderFor(ctx)
		if err != nil {
			yield("", err)
			return
		}
		if off == nil {
			return
		}
		for k, err := range off.Orphans(ctx, r.t, "") {
			if !yield(k, err) || err != nil {
				return
			}
		}
	}
}

// RemoveOrphans deletes what Orphans yields and returns the keys deleted.
// Objects younger than RegistryOptions.OrphanMinAge are kept, since a
// write in flight puts its objects before its item.
func (r *Registry) RemoveOrphans(ctx context.Context) ([]string, error) {
	off, err := r.offloaderFor(ctx)
	if err != nil || off == nil {
		return nil, err
	}
	return off.RemoveOrphans(ctx, r.t, "")
}

// offloaderFor returns an Offloader of the registry's blob store and
// prefix (every entity's writes under the same prefix); nil when no
// entity offloads.
func (r *Registry) offloaderFor(ctx context.Context) (*blobstore.Offloader, error) {
	if err := r.usable(); err != nil {
		return nil, err
	}
	if ctx == nil {
		return nil, inputError("ctx", "nil", "a request needs a context", nil)
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, m := range r.models {
		if m.offloader != nil {
			return m.offloader, nil
		}
	}
	return nil, nil
}

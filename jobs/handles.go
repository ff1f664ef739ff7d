package jobs

// The store's surface is split by role, as pipeline's, tasks' and
// journey's are: the everyday calls on a job (Create, Get, Delete, a
// user's listing, the worker's moves, the stream's JobFromChange) are
// Store's methods; what an operator, an admin view or a scheduled job runs
// is behind Maintenance.

// Maintenance is the handle of the operator's calls, not a request path:
// the admin listing by status (ByStatus), the in-flight jobs whose lease
// expired (Expired, Recover), the jobs no task carries (Stranded, Sweep),
// a failed job's replay (Replay), the rewrite of stored jobs (Backfill) and
// the offloaded objects no job points at (Orphans, RemoveOrphans). A handle
// is a value over the store: made on every call, kept or not, it costs
// nothing and holds no state of its own.
type Maintenance struct{ s *Store }

// Maintenance returns the store's handle of the operator's calls.
func (s *Store) Maintenance() *Maintenance { return &Maintenance{s: s} }

// store returns the handle's store, nil for a nil handle, which the
// store's own check then refuses (ErrNoStore) as it refuses a nil Store.
func (h *Maintenance) store() *Store {
	if h == nil {
		return nil
	}
	return h.s
}

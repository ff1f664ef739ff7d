package tasks

import (
	"time"

	"github.com/tablekit/tablekit/table"
)

// Retention: how long finished work is kept (see "Retention" in the
// package documentation).
const (
	// DefaultRetention is Options.Retention unless set: a week. A week
	// covers the failures an operator investigates (a problem seen on a
	// Friday is still there on Monday; dead letters, the failures that
	// need it most, never expire), while at the seed's 500 tasks per
	// second, about 43M tasks a day at some 1.3 KB each as DynamoDB bills
	// storage, it keeps the table near 400 GB (docs/tasks: $100 a month)
	// instead of growing by some 20 TB a year.
	DefaultRetention = 7 * 24 * time.Hour
	// MinRetention is the shortest Options.Retention NewStore accepts.
	// DynamoDB deletes expired items only within days, so a shorter one
	// would save no storage and only drop histories sooner; and a
	// retention shorter than the life of a busy queue's tasks would
	// expire their histories while they are still worked.
	MinRetention = time.Hour
)

// attrTTL is the table's TTL attribute (Unix epoch seconds), as the jobs design (docs/systems/jobs.md)
// names it and DynamoDB's TTL requires.
const attrTTL = "ttl"

// Retention sets Options.Retention.
func Retention(d time.Duration) func(*Options) { return func(o *Options) { o.Retention = d } }

// ttlFrom is the ttl of an item retained from at: Retention later, in
// Unix seconds, rounded up.
func (s *Store) ttlFrom(at time.Time) int64 { return table.TTL(at.Add(s.opts.Retention)) }

// eventTTL is the ttl of an event at that leaves its task in status: none
// for one that makes it DEAD (a dead letter keeps the event that says why
// it died, whatever its age; Redrive gives it a ttl), else Retention after
// the event, which writes no more than the event's own write.
func (s *Store) eventTTL(status Status, at time.Time) int64 {
	if status == StatusDead {
		return 0
	}
	return s.ttlFrom(at)
}

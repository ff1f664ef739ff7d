package table

import (
	"reflect"
	"time"
)

// Clock is something that tells the time. An API may be one too:
// dynamotest's fake is, and its time is what its TTLs, streams and
// capacity are measured by (a test moves it with Advance). Every option of
// tablekit that takes a clock (entity.Clock, changes.Clock, the stores'
// Clock options, blobstore.OffloadOptions.Clock) defaults to ClockOf the
// API it is given, so a test of a service on the fake passes the fake and
// nothing else: the registry's timestamps and TTLs, a change consumer's
// leases and an offloader's orphan ages all follow the fake's time. The
// SDK's clients are no Clock, so production code gets time.Now.
type Clock interface {
	Now() time.Time
}

// ClockOf is v's clock when v is a Clock (the fake, or a wrapper that
// forwards Now: dynamotest's Chaos, Meter and Compare do), else time.Now.
// A nil v is time.Now too.
func ClockOf(v any) func() time.Time {
	if c, ok := v.(Clock); ok && c != nil && !isNilPointer(c) {
		return c.Now
	}
	return time.Now
}

// isNilPointer reports a typed nil pointer in an interface: a nil *DB
// passed as an API has a method Now that would dereference it.
func isNilPointer(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}

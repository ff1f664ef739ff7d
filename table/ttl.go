package table

import (
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Items that expire by TTL
//
// DynamoDB deletes an item whose TTL attribute (a Number, Unix epoch
// seconds) has passed, but only eventually: its background process takes
// up to a few days, and until then the item is read, queried and
// conditioned on as if it were alive. A store whose items expire must
// therefore treat an expired item as gone itself, on every read and every
// create: these helpers are that rule, written once, for every store.

// Expired reports whether an item whose TTL attribute holds ttl (Unix
// epoch seconds; 0 for none) has expired at now. The boundary is the one
// AWS documents for filtering expired items out of reads: expired from
// the second ttl names (ttl <= now), which is also what
// IfNotExistsOrExpired conditions on.
func Expired(ttl int64, now time.Time) bool {
	return ttl > 0 && ttl <= now.Unix()
}

// ItemExpired reports whether the stored item has expired at now by its
// TTL attribute attr. An item without the attribute, or with one that is
// not a number, never expires: DynamoDB's TTL process ignores it too.
func ItemExpired(item Item, attr string, now time.Time) bool {
	n, ok := item[attr].(*types.AttributeValueMemberN)
	if !ok {
		return false
	}
	secs, err := strconv.ParseInt(n.Value, 10, 64)
	if err != nil {
		return false
	}
	return Expired(secs, now)
}

// TTL is the value of a TTL attribute for an item that should expire at t:
// Unix epoch seconds, rounded up so that the item never expires before t.
func TTL(t time.Time) int64 {
	secs := t.Unix()
	if t.Nanosecond() > 0 {
		secs++
	}
	return secs
}

// IfNotExistsOrExpired makes a write a create, as IfNotExists does, that
// may also replace an item whose TTL attribute attr has expired at now
// (Expired) but that DynamoDB has not deleted yet: for a store such an
// item is gone, and its key is free again. The write fails with
// ErrAlreadyExists when a live item has the key.
func IfNotExistsOrExpired(attr string, now time.Time) func(*WriteOptions) {
	return func(o *WriteOptions) {
		o.IfNotExists = true
		o.expiry = &expiryCondition{attr: attr, now: now}
	}
}

// expiryCondition is the expired-item escape of IfNotExistsOrExpired.
type expiryCondition struct {
	attr string
	now  time.Time
}

// orExpired widens an attribute_not_exists condition with the expiry.
func (e *expiryCondition) orExpired(c expression.ConditionBuilder) expression.ConditionBuilder {
	if e == nil {
		return c
	}
	return c.Or(expression.Name(e.attr).LessThanEqual(expression.Value(e.now.Unix())))
}

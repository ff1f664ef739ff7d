package table

import (
	"math/big"
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

// What expired means, once for every path. An item has expired when its
// TTL attribute is a Number from 1 to now (Unix epoch seconds), both
// included: from the second the TTL names, the boundary AWS documents for
// filtering expired items out of reads. An item without the attribute,
// with 0 (or less), or with a value that is not a number never expires,
// as DynamoDB's TTL process leaves it: 0 is how many writers say "no
// expiry". Expired and ItemExpired say it in Go, ExpiredCondition and
// Alive in a condition or filter, ExpiredText in a condition written as
// text; tests hold them to one answer on the fake and on DynamoDB Local.

// Expired reports whether an item whose TTL attribute holds ttl (Unix
// epoch seconds; 0 for none) has expired at now.
func Expired(ttl int64, now time.Time) bool {
	return ttl >= 1 && ttl <= now.Unix()
}

// ItemExpired reports whether the stored item has expired at now by its
// TTL attribute attr (see Expired). A number that is no integer compares
// by its value, as the condition does.
func ItemExpired(item Item, attr string, now time.Time) bool {
	n, ok := item[attr].(*types.AttributeValueMemberN)
	if !ok {
		return false
	}
	if secs, err := strconv.ParseInt(n.Value, 10, 64); err == nil {
		return Expired(secs, now)
	}
	v, ok := new(big.Rat).SetString(n.Value)
	if !ok {
		return false
	}
	return v.Cmp(big.NewRat(1, 1)) >= 0 && v.Cmp(new(big.Rat).SetInt64(now.Unix())) <= 0
}

// ExpiredCondition is the condition that the item's TTL attribute attr
// has expired at now (see Expired): attr BETWEEN 1 AND now. It is false
// for an item without the attribute, or with one of another type.
func ExpiredCondition(attr string, now time.Time) expression.ConditionBuilder {
	return expression.Name(attr).Between(expression.Value(1), expression.Value(now.Unix()))
}

// Alive is the condition, or filter, that the item has not expired at now
// by its TTL attribute attr: NOT ExpiredCondition, true for an item
// without the attribute.
func Alive(attr string, now time.Time) expression.ConditionBuilder {
	return expression.Not(ExpiredCondition(attr, now))
}

// ExpiredText is ExpiredCondition as expression text, for requests whose
// expressions are written once and filled per call: name is the
// placeholder of the TTL attribute ("#ttl"), one the value placeholder of
// the Number 1 (":one") and now that of the current Unix time in seconds
// (":now").
func ExpiredText(name, one, now string) string {
	return "(" + name + " BETWEEN " + one + " AND " + now + ")"
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
	return c.Or(ExpiredCondition(e.attr, e.now))
}

package entity

import (
	"context"
	"reflect"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/table"
)

// Put writes v whole, replacing any item with its key, and returns it as
// written (Created kept when set, else now; Updated now).
//
// For an entity declared with Version, Put is the optimistic write of a
// record read earlier: v's version is the one the caller read, the write
// happens only if it is still the stored one, and the item is stored with
// the next. A stored item with another version is ErrVersionConflict
// (also table.ErrConditionFailed); a version of 0 means "not created yet",
// and a missing item with a version above 0 is table.ErrNotFound. Of two
// Puts based on one version, one wins. Without Version, Put is
// unconditional unless If adds conditions.
func (e *Entity[T]) Put(ctx context.Context, v T, opts ...func(*WriteOptions)) (_ T, err error) {
	return e.putItem(ctx, opPut, v, opts, func(m *model, rv reflect.Value, now time.Time, o WriteOptions) (putPlan, error) {
		if o.Version != nil {
			return putPlan{}, inputError(m.name+" options", "IfVersion", "Put compares the version v holds", nil)
		}
		p := putPlan{fresh: true}
		if m.version != nil {
			p.version = m.versionOf(rv)
			m.setVersion(rv, p.version+1)
			p.cond, p.fresh = m.expr.version, false
			if p.version == 0 {
				p.fresh = true
				p.cond = m.expr.create
			}
		}
		m.stampReplace(rv, now)
		p.failure = m.putFailure(p.version, now, len(o.Conditions) > 0)
		return p, nil
	})
}

// putFailure is the sentinel of a refused Put.
func (m *model) putFailure(read int64, now time.Time, conditions bool) func(table.Item) error {
	return func(current table.Item) error {
		live := len(current) > 0 && !m.expiredAt(current, now)
		if m.version != nil {
			switch {
			case read == 0 && live:
				return ErrVersionConflict
			case read > 0 && !live:
				return table.ErrNotFound
			case read > 0 && versionIn(current, m.version.name) != read:
				return ErrVersionConflict
			}
		}
		return table.ErrConditionFailed
	}
}

// versionIn reads the version attribute of a stored item (-1 if none).
func versionIn(item table.Item, name string) int64 {
	var n int64 = -1
	if av, ok := item[name].(*types.AttributeValueMemberN); ok {
		n = parseInt(av.Value)
	}
	return n
}

// stampReplace sets what a replaced item gets: Created unless given,
// Updated, the TTL when it has none.
func (m *model) stampReplace(v reflect.Value, now time.Time) {
	if m.created != nil && m.created.isZero(v) {
		m.created.set(v, now)
	}
	if m.updated != nil {
		m.updated.set(v, now)
	}
	m.setTTL(v, now)
}

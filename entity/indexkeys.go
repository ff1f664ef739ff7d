package entity

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/table"
)

// The index keys an update writes: the rule (the package documentation,
// "Index keys on updates"). A Put writes both keys of an index or, for a
// Sparse index whose attributes are not all set, neither; an update
// writes what that Put of the item as it is after the update would
// write. An update knows the attributes it sets, the table key and the
// kept ones (Updated, and Version with IfVersion). When it writes one key
// of an index (it sets an attribute of it, or creates the item) and the
// other key is built from attributes it does not know, the stored item
// decides, and the update says which item it expects in its condition:
//
//   - in: the item is in the index (it has the other key), which then
//     stays right; the first guess, and the only one of a transaction;
//   - out: the item exists out of the index (a Sparse index's attribute
//     unset, or LeaveIndex): the update writes neither key and removes
//     the one it would have written;
//   - new: no item (not Sparse): the update writes both keys, the other
//     from the zero values a created item has, as Put would;
//     refused (ErrIndexKey) when Put would refuse them (an empty string or
//     time). For a Sparse index a new item is out.
//
// Run resends the update once with what the refused item showed; a
// transaction cannot, and a guess the item belies is ErrIndexKey naming the
// attributes. An existing item out of a Sparse index only because the
// update's key was unset there, which the update now sets, would enter
// the index with a key built from attributes the update does not know:
// it is refused (ErrIndexKey) rather than left out. Own-field keys (the key
// is the attribute) are not concerned: they follow their attribute.

// maxHalfKeyTries bounds Run's resends with what a refused item showed:
// one is enough unless the item changes in between.
const maxHalfKeyTries = 2

// partWrite is how an update writes one index key attribute.
type partWrite uint8

const (
	pwNone  partWrite = iota
	pwSet             // SET, from what the update knows
	pwIfNew           // SET if_not_exists: built from Created, kept when the item exists
)

// indexMode is which item an update expects for an index whose key it
// cannot build alone.
type indexMode uint8

const (
	modeIn indexMode = iota
	modeOut
	modeNew
)

// indexModes holds an indexMode per index, two bits each (an entity's
// indexes are far fewer than 32: DynamoDB allows 20 GSIs and 5 LSIs).
type indexModes uint64

func (ms indexModes) of(i int) indexMode { return indexMode(ms >> (2 * i) & 3) }

func (ms indexModes) with(i int, mode indexMode) indexModes {
	return ms&^(3<<(2*i)) | indexModes(mode)<<(2*i)
}

// halfKey is an index of which the update writes one key and cannot build
// the other.
type halfKey struct {
	ix      int
	other   int      // the key it cannot build: 0 (pk) or 1 (sk)
	missing []*field // the attributes of that key the update does not know
	touched bool     // the update changes the key it writes (else it writes it for a new item only)
}

// indexWrite decides what the update writes of index i's keys (both
// parts), and whether the index is a halfKey. It is the one place that
// decides: render writes what it says, Run and a transaction's refusal
// read the halfKey.
func (u *Update[T]) indexWrite(i int) ([2]partWrite, *halfKey, error) {
	m := u.m
	ix := &m.indexes[i]
	parts := [2]*keyPart{&ix.pk, &ix.sk}
	var w [2]partWrite
	var touched [2]bool
	var missing [2][]*field
	var ifNew [2]bool
	template := func(kp *keyPart) bool { return kp.present() && kp.own == nil && kp.constant == nil }
	for j, kp := range parts {
		if !template(kp) {
			continue
		}
		var unknown []string
		for _, f := range kp.fields {
			switch k := u.knows(f); {
			case k == knownChanged:
				touched[j] = true
			case k == knownSame:
			case k == changedUnknown:
				touched[j] = true
				unknown = append(unknown, f.name)
			case k == sameIfExists && u.creates():
				ifNew[j] = true
			default:
				unknown = append(unknown, f.name)
				missing[j] = append(missing[j], f)
			}
		}
		switch {
		case touched[j] && len(unknown) > 0:
			return w, nil, inputError(m.name+" update", strings.Join(unknown, ", "), fmt.Sprintf(
				"index %s's %s (%s) is built from them and other attributes the update changes: set them too, or Get and Put",
				ix.name, kp.attr.Name, kp.pattern()), ErrIndexKey)
		case touched[j] && ifNew[j]:
			return w, nil, inputError(m.name+" update", m.created.f.name, fmt.Sprintf(
				"index %s's %s (%s) is built from it, which an update that may create keeps when the item exists: use Patch, or Get and Put",
				ix.name, kp.attr.Name, kp.pattern()), ErrIndexKey)
		}
	}
	for j, kp := range parts {
		switch {
		case !kp.present() || kp.own != nil:
		case kp.constant != nil:
			// A constant is written with the other key (a Put writes
			// both or neither): an item may enter a sparse index it was
			// left out of.
			if u.creates() && u.builds(parts[1-j]) || u.touches(parts[1-j]) {
				w[j] = pwSet
			}
		case touched[j]:
			w[j] = pwSet
		case len(missing[j]) > 0:
			// Not buildable: decided below, with the other key.
		case !u.creates() && !u.touches(parts[1-j]):
			// Unchanged, and so is the other key.
		case ifNew[j]:
			// Built from Created: as it is if the item exists, from now
			// if the update creates it.
			w[j] = pwIfNew
		default:
			// Built from what the update knows: written with the other
			// key, or for a new item.
			w[j] = pwSet
		}
	}
	for j := range parts {
		if len(missing[j]) == 0 || w[1-j] == pwNone || !template(parts[1-j]) {
			continue
		}
		if ix.sparse && !touched[1-j] {
			// Written for a new item only, which is out of a Sparse
			// index (the attributes of key j are unset): not written.
			w[1-j] = pwNone
			continue
		}
		return w, &halfKey{ix: i, other: j, missing: missing[j], touched: touched[1-j]}, nil
	}
	return w, nil, nil
}

// halfKeys are the update's halfKey indexes.
func (u *Update[T]) halfKeys() []halfKey {
	var out []halfKey
	for i := range u.m.indexes {
		if u.leaves(i) {
			continue
		}
		if _, h, err := u.indexWrite(i); err == nil && h != nil {
			out = append(out, *h)
		}
	}
	return out
}

// leaves reports whether the update takes the item out of index i
// (LeaveIndex, or an attribute of its keys removed).
func (u *Update[T]) leaves(i int) bool {
	for _, l := range u.leave {
		if l == i {
			return true
		}
	}
	return u.removes(&u.m.indexes[i])
}

// modesFor is what the update should expect of each halfKey index, given
// the item as it is (current; empty when there is none), or the error
// refusing the update there.
func (u *Update[T]) modesFor(current table.Item, now time.Time, hs []halfKey) (indexModes, error) {
	m := u.m
	live := len(current) > 0 && !m.expiredAt(current, now)
	var ms indexModes
	for _, h := range hs {
		ix := &m.indexes[h.ix]
		other := [2]*keyPart{&ix.pk, &ix.sk}[h.other]
		written := [2]*keyPart{&ix.pk, &ix.sk}[1-h.other]
		switch _, in := current[other.attr.Name]; {
		case live && in:
		case live:
			if ix.sparse && h.touched && !anyZero(current, h.missing) && anyZero(current, written.fields) {
				return 0, halfKeyError(m, ix, other, h.missing,
					"the item is out of the index because the attributes the update sets were unset, and would enter it with a key the update cannot build")
			}
			ms = ms.with(h.ix, modeOut)
		case !u.creates() || u.ver != nil:
			// No item, and the update does not create one: its refusal
			// (Update.failure) says so.
		case ix.sparse:
			ms = ms.with(h.ix, modeOut)
		case zeroBuilds(h.missing):
			ms = ms.with(h.ix, modeNew)
		default:
			return 0, halfKeyError(m, ix, other, h.missing,
				"the update would create the item without them, and Put refuses an item whose key they leave empty")
		}
	}
	return ms, nil
}

// halfKeyError refuses an update that would write one key of index ix
// without the other (other), naming the attributes that key needs.
func halfKeyError(m *model, ix *indexPart, other *keyPart, missing []*field, why string) error {
	names := make([]string, len(missing))
	for i, f := range missing {
		names[i] = f.name
	}
	return inputError(m.name+" update", strings.Join(names, ", "), fmt.Sprintf(
		"index %s's %s (%s) is built from them, which the update does not set, and %s: set them too (or LeaveIndex(%q))",
		ix.name, other.attr.Name, other.pattern(), why, ix.name), ErrIndexKey)
}

// anyZero reports whether one of fields is unset (absent or its zero
// value) in item.
func anyZero(item table.Item, fields []*field) bool {
	for _, f := range fields {
		av, ok := item[f.name]
		if !ok {
			return true
		}
		if _, null := av.(*types.AttributeValueMemberNULL); null {
			return true
		}
		v := reflect.New(f.typ)
		var err error
		if f.unixTime && f.typ == timeType {
			var t attributevalue.UnixTime
			err = attributevalue.Unmarshal(av, &t)
			v.Elem().Set(reflect.ValueOf(time.Time(t)))
		} else {
			err = attributevalue.Unmarshal(av, v.Interface())
		}
		if err != nil || v.Elem().IsZero() {
			return true
		}
	}
	return false
}

// zeroBuilds reports whether a key takes the zero values of fields: a
// number does, an empty string or time does not (keys.ErrEmpty).
func zeroBuilds(fields []*field) bool {
	for _, f := range fields {
		if k := kindOf(f.typ); k != kindInt && k != kindUint {
			return false
		}
	}
	return true
}

// halfKeyCond renders what the update expects of halfKey index i in mode:
// the condition's term (returned as text, and kept as a builder for a
// transaction). other is the key the update cannot build, kp its part.
func (s *updateShape) halfKeyCond(m *model, i, other int, kp *keyPart, mode indexMode, sparse bool) string {
	n := "#x" + strconv.Itoa(i) + "pk"[other:other+1]
	s.names[n] = kp.attr.Name
	name := expression.Name(kp.attr.Name)
	switch {
	case mode == modeIn:
		s.indexConds = append(s.indexConds, expression.AttributeExists(name))
		return "attribute_exists(" + n + ")"
	case mode == modeNew:
		s.names["#pk"] = m.pk.attr.Name
		s.indexConds = append(s.indexConds, expression.AttributeNotExists(expression.Name(m.pk.attr.Name)))
		return "attribute_not_exists(#pk)"
	case sparse:
		s.indexConds = append(s.indexConds, expression.AttributeNotExists(name))
		return "attribute_not_exists(" + n + ")"
	}
	s.names["#pk"] = m.pk.attr.Name
	s.indexConds = append(s.indexConds, expression.AttributeExists(expression.Name(m.pk.attr.Name)).And(expression.AttributeNotExists(name)))
	return "(attribute_exists(#pk) AND attribute_not_exists(" + n + "))"
}

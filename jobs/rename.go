package jobs

import (
	"fmt"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/table"
)

// Rename is one step of the seed's migration playbook for renaming a
// field ("add new field alongside old field; dual-write to both fields;
// migrate read path to new field; backfill old items; stop writing to old
// field"): while it is in Options.Renames, the store writes the job
// attribute From under both names on every write path (Create, every
// status move, Recover, Sweep, the job worker, Backfill), removes both
// together, and reads To first, falling back to From for items written
// before the rename. Backfill also writes To on every job that lacks it,
// so a Backfill whose function changes nothing completes the migration's
// backfill step. Once no reader needs From, the service stops writing it
// with its own code: this package keeps the seed's names.
//
// From is an attribute of the seed's job (or one this package adds) that
// is written whole: not a key of the table or of an index (jobId, userId,
// status, createdAt: a new key is a new table or index, not a rename), not
// ttl (the table's TTL setting names it) and not error, whose members
// Fail and Replay update in place, which no single request can mirror
// under a second name. Conditions keep reading From, which every writer
// writes while the migration runs. It is entity's Rename (the store's
// entity declares each one), checked by NewStore against the job's
// attributes first.
type Rename = entity.Rename

// RenameAttribute adds a Rename to Options.Renames: the job attribute from
// is written under to as well, and read from to first.
func RenameAttribute(from, to string) func(*Options) {
	return func(o *Options) { o.Renames = append(o.Renames, Rename{From: from, To: to}) }
}

// renames are a store's validated Options.Renames.
type renames []Rename

// notRenameable are the attributes a Rename may not move, with why.
var notRenameable = map[string]string{
	attrJobID:     "is the table's partition key",
	attrUserID:    "is the partition key of " + IndexUserCreatedAt,
	attrStatus:    "is the partition key of " + IndexStatusCreatedAt,
	attrCreatedAt: "is the sort key of both indexes",
	attrTTL:       "is the table's TTL attribute (UpdateTimeToLive names it)",
	attrError:     "is updated member by member (Fail after a replay, Replay's retryCount), which one request cannot mirror under a second name",
}

// checkRenames validates Options.Renames before any request.
func checkRenames(rs []Rename) (renames, error) {
	seen := map[string]bool{}
	for i, r := range rs {
		field := fmt.Sprintf("Options.Renames[%d]", i)
		switch why, bad := notRenameable[r.From]; {
		case !knownAttrs[r.From]:
			return nil, inputError(field+".From", fmt.Sprintf("%q", r.From), "is not an attribute of a job")
		case bad:
			return nil, inputError(field+".From", r.From, why)
		case r.To == "" || !utf8.ValidString(r.To) || len(r.To) > maxRenameLen:
			return nil, inputError(field+".To", fmt.Sprintf("%q", r.To), fmt.Sprintf("must be 1 to %d bytes of UTF-8", maxRenameLen))
		case knownAttrs[r.To]:
			return nil, inputError(field+".To", r.To, "is already an attribute of a job")
		case seen[r.From] || seen[r.To]:
			return nil, inputError(field, r.From+" → "+r.To, "names an attribute another rename names")
		}
		seen[r.From], seen[r.To] = true, true
	}
	return renames(rs), nil
}

// maxRenameLen bounds a new attribute name: DynamoDB allows 64 KB, but a
// name is stored in every item and counted in the offload reserve.
const maxRenameLen = 255

// to returns the new name of attribute from, if it is renamed.
func (rs renames) to(from string) (string, bool) {
	for _, r := range rs {
		if r.From == from {
			return r.To, true
		}
	}
	return "", false
}

// set is u with attribute name set to v, under its new name too when
// name is renamed: every SET of a job attribute goes through it.
func (rs renames) set(u expression.UpdateBuilder, name string, v expression.OperandBuilder) expression.UpdateBuilder {
	u = u.Set(expression.Name(name), v)
	if to, ok := rs.to(name); ok {
		u = u.Set(expression.NameNoDotSplit(to), v)
	}
	return u
}

// remove is u with attribute name removed, under its new name too.
func (rs renames) remove(u expression.UpdateBuilder, name string) expression.UpdateBuilder {
	u = u.Remove(expression.Name(name))
	if to, ok := rs.to(name); ok {
		u = u.Remove(expression.NameNoDotSplit(to))
	}
	return u
}

// write adds the new names to an item about to be put: each renamed
// attribute the item has, under both names.
func (rs renames) write(item table.Item) error {
	for _, r := range rs {
		if _, ok := item[r.To]; ok {
			return &table.InputError{Field: "Extra", Value: r.To, Reason: "is the new name of " + r.From + " (Options.Renames): set the field, which the store writes under both names"}
		}
		if v, ok := item[r.From]; ok {
			item[r.To] = v
		}
	}
	return nil
}

// complete sets, in an item Backfill is about to write back, both names of
// each renamed attribute to the value a read sees (the new name's, else
// the old one's), or removes both.
func (rs renames) complete(item table.Item) {
	for _, r := range rs {
		v, ok := item[r.To]
		if !ok {
			v, ok = item[r.From]
		}
		if ok {
			item[r.From], item[r.To] = v, v
		} else {
			delete(item, r.From)
			delete(item, r.To)
		}
	}
}

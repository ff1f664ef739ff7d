package changes

import (
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/table"
)

// CheckKeys tells a record of the table a decoder reads from one of
// another table: it returns nil when ch's keys are exactly names, each a
// string, and a *table.InputError (Field "change") naming the keys the
// record has otherwise. A decoder calls it first, so a record of another
// table is an error rather than an item "of another kind" skipped in
// silence (jobs.JobFromChange, pipeline.ExecutionFromChange).
//
// The keys are ch.Keys, as a stream record carries them; for a change built
// by hand without them, the new image's attributes, of which names must
// be among. A change with neither (no keys, no new image) passes: there is
// nothing to tell.
func CheckKeys(ch Change[table.Item], names ...string) error {
	keys, exact := ch.Keys, true
	if keys == nil && ch.New != nil {
		keys, exact = *ch.New, false
	}
	if keys == nil {
		return nil
	}
	ok := !exact || len(keys) == len(names)
	for _, n := range names {
		if _, isString := keys[n].(*types.AttributeValueMemberS); !isString {
			ok = false
		}
	}
	if ok {
		return nil
	}
	have := slices.Sorted(maps.Keys(keys))
	if len(have) > 4 {
		have = append(have[:4], "...")
	}
	return &table.InputError{Field: "change", Value: strings.Join(have, ","),
		Reason: "is a record of another table: this table's keys are " + strings.Join(names, " and ") + ", strings"}
}

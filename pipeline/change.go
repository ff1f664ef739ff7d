package pipeline

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/table"
)

// ExecutionFromChange returns the execution one change of the pipeline
// table leaves behind, for a consumer of the table's stream that follows
// executions (an executor that starts created ones, a dashboard of
// running ones):
//
//	c, err := changes.New[table.Item](db, streams, pipeline.DefaultTableName,
//		changes.Decode(changes.DecodeItem), changes.Name("executor"))
//	err = c.Run(ctx, func(ctx context.Context, batch []changes.Change[table.Item]) error {
//		for _, ch := range batch {
//			e, ok, err := pipeline.ExecutionFromChange(ch)
//			...
//		}
//		return nil
//	})
//
// ok is false, with a nil error, for every other item of the table
// (pipelines, versions, tags, groups, the execution references in a
// pipeline's partition) and for a change that leaves no execution: a
// removal (Delete), or a stream whose view carries no new image. A record
// of another table (keys other than pk and sk) is a *table.InputError; an
// execution item that cannot be read (a time not in the seed's format, a
// key that does not parse) is an error wrapping changes.ErrDecode.
func ExecutionFromChange(ch changes.Change[table.Item]) (*Execution, bool, error) {
	return fromChange(ch, "execution", func(pk, sk string) bool { return sk == executionSK && strings.HasPrefix(pk, "PE:") },
		func(e entities) *entity.Entity[executionItem] { return e.executions },
		func(it *executionItem) (*Execution, error) {
			// Decode leaves an absent index key's ids empty (an item out
			// of a sparse index); every execution is in GSI-1.
			if it.PipelineID == "" {
				return nil, fmt.Errorf("pipeline: execution item %s has no %s", it.ID, attrSiKey1)
			}
			return it.execution()
		})
}

// PipelineFromChange returns the pipeline, as of its current version, one
// change of the pipeline table leaves behind: Create, Update (a new
// version), SetState and the tag and group edits all change the current
// item. ok is false for every other item (the version items each Update
// also writes, executions, tags, groups) and for a change that leaves no
// current item (Delete removes it; a stream without new images). A
// pipeline being deleted is still returned, as Get returns it until it is
// gone. Errors as ExecutionFromChange.
func PipelineFromChange(ch changes.Change[table.Item]) (*Pipeline, bool, error) {
	return fromChange(ch, "pipeline", func(pk, sk string) bool { return sk == currentSK && strings.HasPrefix(pk, "P:") },
		func(e entities) *entity.Entity[pipelineItem] { return e.current }, (*pipelineItem).pipeline)
}

// fromChange is the new image of ch (none: ok false; a record of another
// table: CheckKeys's error), when is accepts its keys (a kind's literal
// parts: an item meant as one, whose other parts must then parse),
// decoded with the declaration kind chooses on the Offline registry
// (decoders) and converted by to; what names the kind in errors.
func fromChange[I, V any](ch changes.Change[table.Item], what string, is func(pk, sk string) bool,
	kind func(entities) *entity.Entity[I], to func(*I) (V, error)) (V, bool, error) {
	var zero V
	if err := changes.CheckKeys(ch, attrPK, attrSK); err != nil || ch.New == nil {
		return zero, false, err
	}
	item := *ch.New
	pk, _ := item[attrPK].(*types.AttributeValueMemberS)
	sk, _ := item[attrSK].(*types.AttributeValueMemberS)
	if pk == nil || sk == nil || !is(pk.Value, sk.Value) {
		return zero, false, nil
	}
	ents, err := decoders()
	var it I
	if err == nil {
		it, err = kind(ents).Decode(context.Background(), item)
	}
	var v V
	if err == nil {
		v, err = to(&it)
	}
	if err != nil {
		return zero, false, fmt.Errorf("pipeline: %s from change %s: %w: %w", what, ch.EventID, changes.ErrDecode, err)
	}
	return v, true, nil
}

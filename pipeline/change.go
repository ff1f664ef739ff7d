package pipeline

import (
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/keys"
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
	item, ok, err := pipelineImage(ch, func(pk, sk string) bool {
		return sk == executionSK && strings.HasPrefix(pk, "PE:")
	})
	if !ok || err != nil {
		return nil, false, err
	}
	var it executionItem
	err = attributevalue.UnmarshalMap(item, &it)
	if err == nil {
		// The ids are in the keys only (KeyOnly).
		var id, pipelineID keys.Parts
		id, err = executionPK.Parse(keyString(item, attrPK))
		if err == nil {
			pipelineID, err = pipelinePK.Parse(keyString(item, attrSiKey1))
		}
		it.ID, it.PipelineID = id.String("executionId"), pipelineID.String("pipelineId")
	}
	if err != nil {
		return nil, false, fmt.Errorf("pipeline: execution from change %s: %w: %w", ch.EventID, changes.ErrDecode, err)
	}
	e, err := it.execution()
	if err != nil {
		return nil, false, fmt.Errorf("pipeline: execution from change %s: %w: %w", ch.EventID, changes.ErrDecode, err)
	}
	return e, true, nil
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
	item, ok, err := pipelineImage(ch, func(pk, sk string) bool {
		return sk == currentSK && strings.HasPrefix(pk, "P:")
	})
	if !ok || err != nil {
		return nil, false, err
	}
	var it pipelineItem
	err = attributevalue.UnmarshalMap(item, &it)
	if err == nil {
		var id keys.Parts
		id, err = pipelinePK.Parse(keyString(item, attrPK))
		it.ID = id.String("pipelineId")
	}
	if err != nil {
		return nil, false, fmt.Errorf("pipeline: pipeline from change %s: %w: %w", ch.EventID, changes.ErrDecode, err)
	}
	p, err := it.pipeline()
	if err != nil {
		return nil, false, fmt.Errorf("pipeline: pipeline from change %s: %w: %w", ch.EventID, changes.ErrDecode, err)
	}
	return p, true, nil
}

// pipelineImage is the new image of a change of the pipeline table when
// its keys are those is accepts; ok false otherwise.
func pipelineImage(ch changes.Change[table.Item], is func(pk, sk string) bool) (table.Item, bool, error) {
	if err := changes.CheckKeys(ch, attrPK, attrSK); err != nil {
		return nil, false, err
	}
	item := ch.New
	if item == nil {
		return nil, false, nil
	}
	pk, _ := (*item)[attrPK].(*types.AttributeValueMemberS)
	sk, _ := (*item)[attrSK].(*types.AttributeValueMemberS)
	if pk == nil || sk == nil || !is(pk.Value, sk.Value) {
		return nil, false, nil
	}
	return *item, true, nil
}

// keyString is a string key attribute of item ("" when it has none).
func keyString(item table.Item, name string) string {
	s, _ := item[name].(*types.AttributeValueMemberS)
	if s == nil {
		return ""
	}
	return s.Value
}

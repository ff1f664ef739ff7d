package jobs

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/table"
)

// JobFromChange returns the job one change of the jobs table leaves
// behind, for a consumer of the table's stream (the seed's "future: enable
// for analytics"):
//
//	c, err := changes.New[table.Item](db, streams, jobs.DefaultTableName,
//		changes.Decode(changes.DecodeItem), changes.Name("analytics"))
//	err = c.Run(ctx, func(ctx context.Context, batch []changes.Change[table.Item]) error {
//		for _, ch := range batch {
//			job, ok, err := jobs.JobFromChange(ch)
//			...
//		}
//		return nil
//	})
//
// The item is read as [Store.Get] reads it (Unix milliseconds to times,
// the seed's names to fields, unknown attributes to Extra), which a
// changes.Consumer[jobs.Job] decoding with attributevalue cannot do: Job's
// fields do not carry the stored names, so that gives an empty id and a
// createdAt read as seconds, without an error.
//
// ok is false, with a nil error, for a change that leaves no job: a
// removal (Delete, or DynamoDB's TTL deletion, ch.ByService) or a stream
// whose view carries no new image (KEYS_ONLY, OLD_IMAGE). The stream needs
// NEW_IMAGE or NEW_AND_OLD_IMAGES.
//
// A record of another table (its keys are not jobId) is a
// *table.InputError naming the keys it has; a job item that cannot be
// read (jobId not a string, a number attribute holding text, a malformed
// result map) is an error wrapping changes.ErrDecode, never a job of zero
// values. A job whose results were offloaded to the blob store carries
// pointers only the store can follow: JobFromChange fails it with
// ErrNoBlobStore, and [Store.JobFromChange] reads it whole.
func JobFromChange(ch changes.Change[table.Item]) (*Job, bool, error) {
	item, ok, err := jobImage(ch)
	if !ok || err != nil {
		return nil, false, err
	}
	if hasPointer(item) {
		return nil, false, fmt.Errorf("jobs: job from change %s: job %s has results in a blob store; read it with Store.JobFromChange: %w",
			ch.EventID, idOf(item), ErrNoBlobStore)
	}
	jobs, err := decoders()
	if err != nil {
		return nil, false, err
	}
	return decodeChange(context.Background(), jobs, ch, item)
}

// JobFromChange is the package's JobFromChange that also follows the
// pointers of results offloaded to the store's blob store, one read of the
// blob store per offloaded result. A job whose objects are gone (the job
// was changed again, and RemoveOrphans deleted what the old image pointed
// at) is an error wrapping blobstore.ErrNotFound: read the job with Get
// instead.
func (s *Store) JobFromChange(ctx context.Context, ch changes.Change[table.Item]) (*Job, bool, error) {
	if err := s.check(); err != nil {
		return nil, false, err
	}
	item, ok, err := jobImage(ch)
	if !ok || err != nil {
		return nil, false, err
	}
	return decodeChange(ctx, s.jobs, ch, item)
}

// jobImage is the new image of a change of the jobs table; ok false when
// the change carries none.
func jobImage(ch changes.Change[table.Item]) (table.Item, bool, error) {
	if err := changes.CheckKeys(ch, attrJobID); err != nil {
		return nil, false, err
	}
	if ch.New == nil {
		return nil, false, nil
	}
	item := *ch.New
	if id, isString := item[attrJobID].(*types.AttributeValueMemberS); !isString || id.Value == "" {
		return nil, false, fmt.Errorf("jobs: job from change %s: %s is not a non-empty string: %w", ch.EventID, attrJobID, changes.ErrDecode)
	}
	return item, true, nil
}

// decodeChange reads the job item of ch with the declaration jobs, which
// follows the offload pointers when it has a blob store.
func decodeChange(ctx context.Context, jobs *entity.Entity[record], ch changes.Change[table.Item], item table.Item) (*Job, bool, error) {
	rec, err := jobs.Decode(ctx, item)
	switch {
	case errors.Is(err, blobstore.ErrNotFound):
		return nil, false, fmt.Errorf("jobs: job from change %s: %w", ch.EventID, err)
	case err != nil:
		return nil, false, fmt.Errorf("jobs: job from change %s: %w: %w", ch.EventID, changes.ErrDecode, err)
	}
	return rec.job(), true, nil
}

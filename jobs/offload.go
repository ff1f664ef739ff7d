package jobs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/table"
)

// Offloading: a status move writes one result with a single UpdateItem and
// no prior read, so it cannot see how big the stored job already is. The
// store therefore splits the threshold in two. Every attribute except
// analysisResult has a bounded size (validate.go caps each string; the
// error map is capped too), and all of them together fit in itemReserve.
// analysisResult (a provider's label list and description, unbounded) may
// take the rest inline, budget = threshold − itemReserve; a larger one goes
// to the blob store through blobstore's Offloader, and the item keeps the
// Offloader's pointer. The job item therefore stays under the threshold
// without a read, at the price of offloading an analysis that would just
// have fitted next to a small job.
//
// Backfill does see the whole item, so it offloads against the full
// threshold instead.
const (
	// itemReserve covers the bounded attributes at their maximum sizes:
	// two 2048-byte keys (jobId, userId), seven 1024-byte strings, the
	// numbers and names (~13 KB with the edit result), and the error map
	// with a 16 KB stack (~19 KB).
	itemReserve = 32 * 1024
	// minInline is the least analysisResult keeps inline; a smaller
	// analysis than that is never offloaded.
	minInline = 8 * 1024
	// minOffloadThreshold leaves analysisResult at least minInline.
	minOffloadThreshold = itemReserve + minInline
)

// attributeBudget is what analysisResult may take inline under threshold:
// the threshold less the reserve of every other attribute and, for each
// Rename, its second copy (the new name and the attribute's largest value;
// a renamed analysisResult halves the budget instead: both copies must
// fit). A threshold that leaves analysisResult less than minInline with
// the renames' copies is refused.
func attributeBudget(threshold int, rs renames) (int, error) {
	reserve, copies := itemReserve, 1
	for _, r := range rs {
		reserve += len(r.To)
		if r.From == attrAnalysisResult {
			copies = 2
			continue
		}
		reserve += maxValueSize[r.From]
	}
	budget := (threshold - reserve) / copies
	if budget < minInline {
		return 0, inputError("Options.OffloadThreshold", threshold,
			fmt.Sprintf("leaves analysisResult %d bytes inline beside the renamed attributes' second copies, under the %d it needs", budget, minInline))
	}
	return budget, nil
}

// numberSize is the most a number takes in an item (38 digits).
const numberSize = 21

// maxValueSize bounds each attribute a Rename may copy (validate.go caps
// the strings); analysisResult, unbounded, is offloaded instead.
var maxValueSize = map[string]int{
	attrUpdatedAt: numberSize, attrFileSize: numberSize, attrProcessingStartedAt: numberSize,
	attrProcessingCompletedAt: numberSize, attrAttempt: numberSize, attrAttemptsAtReplay: numberSize,
	attrLeaseExpiresAt: numberSize, attrTaskCount: numberSize,
	attrFileType: maxFieldLen, attrOriginalFileName: maxFieldLen, attrProvider: maxFieldLen,
	attrCorrelationID: maxFieldLen, attrTraceID: maxFieldLen, attrTaskID: maxFieldLen,
	attrS3TempKey: maxS3KeyLen, attrS3FinalKey: maxS3KeyLen, attrIdempotencyKey: maxIdempotencyKeyLen,
	// s3Key, three numbers, the format and the member names.
	attrEditResult: maxS3KeyLen + 3*numberSize + 64,
}

// offloadAttr returns the value to store for attribute name of job id: av
// itself when it fits the per-attribute budget, else the Offloader's
// pointer after writing av to the blob store (S3 first, DynamoDB second, so
// an item never points at a missing object).
func (s *Store) offloadAttr(ctx context.Context, id, name string, av types.AttributeValue) (types.AttributeValue, error) {
	item := table.Item{name: av}
	if table.ItemSize(item) <= s.budget {
		return av, nil
	}
	if s.offload == nil {
		return nil, &table.InputError{Field: name, Value: id,
			Reason: fmt.Sprintf("is %d bytes, over the %d bytes a job keeps inline, and the store has no blob store to offload it to",
				table.ItemSize(item), s.budget), Err: table.ErrItemTooLarge}
	}
	out, err := s.offload.Offload(ctx, s.objectKey(id), item)
	if err != nil {
		return nil, fmt.Errorf("jobs: offload %s of job %q: %w", name, id, err)
	}
	return out[name], nil
}

// offloadItem keeps a whole item under the threshold (Backfill).
func (s *Store) offloadItem(ctx context.Context, id string, item table.Item) (table.Item, error) {
	if table.ItemSize(item) <= s.opts.OffloadThreshold {
		return item, nil
	}
	if s.full == nil {
		return nil, &table.InputError{Field: "item", Value: id,
			Reason: fmt.Sprintf("is %d bytes, over the %d byte threshold, and the store has no blob store to offload to",
				table.ItemSize(item), s.opts.OffloadThreshold), Err: table.ErrItemTooLarge}
	}
	out, err := s.full.Offload(ctx, s.objectKey(id), item)
	if err != nil {
		return nil, fmt.Errorf("jobs: offload job %q: %w", id, err)
	}
	return out, nil
}

// objectKey is the job's part of its objects' keys; the Offloader appends
// the attribute name and the content's SHA-256, so a write that fails its
// condition, or a later write of the same attribute, never replaces an
// object a stored item still points to.
//
// It is a one-to-one function of the id, whatever the id holds: the id is
// escaped with blobstore.EscapeSegment (the one escaping mechanism every
// store uses), so '/', "..", '%' and non-ASCII bytes cannot make two ids
// share a key or climb out of the prefix. Ids are at most 2048 bytes and
// escaping can triple them, but S3 keys hold 1024: an escaped id longer than
// maxPlainObjectID is replaced by "!sha256-" and its SHA-256. '!' never
// appears in an escaped id (EscapeSegment escapes it), so the hashed and
// the escaped forms cannot meet.
func (s *Store) objectKey(id string) string {
	escaped := blobstore.EscapeSegment(id)
	if len(escaped) > maxPlainObjectID {
		sum := sha256.Sum256([]byte(id))
		return "!sha256-" + hex.EncodeToString(sum[:])
	}
	return escaped
}

// maxPlainObjectID is the longest key segment every blob store accepts
// (blobstore.ValidateKey: a segment is a file name on Dir), which also
// leaves room in S3's 1024-byte keys for the prefix, the attribute name
// and the content hash the Offloader appends.
const maxPlainObjectID = blobstore.MaxSegmentLength

// RemoveOrphans deletes the blob objects no job points at any more: results
// of deleted or expired jobs, results replaced by a backfill, and objects
// written for a move whose conditional write was refused. It scans the
// whole table, so run it as occasional maintenance. Objects younger than
// blobstore's OrphanMinAge are left alone, since a move in flight writes
// its object before its item. It returns the deleted keys.
func (h *Maintenance) RemoveOrphans(ctx context.Context) (_ []string, err error) {
	s := h.store()
	ctx, span := s.start(ctx, "jobs.Maintenance.RemoveOrphans")
	defer span.End(&err)
	if err := s.check(); err != nil {
		return nil, err
	}
	if s.offload == nil {
		return nil, nil
	}
	removed, err := s.offload.RemoveOrphans(ctx, s.t, "")
	if err != nil {
		return removed, fmt.Errorf("jobs: remove orphans: %w", err)
	}
	return removed, nil
}

// Orphans lists, without deleting anything, the blob objects RemoveOrphans
// would delete, in key order: the dry run an operator looks at first.
func (h *Maintenance) Orphans(ctx context.Context) (_ []string, err error) {
	s := h.store()
	ctx, span := s.start(ctx, "jobs.Maintenance.Orphans")
	defer span.End(&err)
	if err := s.check(); err != nil {
		return nil, err
	}
	if s.offload == nil {
		return nil, nil
	}
	var keys []string
	for key, err := range s.offload.Orphans(ctx, s.t, "") {
		if err != nil {
			return keys, fmt.Errorf("jobs: list orphans: %w", err)
		}
		keys = append(keys, key)
	}
	return keys, nil
}

func hasPointer(item table.Item) bool {
	for _, v := range item {
		if _, ok := blobstore.PointerOf(v); ok {
			return true
		}
	}
	return false
}

func idOf(item table.Item) string {
	if v, ok := item[attrJobID].(*types.AttributeValueMemberS); ok {
		return fmt.Sprintf("%q", v.Value)
	}
	return "(no jobId)"
}

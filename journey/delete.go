package journey

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/table"
)

// attrDeleting, on a METADATA item, marks the journey as being deleted
// (the time Journeys.Delete marked it): reads find no journey, and every
// write that touches the METADATA item is refused (journeyOwn).
const attrDeleting = "DeletingAt"

// deleting reports whether a raw METADATA item is marked by Journeys.Delete.
func deleting(item table.Item) bool { return stringAttr(item, attrDeleting) != "" }

// DeleteOptions configure Journeys.Delete.
type DeleteOptions struct {
	// DryRun counts what Delete would remove and writes nothing.
	DryRun bool
}

// DryRun makes Journeys.Delete count what it would remove, writing nothing.
func DryRun() func(*DeleteOptions) { return func(o *DeleteOptions) { o.DryRun = true } }

// DeleteResult is what Journeys.Delete removed (or, with DryRun, would).
type DeleteResult struct {
	JourneyID string `json:"journeyId"`
	// Items are the DynamoDB items of the journey's partition, its
	// metadata included.
	Items int `json:"items"`
	// Files are the log and report files under journeys/{journeyId}/
	// deleted (or, with DryRun, to delete) with Options.PurgeFilesOnDelete;
	// 0 without it.
	Files int `json:"files"`
	// FilesKept: the journey's log and report files were left where they
	// are, as they are by default (the audit trail; see
	// Options.PurgeFilesOnDelete).
	FilesKept bool `json:"filesKept"`
	DryRun    bool `json:"dryRun"`
}

// deleteConcurrency bounds the files deleted at once.
const deleteConcurrency = 8

// deleteJourney implements [Journeys.Delete].
func (s *Store) deleteJourney(ctx context.Context, id string, o DeleteOptions) (DeleteResult, error) {
	res := DeleteResult{JourneyID: id, DryRun: o.DryRun}
	if err := checkID("journeyId", id); err != nil {
		return res, err
	}
	key, _ := s.journeyKey(id)
	var meta table.Item
	if err := s.t.Get(ctx, key, &meta, table.Consistent()); err != nil && !errors.Is(err, table.ErrNotFound) {
		return res, err
	}
	switch {
	case importing(meta):
		return res, claimedError(id, meta, nil)
	case len(meta) > 0 && !deleting(meta):
		if err := s.markDeleting(ctx, id, o.DryRun); err != nil {
			return res, err
		}
	}
	// From here the journey is marked (or its metadata already gone: the
	// rest of an interrupted delete, or items a late writer left).
	items, err := s.deletePartition(ctx, id, o.DryRun)
	if err != nil {
		return res, err
	}
	res.Items = items
	if s.opts.PurgeFilesOnDelete {
		files, err := s.deleteFiles(ctx, id, o.DryRun)
		if err != nil {
			return res, err
		}
		res.Files = files
	} else {
		res.FilesKept = true
	}
	if len(meta) > 0 {
		res.Items++
		if !o.DryRun {
			err := s.t.Delete(ctx, key, table.If(expression.AttributeExists(expression.Name(attrDeleting))))
			if err != nil && !errors.Is(err, table.ErrConditionFailed) {
				return res, err
			}
		}
	}
	if res.Items == 0 && res.Files == 0 {
		return res, notFound(ErrJourneyNotFound, id, nil)
	}
	if !o.DryRun {
		s.log(ctx, "journey deleted", "journeyId", id, "items", res.Items, "files", res.Files, "filesKept", res.FilesKept)
	}
	return res, nil
}

// markDeleting marks the journey's METADATA item (attrDeleting) and takes
// it out of GSI1 JOURNEYS, in one transaction with a ConditionCheck on
// each stage that it runs no job: Jobs.Start moves a stage to running and
// checks the metadata in one transaction too, so a job either started
// before the mark, and the mark is refused, or is refused by it. With
// dryRun it reads the stages and checks them only.
func (s *Store) markDeleting(ctx context.Context, id string, dryRun bool) error {
	stages, err := s.stages(ctx, id, Consistent())
	if err != nil {
		return err
	}
	for _, st := range stages {
		if st.Status == StageRunning {
			return fmt.Errorf("%w: journey %q: stage %s runs a job (Jobs.Recover fails it once past its timeout); nothing was deleted",
				ErrJobRunning, id, st.StageID)
		}
	}
	if dryRun {
		return nil
	}
	key, _ := s.journeyKey(id)
	tx := s.t.WriteTx().Update(key,
		expression.Set(expression.Name(attrDeleting), expression.Value(stamp(s.now()))).
			Remove(expression.Name(attrGSI1PK)).Remove(expression.Name(attrGSI1SK)),
		table.IfExists(), table.If(journeyOwn()), table.ItemOnConditionFailure())
	notRunning := expression.Name("Data.status").NotEqual(expression.Value(StageRunning))
	for _, st := range stages {
		sk, _ := s.stageKey(id, st.Order, st.StageID)
		tx.Check(sk, notRunning)
	}
	err = tx.Run(ctx)
	switch failedAction(err) {
	case -1:
		return err
	case 0:
		item := reasonItem(err, 0)
		if deleting(item) {
			return nil // another Delete marked it first; carry on
		}
		return metadataRefused(id, err, 0)
	default:
		st := stages[failedAction(err)-1]
		return fmt.Errorf("%w: journey %q: a job of stage %s started; nothing was deleted: %w", ErrJobRunning, id, st.StageID, err)
	}
}

// deletePartition deletes every item of the journey's partition but its
// METADATA (BatchWriteItem, a page of keys at a time) and returns how many
// there were. Nothing else writes there while the journey is marked, but
// a late writer (a report of a job that finished) may: a second Delete
// removes what it left.
func (s *Store) deletePartition(ctx context.Context, id string, dryRun bool) (int, error) {
	pk, _ := journeyPK.Build(id)
	keysOnly := expression.NamesList(expression.Name(attrPK), expression.Name(attrSK))
	q := table.Query{Partition: pk, Consistent: true, Projection: &keysOnly}
	n := 0
	var batch []table.Key
	flush := func() error {
		if len(batch) == 0 || dryRun {
			batch = batch[:0]
			return nil
		}
		err := s.t.BatchWrite(ctx, nil, batch)
		batch = batch[:0]
		return err
	}
	for item, err := range table.QueryAll[table.Item](ctx, s.t, q) {
		if err != nil {
			return n, err
		}
		sk := stringAttr(item, attrSK)
		if sk == metadataSK {
			continue
		}
		n++
		batch = append(batch, s.t.Key(pk, sk))
		if len(batch) == 1000 {
			if err := flush(); err != nil {
				return n, err
			}
		}
	}
	return n, flush()
}

// deleteFiles deletes the journey's log and report files (everything under
// journeys/{journeyId}/ in the logs and reports stores, deleteConcurrency
// at a time) and returns how many there were. The backups store is left
// alone: an export is what brings a deleted journey back.
func (s *Store) deleteFiles(ctx context.Context, id string, dryRun bool) (int, error) {
	prefix, err := logObjects.Prefix(id)
	if err != nil {
		return 0, inputError("journeyId", id, err.Error())
	}
	stores := []blobstore.Store{s.logs}
	if s.reports != s.logs {
		stores = append(stores, s.reports)
	}
	n := 0
	for _, store := range stores {
		var keys []string
		for info, err := range store.List(ctx, prefix) {
			if err != nil {
				return n, fmt.Errorf("journey: list files of %s: %w", id, err)
			}
			keys = append(keys, info.Key)
		}
		n += len(keys)
		if dryRun {
			continue
		}
		if err := deleteObjects(ctx, store, keys); err != nil {
			return n, fmt.Errorf("journey: delete files of %s: %w", id, err)
		}
	}
	return n, nil
}

// deleteObjects deletes keys from store, deleteConcurrency at a time; an
// object already gone counts as deleted.
func deleteObjects(ctx context.Context, store blobstore.Store, keys []string) error {
	work := make(chan string)
	var mu sync.Mutex
	var first error
	var wg sync.WaitGroup
	for range min(deleteConcurrency, len(keys)) {
		wg.Go(func() {
			for k := range work {
				if err := store.Delete(ctx, k); err != nil && !errors.Is(err, blobstore.ErrNotFound) {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		})
	}
	for _, k := range keys {
		if ctx.Err() != nil {
			break
		}
		work <- k
	}
	close(work)
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return first
}

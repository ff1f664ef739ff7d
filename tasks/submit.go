package tasks

import (
	"context"
	"errors"
	"fmt"

	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

// SubmitInput is a task to submit.
type SubmitInput struct {
	// IdempotencyKey names the submission: submitting the same key again
	// returns the task it created first and creates nothing. Keys are
	// global to the table, so scope them (a client id and a request id).
	// Optional: "" submits a new task every time. Not empty strings with
	// "#", at most 256 bytes.
	IdempotencyKey string
	// Payload is the work, opaque to the queue; at most MaxPayloadSize
	// bytes.
	Payload []byte
}

// Submit adds a PENDING task and returns it, with created false when the
// idempotency key had already created it (then nothing was written).
//
// As the seed says, the idempotency item is read first (GetItem, eventually
// consistent: a miss costs nothing but the write's refusal below). Then one
// transaction writes the task's META item, its SUBMITTED event EVENT#0001
// and the IDEM item, each with attribute_not_exists. When two submissions of
// one key race, the task id derived from the key makes them write the same
// items, so one transaction commits and the other is canceled; the loser
// reads the winner's task and returns it.
//
// A key submitted again with a different payload is refused with an
// *IdempotencyError (ErrIdempotencyMismatch): the key already names other
// work, as a reused DynamoDB ClientRequestToken does.
func (s *Store) Submit(ctx context.Context, in SubmitInput) (task *Task, created bool, err error) {
	if err := s.check(checkSubmit(in)); err != nil {
		return nil, false, err
	}
	hash := payloadHash(in.Payload)
	var id string
	if in.IdempotencyKey != "" {
		id = taskIDForKey(in.IdempotencyKey)
		var idem idemItem
		err := s.t.Get(ctx, s.idemKey(in.IdempotencyKey, id), &idem)
		switch {
		case err == nil:
			return s.existing(ctx, in.IdempotencyKey, hash, &idem)
		case !errors.Is(err, table.ErrNotFound):
			return nil, false, fmt.Errorf("tasks: submit: idempotency key %q: %w", in.IdempotencyKey, err)
		}
	} else {
		id = s.opts.NewID(s.now())
		if err := checkTaskID(id); err != nil {
			return nil, false, fmt.Errorf("tasks: Options.NewID: %w", err)
		}
	}

	now := s.now()
	meta := &metaItem{
		PK: mustBuild(taskPK, id), SK: mustBuild(metaSK),
		GSI1PK: s.statusPartition(StatusPending, s.shardOf(id)), GSI1SK: mustBuild(createdSK, now),
		Type: typeTask, TaskID: id, Status: StatusPending, Payload: in.Payload,
		IdempotencyKey: in.IdempotencyKey, Events: 1, AvailableAt: keys.FormatTime(now),
		CreatedAt: keys.FormatTime(now), UpdatedAt: keys.FormatTime(now),
	}
	event, err := newEvent(id, 1, EventSubmitted, StatusPending, 0, "", "", now)
	if err != nil {
		return nil, false, err
	}
	tx := s.t.WriteTx().Create(meta).Create(event)
	if in.IdempotencyKey != "" {
		tx.Create(&idemItem{
			PK: mustBuild(idemPK, in.IdempotencyKey), SK: mustBuild(taskSK, id), Type: typeIdempotency,
			TaskID: id, PayloadHash: hash, CreatedAt: keys.FormatTime(now),
		})
	}
	if err := tx.Run(ctx); err != nil {
		if in.IdempotencyKey != "" && errors.Is(err, table.ErrAlreadyExists) {
			// Lost the race: the winner's transaction has committed (a
			// conflicting one in flight cancels with TransactionConflict,
			// which table retries), so a consistent read finds its items.
			var idem idemItem
			if gerr := s.t.Get(ctx, s.idemKey(in.IdempotencyKey, id), &idem, table.Consistent()); gerr == nil {
				return s.existing(ctx, in.IdempotencyKey, hash, &idem)
			}
		}
		return nil, false, fmt.Errorf("tasks: submit %q: %w", id, err)
	}
	t, err := meta.task()
	return t, true, err
}

// existing returns the task an idempotency key created, or an
// *IdempotencyError when the payloads differ.
func (s *Store) existing(ctx context.Context, key, hash string, idem *idemItem) (*Task, bool, error) {
	if idem.PayloadHash != hash {
		return nil, false, &IdempotencyError{Key: key, TaskID: idem.TaskID}
	}
	t, err := s.Get(ctx, idem.TaskID)
	return t, false, err
}

func (s *Store) idemKey(key, taskID string) table.Key {
	return s.t.Key(mustBuild(idemPK, key), mustBuild(taskSK, taskID))
}

func checkSubmit(in SubmitInput) error {
	if in.IdempotencyKey != "" {
		if err := checkIdemKey(in.IdempotencyKey); err != nil {
			return err
		}
	}
	if len(in.Payload) > MaxPayloadSize {
		return inputError("Payload", fmt.Sprintf("%d bytes", len(in.Payload)), fmt.Sprintf("is over MaxPayloadSize (%d bytes)", MaxPayloadSize))
	}
	return nil
}

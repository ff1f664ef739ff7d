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
	if in.IdempotencyKey != "" {
		if t, err := s.submitted(ctx, in.IdempotencyKey, hash); t != nil || err != nil {
			return t, false, err
		}
	}
	sub, err := s.submission(in, hash)
	if err != nil {
		return nil, false, err
	}
	if err := sub.addTo(s.t.WriteTx()).Run(ctx); err != nil {
		if in.IdempotencyKey != "" && errors.Is(err, table.ErrAlreadyExists) {
			// Lost the race: the winner's transaction has committed (a
			// conflicting one in flight cancels with TransactionConflict,
			// which table retries), so a consistent read finds its items.
			if t, gerr := s.submitted(ctx, in.IdempotencyKey, hash, table.Consistent()); t != nil || gerr != nil {
				return t, false, gerr
			}
		}
		return nil, false, fmt.Errorf("tasks: submit %q: %w", sub.meta.TaskID, err)
	}
	t, err := sub.meta.task()
	return t, true, err
}

// SubmitTx adds the submission of in to tx, a transaction the caller
// builds and runs, possibly on another table (table.WriteTx.On): the task
// exists exactly when the caller's other writes apply. It keeps every
// guarantee of Submit: the META item, the SUBMITTED event EVENT#0001 and
// the IDEM item, each created with attribute_not_exists.
//
// With an idempotency key, SubmitTx first reads the key's IDEM item
// (strongly consistent). If the key has already created its task, SubmitTx
// adds nothing to tx and returns that task with created false, so the
// caller's transaction runs without a second submission; the same key with
// another payload is an *IdempotencyError. Otherwise it adds the three
// creates and returns the task as it will be once tx commits, with created
// true. Should another submission of the key commit between that read and
// tx.Run, Run fails with table.ErrAlreadyExists and applies nothing:
// building the transaction again finds the task and leaves it out.
//
// A nil tx, or a tx on another API than the store's table, is a
// *table.InputError; the latter is reported by tx.Run.
func (s *Store) SubmitTx(ctx context.Context, tx *table.WriteTx, in SubmitInput) (task *Task, created bool, err error) {
	if err := s.check(checkSubmit(in)); err != nil {
		return nil, false, err
	}
	if tx == nil {
		return nil, false, inputError("tx", "nil", "SubmitTx needs the caller's table.WriteTx")
	}
	hash := payloadHash(in.Payload)
	if in.IdempotencyKey != "" {
		if t, err := s.submitted(ctx, in.IdempotencyKey, hash, table.Consistent()); t != nil || err != nil {
			return t, false, err
		}
	}
	sub, err := s.submission(in, hash)
	if err != nil {
		return nil, false, err
	}
	sub.addTo(tx.On(s.t))
	t, err := sub.meta.task()
	return t, true, err
}

// submission is the items that submit one task.
type submission struct {
	meta  *metaItem
	event *eventItem
	idem  *idemItem // nil without an idempotency key
}

// submission builds the items that submit in, whose payload's SHA-256 is
// hash: the id derived from the idempotency key, or a new one.
func (s *Store) submission(in SubmitInput, hash string) (*submission, error) {
	var id string
	if in.IdempotencyKey != "" {
		id = taskIDForKey(in.IdempotencyKey)
	} else {
		id = s.opts.NewID(s.now())
		if err := checkTaskID(id); err != nil {
			return nil, fmt.Errorf("tasks: Options.NewID: %w", err)
		}
	}
	now := s.now()
	sub := &submission{meta: &metaItem{
		PK: mustBuild(taskPK, id), SK: mustBuild(metaSK),
		GSI1PK: s.statusPartition(StatusPending, s.shardOf(id)), GSI1SK: mustBuild(createdSK, now),
		Type: typeTask, TaskID: id, Status: StatusPending, Payload: in.Payload,
		IdempotencyKey: in.IdempotencyKey, Events: 1, AvailableAt: keys.FormatTime(now),
		CreatedAt: keys.FormatTime(now), UpdatedAt: keys.FormatTime(now),
	}}
	var err error
	if sub.event, err = newEvent(id, 1, EventSubmitted, StatusPending, 0, "", "", now); err != nil {
		return nil, err
	}
	if in.IdempotencyKey != "" {
		sub.idem = &idemItem{
			PK: mustBuild(idemPK, in.IdempotencyKey), SK: mustBuild(taskSK, id), Type: typeIdempotency,
			TaskID: id, PayloadHash: hash, CreatedAt: keys.FormatTime(now),
		}
	}
	return sub, nil
}

// addTo adds the submission's creates to tx, a handle on the store's table.
func (sub *submission) addTo(tx *table.WriteTx) *table.WriteTx {
	tx.Create(sub.meta).Create(sub.event)
	if sub.idem != nil {
		tx.Create(sub.idem)
	}
	return tx
}

// submitted returns the task the idempotency key created (nil, nil when
// it has created none), or an *IdempotencyError when its payload hash
// differs.
func (s *Store) submitted(ctx context.Context, key, hash string, opts ...func(*table.GetOptions)) (*Task, error) {
	id := taskIDForKey(key)
	var idem idemItem
	err := s.t.Get(ctx, s.idemKey(key, id), &idem, opts...)
	switch {
	case errors.Is(err, table.ErrNotFound):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("tasks: submit: idempotency key %q: %w", key, err)
	}
	t, _, err := s.existing(ctx, key, hash, &idem)
	return t, err
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

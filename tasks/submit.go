package tasks

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/tablekit/tablekit/entity"
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
	// AvailableAt delays the task: no Claim hands it out before this time
	// (its place in the pending queue, GSI1SK CREATED#<availableAt>, is a
	// key condition claims never read past, as for a retry's backoff).
	// Zero: claimable at once. A time before the submission, by the
	// store's clock, is bad input (a *table.InputError; nothing is
	// written), and so is one after the year 9999. Stored to the
	// microsecond. A repeated idempotency key returns the task its first
	// submission made, with that submission's time.
	AvailableAt time.Time
}

// Submit adds a PENDING task and returns it, with created false when the
// idempotency key had already created it (then nothing new was written).
//
// Single-item writes in two round trips, no transaction: the IDEM item
// (attribute_not_exists), then the task's META item (attribute_not_exists),
// which enters GSI1's pending queue, and beside it the SUBMITTED event,
// EVENT#0001 (unless Options.CompactHistory: then META tells it). The IDEM
// item decides: when two submissions of one key race, one creates it and
// the other gets it back with the refusal
// (ReturnValuesOnConditionCheckFailure), so a repeated key costs one
// request, not the seed's GetItem before every submission. Everything
// after it is a function of the IDEM item (the task id derived from the
// key, its createdAt, the payload its hash names), so any submission of
// the key can write META and its event again and gets the same items: a
// submission cut off after its IDEM item is finished by the next Submit of
// its key. Beside META goes the readiness signal (at most once a second
// per store), which wakes idle workers. A Submit that fails may have
// written some of these items; without a key, a retry submits another
// task (use a key to retry safely), and an event item left without its
// META (whose put failed) expires after Options.Retention.
//
// A key submitted again with a different payload is refused with an
// *IdempotencyError (ErrIdempotencyMismatch): the key already names other
// work, as a reused DynamoDB ClientRequestToken does.
func (s *Store) Submit(ctx context.Context, in SubmitInput) (task *Task, created bool, err error) {
	tp := traceParent(ctx)
	ctx, span := s.start(ctx, "tasks.Submit")
	defer span.End(&err)
	if err := s.check(nil); err != nil {
		return nil, false, err
	}
	now := s.now()
	if err := checkSubmit(in, now); err != nil {
		return nil, false, err
	}
	if _, err := s.tableShards(ctx, true); err != nil {
		return nil, false, err
	}
	hash := payloadHash(in.Payload)
	sub, err := s.submission(in, hash, "", now, tp)
	if err != nil {
		return nil, false, err
	}
	if sub.idem != nil {
		if _, err := s.ent.idem.Create(ctx, *sub.idem); err != nil {
			var te *table.Error
			if !errors.As(err, &te) || !errors.Is(err, table.ErrAlreadyExists) || te.Item == nil {
				return nil, false, fmt.Errorf("tasks: submit %q: %w", sub.meta.TaskID, err)
			}
			// The key has submitted before: its IDEM item came back.
			idem, err := s.ent.idem.Decode(ctx, te.Item)
			if err != nil {
				return nil, false, fmt.Errorf("tasks: idempotency key %q: %w", in.IdempotencyKey, err)
			}
			t, err := s.submitted(ctx, in, hash, &idem, tp)
			return t, false, err
		}
	}
	return s.write(ctx, sub)
}

// write writes a submission's META item and its SUBMITTED event, after
// its IDEM item, and reports whether the task is sub's. META may exist
// already: when a racing Submit of the key finished sub (then the task is
// still sub's), or when the key's IDEM item expired while its task, an
// older one, lived on (see "Retention" in the package documentation).
// Then it returns the task as stored, or an *IdempotencyError if the
// older task has another payload.
//
// The event is put beside META, in the same round trip, on the condition
// that its key is free (or holds an expired item): a racing submission of
// the key writes the same event, and a live one is never overwritten. In
// the second case above the older task's own SUBMITTED event had expired
// with its IDEM item, and this one is not its: it is deleted again.
func (s *Store) write(ctx context.Context, sub *submission) (*Task, bool, error) {
	id := sub.meta.TaskID
	var metaErr, eventErr error
	each(3, func(i int) error {
		switch {
		case i == 0:
			_, metaErr = s.ent.tasks.Create(ctx, *sub.meta)
		case i == 1:
			s.bump(ctx)
		case sub.event != nil:
			_, eventErr = s.ent.events.Create(ctx, *sub.event)
		}
		return nil
	})
	eventWritten := sub.event != nil && eventErr == nil
	if errors.Is(eventErr, table.ErrAlreadyExists) {
		eventErr = nil // written by a racing submission of the key
	}
	if metaErr != nil {
		if !errors.Is(metaErr, table.ErrAlreadyExists) {
			return nil, false, fmt.Errorf("tasks: submit %q: %w", id, metaErr)
		}
		t, err := s.get(ctx, id)
		switch {
		case err != nil:
			return nil, false, err
		case keys.FormatTime(t.CreatedAt) == sub.meta.CreatedAt:
			// this submission, finished by a racing Submit of its key
			if err := s.eventWritten(id, eventErr); err != nil {
				return nil, false, err
			}
			return t, true, nil
		case eventWritten:
			s.unsubmit(ctx, sub.event)
		}
		if payloadHash(t.Payload) != payloadHash(sub.meta.Payload) {
			return nil, false, &IdempotencyError{Key: sub.meta.IdempotencyKey, TaskID: id}
		}
		return t, false, nil
	}
	if err := s.eventWritten(id, eventErr); err != nil {
		return nil, false, err
	}
	t, err := sub.meta.task()
	return t, err == nil, err
}

// eventWritten is the error of a submission of task id whose META is
// stored but whose SUBMITTED event put failed with err (nil if it did
// not): the task exists, its history reads whole (META tells the event),
// but the layout misses the item, which the caller should know.
func (s *Store) eventWritten(id string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("tasks: submit %q: the task is stored, its SUBMITTED event item is not: %w", id, err)
}

// unsubmit deletes the SUBMITTED event ev a submission wrote for a task
// that turned out older than it (its IDEM item had expired while it lived
// on), unless the item is no longer ev. A failure leaves an item History
// ignores (its time is not the task's creation), and is logged.
func (s *Store) unsubmit(ctx context.Context, ev *eventItem) {
	ours := expression.Name(attrAt).Equal(expression.Value(ev.At))
	_, err := s.ent.events.Delete(ctx, *ev, entity.Unchecked(), entity.If(ours))
	if err != nil && !errors.Is(err, table.ErrConditionFailed) {
		s.log.WarnContext(ctx, "tasks: a late submission's SUBMITTED event was not removed; History ignores it",
			"operation", "submit", "key", ev.TaskID, "error", err.Error())
	}
}

// SubmitTx adds the submission of in to tx, a transaction the caller
// builds and runs, possibly on another table (table.WriteTx.On): the task
// exists exactly when the caller's other writes apply. It keeps every
// guarantee of Submit: the META item and the IDEM item, each created with
// attribute_not_exists (or over an expired item of the same key, which
// DynamoDB has yet to delete).
//
// With an idempotency key, SubmitTx first reads the key's IDEM item
// (strongly consistent) and, when there is none, the task the key would
// create (its IDEM item expires Retention after the submission, so a task
// that lived longer is found by its id). If the key has already created its task, SubmitTx
// adds nothing to tx and returns that task with created false, so the
// caller's transaction runs without a second submission; the same key with
// another payload is an *IdempotencyError. Otherwise it adds the creates
// and returns the task as it will be once tx commits, with created true
// (also when it finishes a Submit of the key that was cut off after its
// IDEM item: then it adds META). Should another submission
// of the key commit between that read and tx.Run, Run fails with
// table.ErrAlreadyExists and applies nothing: building the transaction
// again finds the task and leaves it out.
//
// With FreshKey among opts, the caller vouches that the key has never
// been submitted, and SubmitTx reads nothing: it adds the creates at once
// (see FreshKey).
//
// A nil tx, or a tx on another API than the store's table, is a
// *table.InputError; the latter is reported by tx.Run. So is FreshKey
// without an idempotency key.
func (s *Store) SubmitTx(ctx context.Context, tx *table.WriteTx, in SubmitInput, opts ...func(*SubmitTxOptions)) (task *Task, created bool, err error) {
	tp := traceParent(ctx)
	ctx, span := s.start(ctx, "tasks.SubmitTx")
	defer span.End(&err)
	if err := s.check(nil); err != nil {
		return nil, false, err
	}
	now := s.now()
	if err := checkSubmit(in, now); err != nil {
		return nil, false, err
	}
	if tx == nil {
		return nil, false, inputError("tx", "nil", "SubmitTx needs the caller's table.WriteTx")
	}
	var o SubmitTxOptions
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	if o.FreshKey && in.IdempotencyKey == "" {
		return nil, false, inputError("IdempotencyKey", `""`, "FreshKey vouches for a key: give the submission one")
	}
	if _, err := s.tableShards(ctx, true); err != nil {
		return nil, false, err
	}
	hash := payloadHash(in.Payload)
	var sub *submission
	if in.IdempotencyKey != "" && !o.FreshKey {
		idem, t, err := s.lookup(ctx, in.IdempotencyKey, hash)
		switch {
		case err != nil || t != nil:
			return t, false, err
		case idem == nil:
			// The key's IDEM item may have expired while its task lives
			// on (longer than Retention): then the task is the key's.
			t, err := s.get(ctx, taskIDForKey(in.IdempotencyKey))
			switch {
			case err == nil && payloadHash(t.Payload) != hash:
				return nil, false, &IdempotencyError{Key: in.IdempotencyKey, TaskID: t.ID}
			case err == nil:
				return t, false, nil
			case !errors.Is(err, ErrNotFound):
				return nil, false, err
			}
		default:
			// A Submit cut off after its IDEM item: add the rest.
			if sub, err = s.resumed(in, hash, idem, tp); err != nil {
				return nil, false, err
			}
			sub.idem = nil
		}
	}
	if sub == nil {
		if sub, err = s.submission(in, hash, "", now, tp); err != nil {
			return nil, false, err
		}
	}
	tx = tx.On(s.t)
	if sub.idem != nil {
		if err := s.ent.idem.TxCreate(*sub.idem).AddTo(ctx, tx); err != nil {
			return nil, false, err
		}
	}
	if err := s.ent.tasks.TxCreate(*sub.meta).AddTo(ctx, tx); err != nil {
		return nil, false, err
	}
	if sub.event != nil {
		// A Put: it applies only with META's create, which finds no live
		// task, so any event item there is this submission's own (a Submit
		// cut off after it) or expired.
		if err := s.ent.events.TxPut(*sub.event).AddTo(ctx, tx); err != nil {
			return nil, false, err
		}
	}
	// Idle workers learn of the task from the readiness signal, set now:
	// they look for quiet seconds after it (and probe a partition on every
	// poll, for a transaction run later than that).
	s.bump(ctx)
	t, err := sub.meta.task()
	return t, true, err
}

// SubmitTxOptions tune SubmitTx.
type SubmitTxOptions struct {
	// FreshKey: the submission's idempotency key has never been
	// submitted (see FreshKey).
	FreshKey bool
}

// FreshKey tells SubmitTx that the caller knows the idempotency key to be
// new: its own transaction proves it (a job's n-th queuing, conditioned
// on the job not existing yet or on its count of queuings being n-1), so
// reading the IDEM item and the task first would find nothing. SubmitTx
// then reads nothing and adds the IDEM and META items, each created with
// attribute_not_exists as ever: should the key exist after all, tx.Run
// is canceled (table.ErrAlreadyExists) and applies none of the
// transaction's writes, the caller's included. It saves the two strongly
// consistent reads of a new key (a request each, 1 read unit each).
func FreshKey() func(*SubmitTxOptions) {
	return func(o *SubmitTxOptions) { o.FreshKey = true }
}

// submission is the items that submit one task.
type submission struct {
	meta  *metaItem
	idem  *idemItem  // nil without an idempotency key
	event *eventItem // the SUBMITTED event; nil with Options.CompactHistory
}

// submission builds the items that submit in at now, whose payload's
// SHA-256 is hash: task id, if given, else the id derived from the
// idempotency key, or a new one. The task is claimable from
// in.AvailableAt, or now when that is zero.
func (s *Store) submission(in SubmitInput, hash, id string, now time.Time, traceParent string) (*submission, error) {
	switch {
	case id != "":
	case in.IdempotencyKey != "":
		id = taskIDForKey(in.IdempotencyKey)
	default:
		id = s.opts.NewID(now)
		if err := checkTaskID(id); err != nil {
			return nil, fmt.Errorf("tasks: Options.NewID: %w", err)
		}
	}
	available := now
	if !in.AvailableAt.IsZero() {
		available = in.AvailableAt.UTC().Truncate(time.Microsecond)
	}
	gsi1pk, gsi1sk := s.queueKeys(StatusPending, id, available)
	sub := &submission{meta: &metaItem{
		GSI1PK: gsi1pk, GSI1SK: gsi1sk, TaskID: id, Status: StatusPending, Payload: in.Payload,
		IdempotencyKey: in.IdempotencyKey, Events: 1, AvailableAt: keys.FormatTime(available), MaxAttempts: s.opts.MaxAttempts,
		CreatedAt: keys.FormatTime(now), UpdatedAt: keys.FormatTime(now), TraceParent: traceParent,
	}}
	if in.IdempotencyKey != "" {
		sub.idem = &idemItem{
			Key: in.IdempotencyKey, TaskID: id, PayloadHash: hash, CreatedAt: keys.FormatTime(now), TTL: s.ttlFrom(now),
		}
		if available.After(now) {
			// so that a submission cut off after the IDEM item is
			// finished with the time it asked for, whatever the next
			// Submit of the key asks
			sub.idem.AvailableAt = keys.FormatTime(available)
		}
	}
	if !s.opts.CompactHistory {
		ev, err := s.newEvent(id, 1, EventSubmitted, StatusPending, 0, "", "", now)
		if err != nil {
			return nil, err
		}
		sub.event = ev
	}
	return sub, nil
}

// resumed is the submission an IDEM item records: the same items its
// first Submit wrote or was about to write.
func (s *Store) resumed(in SubmitInput, hash string, idem *idemItem, traceParent string) (*submission, error) {
	if err := checkTaskID(idem.TaskID); err != nil {
		return nil, fmt.Errorf("tasks: idempotency key %q: stored task id: %w", in.IdempotencyKey, err)
	}
	at, err := parseTime("createdAt", idem.CreatedAt)
	if err != nil {
		return nil, err
	}
	if in.AvailableAt, err = parseTime("availableAt", idem.AvailableAt); err != nil {
		return nil, err
	}
	return s.submission(in, hash, idem.TaskID, at, traceParent)
}

// submitted returns the task the idempotency key of in created, whose
// IDEM item is idem, finishing its submission if that was cut off after
// the IDEM item, or an *IdempotencyError when the payload differs.
func (s *Store) submitted(ctx context.Context, in SubmitInput, hash string, idem *idemItem, traceParent string) (*Task, error) {
	t, err := s.taskOf(ctx, in.IdempotencyKey, hash, idem)
	if err != nil || t != nil {
		return t, err
	}
	sub, err := s.resumed(in, hash, idem, traceParent)
	if err != nil {
		return nil, err
	}
	t, _, err = s.write(ctx, sub)
	return t, err
}

// lookup reads the IDEM item of key (strongly consistent) and, when it
// exists, the task it names (see taskOf). It returns a nil idem when the
// key has submitted nothing (or its IDEM item has expired).
func (s *Store) lookup(ctx context.Context, key, hash string) (*idemItem, *Task, error) {
	idem, err := s.ent.idem.Get(ctx, idemItem{Key: key, TaskID: taskIDForKey(key)}, entity.Consistent())
	switch {
	case errors.Is(err, table.ErrNotFound):
		return nil, nil, nil
	case err != nil:
		return nil, nil, fmt.Errorf("tasks: submit: idempotency key %q: %w", key, err)
	}
	t, err := s.taskOf(ctx, key, hash, &idem)
	if err != nil {
		return nil, nil, err
	}
	return &idem, t, nil
}

// taskOf returns the task the IDEM item idem of key names, nil when the
// submission stopped before its META item. A payload other than the one
// the key submitted is an *IdempotencyError: the task's own payload
// decides while the task exists, the IDEM item's hash when it does not.
func (s *Store) taskOf(ctx context.Context, key, hash string, idem *idemItem) (*Task, error) {
	t, err := s.get(ctx, idem.TaskID)
	switch {
	case errors.Is(err, ErrNotFound) && idem.PayloadHash != hash,
		err == nil && payloadHash(t.Payload) != hash:
		return nil, &IdempotencyError{Key: key, TaskID: idem.TaskID}
	case errors.Is(err, ErrNotFound):
		return nil, nil
	}
	return t, err
}

// checkSubmit checks a submission made at now.
func checkSubmit(in SubmitInput, now time.Time) error {
	if in.IdempotencyKey != "" {
		if err := checkIdemKey(in.IdempotencyKey); err != nil {
			return err
		}
	}
	if len(in.Payload) > MaxPayloadSize {
		return inputError("Payload", fmt.Sprintf("%d bytes", len(in.Payload)), fmt.Sprintf("is over MaxPayloadSize (%d bytes)", MaxPayloadSize))
	}
	return checkAvailableAt(in.AvailableAt, now)
}

// checkAvailableAt checks a submission's delay: zero (none), or a time
// not before now that a queue key can hold.
func checkAvailableAt(at, now time.Time) error {
	if at.IsZero() {
		return nil
	}
	at = at.UTC().Truncate(time.Microsecond)
	if at.Before(now) {
		return inputError("AvailableAt", keys.FormatTime(at),
			fmt.Sprintf("is before the submission (%s by the store's clock): a delayed task becomes claimable later, or leave it zero for at once", keys.FormatTime(now)))
	}
	if _, err := createdSK.Build(at); err != nil {
		return inputError("AvailableAt", at.Format(time.RFC3339), "is past the year 9999, the last a queue key holds")
	}
	return nil
}

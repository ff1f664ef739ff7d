package jobs

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base32"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tablekit/tablekit/table"
)

// CreateInput is what an upload knows about a new job. The store sets the
// rest: jobId, status QUEUED, createdAt, updatedAt and ttl.
type CreateInput struct {
	UserID           string // required
	FileSize         int64  // bytes; must not be negative
	FileType         string // required MIME type, e.g. "image/jpeg"
	OriginalFileName string
	S3TempKey        string
	// Provider is required: one of the seed's "gemini", "seedream" and
	// "stub" (SeedProviders), or one Options.Providers adds; any other
	// is a *table.InputError wrapping ErrUnknownProvider.
	Provider      string
	CorrelationID string
	// TraceID is the request's X-Ray trace id. When empty, Create takes it
	// from the OpenTelemetry span ctx carries (table.XRayTraceID: the span
	// of a traced request, or the store's own "jobs.Create" span under it
	// with a TracerProvider; both carry the request's trace id), so a
	// traced service records it without passing it by hand.
	TraceID string

	// IdempotencyKey, when set, makes Create idempotent: the same user and
	// key return the job the first call created (created false), and the
	// same key with other input fails with ErrIdempotencyMismatch. Keys
	// are scoped to the user, as an HTTP Idempotency-Key header is to its
	// client: two users' equal keys name two jobs. The job id is derived
	// from both (a "k-" id rather than a ULID). At most 256 bytes of UTF-8.
	IdempotencyKey string
}

// Create stores a new QUEUED job and returns it, with created true. The
// id is a new ULID (see Options.NewID); the write is conditional on
// attribute_not_exists(jobId) so an id can never overwrite another job
// (table.ErrAlreadyExists). createdAt and updatedAt are the store's clock in
// Unix milliseconds, ttl that time plus Options.Retention in Unix seconds.
//
// With an IdempotencyKey, a retried request returns the job the first one
// created, with created false, and writes nothing. The job id is derived
// from the user and the key (see CreateInput.IdempotencyKey), so the whole
// create is still one conditional PutItem: of any number of concurrent or
// retried calls one writes the item, and the others' writes are refused
// with the stored job attached (ReturnValuesOnConditionCheckFailure), at no
// extra read. No step can be left half done by a crash: there is only one.
// A stored job whose input differs (fileSize, fileType, originalFileName,
// s3TempKey or provider; correlationId and traceId belong to the request,
// not the job, and may differ) is an *IdempotencyError
// (ErrIdempotencyMismatch). A job whose ttl has passed no longer holds its
// key, so the key creates a new job.
func (s *Store) Create(ctx context.Context, in CreateInput) (job *Job, created bool, err error) {
	ctx, span := s.start(ctx, "jobs.Create")
	defer span.End(&err)
	if err := s.check(); err != nil {
		return nil, false, err
	}
	if err := in.validate(); err != nil {
		return nil, false, err
	}
	if err := s.checkProvider(in.Provider); err != nil {
		return nil, false, err
	}
	now := s.now()
	id := keyedJobID(in.UserID, in.IdempotencyKey)
	if id == "" {
		id = s.opts.NewID(now)
		if err := checkID(id); err != nil {
			return nil, false, fmt.Errorf("jobs: Options.NewID: %w", err)
		}
	}
	createdAt := fromUnixMilli(now.UnixMilli())
	job = &Job{
		ID:               id,
		UserID:           in.UserID,
		Status:           StatusQueued,
		CreatedAt:        createdAt,
		UpdatedAt:        createdAt,
		FileSize:         in.FileSize,
		FileType:         in.FileType,
		OriginalFileName: in.OriginalFileName,
		S3TempKey:        in.S3TempKey,
		Provider:         in.Provider,
		CorrelationID:    in.CorrelationID,
		TraceID:          cmp.Or(in.TraceID, table.XRayTraceID(ctx)),
		IdempotencyKey:   in.IdempotencyKey,
	}
	if s.opts.Retention > 0 {
		job.ExpiresAt = fromUnixSeconds(now.Add(s.opts.Retention).Unix())
	}
	if s.work != nil {
		return s.createWithWork(ctx, job, in, now)
	}
	item, err := s.item(job)
	if err != nil {
		return nil, false, err
	}
	if in.IdempotencyKey == "" {
		if err := s.t.Put(ctx, item, table.IfNotExists()); err != nil {
			if errors.Is(err, table.ErrAlreadyExists) {
				return nil, false, fmt.Errorf("jobs: create job %q: id already used: %w", id, err)
			}
			return nil, false, fmt.Errorf("jobs: create job for user %q: %w", in.UserID, err)
		}
		return job, true, nil
	}
	// A job whose ttl has passed is gone for this package, and gives its
	// key back.
	err = s.t.Put(ctx, item, table.IfNotExistsOrExpired(attrTTL, now), table.ItemOnConditionFailure())
	if err == nil {
		return job, true, nil
	}
	var te *table.Error
	if !errors.Is(err, table.ErrAlreadyExists) || !errors.As(err, &te) || len(te.Item) == 0 {
		return nil, false, fmt.Errorf("jobs: create job for user %q, idempotency key %q: %w", in.UserID, in.IdempotencyKey, err)
	}
	return s.createdBefore(ctx, te.Item, in)
}

// createdBefore is Create's answer when the job's id is taken: the job the
// idempotency key created (created false), or an *IdempotencyError when
// it was created from other input.
func (s *Store) createdBefore(ctx context.Context, item table.Item, in CreateInput) (*Job, bool, error) {
	stored, err := s.jobFromStored(ctx, item)
	if err != nil {
		return nil, false, err
	}
	if field := differentInput(stored, in); field != "" {
		return nil, false, &IdempotencyError{Key: in.IdempotencyKey, JobID: stored.ID, Field: field, Job: stored}
	}
	return stored, false, nil
}

// createWithWork is Create on a store with a work queue: the job's item
// and the task carrying its work (its first queuing) in one transaction,
// under Create's conditions, so no job exists without its work.
func (s *Store) createWithWork(ctx context.Context, job *Job, in CreateInput, now time.Time) (*Job, bool, error) {
	cond := table.IfNotExists()
	if in.IdempotencyKey != "" {
		// A job whose ttl has passed is gone for this package, and gives
		// its key back.
		cond = table.IfNotExistsOrExpired(attrTTL, now)
	}
	var built error // building the transaction failed: nothing was sent
	err := s.runQueuing(func(fresh bool) error {
		tx := s.t.WriteTx()
		task, err := s.submitWork(ctx, tx, job.ID, job.CreatedAt, 1, fresh)
		if err != nil {
			built = err
			return err
		}
		job.TaskID, job.TaskCount = task.ID, 1
		item, err := s.item(job)
		if err != nil {
			built = err
			return err
		}
		return tx.Put(item, cond, table.ItemOnConditionFailure()).Run(ctx)
	})
	if built != nil {
		return nil, false, built
	}
	if err == nil {
		return job, true, nil
	}
	stored, refused := s.jobRefusal(err)
	switch {
	case refused && in.IdempotencyKey != "" && len(stored) > 0:
		return s.createdBefore(ctx, stored, in)
	case refused:
		return nil, false, fmt.Errorf("jobs: create job %q: id already used: %w", job.ID, err)
	}
	return nil, false, fmt.Errorf("jobs: create job for user %q and queue its work: %w", in.UserID, err)
}

// keyedJobID is the id of the job an idempotency key creates for a user:
// "k-" and the first 128 bits of SHA-256 over the user id and the key, in
// lower-case base32 (26 characters, like a ULID, but not one: it carries no
// time). Both go into the hash with their lengths, so no two (user, key)
// pairs share an input. "" without a key.
func keyedJobID(userID, key string) string {
	if key == "" {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "%d:%s%d:%s", len(userID), userID, len(key), key)
	sum := h.Sum(nil)
	return "k-" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(sum[:16]))
}

// differentInput names the first input field a stored job has otherwise
// than in asks, or "".
func differentInput(j *Job, in CreateInput) string {
	switch {
	case j.UserID != in.UserID:
		return "userId"
	case j.FileSize != in.FileSize:
		return "fileSize"
	case j.FileType != in.FileType:
		return "fileType"
	case j.OriginalFileName != in.OriginalFileName:
		return "originalFileName"
	case j.S3TempKey != in.S3TempKey:
		return "s3TempKey"
	case j.Provider != in.Provider:
		return "provider"
	}
	return ""
}

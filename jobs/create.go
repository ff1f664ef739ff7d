package jobs

import (
	"context"
	"errors"
	"fmt"

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
	Provider         string // required: "gemini", "seedream", "stub", ...
	CorrelationID    string
	TraceID          string
}

// Create stores a new QUEUED job and returns it. The id is a new ULID (see
// Options.NewID); the write is conditional on attribute_not_exists(jobId)
// so an id can never overwrite another job (table.ErrAlreadyExists).
// createdAt and updatedAt are the store's clock in Unix milliseconds, ttl
// that time plus Options.TTL in Unix seconds.
func (s *Store) Create(ctx context.Context, in CreateInput) (*Job, error) {
	if s.err != nil {
		return nil, s.err
	}
	if err := in.validate(); err != nil {
		return nil, err
	}
	now := s.now()
	id := s.opts.NewID(now)
	if err := checkID(id); err != nil {
		return nil, fmt.Errorf("jobs: Options.NewID: %w", err)
	}
	created := fromUnixMilli(now.UnixMilli())
	job := &Job{
		ID:               id,
		UserID:           in.UserID,
		Status:           StatusQueued,
		CreatedAt:        created,
		UpdatedAt:        created,
		FileSize:         in.FileSize,
		FileType:         in.FileType,
		OriginalFileName: in.OriginalFileName,
		S3TempKey:        in.S3TempKey,
		Provider:         in.Provider,
		CorrelationID:    in.CorrelationID,
		TraceID:          in.TraceID,
	}
	if s.opts.TTL > 0 {
		job.ExpiresAt = fromUnixSeconds(now.Add(s.opts.TTL).Unix())
	}
	item, err := job.toItem()
	if err != nil {
		return nil, err
	}
	if err := s.t.Put(ctx, item, table.IfNotExists()); err != nil {
		if errors.Is(err, table.ErrAlreadyExists) {
			return nil, fmt.Errorf("jobs: create job %q: id already used: %w", id, err)
		}
		return nil, fmt.Errorf("jobs: create job for user %q: %w", in.UserID, err)
	}
	return job, nil
}

package jobs

import (
	"fmt"
	"math"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/table"
)

// Job is one photo-editing job: the seed's JobItem. Timestamps are time.Time
// here and Unix milliseconds in the table (ttl: Unix seconds), so a Job
// written by this package is readable by every other service that built its
// code from the seed, and the other way round.
//
// Optional attributes the seed marks with "?" are stored only when set; a
// zero value here means "absent" in the table. See the package
// documentation for the defaults used when reading items written before an
// attribute existed.
type Job struct {
	ID     string `json:"jobId"`  // jobId: the partition key, a ULID for jobs created here
	UserID string `json:"userId"` // userId: partition key of userId-createdAt-index
	Status Status `json:"status"` // status: partition key of status-createdAt-index

	CreatedAt time.Time `json:"createdAt"` // createdAt (Unix ms): sort key of both indexes
	UpdatedAt time.Time `json:"updatedAt"` // updatedAt (Unix ms): set by every write

	FileSize         int64  `json:"fileSize"`                   // fileSize: bytes
	FileType         string `json:"fileType"`                   // fileType: MIME type, e.g. "image/jpeg"
	OriginalFileName string `json:"originalFileName,omitempty"` // originalFileName, optional

	S3TempKey  string `json:"s3TempKey,omitempty"`  // s3TempKey: key in the temp bucket, optional
	S3FinalKey string `json:"s3FinalKey,omitempty"` // s3FinalKey: key in the final bucket once completed, optional

	Provider              string    `json:"provider"`                       // provider: "gemini", "seedream", "stub", or one Options.Providers adds
	ProcessingStartedAt   time.Time `json:"processingStartedAt,omitzero"`   // processingStartedAt (Unix ms): set by QUEUED → PROCESSING
	ProcessingCompletedAt time.Time `json:"processingCompletedAt,omitzero"` // processingCompletedAt (Unix ms): set by → COMPLETED and → FAILED

	AnalysisResult *AnalysisResult `json:"analysisResult,omitempty"` // analysisResult: set by PROCESSING → EDITING
	EditResult     *EditResult     `json:"editResult,omitempty"`     // editResult: set by EDITING → COMPLETED
	Error          *JobError       `json:"error,omitempty"`          // error: set by → FAILED, kept across replays

	CorrelationID string `json:"correlationId,omitempty"` // correlationId, optional
	TraceID       string `json:"traceId,omitempty"`       // traceId: X-Ray trace id, optional

	// ExpiresAt is the ttl attribute (Unix seconds): once it has passed the
	// job is gone for every read of this package, even before DynamoDB's
	// background process deletes it. Zero means the item has no ttl and
	// never expires.
	ExpiresAt time.Time `json:"ttl,omitzero"`

	// Attempt is the number of the job's latest processing attempt
	// (attribute attempt, not in the seed): StartProcessing increments it,
	// nothing resets it. It fences the worker moves: a worker's Lease
	// carries the attempt it started, and a move under an older attempt is
	// refused (ErrLeaseLost). Zero for a job never started.
	Attempt int `json:"attempt,omitempty"`
	// AttemptsAtReplay is Attempt when the job was last replayed
	// (attemptsAtReplay, not in the seed): Recover counts the attempts
	// since then against Options.MaxAttempts, so a replay grants a fresh
	// set of attempts without resetting the fencing counter.
	AttemptsAtReplay int `json:"attemptsAtReplay,omitempty"`
	// LeaseExpiresAt is when the in-flight job's lease runs out
	// (leaseExpiresAt, Unix ms, not in the seed): set by StartProcessing,
	// StartEditing and Heartbeat, removed when the job leaves PROCESSING or
	// EDITING. Recover moves a job whose lease has passed.
	LeaseExpiresAt time.Time `json:"leaseExpiresAt,omitzero"`
	// IdempotencyKey is the key Create was called with, if any
	// (idempotencyKey, not in the seed).
	IdempotencyKey string `json:"idempotencyKey,omitempty"`
	// TaskID is the task carrying the job's current work, on the store's
	// work queue (taskId, not in the seed; see Options.Work): set by the
	// write that queued it (Create, Replay, Recover, Sweep). A job worker
	// runs the job only under that task. Empty for a job whose store
	// queues no work.
	TaskID string `json:"taskId,omitempty"`
	// TaskCount is how many tasks have carried the job's work (taskCount,
	// not in the seed): each queuing submits a new one.
	TaskCount int `json:"taskCount,omitempty"`

	// Extra holds the item's attributes this package does not know: ones
	// written by newer code, or an old name kept during a rename (the
	// seed's migration playbook). They are kept as read, and Backfill
	// writes back whatever a migration leaves in (or removes from) it.
	// Raw DynamoDB values, so not part of the JSON form.
	Extra map[string]types.AttributeValue `json:"-"`
}

// Lease is a worker's hold on an in-flight job: the attempt it started and
// when the hold runs out unless renewed. StartProcessing returns the job
// from which [Job.Lease] takes it; StartEditing, Heartbeat, Complete and
// Fail take it back, and refuse it (ErrLeaseLost) once the job has moved
// on to another attempt.
type Lease struct {
	JobID     string    `json:"jobId"`
	Attempt   int       `json:"attempt"`
	ExpiresAt time.Time `json:"leaseExpiresAt"`
	// task is the task whose lease covers the job, for a lease a job
	// worker holds (Attempt.Lease): moves under it renew no lease of the
	// job's own and require the job to be that task's.
	task string
}

// Lease is the job's current lease: its id, attempt and lease expiry.
func (j *Job) Lease() Lease {
	if j == nil {
		return Lease{}
	}
	return Lease{JobID: j.ID, Attempt: j.Attempt, ExpiresAt: j.LeaseExpiresAt}
}

// Status is a job's place in the seed's state machine (JobStatus).
type Status string

// The seed's JobStatus values, stored as these strings.
const (
	StatusQueued     Status = "QUEUED"     // created, waiting for a worker
	StatusProcessing Status = "PROCESSING" // a worker is fetching the upload from S3
	StatusEditing    Status = "EDITING"    // the provider call is in progress
	StatusCompleted  Status = "COMPLETED"  // processed successfully
	StatusFailed     Status = "FAILED"     // failed after retries; may be replayed
)

// Statuses lists every status in the order of the state machine.
func Statuses() []Status {
	return []Status{StatusQueued, StatusProcessing, StatusEditing, StatusCompleted, StatusFailed}
}

// Valid reports whether s is one of the seed's five statuses.
func (s Status) Valid() bool {
	switch s {
	case StatusQueued, StatusProcessing, StatusEditing, StatusCompleted, StatusFailed:
		return true
	}
	return false
}

// The seed's providers ("provider: gemini | seedream | stub"): the AI
// services a job's analysis and edit are asked of. A store accepts these
// and the ones Options.Providers adds.
const (
	ProviderGemini   = "gemini"
	ProviderSeedream = "seedream"
	ProviderStub     = "stub" // a stand-in that edits nothing, for development and tests
)

// SeedProviders lists the seed's providers, in its order.
func SeedProviders() []string { return []string{ProviderGemini, ProviderSeedream, ProviderStub} }

// AnalysisResult is the provider's analysis of the photo (the seed's
// AnalysisResult), stored as a map under analysisResult.
type AnalysisResult struct {
	Labels      []Label     `dynamodbav:"labels" json:"labels"`
	Description string      `dynamodbav:"description,omitempty" json:"description,omitempty"`
	SafeSearch  *SafeSearch `dynamodbav:"safeSearch,omitempty" json:"safeSearch,omitempty"`
}

// Label is one thing the provider recognised, with its confidence in [0, 1].
type Label struct {
	Name       string  `dynamodbav:"name" json:"name"`
	Confidence float64 `dynamodbav:"confidence" json:"confidence"`
}

// SafeSearch is the provider's content rating.
type SafeSearch struct {
	Adult    Likelihood `dynamodbav:"adult" json:"adult"`
	Violence Likelihood `dynamodbav:"violence" json:"violence"`
}

// Likelihood is a SafeSearch rating.
type Likelihood string

// The seed's SafeSearch ratings.
const (
	VeryUnlikely Likelihood = "VERY_UNLIKELY"
	Unlikely     Likelihood = "UNLIKELY"
	Possible     Likelihood = "POSSIBLE"
	Likely       Likelihood = "LIKELY"
	VeryLikely   Likelihood = "VERY_LIKELY"
)

// Valid reports whether l is one of the seed's five ratings.
func (l Likelihood) Valid() bool {
	switch l {
	case VeryUnlikely, Unlikely, Possible, Likely, VeryLikely:
		return true
	}
	return false
}

// EditResult describes the edited image in the final bucket (the seed's
// EditResult), stored as a map under editResult.
type EditResult struct {
	S3Key  string      `dynamodbav:"s3Key" json:"s3Key"`
	Width  int         `dynamodbav:"width" json:"width"`
	Height int         `dynamodbav:"height" json:"height"`
	Format ImageFormat `dynamodbav:"format" json:"format"`
	Size   int64       `dynamodbav:"size" json:"size"`
}

// ImageFormat is the format of the edited image.
type ImageFormat string

// The seed's edit formats.
const (
	FormatJPEG ImageFormat = "jpeg"
	FormatPNG  ImageFormat = "png"
	FormatWebP ImageFormat = "webp"
)

// Valid reports whether f is one of the seed's three formats.
func (f ImageFormat) Valid() bool {
	switch f {
	case FormatJPEG, FormatPNG, FormatWebP:
		return true
	}
	return false
}

// JobError records why a job failed (the seed's error map). RetryCount is
// the number of replays so far: Fail keeps it, Replay increments it.
type JobError struct {
	Code       string `dynamodbav:"code" json:"code"`                       // e.g. "PROVIDER_TIMEOUT"
	Message    string `dynamodbav:"message" json:"message"`                 // human-readable
	Stack      string `dynamodbav:"stack,omitempty" json:"stack,omitempty"` // dev/staging only, per the seed
	RetryCount int    `dynamodbav:"retryCount" json:"retryCount"`
}

// Attribute names, exactly as the seed spells them.
const (
	attrJobID                 = "jobId"
	attrUserID                = "userId"
	attrStatus                = "status"
	attrCreatedAt             = "createdAt"
	attrUpdatedAt             = "updatedAt"
	attrFileSize              = "fileSize"
	attrFileType              = "fileType"
	attrOriginalFileName      = "originalFileName"
	attrS3TempKey             = "s3TempKey"
	attrS3FinalKey            = "s3FinalKey"
	attrProvider              = "provider"
	attrProcessingStartedAt   = "processingStartedAt"
	attrProcessingCompletedAt = "processingCompletedAt"
	attrAnalysisResult        = "analysisResult"
	attrEditResult            = "editResult"
	attrError                 = "error"
	attrCorrelationID         = "correlationId"
	attrTraceID               = "traceId"
	attrTTL                   = "ttl"

	// Attributes the seed does not have; see the package documentation.
	attrAttempt          = "attempt"
	attrAttemptsAtReplay = "attemptsAtReplay"
	attrLeaseExpiresAt   = "leaseExpiresAt"
	attrIdempotencyKey   = "idempotencyKey"
	attrTaskID           = "taskId"
	attrTaskCount        = "taskCount"
)

// record is a Job as stored: the seed's layout with numbers for times.
type record struct {
	JobID                 string          `dynamodbav:"jobId"`
	UserID                string          `dynamodbav:"userId"`
	Status                Status          `dynamodbav:"status"`
	CreatedAt             int64           `dynamodbav:"createdAt"`
	UpdatedAt             int64           `dynamodbav:"updatedAt"`
	FileSize              int64           `dynamodbav:"fileSize"`
	FileType              string          `dynamodbav:"fileType"`
	OriginalFileName      string          `dynamodbav:"originalFileName,omitempty"`
	S3TempKey             string          `dynamodbav:"s3TempKey,omitempty"`
	S3FinalKey            string          `dynamodbav:"s3FinalKey,omitempty"`
	Provider              string          `dynamodbav:"provider"`
	ProcessingStartedAt   int64           `dynamodbav:"processingStartedAt,omitempty"`
	ProcessingCompletedAt int64           `dynamodbav:"processingCompletedAt,omitempty"`
	AnalysisResult        *AnalysisResult `dynamodbav:"analysisResult,omitempty"`
	EditResult            *EditResult     `dynamodbav:"editResult,omitempty"`
	Error                 *JobError       `dynamodbav:"error,omitempty"`
	CorrelationID         string          `dynamodbav:"correlationId,omitempty"`
	TraceID               string          `dynamodbav:"traceId,omitempty"`
	TTL                   int64           `dynamodbav:"ttl,omitempty"`
	Attempt               int             `dynamodbav:"attempt,omitempty"`
	AttemptsAtReplay      int             `dynamodbav:"attemptsAtReplay,omitempty"`
	LeaseExpiresAt        int64           `dynamodbav:"leaseExpiresAt,omitempty"`
	IdempotencyKey        string          `dynamodbav:"idempotencyKey,omitempty"`
	TaskID                string          `dynamodbav:"taskId,omitempty"`
	TaskCount             int             `dynamodbav:"taskCount,omitempty"`
	// Extra is the item's attributes record has no field for (entity's
	// Extra): Job.Extra.
	Extra map[string]types.AttributeValue `dynamodbav:"-"`
}

var knownAttrs = map[string]bool{
	attrJobID: true, attrUserID: true, attrStatus: true, attrCreatedAt: true, attrUpdatedAt: true,
	attrFileSize: true, attrFileType: true, attrOriginalFileName: true, attrS3TempKey: true,
	attrS3FinalKey: true, attrProvider: true, attrProcessingStartedAt: true,
	attrProcessingCompletedAt: true, attrAnalysisResult: true, attrEditResult: true, attrError: true,
	attrCorrelationID: true, attrTraceID: true, attrTTL: true,
	attrAttempt: true, attrAttemptsAtReplay: true, attrLeaseExpiresAt: true, attrIdempotencyKey: true,
	attrTaskID: true, attrTaskCount: true,
}

// unixMilli and fromUnixMilli keep zero times absent rather than 1970.
func unixMilli(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func fromUnixMilli(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

func unixSeconds(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}

func fromUnixSeconds(s int64) time.Time {
	if s == 0 {
		return time.Time{}
	}
	return time.Unix(s, 0).UTC()
}

// toItem is the stored form of j, Extra included.
func (j *Job) toItem() (table.Item, error) {
	r := record{
		JobID:                 j.ID,
		UserID:                j.UserID,
		Status:                j.Status,
		CreatedAt:             unixMilli(j.CreatedAt),
		UpdatedAt:             unixMilli(j.UpdatedAt),
		FileSize:              j.FileSize,
		FileType:              j.FileType,
		OriginalFileName:      j.OriginalFileName,
		S3TempKey:             j.S3TempKey,
		S3FinalKey:            j.S3FinalKey,
		Provider:              j.Provider,
		ProcessingStartedAt:   unixMilli(j.ProcessingStartedAt),
		ProcessingCompletedAt: unixMilli(j.ProcessingCompletedAt),
		AnalysisResult:        normalizeAnalysis(j.AnalysisResult),
		EditResult:            j.EditResult,
		Error:                 j.Error,
		CorrelationID:         j.CorrelationID,
		TraceID:               j.TraceID,
		TTL:                   unixSeconds(j.ExpiresAt),
		Attempt:               j.Attempt,
		AttemptsAtReplay:      j.AttemptsAtReplay,
		LeaseExpiresAt:        unixMilli(j.LeaseExpiresAt),
		IdempotencyKey:        j.IdempotencyKey,
		TaskID:                j.TaskID,
		TaskCount:             j.TaskCount,
	}
	item, err := attributevalue.MarshalMap(r)
	if err != nil {
		return nil, fmt.Errorf("jobs: marshal job %q: %w", j.ID, err)
	}
	for name, v := range j.Extra {
		if knownAttrs[name] {
			return nil, &table.InputError{Field: "Extra", Value: name, Reason: "is an attribute Job already has a field for"}
		}
		item[name] = v
	}
	return item, nil
}

// item is the stored form of j as the store writes it: toItem, with each
// renamed attribute under its new name too (Options.Renames).
func (s *Store) item(j *Job) (table.Item, error) {
	item, err := j.toItem()
	if err != nil {
		return nil, err
	}
	if err := s.renames.write(item); err != nil {
		return nil, err
	}
	return item, nil
}

// normalizeAnalysis stores labels as an empty list rather than NULL: the
// seed's labels array is required.
func normalizeAnalysis(a *AnalysisResult) *AnalysisResult {
	if a == nil || a.Labels != nil {
		return a
	}
	c := *a
	c.Labels = []Label{}
	return &c
}

// job is the Job r stores.
func (r *record) job() *Job {
	j := &Job{
		ID:                    r.JobID,
		UserID:                r.UserID,
		Status:                r.Status,
		CreatedAt:             fromUnixMilli(r.CreatedAt),
		UpdatedAt:             fromUnixMilli(r.UpdatedAt),
		FileSize:              r.FileSize,
		FileType:              r.FileType,
		OriginalFileName:      r.OriginalFileName,
		S3TempKey:             r.S3TempKey,
		S3FinalKey:            r.S3FinalKey,
		Provider:              r.Provider,
		ProcessingStartedAt:   fromUnixMilli(r.ProcessingStartedAt),
		ProcessingCompletedAt: fromUnixMilli(r.ProcessingCompletedAt),
		AnalysisResult:        r.AnalysisResult,
		EditResult:            r.EditResult,
		Error:                 r.Error,
		CorrelationID:         r.CorrelationID,
		TraceID:               r.TraceID,
		ExpiresAt:             fromUnixSeconds(r.TTL),
		Attempt:               r.Attempt,
		AttemptsAtReplay:      r.AttemptsAtReplay,
		LeaseExpiresAt:        fromUnixMilli(r.LeaseExpiresAt),
		IdempotencyKey:        r.IdempotencyKey,
		TaskID:                r.TaskID,
		TaskCount:             r.TaskCount,
		Extra:                 r.Extra,
	}
	// An item written before updatedAt existed was last updated, as far as
	// anyone can tell, when it was created.
	if j.UpdatedAt.IsZero() {
		j.UpdatedAt = j.CreatedAt
	}
	return j
}

// validFraction reports whether f is a confidence in [0, 1].
func validFraction(f float64) bool {
	return !math.IsNaN(f) && f >= 0 && f <= 1
}

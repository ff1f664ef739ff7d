package jobs

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/tablekit/tablekit/table"
)

// Size limits on what a caller may store. They come from DynamoDB and S3
// where those set one (a partition key value is at most 2048 bytes, an S3
// key 1024) and otherwise are generous bounds chosen so that everything
// except the analysis result fits in a fixed reserve of the item (see
// offload.go): the store never needs to read a job to know whether a write
// keeps it under the offload threshold.
const (
	maxIDLen     = 2048 // DynamoDB's limit on a partition key value
	maxUserIDLen = 2048 // userId is the partition key of userId-createdAt-index
	maxS3KeyLen  = 1024 // S3's limit on an object key
	maxFieldLen  = 1024 // fileType, originalFileName, provider, correlationId, traceId
	maxCodeLen   = 128
	// maxIdempotencyKeyLen is generous for a UUID or a client's request id.
	maxIdempotencyKeyLen = 256
	maxMessageLen        = 2 * 1024
	maxStackLen          = 16 * 1024
)

// checkText requires a valid UTF-8 string of at most max bytes; required
// says whether "" is allowed.
func checkText(field, v string, max int, required bool) error {
	switch {
	case v == "" && required:
		return inputError(field, `""`, "is required")
	case !utf8.ValidString(v):
		return inputError(field, fmt.Sprintf("%q", v), "is not valid UTF-8")
	case len(v) > max:
		return inputError(field, fmt.Sprintf("%.40q...", v), fmt.Sprintf("is %d bytes, more than %d", len(v), max))
	}
	return nil
}

// checkID validates a job id: any non-empty string DynamoDB accepts as a
// partition key. ULIDs are what Create makes, but the seed's own examples
// use ids like "job-12345", so other shapes are read and moved too.
func checkID(id string) error {
	return checkText("jobId", id, maxIDLen, true)
}

func checkUserID(userID string) error {
	return checkText("userId", userID, maxUserIDLen, true)
}

func checkStatus(field string, st Status) error {
	if !st.Valid() {
		return inputError(field, fmt.Sprintf("%q", st), "is not a job status (QUEUED, PROCESSING, EDITING, COMPLETED, FAILED)")
	}
	return nil
}

// checkFileType accepts a MIME type "type/subtype" (parameters allowed), as
// the seed's fileType holds.
func checkFileType(ft string) error {
	if err := checkText("fileType", ft, maxFieldLen, true); err != nil {
		return err
	}
	base, _, _ := strings.Cut(ft, ";")
	typ, sub, ok := strings.Cut(strings.TrimSpace(base), "/")
	if !ok || typ == "" || sub == "" || strings.ContainsAny(typ+sub, " /") {
		return inputError("fileType", fmt.Sprintf("%q", ft), `is not a MIME type such as "image/jpeg"`)
	}
	return nil
}

// providerSet is the set of providers a store accepts: the seed's and
// extra, each checked as a provider value is.
func providerSet(extra []string) (map[string]bool, error) {
	set := map[string]bool{}
	for _, p := range SeedProviders() {
		set[p] = true
	}
	for i, p := range extra {
		if err := checkText(fmt.Sprintf("Options.Providers[%d]", i), p, maxFieldLen, true); err != nil {
			return nil, err
		}
		set[p] = true
	}
	return set, nil
}

// checkProvider refuses a provider the store does not know, with a
// *table.InputError wrapping ErrUnknownProvider.
func (s *Store) checkProvider(p string) error {
	if s.providers[p] {
		return nil
	}
	known := slices.Sorted(maps.Keys(s.providers))
	return &table.InputError{Field: "provider", Value: fmt.Sprintf("%q", p), Err: ErrUnknownProvider,
		Reason: fmt.Sprintf("is not a provider this store knows (%s; jobs.Providers adds more)", strings.Join(known, ", "))}
}

func (in *CreateInput) validate() error {
	if err := checkUserID(in.UserID); err != nil {
		return err
	}
	if in.FileSize < 0 {
		return inputError("fileSize", in.FileSize, "must not be negative")
	}
	if err := checkFileType(in.FileType); err != nil {
		return err
	}
	for _, f := range []struct {
		name, v  string
		max      int
		required bool
	}{
		{"originalFileName", in.OriginalFileName, maxFieldLen, false},
		{"s3TempKey", in.S3TempKey, maxS3KeyLen, false},
		{"provider", in.Provider, maxFieldLen, true},
		{"correlationId", in.CorrelationID, maxFieldLen, false},
		{"traceId", in.TraceID, maxFieldLen, false},
		{"IdempotencyKey", in.IdempotencyKey, maxIdempotencyKeyLen, false},
	} {
		if err := checkText(f.name, f.v, f.max, f.required); err != nil {
			return err
		}
	}
	return nil
}

func (a *AnalysisResult) validate() error {
	if a == nil {
		return nil
	}
	for i, l := range a.Labels {
		field := fmt.Sprintf("analysisResult.labels[%d]", i)
		if err := checkText(field+".name", l.Name, table.MaxItemSize, true); err != nil {
			return err
		}
		if !validFraction(l.Confidence) {
			return inputError(field+".confidence", l.Confidence, "must be between 0.0 and 1.0")
		}
	}
	if err := checkText("analysisResult.description", a.Description, table.MaxItemSize, false); err != nil {
		return err
	}
	if ss := a.SafeSearch; ss != nil {
		if !ss.Adult.Valid() {
			return inputError("analysisResult.safeSearch.adult", fmt.Sprintf("%q", ss.Adult), "is not a SafeSearch likelihood (VERY_UNLIKELY ... VERY_LIKELY)")
		}
		if !ss.Violence.Valid() {
			return inputError("analysisResult.safeSearch.violence", fmt.Sprintf("%q", ss.Violence), "is not a SafeSearch likelihood (VERY_UNLIKELY ... VERY_LIKELY)")
		}
	}
	return nil
}

func (r *EditResult) validate() error {
	if err := checkText("editResult.s3Key", r.S3Key, maxS3KeyLen, true); err != nil {
		return err
	}
	if r.Width <= 0 || r.Height <= 0 {
		return inputError("editResult.width/height", fmt.Sprintf("%dx%d", r.Width, r.Height), "must be positive")
	}
	if !r.Format.Valid() {
		return inputError("editResult.format", fmt.Sprintf("%q", r.Format), `is not "jpeg", "png" or "webp"`)
	}
	if r.Size < 0 {
		return inputError("editResult.size", r.Size, "must not be negative")
	}
	return nil
}

func (e *JobError) validate() error {
	if err := checkText("error.code", e.Code, maxCodeLen, true); err != nil {
		return err
	}
	if err := checkText("error.message", e.Message, maxMessageLen, true); err != nil {
		return err
	}
	if err := checkText("error.stack", e.Stack, maxStackLen, false); err != nil {
		return err
	}
	if e.RetryCount != 0 {
		return inputError("error.retryCount", e.RetryCount, "is kept by the store (Fail preserves it, Replay increments it); pass 0")
	}
	return nil
}

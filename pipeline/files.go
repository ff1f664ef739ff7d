package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/entity"
)

// Object keys of the seed's S3 layout (under the store's bucket):
//
//	pipelines/{pipelineId}/{version}/ingest/{pipelineId}-{version}-{timestamp}.txt
//	pipelines/{pipelineId}/{version}/exections/{executionId}/input.txt
//	pipelines/{pipelineId}/{version}/exections/{executionId}/output.txt
//
// "exections" is the seed's spelling, kept so the buckets services already
// fill keep working with this package (see the package doc). Ids are
// escaped by blobstore.KeyTemplate, so each key is a one-to-one function of
// its ids; ids of A-Z a-z 0-9 '_' '-' '.' build exactly the seed's keys.
var (
	// "pipelines/01HF.../1/ingest/01HF...-1-20221122T050500.123Z-01HG....txt";
	// the file name is one escaped segment.
	ingestKey = blobstore.MustKeyTemplate("pipelines/{pipelineId}/{version}/ingest/{file}")
	// "pipelines/01HF.../1/exections/01HG.../input.txt"
	executionInputKey = blobstore.MustKeyTemplate("pipelines/{pipelineId}/{version}/exections/{executionId}/input.txt")
	// "pipelines/01HF.../1/exections/01HG.../output.txt"
	executionOutputKey = blobstore.MustKeyTemplate("pipelines/{pipelineId}/{version}/exections/{executionId}/output.txt")
)

const (
	fileContentType   = "text/plain"
	ingestStampLayout = "20060102T150405.000Z" // no ':' so the name is a plain file name anywhere
)

// IngestKey is the object key of the input upload uploadID, presigned at t
// for a pipeline version: the seed's {pipelineId}-{version}-{timestamp}
// name with the upload's id after the timestamp. The timestamp alone
// would give two uploads presigned in one millisecond one key, and the
// second PUT would replace the first file. An empty uploadID is an
// *table.InputError; an id too long for an object key once escaped a
// *blobstore.KeyError.
func IngestKey(pipelineID string, version int, t time.Time, uploadID string) (string, error) {
	if uploadID == "" {
		return "", inputError("uploadID", `""`, "an ingest key needs the upload's id")
	}
	v := strconv.Itoa(version)
	return ingestKey.Build(pipelineID, v, pipelineID+"-"+v+"-"+t.UTC().Format(ingestStampLayout)+"-"+uploadID+".txt")
}

// ExecutionInputKey is the object key of an execution's copy of its input.
func ExecutionInputKey(e *Execution) (string, error) {
	if e == nil {
		return "", inputError("e", "nil", "an execution is needed")
	}
	return executionInputKey.Build(e.PipelineID, strconv.Itoa(e.Version), e.ID)
}

// ExecutionOutputKey is the object key of an execution's output.
func ExecutionOutputKey(e *Execution) (string, error) {
	if e == nil {
		return "", inputError("e", "nil", "an execution is needed")
	}
	return executionOutputKey.Build(e.PipelineID, strconv.Itoa(e.Version), e.ID)
}

// filesPrefix is the prefix of every object of pipeline id: its escaped id
// is a whole segment, so no other pipeline's object starts with it.
func filesPrefix(id string) (string, error) { return ingestKey.Prefix(id) }

// Upload is a presigned upload: PUT the body to URL with exactly Header
// (the signed Content-Type) before Expires.
type Upload struct {
	Key     string      `json:"key"`
	URL     string      `json:"url"`
	Header  http.Header `json:"header"`
	Expires time.Time   `json:"expires"`
}

func (s *Store) filesStore() (blobstore.Store, error) {
	if s.files == nil {
		return nil, fmt.Errorf("%w: the pipeline Store was made without a blob store", blobstore.ErrUnsupported)
	}
	return s.files, nil
}

// PresignInputUpload returns a presigned PUT for a new input file of a
// pipeline version (0: the current one), at the seed's ingest key with the
// current time and a new upload id (Options.NewID) in its name, so no two
// uploads share a key. The version must exist (ErrNotFound otherwise).
func (s *Store) PresignInputUpload(ctx context.Context, pipelineID string, version int) (_ *Upload, err error) {
	ctx, span := s.start(ctx, "pipeline.PresignInputUpload")
	defer span.End(&err)
	if err := s.ready(ctx); err != nil {
		return nil, err
	}
	files, err := s.filesStore()
	if err != nil {
		return nil, err
	}
	if err := validateID("pipelineID", pipelineID); err != nil {
		return nil, err
	}
	if version < 0 || version > maxVersion {
		return nil, inputError("version", version, fmt.Sprintf("0 (current) or 1 to %d", maxVersion))
	}
	if version == 0 {
		cur, err := s.Get(ctx, pipelineID)
		if err != nil {
			return nil, err
		}
		version = cur.Version
	} else if _, err := s.getVersion(ctx, pipelineID, version, true); err != nil {
		return nil, err
	}
	now := s.now()
	key, err := IngestKey(pipelineID, version, now, s.opts.NewID(now))
	if err != nil {
		return nil, err
	}
	ct := blobstore.WithContentType(fileContentType)
	url, err := files.PresignPut(ctx, key, s.opts.PresignExpiry, ct)
	if err != nil {
		return nil, fmt.Errorf("pipeline: presign upload %s: %w", key, err)
	}
	h, err := blobstore.PutHeaders(ct)
	if err != nil {
		return nil, err
	}
	return &Upload{Key: key, URL: url, Header: h, Expires: now.Add(s.opts.PresignExpiry)}, nil
}

// checkInputKey accepts only an ingest key of the pipeline version (any
// version when version is 0), so an execution cannot be pointed at another
// pipeline's files. The key is parsed, not matched by prefix: pipeline
// "a/1/ingest" cannot pass off its files as pipeline "a"'s.
func (s *Store) checkInputKey(pipelineID string, version int, key string) error {
	ids, err := ingestKey.Parse(key)
	if err == nil && (ids[0] != pipelineID || !strings.HasSuffix(ids[2], ".txt")) {
		err = errors.New("another pipeline's, or not a .txt file")
	}
	if err == nil {
		n, perr := strconv.Atoi(ids[1])
		if perr != nil || strconv.Itoa(n) != ids[1] || n < 1 || (version > 0 && n != version) {
			err = fmt.Errorf("version folder %q", ids[1])
		}
	}
	if err != nil {
		want, _ := ingestKey.Prefix(pipelineID, strconv.Itoa(max(version, 1)))
		return inputError("in.InputKey", key, fmt.Sprintf("not an input uploaded for %s (want %singest/<file>.txt): %v", pipelineID, want, err))
	}
	return nil
}

// copyInput copies an uploaded input to the execution's input.txt. The
// blob store has no server-side copy, so it is a Get streamed into a Put.
func (s *Store) copyInput(ctx context.Context, e *Execution, from string) (string, error) {
	files, err := s.filesStore()
	if err != nil {
		return "", err
	}
	body, info, err := files.Get(ctx, from)
	if err != nil {
		if errors.Is(err, blobstore.ErrNotFound) {
			return "", notFound("input file", from, err)
		}
		return "", fmt.Errorf("pipeline: read input %s: %w", from, err)
	}
	defer body.Close()
	to, err := ExecutionInputKey(e)
	if err != nil {
		return "", err
	}
	if err := files.Put(ctx, to, body, blobstore.WithContentType(info.ContentType), blobstore.WithSize(info.Size)); err != nil {
		return "", fmt.Errorf("pipeline: copy input %s to %s: %w", from, to, err)
	}
	return to, nil
}

// PutOutput stores an execution's output file, as the executor does when
// the run is over.
func (s *Store) PutOutput(ctx context.Context, executionID string, body io.Reader, size int64) (err error) {
	ctx, span := s.start(ctx, "pipeline.PutOutput")
	defer span.End(&err)
	if err := s.ready(ctx); err != nil {
		return err
	}
	files, err := s.filesStore()
	if err != nil {
		return err
	}
	if size < 0 {
		return inputError("size", size, "must not be negative (0: unknown)")
	}
	if body == nil {
		return inputError("body", "nil", "an output needs a body")
	}
	e, err := s.getExecution(ctx, executionID, entity.Consistent())
	if err != nil {
		return err
	}
	key, err := ExecutionOutputKey(e)
	if err != nil {
		return err
	}
	if err := files.Put(ctx, key, body, blobstore.WithContentType(fileContentType), blobstore.WithSize(size)); err != nil {
		return fmt.Errorf("pipeline: store output %s: %w", key, err)
	}
	return nil
}

// PresignOutputDownload returns a presigned GET of an execution's output.
// An execution without an output yet is ErrNotFound.
func (s *Store) PresignOutputDownload(ctx context.Context, executionID string) (_ string, err error) {
	ctx, span := s.start(ctx, "pipeline.PresignOutputDownload")
	defer span.End(&err)
	if err := s.ready(ctx); err != nil {
		return "", err
	}
	files, err := s.filesStore()
	if err != nil {
		return "", err
	}
	e, err := s.getExecution(ctx, executionID, entity.Consistent())
	if err != nil {
		return "", err
	}
	key, err := ExecutionOutputKey(e)
	if err != nil {
		return "", err
	}
	if _, err := files.Head(ctx, key); err != nil {
		if errors.Is(err, blobstore.ErrNotFound) {
			return "", notFound("execution output", key, err)
		}
		return "", err
	}
	url, err := files.PresignGet(ctx, key, s.opts.PresignExpiry)
	if err != nil {
		return "", fmt.Errorf("pipeline: presign download %s: %w", key, err)
	}
	return url, nil
}

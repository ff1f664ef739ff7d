package blobstore

import (
	"context"
	"fmt"
	"io"
	"iter"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Store is a flat namespace of objects addressed by string keys, the subset
// of S3 that tablekit's packages use. Implementations: S3 (AWS, s3rver,
// gofakes3), Memory and Dir. All are safe for concurrent use.
//
// Semantics every implementation shares (the blobtest suite checks them):
//   - Put replaces the object atomically: a reader sees the old object or the
//     new one, never a mix, and a Put whose body fails to read stores nothing.
//   - Get and Head of a missing key return an error wrapping ErrNotFound.
//   - Delete of a missing key succeeds (S3's behaviour; it makes cleanup
//     idempotent).
//   - List yields objects whose key starts with prefix, in ascending byte
//     order of key, with Key, Size, ETag and LastModified set; ContentType
//     and Metadata are empty because S3 lists do not carry them (use Head).
//   - Keys are checked with ValidateKey before any I/O; a bad key returns a
//     *KeyError wrapping ErrInvalidKey.
type Store interface {
	Put(ctx context.Context, key string, body io.Reader, opts ...func(*PutOptions)) error
	Get(ctx context.Context, key string, opts ...func(*GetOptions)) (io.ReadCloser, Info, error)
	Head(ctx context.Context, key string) (Info, error)
	Delete(ctx context.Context, key string) error
	List(ctx context.Context, prefix string) iter.Seq2[Info, error]
	// PresignGet returns a URL that lets anyone holding it GET the object
	// with plain HTTP until expires has passed.
	PresignGet(ctx context.Context, key string, expires time.Duration) (string, error)
	// PresignPut returns a URL that lets anyone holding it PUT the object
	// with plain HTTP until expires has passed. The content type and
	// metadata are signed into the URL: the request must carry exactly the
	// headers PutHeaders(opts...) returns (Content-Type, X-Amz-Meta-*), as
	// S3 refuses a presigned PUT whose signed headers differ.
	PresignPut(ctx context.Context, key string, expires time.Duration, opts ...func(*PutOptions)) (string, error)
}

// Info describes a stored object.
type Info struct {
	Key string
	// Size is the whole object's size, also when Get read a range of it.
	Size        int64
	ContentType string
	// Metadata keys are lower case: S3 sends them as HTTP headers, which
	// are case-insensitive, so every store normalises them the same way.
	Metadata map[string]string
	// ETag changes when the content changes. Its format is the backend's
	// (S3's differs between single-part and multipart uploads), so compare
	// ETags only with ETags from the same store.
	ETag         string
	LastModified time.Time
}

// DefaultContentType is stored when PutOptions.ContentType is empty.
const DefaultContentType = "application/octet-stream"

// PutOptions configure Put and PresignPut.
type PutOptions struct {
	// ContentType defaults to DefaultContentType.
	ContentType string
	// Metadata is stored with the object. Keys are lower-cased and may
	// hold letters, digits and '-'; values must be printable ASCII; keys
	// and values together at most MaxMetadataSize bytes, S3's limit on
	// user metadata. (S3 sends metadata as HTTP headers, hence the rules.)
	Metadata map[string]string
	// Size, when positive, is the exact length of the body. S3 uses it to
	// choose between a single PUT and a multipart upload without buffering;
	// every store refuses (ErrSizeMismatch, nothing stored) a body of
	// another length. Zero means unknown. For PresignPut it binds the URL
	// to that length (S3: a signed Content-Length header; Memory and Dir:
	// checked when serving), so a URL handed to a client cannot upload
	// more, or less, than was agreed.
	Size int64
}

// WithContentType sets PutOptions.ContentType.
func WithContentType(ct string) func(*PutOptions) {
	return func(o *PutOptions) { o.ContentType = ct }
}

// WithMetadata sets PutOptions.Metadata.
func WithMetadata(md map[string]string) func(*PutOptions) {
	return func(o *PutOptions) { o.Metadata = md }
}

// WithSize sets PutOptions.Size.
func WithSize(n int64) func(*PutOptions) {
	return func(o *PutOptions) { o.Size = n }
}

// GetOptions configure Get.
type GetOptions struct {
	// Range, when non-nil, reads part of the object.
	Range *Range
}

// Range selects Length bytes starting at Offset. Length 0 means "to the
// end of the object". An Offset equal to the object's size reads nothing;
// beyond it is ErrInvalidRange. A Length running past the end is cut short,
// as with HTTP ranges.
type Range struct {
	Offset, Length int64
}

// WithRange reads length bytes from offset (length 0: to the end).
func WithRange(offset, length int64) func(*GetOptions) {
	return func(o *GetOptions) { o.Range = &Range{Offset: offset, Length: length} }
}

func (r *Range) validate() error {
	if r.Offset < 0 || r.Length < 0 {
		return fmt.Errorf("%w: offset %d, length %d", ErrInvalidRange, r.Offset, r.Length)
	}
	return nil
}

// clamp returns the [start, end) byte positions the range selects in an
// object of the given size.
func (r *Range) clamp(size int64) (start, end int64, err error) {
	if r == nil {
		return 0, size, nil
	}
	if r.Offset > size {
		return 0, 0, fmt.Errorf("%w: offset %d past the end of a %d-byte object", ErrInvalidRange, r.Offset, size)
	}
	end = size
	if r.Length > 0 && r.Offset+r.Length < size {
		end = r.Offset + r.Length
	}
	return r.Offset, end, nil
}

// PutHeaders returns the headers a client must send with the URL
// PresignPut(ctx, key, expires, opts...) returned: Content-Type (the
// DefaultContentType when opts set none), Content-Length when
// PutOptions.Size is set, and one X-Amz-Meta-<name> per metadata entry.
// (Go's http.Client takes the length from Request.ContentLength, not from
// the header: set both.)
func PutHeaders(opts ...func(*PutOptions)) (http.Header, error) {
	o, err := putOptions(opts)
	if err != nil {
		return nil, err
	}
	h := http.Header{}
	h.Set("Content-Type", o.ContentType)
	if o.Size > 0 {
		h.Set("Content-Length", strconv.FormatInt(o.Size, 10))
	}
	for k, v := range o.Metadata {
		h.Set(metaHeaderPrefix+k, v)
	}
	return h, nil
}

// metaHeaderPrefix is how S3 carries user metadata over HTTP.
const metaHeaderPrefix = "X-Amz-Meta-"

// MaxObjectSize is the largest object S3 stores (5 TiB); every store
// refuses a larger PutOptions.Size.
const MaxObjectSize = 5 << 40

// MaxPresignExpiry is the longest a presigned URL may live: SigV4 presigned
// URLs are valid for at most seven days, and every store applies the same
// bound so code that works on Memory works on S3.
const MaxPresignExpiry = 7 * 24 * time.Hour

func validateExpiry(d time.Duration) error {
	if d <= 0 || d > MaxPresignExpiry {
		return fmt.Errorf("%w: %v is not in (0, %v]", ErrInvalidExpiry, d, MaxPresignExpiry)
	}
	return nil
}

// MaxMetadataSize is S3's limit on user-defined metadata: the sum of the
// bytes of every key and value.
const MaxMetadataSize = 2048

// putOptions applies opts and checks and normalises what they say, so every
// store stores the same thing for the same call.
func putOptions(opts []func(*PutOptions)) (PutOptions, error) {
	var o PutOptions
	for _, fn := range opts {
		if fn != nil {
			fn(&o)
		}
	}
	if o.ContentType == "" {
		o.ContentType = DefaultContentType
	}
	if !printableASCII(o.ContentType) {
		return o, fmt.Errorf("%w: content type %q is not printable ASCII", ErrInvalidMetadata, o.ContentType)
	}
	if o.Size < 0 {
		return o, fmt.Errorf("%w: negative size %d", ErrSizeMismatch, o.Size)
	}
	if o.Size > MaxObjectSize {
		return o, fmt.Errorf("%w: %d bytes, more than the %d an S3 object may have", ErrSizeMismatch, o.Size, int64(MaxObjectSize))
	}
	md, err := normalizeMetadata(o.Metadata)
	if err != nil {
		return o, err
	}
	o.Metadata = md
	return o, nil
}

// normalizeMetadata returns a lower-cased copy, never sharing the caller's
// map. S3 carries metadata as x-amz-meta-* headers: names must be header
// tokens and values must survive as header values unencoded.
func normalizeMetadata(md map[string]string) (map[string]string, error) {
	if len(md) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(md))
	total := 0
	for k, v := range md {
		lk := strings.ToLower(k)
		if lk == "" || !headerToken(lk) {
			return nil, fmt.Errorf("%w: key %q must be letters, digits and '-'", ErrInvalidMetadata, k)
		}
		if !printableASCII(v) {
			return nil, fmt.Errorf("%w: value of %q must be printable ASCII", ErrInvalidMetadata, k)
		}
		if _, dup := out[lk]; dup {
			return nil, fmt.Errorf("%w: key %q given twice (keys are case-insensitive)", ErrInvalidMetadata, k)
		}
		out[lk] = v
		total += len(lk) + len(v)
	}
	if total > MaxMetadataSize {
		return nil, fmt.Errorf("%w: %d bytes, more than the %d S3 allows", ErrInvalidMetadata, total, MaxMetadataSize)
	}
	return out, nil
}

func headerToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		// No '_': proxies such as nginx drop header names containing it
		// by default, which would lose metadata on presigned uploads.
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

func copyMetadata(md map[string]string) map[string]string {
	if md == nil {
		return nil
	}
	out := make(map[string]string, len(md))
	for k, v := range md {
		out[k] = v
	}
	return out
}

// readBody reads all of body, enforcing PutOptions.Size when it is set.
func readBody(body io.Reader, size int64) ([]byte, error) {
	if body == nil {
		return nil, fmt.Errorf("blobstore: nil body")
	}
	r := body
	if size > 0 {
		r = &exactReader{r: body, want: size}
	}
	return io.ReadAll(r)
}

// exactReader fails the read when the body turns out longer or shorter
// than the size the caller declared, so a truncated stream is never stored
// as if it were complete.
type exactReader struct {
	r    io.Reader
	want int64
	n    int64
}

func (e *exactReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	e.n += int64(n)
	if e.n > e.want {
		return n, fmt.Errorf("%w: body longer than %d bytes", ErrSizeMismatch, e.want)
	}
	if err == io.EOF && e.n < e.want {
		return n, fmt.Errorf("%w: body is %d bytes, %d declared", ErrSizeMismatch, e.n, e.want)
	}
	return n, err
}

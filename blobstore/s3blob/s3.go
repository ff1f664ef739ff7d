package s3blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/feature/s3/manager"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"

	"github.com/tablekit/tablekit/blobstore"
)

// Store is a blobstore.Store in one S3 bucket. It works with AWS and with
// S3-compatible servers (s3rver, gofakes3, MinIO) reached through the
// client's endpoint.
//
// Put streams the body through the SDK's upload manager: a body of up to
// one part (Options.PartSize, 5 MiB by default) is a single PutObject, a
// larger one a multipart upload whose parts go up concurrently and which
// is aborted if anything fails, so a failed Put leaves no object and no
// parts behind.
//
// The client's settings are used as given, apart from PathStyle and
// ClientOptions. Servers that predate S3's flexible checksums (s3rver)
// need a client built with RequestChecksumCalculation and
// ResponseChecksumValidation set to "when required"; NewClient and Open do
// that whenever an endpoint is named.
//
// The argument checks are blobstore's (blobstore.DriverStore), the same as
// Memory's and Dir's. A nil *Store panics like a nil *blobstore.Memory; the
// zero Store refuses every call with a *blobstore.InputError.
type Store struct {
	blobstore.DriverStore
	d *driver
}

// Options configure an S3 store.
type Options struct {
	// PathStyle addresses the bucket as https://host/bucket/key instead of
	// https://bucket.host/key. S3-compatible servers (s3rver) need it.
	PathStyle bool
	// PartSize is the multipart part size; S3's minimum, 5 MiB, when zero.
	PartSize int64
	// Concurrency is how many parts upload at once; 5 when zero.
	Concurrency int
	// ClientOptions apply to every request this store makes, after
	// PathStyle. Use them to turn off flexible checksums for servers that
	// predate them (aws.RequestChecksumCalculationWhenRequired).
	ClientOptions []func(*s3.Options)
	// ListPageSize is the MaxKeys of each ListObjectsV2 request; S3's
	// default (1000) when zero.
	ListPageSize int32
	// Clock is the signing time of presigned URLs; time.Now when nil.
	// Tests set it in the past to get an already-expired URL.
	Clock func() time.Time
}

// driver is the S3 backend behind blobstore's checks.
type driver struct {
	client   *s3.Client
	bucket   string
	opts     Options
	uploader *manager.Uploader
	presign  *s3.PresignClient
}

var _ blobstore.Store = (*Store)(nil)
var _ blobstore.Driver = (*driver)(nil)

func inputError(field string, value any, reason string) error {
	return &blobstore.InputError{Field: field, Value: fmt.Sprint(value), Reason: reason}
}

// New returns a Store for bucket, which must exist. A nil client, a
// bucket name S3 would refuse, or a negative PartSize, Concurrency or
// ListPageSize is a *blobstore.InputError wrapping blobstore.ErrInvalidInput.
func New(client *s3.Client, bucket string, opts ...func(*Options)) (*Store, error) {
	var o Options
	for _, fn := range opts {
		if fn != nil {
			fn(&o)
		}
	}
	switch {
	case client == nil:
		return nil, inputError("client", "nil", "New needs an *s3.Client")
	case o.PartSize < 0 || o.PartSize > 0 && o.PartSize < manager.MinUploadPartSize:
		return nil, inputError("Options.PartSize", o.PartSize, fmt.Sprintf("0 (default) or at least %d, S3's minimum part", manager.MinUploadPartSize))
	case o.Concurrency < 0:
		return nil, inputError("Options.Concurrency", o.Concurrency, "must not be negative")
	case o.ListPageSize < 0 || o.ListPageSize > 1000:
		return nil, inputError("Options.ListPageSize", o.ListPageSize, "0 (default) to 1000, S3's largest page")
	}
	if err := validateBucket(bucket); err != nil {
		return nil, err
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.PartSize == 0 {
		o.PartSize = manager.MinUploadPartSize
	}
	if o.Concurrency == 0 {
		o.Concurrency = manager.DefaultUploadConcurrency
	}
	s := &driver{client: client, bucket: bucket, opts: o}
	clientOpts := s.clientOptions()
	s.uploader = manager.NewUploader(client, func(u *manager.Uploader) {
		u.PartSize = o.PartSize
		u.Concurrency = o.Concurrency
		u.LeavePartsOnError = false
		u.ClientOptions = append(u.ClientOptions, clientOpts...)
	})
	// Client options go on each presign call, not here: NewPresignClient
	// with ClientOptions rebuilds the client, which writes to state shared
	// with the caller's client (a data race when stores are made
	// concurrently from one client).
	s.presign = s3.NewPresignClient(client, func(po *s3.PresignOptions) {
		po.Presigner = clockPresigner{v4.NewSigner(), o.Clock}
	})
	return &Store{DriverStore: blobstore.NewDriverStore(s), d: s}, nil
}

// Bucket returns the bucket's name ("" for the zero Store).
func (s *Store) Bucket() string {
	if s.d == nil {
		return ""
	}
	return s.d.bucket
}

// validateBucket applies S3's naming rules for general purpose buckets:
// 3 to 63 characters, lower-case letters, digits, '.' and '-', starting
// and ending with a letter or digit, no "..", and not an IP address.
func validateBucket(bucket string) error {
	bad := func(reason string) error { return inputError("bucket", fmt.Sprintf("%q", bucket), reason) }
	if len(bucket) < 3 || len(bucket) > 63 {
		return bad("must be 3 to 63 characters")
	}
	for i := 0; i < len(bucket); i++ {
		c := bucket[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-') {
			return bad("may hold only lower-case letters, digits, '.' and '-'")
		}
	}
	first, last := bucket[0], bucket[len(bucket)-1]
	if first == '.' || first == '-' || last == '.' || last == '-' {
		return bad("must start and end with a letter or digit")
	}
	if strings.Contains(bucket, "..") {
		return bad("must not contain \"..\"")
	}
	if net.ParseIP(bucket) != nil {
		return bad("must not be an IP address")
	}
	return nil
}

func (s *driver) presignOptions(expires time.Duration) func(*s3.PresignOptions) {
	return func(po *s3.PresignOptions) {
		po.Expires = expires
		po.ClientOptions = append(po.ClientOptions, s.clientOptions()...)
		// A presigned URL is signed before its body exists, so it cannot
		// carry a body checksum; asking for one makes the URL unusable.
		po.ClientOptions = append(po.ClientOptions, func(so *s3.Options) {
			so.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
		})
	}
}

func (s *driver) clientOptions() []func(*s3.Options) {
	var fns []func(*s3.Options)
	if s.opts.PathStyle {
		fns = append(fns, func(o *s3.Options) { o.UsePathStyle = true })
	}
	return append(fns, s.opts.ClientOptions...)
}

// clockPresigner signs at S3Options.Clock's time instead of the SDK's.
type clockPresigner struct {
	inner *v4.Signer
	now   func() time.Time
}

func (c clockPresigner) PresignHTTP(ctx context.Context, creds aws.Credentials, r *http.Request, payloadHash, service, region string, _ time.Time, optFns ...func(*v4.SignerOptions)) (string, http.Header, error) {
	return c.inner.PresignHTTP(ctx, creds, r, payloadHash, service, region, c.now(), optFns...)
}

// s3Error maps S3's errors to the package's sentinels, keeping the SDK's
// error reachable with errors.As.
func (s *driver) s3Error(op, key string, err error) error {
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		switch apiErr.ErrorCode() {
		case "NoSuchKey", "NotFound":
			// HeadObject has no body, so a missing key arrives as a bare
			// 404 that the SDK names NotFound.
			return fmt.Errorf("%w: %q in bucket %q: %w", blobstore.ErrNotFound, key, s.bucket, err)
		case "InvalidRange":
			return fmt.Errorf("%w: %q: %w", blobstore.ErrInvalidRange, key, err)
		}
	}
	return fmt.Errorf("s3blob: %s %q in bucket %q: %w", op, key, s.bucket, err)
}

// Put uploads body, in parts when it is larger than one part. The body
// arrives bounded to o.Size by blobstore's checks.
func (s *driver) Put(ctx context.Context, key string, body io.Reader, o blobstore.PutOptions) error {
	in := &s3.PutObjectInput{
		Bucket:      aws.String(s.bucket),
		Key:         aws.String(key),
		Body:        body,
		ContentType: aws.String(o.ContentType),
		Metadata:    o.Metadata,
	}
	if _, err := s.uploader.Upload(ctx, in); err != nil {
		if errors.Is(err, blobstore.ErrSizeMismatch) {
			return fmt.Errorf("s3blob: put %q: %w", key, blobstore.ErrSizeMismatch)
		}
		if cerr := ctx.Err(); cerr != nil {
			return fmt.Errorf("s3blob: put %q: %w", key, cerr)
		}
		return s.s3Error("put", key, err)
	}
	return nil
}

// Get streams the object, or the range asked for.
func (s *driver) Get(ctx context.Context, key string, r *blobstore.Range) (io.ReadCloser, blobstore.Info, error) {
	in := &s3.GetObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)}
	if r != nil {
		if r.Length > 0 {
			in.Range = aws.String(fmt.Sprintf("bytes=%d-%d", r.Offset, r.Offset+r.Length-1))
		} else {
			in.Range = aws.String(fmt.Sprintf("bytes=%d-", r.Offset))
		}
	}
	out, err := s.client.GetObject(ctx, in, s.clientOptions()...)
	if err != nil {
		err = s.s3Error("get", key, err)
		if r != nil && errors.Is(err, blobstore.ErrInvalidRange) {
			// S3 refuses a range that starts at the end of the object
			// (416), where Memory and Dir return an empty body; the end is
			// a valid place to start reading, so treat it as one.
			info, herr := s.Head(ctx, key)
			if herr != nil {
				return nil, blobstore.Info{}, herr
			}
			if r.Offset == info.Size {
				return io.NopCloser(strings.NewReader("")), info, nil
			}
		}
		return nil, blobstore.Info{}, err
	}
	info := blobstore.Info{
		Key:          key,
		Size:         aws.ToInt64(out.ContentLength),
		ContentType:  aws.ToString(out.ContentType),
		Metadata:     lowerKeys(out.Metadata),
		ETag:         aws.ToString(out.ETag),
		LastModified: aws.ToTime(out.LastModified),
	}
	if total, ok := contentRangeTotal(aws.ToString(out.ContentRange)); ok {
		info.Size = total
	}
	return out.Body, info, nil
}

// contentRangeTotal reads the object size from "bytes 0-9/20".
func contentRangeTotal(cr string) (int64, bool) {
	i := strings.LastIndexByte(cr, '/')
	if i < 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(cr[i+1:], 10, 64)
	return n, err == nil
}

func lowerKeys(md map[string]string) map[string]string {
	if len(md) == 0 {
		return nil
	}
	out := make(map[string]string, len(md))
	for k, v := range md {
		out[strings.ToLower(k)] = v
	}
	return out
}

// Head returns the object's Info. A HEAD response has no body, so a
// missing bucket is a bare 404 too and also reads as ErrNotFound here;
// Get and List tell the two apart.
func (s *driver) Head(ctx context.Context, key string) (blobstore.Info, error) {
	out, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)}, s.clientOptions()...)
	if err != nil {
		return blobstore.Info{}, s.s3Error("head", key, err)
	}
	return blobstore.Info{
		Key:          key,
		Size:         aws.ToInt64(out.ContentLength),
		ContentType:  aws.ToString(out.ContentType),
		Metadata:     lowerKeys(out.Metadata),
		ETag:         aws.ToString(out.ETag),
		LastModified: aws.ToTime(out.LastModified),
	}, nil
}

// Delete removes the object; S3 reports success for a missing key too.
func (s *driver) Delete(ctx context.Context, key string) error {
	_, err := s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)}, s.clientOptions()...)
	if err != nil {
		err = s.s3Error("delete", key, err)
		if errors.Is(err, blobstore.ErrNotFound) {
			return nil
		}
		return err
	}
	return nil
}

// List pages through ListObjectsV2; S3 returns keys in UTF-8 byte order,
// which is Go's string order.
func (s *driver) List(ctx context.Context, prefix string) iter.Seq2[blobstore.Info, error] {
	return func(yield func(blobstore.Info, error) bool) {
		in := &s3.ListObjectsV2Input{Bucket: aws.String(s.bucket)}
		if s.opts.ListPageSize > 0 {
			in.MaxKeys = aws.Int32(s.opts.ListPageSize)
		}
		if prefix != "" {
			in.Prefix = aws.String(prefix)
		}
		pages := s3.NewListObjectsV2Paginator(s.client, in)
		for pages.HasMorePages() {
			page, err := pages.NextPage(ctx, s.clientOptions()...)
			if err != nil {
				yield(blobstore.Info{}, s.s3Error("list", prefix, err))
				return
			}
			for _, obj := range page.Contents {
				info := blobstore.Info{
					Key:          aws.ToString(obj.Key),
					Size:         aws.ToInt64(obj.Size),
					ETag:         aws.ToString(obj.ETag),
					LastModified: aws.ToTime(obj.LastModified),
				}
				if !yield(info, nil) {
					return
				}
			}
		}
	}
}

// PresignGet returns a SigV4 query-signed GET URL.
func (s *driver) PresignGet(ctx context.Context, key string, expires time.Duration) (string, error) {
	req, err := s.presign.PresignGetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)},
		s.presignOptions(expires))
	if err != nil {
		return "", s.s3Error("presign get", key, err)
	}
	return req.URL, nil
}

// PresignPut returns a SigV4 query-signed PUT URL. The content type and,
// when o.Size is set, the content length are signed headers: the uploader
// must send exactly that Content-Type and Content-Length, or S3 answers
// 403 SignatureDoesNotMatch. Metadata travels in the URL's signed query.
func (s *driver) PresignPut(ctx context.Context, key string, expires time.Duration, o blobstore.PutOptions) (string, error) {
	in := &s3.PutObjectInput{
		Bucket:      aws.String(s.bucket),
		Key:         aws.String(key),
		ContentType: aws.String(o.ContentType),
		Metadata:    o.Metadata,
	}
	if o.Size > 0 {
		// The SDK signs the request's Content-Length when it is positive.
		in.ContentLength = aws.Int64(o.Size)
	}
	req, err := s.presign.PresignPutObject(ctx, in, s.presignOptions(expires))
	if err != nil {
		return "", s.s3Error("presign put", key, err)
	}
	return req.URL, nil
}

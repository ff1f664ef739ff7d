package blobstore

import (
	"context"
	"io"
	"iter"
	"time"
)

// Driver is a storage backend in a package of its own (blobstore/s3blob),
// as gocloud.dev/blob keeps each backend in a driver package: importing
// blobstore, or a store built on it, then builds no backend's client.
// NewDriverStore puts the checks every Store shares in front of it, so a
// Driver may assume them:
//
//   - ctx is not nil and has not ended;
//   - key passed ValidateKey, prefix passed ValidatePrefix;
//   - body is not nil and, when o.Size is set, yields exactly o.Size bytes
//     or fails with ErrSizeMismatch;
//   - PutOptions are normalised (content type set, metadata keys lower
//     case and within MaxMetadataSize);
//   - a Range is valid, and expires is within (0, MaxPresignExpiry].
//
// A Driver returns the package's sentinels (ErrNotFound for a missing
// object, ErrInvalidRange for a range past the end), wrapping its own
// error where it has one.
type Driver interface {
	Put(ctx context.Context, key string, body io.Reader, o PutOptions) error
	Get(ctx context.Context, key string, r *Range) (io.ReadCloser, Info, error)
	Head(ctx context.Context, key string) (Info, error)
	// Delete succeeds for a missing key.
	Delete(ctx context.Context, key string) error
	// List yields the objects under prefix in ascending byte order of key.
	List(ctx context.Context, prefix string) iter.Seq2[Info, error]
	PresignGet(ctx context.Context, key string, expires time.Duration) (string, error)
	PresignPut(ctx context.Context, key string, expires time.Duration, o PutOptions) (string, error)
}

// DriverStore is the Store of a Driver: the same argument checks as
// Memory and Dir, then the driver. Driver packages embed it in their
// store type (s3blob.Store), which adds the backend's own calls. The zero
// value refuses every call with an *InputError.
type DriverStore struct {
	front
}

var _ Store = DriverStore{}

// NewDriverStore returns the Store of d. A nil d gives a store whose every
// call fails with an *InputError, as the zero DriverStore does.
func NewDriverStore(d Driver) DriverStore {
	if d == nil {
		return DriverStore{}
	}
	return DriverStore{front{driverBackend{d}}}
}

// driverBackend adapts a Driver to the backend front calls, enforcing
// PutOptions.Size on the body as Memory and Dir do.
type driverBackend struct{ d Driver }

func (b driverBackend) put(ctx context.Context, key string, body io.Reader, o PutOptions) error {
	if o.Size > 0 {
		body = &exactReader{r: body, want: o.Size}
	}
	return b.d.Put(ctx, key, body, o)
}

func (b driverBackend) get(ctx context.Context, key string, r *Range) (io.ReadCloser, Info, error) {
	return b.d.Get(ctx, key, r)
}

func (b driverBackend) head(ctx context.Context, key string) (Info, error) {
	return b.d.Head(ctx, key)
}

func (b driverBackend) delete(ctx context.Context, key string) error { return b.d.Delete(ctx, key) }

func (b driverBackend) list(ctx context.Context, prefix string) iter.Seq2[Info, error] {
	return b.d.List(ctx, prefix)
}

func (b driverBackend) presignGet(ctx context.Context, key string, expires time.Duration) (string, error) {
	return b.d.PresignGet(ctx, key, expires)
}

func (b driverBackend) presignPut(ctx context.Context, key string, expires time.Duration, o PutOptions) (string, error) {
	return b.d.PresignPut(ctx, key, expires, o)
}

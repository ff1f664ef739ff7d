package blobstore

import (
	"context"
	"io"
	"iter"
	"time"
)

// backend is a Store implementation behind front. Its methods may assume
// what front checked: a non-nil context that has not ended, a valid key or
// prefix, a non-nil body, normalised PutOptions, a valid range and expiry.
type backend interface {
	put(ctx context.Context, key string, body io.Reader, o PutOptions) error
	get(ctx context.Context, key string, r *Range) (io.ReadCloser, Info, error)
	head(ctx context.Context, key string) (Info, error)
	delete(ctx context.Context, key string) error
	list(ctx context.Context, prefix string) iter.Seq2[Info, error]
	presignGet(ctx context.Context, key string, expires time.Duration) (string, error)
	presignPut(ctx context.Context, key string, expires time.Duration, o PutOptions) (string, error)
}

// front implements Store once for every backend: it checks the arguments
// (ValidateKey, PutOptions, ranges, expiries, nil values) and only then
// calls the backend, as gocloud.dev/blob's Bucket does in front of its
// drivers. Memory, Dir and DriverStore (s3blob's Store) embed it, so the
// checks cannot differ between them.
type front struct {
	b backend
}

// ready reports the errors every call checks first.
func (f front) ready(ctx context.Context) error {
	if f.b == nil {
		return inputError("store", "zero value", "use NewMemory, NewDir, NewDriverStore or s3blob.New")
	}
	if ctx == nil {
		return inputError("ctx", "nil", "pass context.Background() or a request's context")
	}
	return ctx.Err()
}

// Put stores the whole body under key, replacing any object there. The
// replacement is atomic: readers see the old object or the new one, and a
// Put that fails stores nothing.
func (f front) Put(ctx context.Context, key string, body io.Reader, opts ...func(*PutOptions)) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	o, err := putOptions(opts)
	if err != nil {
		return err
	}
	if body == nil {
		return inputError("body", "nil", "pass an empty reader for an empty object")
	}
	if err := f.ready(ctx); err != nil {
		return err
	}
	return f.b.put(ctx, key, body, o)
}

// Get returns the object's content (or the range asked for) and its Info.
// The caller closes the reader.
func (f front) Get(ctx context.Context, key string, opts ...func(*GetOptions)) (io.ReadCloser, Info, error) {
	if err := ValidateKey(key); err != nil {
		return nil, Info{}, err
	}
	var o GetOptions
	for _, fn := range opts {
		if fn != nil {
			fn(&o)
		}
	}
	if o.Range != nil {
		if err := o.Range.validate(); err != nil {
			return nil, Info{}, err
		}
	}
	if err := f.ready(ctx); err != nil {
		return nil, Info{}, err
	}
	return f.b.get(ctx, key, o.Range)
}

// Head returns the object's Info.
func (f front) Head(ctx context.Context, key string) (Info, error) {
	if err := ValidateKey(key); err != nil {
		return Info{}, err
	}
	if err := f.ready(ctx); err != nil {
		return Info{}, err
	}
	return f.b.head(ctx, key)
}

// Delete removes the object; a missing key is not an error.
func (f front) Delete(ctx context.Context, key string) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	if err := f.ready(ctx); err != nil {
		return err
	}
	return f.b.delete(ctx, key)
}

// List yields the objects whose key starts with prefix ("" for all) in
// ascending byte order of key.
func (f front) List(ctx context.Context, prefix string) iter.Seq2[Info, error] {
	return func(yield func(Info, error) bool) {
		if err := ValidatePrefix(prefix); err != nil {
			yield(Info{}, err)
			return
		}
		if err := f.ready(ctx); err != nil {
			yield(Info{}, err)
			return
		}
		for info, err := range f.b.list(ctx, prefix) {
			if !yield(info, err) || err != nil {
				return
			}
		}
	}
}

// PresignGet returns a URL that lets anyone holding it GET (or HEAD) the
// object until expires has passed (at most MaxPresignExpiry).
func (f front) PresignGet(ctx context.Context, key string, expires time.Duration) (string, error) {
	if err := ValidateKey(key); err != nil {
		return "", err
	}
	if err := validateExpiry(expires); err != nil {
		return "", err
	}
	if err := f.ready(ctx); err != nil {
		return "", err
	}
	return f.b.presignGet(ctx, key, expires)
}

// PresignPut returns a URL that lets anyone holding it PUT the object
// until expires has passed. Content type, metadata and, when
// PutOptions.Size is set, the body's length are bound to the URL: the
// request must send the headers PutHeaders(opts...) returns, and a body of
// another length is refused. Set the size (WithSize) whenever it is known:
// without it the URL accepts a body of any length.
func (f front) PresignPut(ctx context.Context, key string, expires time.Duration, opts ...func(*PutOptions)) (string, error) {
	if err := ValidateKey(key); err != nil {
		return "", err
	}
	if err := validateExpiry(expires); err != nil {
		return "", err
	}
	o, err := putOptions(opts)
	if err != nil {
		return "", err
	}
	if err := f.ready(ctx); err != nil {
		return "", err
	}
	return f.b.presignPut(ctx, key, expires, o)
}

package blobstore

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"io"
	"iter"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"
)

// Memory is a Store that keeps objects in memory, for tests and for
// programs that need no persistence. It is safe for concurrent use.
//
// Presigned URLs: a Memory has no address of its own, so PresignGet and
// PresignPut return ErrUnsupported until EnablePresign is given the base
// URL where the Memory itself (it is an http.Handler) is served:
//
//	m := blobstore.NewMemory()
//	srv := httptest.NewServer(m)
//	m.EnablePresign(srv.URL)
type Memory struct {
	mu      sync.RWMutex
	objects map[string]*memObject
	signer  *urlSigner
	now     func() time.Time
}

type memObject struct {
	data []byte // never modified once stored; readers share it
	info Info
}

// MemoryOptions configure a Memory.
type MemoryOptions struct {
	// Clock is used for LastModified and presigned URL expiry; time.Now
	// when nil. Tests move it to expire URLs without sleeping.
	Clock func() time.Time
}

// NewMemory returns an empty Memory store.
func NewMemory(opts ...func(*MemoryOptions)) *Memory {
	var o MemoryOptions
	for _, fn := range opts {
		fn(&o)
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	return &Memory{objects: map[string]*memObject{}, signer: newURLSigner(), now: o.Clock}
}

var _ Store = (*Memory)(nil)

// Put stores the whole body under key, replacing any object there.
func (m *Memory) Put(ctx context.Context, key string, body io.Reader, opts ...func(*PutOptions)) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	o, err := putOptions(opts)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := readBody(body, o.Size)
	if err != nil {
		return fmt.Errorf("blobstore: put %q: %w", key, err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	sum := md5.Sum(data)
	obj := &memObject{data: data, info: Info{
		Key:          key,
		Size:         int64(len(data)),
		ContentType:  o.ContentType,
		Metadata:     o.Metadata,
		ETag:         `"` + hex.EncodeToString(sum[:]) + `"`,
		LastModified: m.now().UTC().Truncate(time.Millisecond),
	}}
	m.mu.Lock()
	m.objects[key] = obj
	m.mu.Unlock()
	return nil
}

func (m *Memory) lookup(key string) (*memObject, error) {
	if err := ValidateKey(key); err != nil {
		return nil, err
	}
	m.mu.RLock()
	obj := m.objects[key]
	m.mu.RUnlock()
	if obj == nil {
		return nil, fmt.Errorf("%w: %q", ErrNotFound, key)
	}
	return obj, nil
}

// Get returns the object's content (or the range asked for) and its Info.
func (m *Memory) Get(ctx context.Context, key string, opts ...func(*GetOptions)) (io.ReadCloser, Info, error) {
	var o GetOptions
	for _, fn := range opts {
		fn(&o)
	}
	if o.Range != nil {
		if err := o.Range.validate(); err != nil {
			return nil, Info{}, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, Info{}, err
	}
	obj, err := m.lookup(key)
	if err != nil {
		return nil, Info{}, err
	}
	start, end, err := o.Range.clamp(obj.info.Size)
	if err != nil {
		return nil, Info{}, err
	}
	return io.NopCloser(bytes.NewReader(obj.data[start:end])), obj.info.clone(), nil
}

// Head returns the object's Info.
func (m *Memory) Head(ctx context.Context, key string) (Info, error) {
	if err := ctx.Err(); err != nil {
		return Info{}, err
	}
	obj, err := m.lookup(key)
	if err != nil {
		return Info{}, err
	}
	return obj.info.clone(), nil
}

// Delete removes the object; a missing key is not an error.
func (m *Memory) Delete(ctx context.Context, key string) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	delete(m.objects, key)
	m.mu.Unlock()
	return nil
}

// List yields the objects under prefix in key order, as of the moment the
// iteration starts.
func (m *Memory) List(ctx context.Context, prefix string) iter.Seq2[Info, error] {
	return func(yield func(Info, error) bool) {
		if err := validatePrefix(prefix); err != nil {
			yield(Info{}, err)
			return
		}
		m.mu.RLock()
		infos := make([]Info, 0)
		for k, obj := range m.objects {
			if strings.HasPrefix(k, prefix) {
				infos = append(infos, obj.info.listed())
			}
		}
		m.mu.RUnlock()
		sort.Slice(infos, func(i, j int) bool { return infos[i].Key < infos[j].Key })
		for _, info := range infos {
			if err := ctx.Err(); err != nil {
				yield(Info{}, err)
				return
			}
			if !yield(info, nil) {
				return
			}
		}
	}
}

// EnablePresign makes PresignGet and PresignPut return URLs under baseURL,
// which must route to m.ServeHTTP. It may be called again to move them.
func (m *Memory) EnablePresign(baseURL string) error { return m.signer.enable(baseURL) }

// ServeHTTP serves the URLs PresignGet and PresignPut hand out (GET, HEAD
// and PUT); anything unsigned, altered or expired gets 403.
func (m *Memory) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m.signer.serve(m, m.now(), w, r)
}

// PresignGet returns a URL for GET, or ErrUnsupported before EnablePresign.
func (m *Memory) PresignGet(ctx context.Context, key string, expires time.Duration) (string, error) {
	return presignLocal(m.signer, m.now(), http.MethodGet, key, expires, nil)
}

// PresignPut returns a URL for PUT, or ErrUnsupported before EnablePresign.
func (m *Memory) PresignPut(ctx context.Context, key string, expires time.Duration, opts ...func(*PutOptions)) (string, error) {
	return presignLocal(m.signer, m.now(), http.MethodPut, key, expires, opts)
}

func presignLocal(s *urlSigner, now time.Time, method, key string, expires time.Duration, opts []func(*PutOptions)) (string, error) {
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
	return s.sign(method, key, now, expires, o)
}

func (i Info) clone() Info {
	i.Metadata = copyMetadata(i.Metadata)
	return i
}

// listed is what List reports: S3's ListObjectsV2 carries no content type
// or metadata, and every store reports the same fields.
func (i Info) listed() Info {
	return Info{Key: i.Key, Size: i.Size, ETag: i.ETag, LastModified: i.LastModified}
}

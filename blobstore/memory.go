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
	front
	mu      sync.RWMutex
	objects map[string]*memObject
	signer  *urlSigner
	now     func() time.Time
	// lifecycle are the rules ApplyLifecycle kept.
	lifecycle []LifecycleRule
}

type memObject struct {
	data []byte // never modified once stored; readers share it
	info Info
}

// MemoryOptions configure a Memory.
type MemoryOptions struct {
	// Clock is used for LastModified and presigned URL expiry; time.Now
	// when nil. Tests move it to expire URLs without sleeping. A test
	// that sweeps orphans (Offloader.Orphans, entity's RemoveOrphans) with
	// the fake's time set to a fixed instant (db.SetTime) gives it the
	// fake's clock (db.Now), so objects are aged on the clock the sweep
	// reads; on the fake's default clock (the wall clock, moved by
	// Advance) none is needed.
	Clock func() time.Time
}

// NewMemory returns an empty Memory store.
func NewMemory(opts ...func(*MemoryOptions)) *Memory {
	var o MemoryOptions
	for _, fn := range opts {
		if fn != nil {
			fn(&o)
		}
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	m := &Memory{objects: map[string]*memObject{}, signer: newURLSigner(), now: o.Clock}
	m.front = front{m}
	return m
}

var _ Store = (*Memory)(nil)
var _ backend = (*Memory)(nil)

func (m *Memory) put(ctx context.Context, key string, body io.Reader, o PutOptions) error {
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
	m.mu.RLock()
	obj := m.objects[key]
	m.mu.RUnlock()
	if obj == nil {
		return nil, fmt.Errorf("%w: %q", ErrNotFound, key)
	}
	return obj, nil
}

func (m *Memory) get(ctx context.Context, key string, r *Range) (io.ReadCloser, Info, error) {
	obj, err := m.lookup(key)
	if err != nil {
		return nil, Info{}, err
	}
	start, end, err := r.clamp(obj.info.Size)
	if err != nil {
		return nil, Info{}, err
	}
	return io.NopCloser(bytes.NewReader(obj.data[start:end])), obj.info.clone(), nil
}

func (m *Memory) head(ctx context.Context, key string) (Info, error) {
	obj, err := m.lookup(key)
	if err != nil {
		return Info{}, err
	}
	return obj.info.clone(), nil
}

func (m *Memory) delete(ctx context.Context, key string) error {
	m.mu.Lock()
	delete(m.objects, key)
	m.mu.Unlock()
	return nil
}

// list yields the objects under prefix as of the moment the iteration
// starts.
func (m *Memory) list(ctx context.Context, prefix string) iter.Seq2[Info, error] {
	return func(yield func(Info, error) bool) {
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
	if m.signer == nil {
		http.Error(w, "blobstore: Memory not made by NewMemory", http.StatusInternalServerError)
		return
	}
	m.signer.serve(m, m.now(), w, r)
}

// presignGet returns ErrUnsupported before EnablePresign.
func (m *Memory) presignGet(ctx context.Context, key string, expires time.Duration) (string, error) {
	return m.signer.sign(http.MethodGet, key, m.now(), expires, PutOptions{})
}

// presignPut returns ErrUnsupported before EnablePresign.
func (m *Memory) presignPut(ctx context.Context, key string, expires time.Duration, o PutOptions) (string, error) {
	return m.signer.sign(http.MethodPut, key, m.now(), expires, o)
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

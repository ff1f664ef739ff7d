package blobstore

import (
	"context"
	"crypto/md5"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"iter"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Dir is a Store in a local directory: the object under key "a/b.txt" is
// the file <root>/a/b.txt, so the files can be read with ordinary tools.
// Content type, metadata and ETag live in a JSON sidecar under
// <root>/.blobstore/meta, named by a hash of the key so that no key's
// sidecar can collide with another key's file.
//
// Writes are atomic: the body goes to a temporary file under
// <root>/.blobstore/tmp, is synced, then renamed over the target, so a
// reader (or a crash) never sees half an object.
//
// A key becomes a path. ValidateKey's rules, which every store applies,
// already refuse what would leave the root or be ambiguous as a path (a
// leading "/", "..", NUL, a backslash, a segment too long for a file
// name, the reserved first segment ".blobstore"), and all file access goes
// through an os.Root, so a symbolic link inside the root cannot lead out
// of it either.
//
// A file system cannot hold both "a" and "a/b" as files: the second Put is
// refused with a *KeyError naming the conflict (S3 would accept it).
//
// Dir is safe for concurrent use within one process. Several processes may
// share a directory; each file is still replaced atomically, but a reader
// in one process may briefly see a new body with the previous sidecar.
//
// Presigned URLs work as for Memory: call EnablePresign with the URL where
// the Dir (an http.Handler) is served.
type Dir struct {
	front
	root   string
	signer *urlSigner
	now    func() time.Time
	// mu orders the renames of a body and its sidecar against readers and
	// against Delete's removal of empty parent directories.
	mu sync.RWMutex
}

// DirOptions configure a Dir.
type DirOptions struct {
	// Clock is used for LastModified and presigned URL expiry; time.Now
	// when nil.
	Clock func() time.Time
}

const (
	dirInternal = reservedSegment
	dirTmp      = ".blobstore/tmp"
	dirMeta     = ".blobstore/meta"
)

var _ Store = (*Dir)(nil)
var _ backend = (*Dir)(nil)

// NewDir returns a Dir rooted at root, creating the directory if needed.
func NewDir(root string, opts ...func(*DirOptions)) (*Dir, error) {
	var o DirOptions
	for _, fn := range opts {
		if fn != nil {
			fn(&o)
		}
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if root == "" {
		return nil, inputError("root", `""`, "NewDir needs a directory")
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("blobstore: NewDir %q: %w", root, err)
	}
	for _, d := range []string{abs, filepath.Join(abs, dirTmp), filepath.Join(abs, dirMeta)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("blobstore: NewDir %q: %w", root, err)
		}
	}
	d := &Dir{root: abs, signer: newURLSigner(), now: o.Clock}
	d.front = front{d}
	return d, nil
}

// Root returns the absolute path of the directory.
func (d *Dir) Root() string { return d.root }

// dirMetaFile is the sidecar's layout.
type dirMetaFile struct {
	ContentType  string            `json:"contentType"`
	Metadata     map[string]string `json:"metadata,omitempty"`
	ETag         string            `json:"etag"`
	Size         int64             `json:"size"`
	LastModified time.Time         `json:"lastModified"`
}

func metaPath(key string) string {
	sum := sha256.Sum256([]byte(key))
	h := hex.EncodeToString(sum[:])
	return path.Join(dirMeta, h[:2], h+".json")
}

func (d *Dir) openRoot() (*os.Root, error) {
	r, err := os.OpenRoot(d.root)
	if err != nil {
		return nil, fmt.Errorf("blobstore: dir %q: %w", d.root, err)
	}
	return r, nil
}

// put writes body to a temporary file and renames it into place.
func (d *Dir) put(ctx context.Context, key string, body io.Reader, o PutOptions) error {
	root, err := d.openRoot()
	if err != nil {
		return err
	}
	defer root.Close()

	tmpBody, size, etag, err := d.writeTemp(ctx, root, body, o.Size)
	if err != nil {
		return fmt.Errorf("blobstore: put %q: %w", key, err)
	}
	defer root.Remove(tmpBody) // after a successful rename there is nothing left to remove
	meta, err := json.Marshal(dirMetaFile{
		ContentType:  o.ContentType,
		Metadata:     o.Metadata,
		ETag:         etag,
		Size:         size,
		LastModified: d.now().UTC().Truncate(time.Millisecond),
	})
	if err != nil {
		return fmt.Errorf("blobstore: put %q: %w", key, err)
	}
	tmpMeta, _, _, err := d.writeTemp(ctx, root, strings.NewReader(string(meta)), 0)
	if err != nil {
		return fmt.Errorf("blobstore: put %q: %w", key, err)
	}
	defer root.Remove(tmpMeta)
	if err := ctx.Err(); err != nil {
		return err
	}

	d.mu.Lock()
	defer d.mu.Unlock()
	if err := root.MkdirAll(path.Dir(key), 0o755); err != nil {
		if isNotDir(err) {
			return d.conflict(key, root)
		}
		return fmt.Errorf("blobstore: put %q: %w", key, err)
	}
	mp := metaPath(key)
	if err := root.MkdirAll(path.Dir(mp), 0o755); err != nil {
		return fmt.Errorf("blobstore: put %q: %w", key, err)
	}
	if err := root.Rename(tmpBody, key); err != nil {
		if fi, serr := root.Lstat(key); serr == nil && fi.IsDir() {
			return keyError(key, "a directory of other keys (%s/...) is already there; a directory store cannot hold both", key)
		}
		return fmt.Errorf("blobstore: put %q: %w", key, err)
	}
	if err := root.Rename(tmpMeta, mp); err != nil {
		return fmt.Errorf("blobstore: put %q: metadata: %w", key, err)
	}
	return nil
}

// conflict names the existing file that stops key's directories being made.
func (d *Dir) conflict(key string, root *os.Root) error {
	segs := strings.Split(key, "/")
	for i := 1; i < len(segs); i++ {
		p := strings.Join(segs[:i], "/")
		if fi, err := root.Lstat(p); err == nil && !fi.IsDir() {
			return keyError(key, "object %q is a file here; a directory store cannot hold both %q and keys under it", p, p)
		}
	}
	return keyError(key, "a path segment is not a directory")
}

func isNotDir(err error) bool {
	return errors.Is(err, syscall.ENOTDIR) || errors.Is(err, fs.ErrExist)
}

// writeTemp copies r to a new synced file under dirTmp and returns its
// name, size and S3-style ETag (quoted MD5 hex).
func (d *Dir) writeTemp(ctx context.Context, root *os.Root, r io.Reader, size int64) (name string, n int64, etag string, err error) {
	var rnd [12]byte
	_, _ = rand.Read(rnd[:])
	name = path.Join(dirTmp, hex.EncodeToString(rnd[:]))
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", 0, "", err
	}
	defer func() {
		if err != nil {
			f.Close()
			root.Remove(name)
		}
	}()
	if size > 0 {
		r = &exactReader{r: r, want: size}
	}
	var h hash.Hash = md5.New()
	n, err = io.Copy(io.MultiWriter(f, h), ctxReader{ctx, r})
	if err != nil {
		return "", 0, "", err
	}
	if err = f.Sync(); err != nil {
		return "", 0, "", err
	}
	if err = f.Close(); err != nil {
		return "", 0, "", err
	}
	return name, n, `"` + hex.EncodeToString(h.Sum(nil)) + `"`, nil
}

// ctxReader stops a long copy when the context ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// info reads key's Info; the caller holds d.mu (read).
func (d *Dir) info(root *os.Root, key string, fi fs.FileInfo) Info {
	info := Info{Key: key, Size: fi.Size(), ContentType: DefaultContentType, LastModified: fi.ModTime().UTC()}
	var m dirMetaFile
	if b, err := root.ReadFile(metaPath(key)); err == nil && json.Unmarshal(b, &m) == nil && m.Size == fi.Size() {
		info.ContentType = m.ContentType
		info.Metadata = m.Metadata
		info.ETag = m.ETag
		info.LastModified = m.LastModified
	}
	if info.ETag == "" {
		// A file put there by hand (or edited since): an ETag that still
		// changes whenever size or modification time do.
		info.ETag = fmt.Sprintf(`W/"%x-%x"`, fi.Size(), fi.ModTime().UnixNano())
	}
	return info
}

func notFound(key string) error { return fmt.Errorf("%w: %q", ErrNotFound, key) }

// get opens the file; the returned reader keeps reading the object as it
// was even if a later Put replaces it.
func (d *Dir) get(ctx context.Context, key string, r *Range) (io.ReadCloser, Info, error) {
	root, err := d.openRoot()
	if err != nil {
		return nil, Info{}, err
	}
	defer root.Close()
	d.mu.RLock()
	f, err := root.Open(key)
	if err != nil {
		d.mu.RUnlock()
		return nil, Info{}, d.openError(key, err)
	}
	fi, err := f.Stat()
	if err != nil || fi.IsDir() {
		d.mu.RUnlock()
		f.Close()
		if err != nil {
			return nil, Info{}, fmt.Errorf("blobstore: get %q: %w", key, err)
		}
		return nil, Info{}, notFound(key)
	}
	info := d.info(root, key, fi)
	d.mu.RUnlock()
	start, end, err := r.clamp(info.Size)
	if err != nil {
		f.Close()
		return nil, Info{}, err
	}
	return &sectionReadCloser{io.NewSectionReader(f, start, end-start), f}, info, nil
}

type sectionReadCloser struct {
	*io.SectionReader
	f *os.File
}

func (s *sectionReadCloser) Close() error { return s.f.Close() }

func (d *Dir) openError(key string, err error) error {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return notFound(key)
	}
	return fmt.Errorf("blobstore: %q: %w", key, err)
}

func (d *Dir) head(ctx context.Context, key string) (Info, error) {
	root, err := d.openRoot()
	if err != nil {
		return Info{}, err
	}
	defer root.Close()
	d.mu.RLock()
	defer d.mu.RUnlock()
	fi, err := root.Lstat(key)
	if err != nil {
		return Info{}, d.openError(key, err)
	}
	if !fi.Mode().IsRegular() {
		return Info{}, notFound(key)
	}
	return d.info(root, key, fi), nil
}

// delete removes the file and its sidecar, then any directories the
// removal left empty, so the key's first segment can later be a file again.
func (d *Dir) delete(ctx context.Context, key string) error {
	root, err := d.openRoot()
	if err != nil {
		return err
	}
	defer root.Close()
	d.mu.Lock()
	defer d.mu.Unlock()
	fi, err := root.Lstat(key)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil
		}
		return fmt.Errorf("blobstore: delete %q: %w", key, err)
	}
	if fi.IsDir() {
		return nil // other keys' directory, not an object
	}
	if err := root.Remove(key); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("blobstore: delete %q: %w", key, err)
	}
	if err := root.Remove(metaPath(key)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("blobstore: delete %q: metadata: %w", key, err)
	}
	for dir := path.Dir(key); dir != "."; dir = path.Dir(dir) {
		if root.Remove(dir) != nil {
			break // not empty
		}
	}
	return nil
}

// list walks the directory that holds prefix and yields matching objects
// in key order. Sidecars are read as it goes.
func (d *Dir) list(ctx context.Context, prefix string) iter.Seq2[Info, error] {
	return func(yield func(Info, error) bool) {
		root, err := d.openRoot()
		if err != nil {
			yield(Info{}, err)
			return
		}
		defer root.Close()
		start := "."
		if i := strings.LastIndexByte(prefix, '/'); i >= 0 {
			start = prefix[:i]
		}
		var keys []string
		err = fs.WalkDir(root.FS(), start, func(p string, de fs.DirEntry, err error) error {
			if err != nil {
				if p == start && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)) {
					return fs.SkipAll
				}
				return err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			if de.IsDir() {
				if p == dirInternal {
					return fs.SkipDir
				}
				// A directory is worth entering only if keys under it can
				// still match the prefix.
				if p != start && !strings.HasPrefix(p+"/", prefix) && !strings.HasPrefix(prefix, p+"/") {
					return fs.SkipDir
				}
				return nil
			}
			if de.Type().IsRegular() && strings.HasPrefix(p, prefix) {
				keys = append(keys, p)
			}
			return nil
		})
		if err != nil {
			yield(Info{}, fmt.Errorf("blobstore: list %q: %w", prefix, err))
			return
		}
		sort.Strings(keys)
		for _, k := range keys {
			if err := ctx.Err(); err != nil {
				yield(Info{}, err)
				return
			}
			d.mu.RLock()
			fi, err := root.Lstat(k)
			var info Info
			if err == nil {
				info = d.info(root, k, fi)
			}
			d.mu.RUnlock()
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					continue // deleted since the walk
				}
				yield(Info{}, fmt.Errorf("blobstore: list %q: %w", prefix, err))
				return
			}
			if !yield(info.listed(), nil) {
				return
			}
		}
	}
}

// EnablePresign makes PresignGet and PresignPut return URLs under baseURL,
// which must route to d.ServeHTTP.
func (d *Dir) EnablePresign(baseURL string) error { return d.signer.enable(baseURL) }

// ServeHTTP serves the URLs PresignGet and PresignPut hand out.
func (d *Dir) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if d.signer == nil {
		http.Error(w, "blobstore: Dir not made by NewDir", http.StatusInternalServerError)
		return
	}
	d.signer.serve(d, d.now(), w, r)
}

// presignGet returns ErrUnsupported before EnablePresign.
func (d *Dir) presignGet(ctx context.Context, key string, expires time.Duration) (string, error) {
	return d.signer.sign(http.MethodGet, key, d.now(), expires, PutOptions{})
}

// presignPut returns ErrUnsupported before EnablePresign.
func (d *Dir) presignPut(ctx context.Context, key string, expires time.Duration, o PutOptions) (string, error) {
	return d.signer.sign(http.MethodPut, key, d.now(), expires, o)
}

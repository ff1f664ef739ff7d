package blobstore

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// urlSigner gives Memory and Dir presigned URLs with S3's contract: the URL
// alone authorises one method on one key until it expires. They are served
// by the store's own http.Handler (ServeHTTP) at a base URL the caller
// chooses with EnablePresign, because neither store has an HTTP endpoint of
// its own. The secret is random per store, so URLs die with the process.
type urlSigner struct {
	mu     sync.RWMutex
	base   *url.URL // nil until EnablePresign
	secret [32]byte
}

func newURLSigner() *urlSigner {
	s := &urlSigner{}
	// crypto/rand.Read never returns an error (Go 1.24+).
	_, _ = rand.Read(s.secret[:])
	return s
}

func (s *urlSigner) enable(baseURL string) error {
	if s == nil {
		return inputError("store", "zero value", "use NewMemory or NewDir")
	}
	u, err := url.Parse(baseURL)
	if err != nil {
		return fmt.Errorf("blobstore: presign base URL %q: %w", baseURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("blobstore: presign base URL %q: want http(s)://host[/path]", baseURL)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("blobstore: presign base URL %q: must not have a query or fragment", baseURL)
	}
	s.mu.Lock()
	s.base = u
	s.mu.Unlock()
	return nil
}

// Query parameters of a presigned URL. The signature covers all of them,
// the method and the key.
const (
	qKey         = "key"
	qExpires     = "expires"
	qContentType = "content-type"
	qSize        = "content-length"
	qMetaPrefix  = "meta-"
	qSignature   = "signature"
)

func (s *urlSigner) sign(method, key string, now time.Time, expires time.Duration, o PutOptions) (string, error) {
	s.mu.RLock()
	base := s.base
	s.mu.RUnlock()
	if base == nil {
		return "", fmt.Errorf("%w: presigning needs EnablePresign(baseURL) and the store's ServeHTTP mounted there", ErrUnsupported)
	}
	q := url.Values{}
	q.Set(qKey, key)
	q.Set(qExpires, strconv.FormatInt(now.Add(expires).Unix(), 10))
	if method == http.MethodPut {
		q.Set(qContentType, o.ContentType)
		if o.Size > 0 {
			q.Set(qSize, strconv.FormatInt(o.Size, 10))
		}
		for k, v := range o.Metadata {
			q.Set(qMetaPrefix+k, v)
		}
	}
	q.Set(qSignature, s.mac(method, q))
	u := *base
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// mac signs the method and every parameter but the signature, in sorted
// order, so no parameter can be added, dropped or changed.
func (s *urlSigner) mac(method string, q url.Values) string {
	names := make([]string, 0, len(q))
	for k := range q {
		if k != qSignature {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	h := hmac.New(sha256.New, s.secret[:])
	io.WriteString(h, method)
	for _, k := range names {
		fmt.Fprintf(h, "\n%s=%q", k, q[k])
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

// verify returns the key and, for PUT, the options a valid URL carries.
func (s *urlSigner) verify(method string, q url.Values, now time.Time) (string, PutOptions, int, error) {
	var o PutOptions
	got := q.Get(qSignature)
	if got == "" || !hmac.Equal([]byte(got), []byte(s.mac(method, q))) {
		return "", o, http.StatusForbidden, errors.New("signature does not match")
	}
	exp, err := strconv.ParseInt(q.Get(qExpires), 10, 64)
	if err != nil {
		return "", o, http.StatusForbidden, errors.New("bad expiry")
	}
	if !now.Before(time.Unix(exp, 0)) {
		return "", o, http.StatusForbidden, errors.New("request has expired")
	}
	if method == http.MethodPut {
		o.ContentType = q.Get(qContentType)
		if n := q.Get(qSize); n != "" {
			size, err := strconv.ParseInt(n, 10, 64)
			if err != nil || size <= 0 {
				return "", o, http.StatusForbidden, errors.New("bad content length")
			}
			o.Size = size
		}
		for k := range q {
			if name, ok := strings.CutPrefix(k, qMetaPrefix); ok {
				if o.Metadata == nil {
					o.Metadata = map[string]string{}
				}
				o.Metadata[name] = q.Get(k)
			}
		}
	}
	return q.Get(qKey), o, 0, nil
}

// serve answers a presigned GET, HEAD or PUT against store.
func (s *urlSigner) serve(store Store, now time.Time, w http.ResponseWriter, r *http.Request) {
	method := r.Method
	if method == http.MethodHead {
		method = http.MethodGet // a GET URL also allows HEAD, as on S3
	}
	if method != http.MethodGet && method != http.MethodPut {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	key, o, status, err := s.verify(method, r.URL.Query(), now)
	if err != nil {
		http.Error(w, err.Error(), status)
		return
	}
	ctx := r.Context()
	if method == http.MethodPut {
		// As on S3, the signed headers must be sent exactly as signed.
		if ct := r.Header.Get("Content-Type"); ct != o.ContentType {
			http.Error(w, fmt.Sprintf("Content-Type %q is not the signed %q", ct, o.ContentType), http.StatusForbidden)
			return
		}
		for k, v := range o.Metadata {
			if got := r.Header.Get(metaHeaderPrefix + k); got != v {
				http.Error(w, fmt.Sprintf("header %s%s %q is not the signed %q", metaHeaderPrefix, k, got, v), http.StatusForbidden)
				return
			}
		}
		// A bound length must be the request's, as S3 refuses a request
		// whose Content-Length is not the signed one (a chunked request has
		// none). The Put then checks the body really has that length.
		if o.Size > 0 && r.ContentLength != o.Size {
			http.Error(w, fmt.Sprintf("Content-Length %d is not the signed %d", r.ContentLength, o.Size), http.StatusForbidden)
			return
		}
		opts := []func(*PutOptions){WithContentType(o.ContentType), WithMetadata(o.Metadata)}
		if r.ContentLength > 0 {
			opts = append(opts, WithSize(r.ContentLength))
		}
		if err := store.Put(ctx, key, r.Body, opts...); err != nil {
			http.Error(w, err.Error(), httpStatus(err))
			return
		}
		if info, err := store.Head(ctx, key); err == nil {
			w.Header().Set("ETag", info.ETag)
		}
		w.WriteHeader(http.StatusOK)
		return
	}
	body, info, err := store.Get(ctx, key)
	if err != nil {
		http.Error(w, err.Error(), httpStatus(err))
		return
	}
	defer body.Close()
	h := w.Header()
	h.Set("Content-Type", info.ContentType)
	h.Set("Content-Length", strconv.FormatInt(info.Size, 10))
	h.Set("ETag", info.ETag)
	h.Set("Last-Modified", info.LastModified.UTC().Format(http.TimeFormat))
	for k, v := range info.Metadata {
		h.Set(metaHeaderPrefix+k, v)
	}
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		// The status line is out; a copy failure can only cut the body short.
		_, _ = io.Copy(w, body)
	}
}

func httpStatus(err error) int {
	switch {
	case errors.Is(err, ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, ErrInvalidKey), errors.Is(err, ErrSizeMismatch), errors.Is(err, ErrInvalidMetadata):
		return http.StatusBadRequest
	default:
		return http.StatusInternalServerError
	}
}

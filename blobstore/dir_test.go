package blobstore_test

import (
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/blobstore/blobtest"
)

func newDir(t *testing.T) *blobstore.Dir {
	t.Helper()
	d, err := blobstore.NewDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestDirConformance(t *testing.T) {
	blobtest.Run(t, func(t *testing.T) blobstore.Store { return newDir(t) })
}

func TestDirConformanceWithPresignedURLs(t *testing.T) {
	blobtest.Run(t, func(t *testing.T) blobstore.Store {
		d := newDir(t)
		srv := httptest.NewServer(d)
		t.Cleanup(srv.Close)
		if err := d.EnablePresign(srv.URL); err != nil {
			t.Fatal(err)
		}
		return d
	})
}

func TestDirRefusesKeysThatLeaveTheRoot(t *testing.T) {
	parent := t.TempDir()
	root := filepath.Join(parent, "store")
	d, err := blobstore.NewDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{
		"../x", "/etc/passwd", "a/../../x", "a/./b", "a//b", `..\x`, "a\x00b", "dir/", "..", ".blobstore/meta/x",
		strings.Repeat("n", 256),
	} {
		err := d.Put(t.Context(), key, strings.NewReader("escape"))
		var ke *blobstore.KeyError
		if !errors.As(err, &ke) || !errors.Is(err, blobstore.ErrInvalidKey) {
			t.Errorf("Put(%q) = %v, want *KeyError wrapping ErrInvalidKey", key, err)
			continue
		}
		if ke.Key != key || ke.Reason == "" || !strings.Contains(err.Error(), "invalid key") {
			t.Errorf("Put(%q) error %q does not name the key and the reason", key, err)
		}
		if _, _, err := d.Get(t.Context(), key); !errors.Is(err, blobstore.ErrInvalidKey) {
			t.Errorf("Get(%q) = %v, want ErrInvalidKey", key, err)
		}
		if err := d.Delete(t.Context(), key); !errors.Is(err, blobstore.ErrInvalidKey) {
			t.Errorf("Delete(%q) = %v, want ErrInvalidKey", key, err)
		}
	}
	if _, err := os.Stat(filepath.Join(parent, "x")); !os.IsNotExist(err) {
		t.Fatalf("a file appeared outside the root: %v", err)
	}
	for _, err := range d.List(t.Context(), "../") {
		if !errors.Is(err, blobstore.ErrInvalidKey) {
			t.Fatalf("List(\"../\") = %v, want ErrInvalidKey", err)
		}
	}
}

func TestDirErrorMessageNamesKeyAndReason(t *testing.T) {
	d := newDir(t)
	err := d.Put(t.Context(), "../x", strings.NewReader(""))
	want := `blobstore: invalid key "../x": path segment ".." would leave or alias a directory`
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %q", err, want)
	}
	err = d.Put(t.Context(), "/etc/passwd", strings.NewReader(""))
	want = `blobstore: invalid key "/etc/passwd": absolute path: keys are relative to the store's root`
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %q", err, want)
	}
}

func TestDirSymlinkCannotLeadOutOfRoot(t *testing.T) {
	outside := t.TempDir()
	d := newDir(t)
	if err := os.Symlink(outside, filepath.Join(d.Root(), "link")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	if err := d.Put(t.Context(), "link/evil", strings.NewReader("x")); err == nil {
		t.Fatal("Put through a symlink to outside the root succeeded")
	}
	if _, err := os.Stat(filepath.Join(outside, "evil")); !os.IsNotExist(err) {
		t.Fatal("a file was written outside the root through a symlink")
	}
}

func TestDirFileAndDirectoryKeysConflict(t *testing.T) {
	d := newDir(t)
	ctx := t.Context()
	if err := d.Put(ctx, "a", strings.NewReader("file")); err != nil {
		t.Fatal(err)
	}
	err := d.Put(ctx, "a/b", strings.NewReader("under a file"))
	if !errors.Is(err, blobstore.ErrInvalidKey) || !strings.Contains(err.Error(), `"a"`) {
		t.Fatalf("Put(a/b) with a file at a: %v, want a KeyError naming \"a\"", err)
	}
	if err := d.Put(ctx, "x/y", strings.NewReader("deep")); err != nil {
		t.Fatal(err)
	}
	if err := d.Put(ctx, "x", strings.NewReader("file over dir")); !errors.Is(err, blobstore.ErrInvalidKey) {
		t.Fatalf("Put(x) with keys under x/: %v, want ErrInvalidKey", err)
	}
	// Once x/y is gone its directory goes too, and x can be a file.
	if err := d.Delete(ctx, "x/y"); err != nil {
		t.Fatal(err)
	}
	if err := d.Put(ctx, "x", strings.NewReader("now a file")); err != nil {
		t.Fatalf("Put(x) after deleting x/y: %v", err)
	}
}

func TestDirFilesAreReadableDirectly(t *testing.T) {
	d := newDir(t)
	if err := d.Put(t.Context(), "logs/job-1.log", strings.NewReader("line 1\n"), blobstore.WithContentType("text/plain")); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(d.Root(), "logs", "job-1.log"))
	if err != nil || string(b) != "line 1\n" {
		t.Fatalf("file on disk: %q %v", b, err)
	}
	// A file dropped in by hand is an object with the default content type.
	if err := os.WriteFile(filepath.Join(d.Root(), "logs", "manual.txt"), []byte("by hand"), 0o644); err != nil {
		t.Fatal(err)
	}
	info, err := d.Head(t.Context(), "logs/manual.txt")
	if err != nil || info.Size != 7 || info.ContentType != blobstore.DefaultContentType || info.ETag == "" {
		t.Fatalf("Head of a hand-made file: %+v %v", info, err)
	}
	entries, _ := os.ReadDir(filepath.Join(d.Root(), ".blobstore", "tmp"))
	if len(entries) != 0 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
}

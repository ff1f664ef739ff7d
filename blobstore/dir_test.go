package blobstore_test

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/blobstore/blobtest"
)

func newDir(t *testing.T) *blobstore.Dir {
	t.Helper()
	d, err := blobstore.NewDir(t.TempDir())
	require.NoError(t, err)
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
		require.NoError(t, d.EnablePresign(srv.URL))
		return d
	})
}

func TestDirRefusedKeysWriteNothingOutsideTheRoot(t *testing.T) {
	parent := t.TempDir()
	d, err := blobstore.NewDir(filepath.Join(parent, "store"))
	require.NoError(t, err)
	for _, key := range []string{"../x", "/etc/passwd", "a/../../x", `..\x`, "a\x00b", ".."} {
		err := d.Put(t.Context(), key, strings.NewReader("escape"))
		assert.ErrorIs(t, err, blobstore.ErrInvalidKey, "Put(%q)", key)
	}
	_, err = os.Stat(filepath.Join(parent, "x"))
	assert.True(t, os.IsNotExist(err), "a file appeared outside the root: %v", err)
	entries, err := os.ReadDir(parent)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "only the store's directory is in its parent")
}

func TestDirErrorMessageNamesKeyAndReason(t *testing.T) {
	d := newDir(t)
	err := d.Put(t.Context(), "../x", strings.NewReader(""))
	assert.EqualError(t, err, `blobstore: invalid key "../x": path segment ".." would leave or alias a directory`)
	err = d.Put(t.Context(), "/etc/passwd", strings.NewReader(""))
	assert.EqualError(t, err, `blobstore: invalid key "/etc/passwd": absolute path: keys are relative to the store`)
}

func TestDirSymlinkCannotLeadOutOfRoot(t *testing.T) {
	outside := t.TempDir()
	d := newDir(t)
	if err := os.Symlink(outside, filepath.Join(d.Root(), "link")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	assert.Error(t, d.Put(t.Context(), "link/evil", strings.NewReader("x")), "Put through a symlink to outside the root")
	_, err := os.Stat(filepath.Join(outside, "evil"))
	assert.True(t, os.IsNotExist(err), "a file was written outside the root through a symlink")
}

func TestDirFileAndDirectoryKeysConflict(t *testing.T) {
	d := newDir(t)
	ctx := t.Context()
	require.NoError(t, d.Put(ctx, "a", strings.NewReader("file")))
	err := d.Put(ctx, "a/b", strings.NewReader("under a file"))
	require.ErrorIs(t, err, blobstore.ErrInvalidKey)
	assert.Contains(t, err.Error(), `"a"`, "the error names the file in the way")
	require.NoError(t, d.Put(ctx, "x/y", strings.NewReader("deep")))
	assert.ErrorIs(t, d.Put(ctx, "x", strings.NewReader("file over dir")), blobstore.ErrInvalidKey)
	// Once x/y is gone its directory goes too, and x can be a file.
	require.NoError(t, d.Delete(ctx, "x/y"))
	assert.NoError(t, d.Put(ctx, "x", strings.NewReader("now a file")))
}

func TestDirFilesAreReadableDirectly(t *testing.T) {
	d := newDir(t)
	require.NoError(t, d.Put(t.Context(), "logs/job-1.log", strings.NewReader("line 1\n"), blobstore.WithContentType("text/plain")))
	b, err := os.ReadFile(filepath.Join(d.Root(), "logs", "job-1.log"))
	require.NoError(t, err)
	assert.Equal(t, "line 1\n", string(b))
	// A file dropped in by hand is an object with the default content type.
	require.NoError(t, os.WriteFile(filepath.Join(d.Root(), "logs", "manual.txt"), []byte("by hand"), 0o644))
	info, err := d.Head(t.Context(), "logs/manual.txt")
	require.NoError(t, err)
	assert.Equal(t, int64(7), info.Size)
	assert.Equal(t, blobstore.DefaultContentType, info.ContentType)
	assert.NotEmpty(t, info.ETag)
	entries, _ := os.ReadDir(filepath.Join(d.Root(), ".blobstore", "tmp"))
	assert.Empty(t, entries, "temporary files left behind")
}

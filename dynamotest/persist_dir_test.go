package dynamotest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// snapshotDir reads every file under dir: name -> contents.
func snapshotDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	require.NoError(t, filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if fi.IsDir() {
			files[rel+"/"] = fi.Mode().String()
			return nil
		}
		b, err := os.ReadFile(path)
		files[rel] = string(b)
		return err
	}))
	return files
}

// refused opens dir and checks that it is refused with kind, a
// *DataDirError naming dir, and that New with the same options returns a
// DB whose every call fails with it.
func refused(t *testing.T, dir string, kind error) {
	t.Helper()
	db, err := Open(Persist(dir))
	require.ErrorIs(t, err, kind)
	assert.Nil(t, db)
	var dd *DataDirError
	require.ErrorAs(t, err, &dd)
	assert.Equal(t, dir, dd.Dir)
	assert.Contains(t, err.Error(), dir)

	broken := New(Persist(dir))
	require.ErrorIs(t, broken.Err(), kind)
	_, err = broken.ListTables(pctx, &dynamodb.ListTablesInput{})
	require.ErrorIs(t, err, kind)
	_, err = broken.CreateTable(pctx, persistTable("aaa"))
	require.ErrorIs(t, err, kind)
}

// readOnlyDir returns a directory nobody can create files in. Root
// ignores permission bits, so as root it is made immutable (chattr +i),
// which binds root too; where that is not possible the test is skipped,
// saying why.
func readOnlyDir(t *testing.T, dir string) {
	t.Helper()
	if os.Geteuid() != 0 {
		require.NoError(t, os.Chmod(dir, 0o555))
		t.Cleanup(func() { os.Chmod(dir, 0o755) })
		return
	}
	if out, err := exec.Command("chattr", "+i", dir).CombinedOutput(); err != nil {
		t.Skipf("running as root, which permission bits do not bind, and chattr +i failed (%v: %s): no read-only directory to test with", err, out)
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", dir).Run() })
	if f, err := os.Create(filepath.Join(dir, "probe")); err == nil {
		f.Close()
		os.Remove(f.Name())
		t.Skip("running as root on a file system where chattr +i does not stop root writing")
	}
}

// TestPersistRefusesADirectoryItCannotUse: a path that is a file, a
// directory that cannot be written, a directory of other files or of
// another format version, and a directory another DB has open are each
// refused at start with their own error, and nothing in them changes.
func TestPersistRefusesADirectoryItCannotUse(t *testing.T) {
	t.Run("file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "data")
		require.NoError(t, os.WriteFile(path, []byte("not a directory"), 0o644))
		refused(t, path, ErrDataUnusable)
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, "not a directory", string(b))
	})
	t.Run("unwritable", func(t *testing.T) {
		dir := t.TempDir()
		readOnlyDir(t, dir)
		before := snapshotDir(t, dir)
		refused(t, dir, ErrDataUnusable)
		assert.Equal(t, before, snapshotDir(t, dir))
	})
	t.Run("unwritable-with-data", func(t *testing.T) {
		dir := t.TempDir()
		db := openT(t, dir, fixedClock())
		createPersistTables(t, db)
		require.NoError(t, db.Close())
		readOnlyDir(t, dir)
		refused(t, dir, ErrDataUnusable)
	})
	t.Run("other-files", func(t *testing.T) {
		// DynamoDB Local's -dbPath, say.
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "shared-local-instance.db"), []byte("SQLite format 3\x00"), 0o644))
		before := snapshotDir(t, dir)
		refused(t, dir, ErrDataFormat)
		assert.Equal(t, before, snapshotDir(t, dir), "not even a lock file added")
	})
	t.Run("other-version", func(t *testing.T) {
		dir := t.TempDir()
		db := openT(t, dir, fixedClock())
		createPersistTables(t, db)
		require.NoError(t, db.Close())
		require.NoError(t, os.WriteFile(filepath.Join(dir, formatFile), []byte(formatText+"2\n"), 0o644))
		before := snapshotDir(t, dir)
		refused(t, dir, ErrDataFormat)
		assert.Equal(t, before, snapshotDir(t, dir))
	})
	t.Run("other-version-file", func(t *testing.T) {
		// A data file of another version, though the marker says ours.
		dir := t.TempDir()
		db := openT(t, dir, fixedClock())
		createPersistTables(t, db)
		require.NoError(t, db.Close())
		snaps, _, err := dataFiles(dir)
		require.NoError(t, err)
		require.NotEmpty(t, snaps)
		path := filepath.Join(dir, snapshotName(snaps[len(snaps)-1]))
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		b[12] = 9 // the version
		require.NoError(t, os.WriteFile(path, b, 0o644))
		before := snapshotDir(t, dir)
		refused(t, dir, ErrDataFormat)
		delete(before, lockFile)
		after := snapshotDir(t, dir)
		delete(after, lockFile)
		assert.Equal(t, before, after)
	})
	t.Run("locked", func(t *testing.T) {
		dir := t.TempDir()
		first := openT(t, dir, fixedClock())
		createPersistTables(t, first)
		before := snapshotDir(t, dir)
		refused(t, dir, ErrDataLocked)
		assert.Equal(t, before, snapshotDir(t, dir))
		// The first DB goes on working, and once it is closed the directory
		// opens again with its data.
		_, err := first.PutItem(pctx, &dynamodb.PutItemInput{TableName: aws.String("bbb"), Item: map[string]types.AttributeValue{"id": sv("x")}})
		require.NoError(t, err)
		want := dump(t, first)
		require.NoError(t, first.Close())
		second := openT(t, dir, fixedClock())
		assert.Equal(t, want, dump(t, second))
		require.NoError(t, second.Close())
	})
}

// TestCloseRefusesLaterCalls: a closed DB answers ErrClosed, and Close is
// idempotent.
func TestCloseRefusesLaterCalls(t *testing.T) {
	db := openT(t, t.TempDir(), fixedClock())
	require.NoError(t, db.Close())
	require.NoError(t, db.Close())
	_, err := db.ListTables(pctx, &dynamodb.ListTablesInput{})
	require.ErrorIs(t, err, ErrClosed)
	require.NoError(t, New().Close(), "a DB in memory has nothing to close")
}

// TestPersistRefusesAnEmptyPath: Persist("") is a mistake, not a request
// for memory.
func TestPersistRefusesAnEmptyPath(t *testing.T) {
	_, err := Open(Persist(""))
	require.ErrorIs(t, err, ErrDataUnusable)
}

// TestAFailedLogWriteIsNeverAcknowledged: when the disk refuses the log
// (here: its file closed underneath), the server answers the write in
// flight InternalServerError, not OK, and every later call fails with
// ErrStorageFailed; nothing is served from a state the disk lost.
func TestAFailedLogWriteIsNeverAcknowledged(t *testing.T) {
	s := NewServer(Persist(t.TempDir()))
	defer s.Close()
	defer s.DB.Close()
	c := s.Client()
	_, err := c.CreateTable(pctx, persistTable("aaa"))
	require.NoError(t, err)
	j := s.DB.persist.j
	j.mu.Lock()
	require.NoError(t, j.f.Close())
	j.mu.Unlock()

	_, err = c.PutItem(pctx, &dynamodb.PutItemInput{TableName: aws.String("aaa"),
		Item: map[string]types.AttributeValue{"pk": sv("p"), "sk": sv("s")}})
	var ise *types.InternalServerError
	require.ErrorAs(t, err, &ise, "the write the disk refused is not acknowledged")
	assert.Contains(t, err.Error(), "writing the data directory failed")
	_, err = c.ListTables(pctx, &dynamodb.ListTablesInput{})
	require.Error(t, err)
	require.ErrorIs(t, s.DB.Err(), ErrStorageFailed)
	_, err = s.DB.GetItem(pctx, &dynamodb.GetItemInput{TableName: aws.String("aaa"),
		Key: map[string]types.AttributeValue{"pk": sv("p"), "sk": sv("s")}})
	require.ErrorIs(t, err, ErrStorageFailed)
}

// TestAFailedLogWriteIsNeverAcknowledgedInProcess: called in the process,
// not over HTTP, the write whose log the disk refused fails with
// ErrStorageFailed too: it never returns as done.
func TestAFailedLogWriteIsNeverAcknowledgedInProcess(t *testing.T) {
	db, err := Open(Persist(t.TempDir()))
	require.NoError(t, err)
	defer db.Close()
	_, err = db.CreateTable(pctx, persistTable("aaa"))
	require.NoError(t, err)
	j := db.persist.j
	j.mu.Lock()
	require.NoError(t, j.f.Close())
	j.mu.Unlock()

	out, err := db.PutItem(pctx, &dynamodb.PutItemInput{TableName: aws.String("aaa"),
		Item: map[string]types.AttributeValue{"pk": sv("p"), "sk": sv("s")}})
	require.ErrorIs(t, err, ErrStorageFailed, "the write the disk refused is not acknowledged")
	assert.Nil(t, out)
}

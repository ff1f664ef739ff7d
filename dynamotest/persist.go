package dynamotest

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// formatVersion is the version of the data directory's format: the FORMAT
// file, the log segments and the snapshots. A directory of another version
// is refused, never rewritten.
const formatVersion = 1

// formatFile names the directory's marker, and formatText is what it holds.
const (
	formatFile = "FORMAT"
	lockFile   = "LOCK"
	formatText = "tablekit dynamotest data\nversion "
)

// snapshotEvery is the log size, past the last snapshot, at which a new
// snapshot starts, unless half the last snapshot is larger (logGrowth).
const snapshotEvery = 64 << 20

// logGrowth is how much log, past a snapshot of size bytes, starts the
// next snapshot: a start then reads the snapshot and at most half as much
// log again, and a large DB is not rewritten whole every 64 MB.
func logGrowth(size int64) int64 { return max(snapshotEvery, size/2) }

// The data directory's errors. Each comes wrapped in a *DataDirError that
// names the directory; test with errors.Is.
var (
	// ErrDataLocked: another DB (in this process or another) has the
	// directory open.
	ErrDataLocked = errors.New("in use by another dynamotest")
	// ErrDataFormat: the directory holds something other than dynamotest
	// data of this format version; nothing in it was changed.
	ErrDataFormat = errors.New("not dynamotest data of format version " + strconv.Itoa(formatVersion))
	// ErrDataCorrupt: a data file fails its checksums somewhere other than
	// the end of the log, where a crash can leave a torn record.
	ErrDataCorrupt = errors.New("damaged data")
	// ErrDataUnusable: the path is not a directory, or cannot be written.
	ErrDataUnusable = errors.New("not a writable directory")
	// ErrStorageFailed: writing or syncing the log failed. The DB refuses
	// every call from then on: it cannot promise durability any more.
	ErrStorageFailed = errors.New("dynamotest: writing the data directory failed")
	// ErrClosed: the DB was closed.
	ErrClosed = errors.New("dynamotest: DB closed")
)

var errLockHeld = errors.New("lock held")

// DataDirError is why a data directory could not be opened.
type DataDirError struct {
	Dir string
	// Kind is ErrDataLocked, ErrDataFormat, ErrDataCorrupt or
	// ErrDataUnusable.
	Kind error
	// Err is the detail: the system's error, or what was found.
	Err error
}

func (e *DataDirError) Error() string {
	if e == nil {
		return "<nil>"
	}
	msg := "dynamotest: data directory " + strconv.Quote(e.Dir)
	if e.Kind != nil {
		msg += ": " + e.Kind.Error()
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the kind and the detail, for errors.Is and errors.As.
func (e *DataDirError) Unwrap() []error {
	if e == nil {
		return nil
	}
	return []error{e.Kind, e.Err}
}

// Persist keeps the DB's data in dir: tables, items, indexes, settings and
// stream records survive a restart (see the package documentation,
// "Persistence"). Use it with Open, which reports a directory it cannot
// use; New with Persist returns a DB that fails every call with that error
// instead.
func Persist(dir string) func(*Options) {
	return func(o *Options) { o.Dir, o.persist = dir, true }
}

// persistence is a persistent DB's storage: the locked directory, the
// journal, and the snapshots.
type persistence struct {
	db   *DB
	dir  string
	lock *os.File
	j    *journal

	snapMu   sync.Mutex // one snapshot at a time
	snapWG   sync.WaitGroup
	lastSnap int64 // the last snapshot's size
	closed   bool  // under snapMu
}

// durable waits until record lsn (0: none) is on disk; if it never can be,
// the DB stops answering (see ErrStorageFailed).
func (p *persistence) durable(lsn uint64) {
	if p == nil || lsn == 0 {
		return
	}
	if err := p.j.wait(lsn); err != nil {
		p.db.fail(err)
	}
}

// fail makes every later call fail with err.
func (db *DB) fail(err error) {
	db.stats.broken.CompareAndSwap(nil, &err)
}

// acknowledged ends every exported call of the DB: in a persistent DB whose
// disk failed under the call (ErrStorageFailed), the call may have applied
// a write it could not make durable, so it fails instead of answering as
// done, in the process as over HTTP. A DB in memory pays one nil check.
func acknowledged[T any](db *DB, out **T, err *error) {
	if *err != nil || db == nil || db.persist == nil {
		return
	}
	if e := db.Err(); e != nil {
		*out, *err = nil, e
	}
}

// Err returns why the DB refuses calls: the directory Persist named could
// not be opened, writing it failed, or the DB was closed; nil while it
// works.
func (db *DB) Err() error {
	if db == nil {
		return nil
	}
	if e := db.stats.broken.Load(); e != nil {
		return *e
	}
	return nil
}

// Open returns a DB built with opts, like New, but reports the error that
// New would leave for every call: with Persist, the data directory cannot
// be used (a *DataDirError: locked by another DB, of an unknown format,
// damaged, not a writable directory). Nothing in the directory is changed
// when it is refused.
func Open(opts ...func(*Options)) (*DB, error) {
	db := New(opts...)
	if err := db.Err(); err != nil {
		return nil, err
	}
	return db, nil
}

// Close makes everything written durable, writes a snapshot so the next
// start reads little log, and releases the data directory. Later calls
// fail with ErrClosed. A DB without Persist has nothing to release: Close
// returns nil.
func (db *DB) Close() error {
	if db == nil || db.persist == nil {
		return nil
	}
	p := db.persist
	p.snapMu.Lock()
	if p.closed {
		p.snapMu.Unlock()
		return nil
	}
	p.snapMu.Unlock()
	err := p.snapshot()
	p.snapMu.Lock()
	p.closed = true
	p.snapMu.Unlock()
	p.snapWG.Wait()
	db.fail(ErrClosed)
	// Writers still in flight finish under their table locks: take each
	// once so none is between its change and its record.
	for _, name := range db.tableNames() {
		if t := db.table(name); t != nil {
			t.mu.RWMutex.Lock()
			//nolint:staticcheck // an empty critical section is the point
			t.mu.RWMutex.Unlock()
		}
	}
	if cerr := p.j.close(); err == nil {
		err = cerr
	}
	if cerr := p.lock.Close(); err == nil { // closing the file releases the flock
		err = cerr
	}
	return err
}

// openPersistence opens (or starts) the data directory and loads it into
// db, which nobody else sees yet.
func (db *DB) openPersistence(dir string) error {
	bad := func(kind, err error) error { return &DataDirError{Dir: dir, Kind: kind, Err: err} }
	if dir == "" {
		return bad(ErrDataUnusable, errors.New("no path given"))
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return bad(ErrDataUnusable, err)
		}
	case err != nil:
		return bad(ErrDataUnusable, err)
	case !fi.IsDir():
		return bad(ErrDataUnusable, errors.New("it is a file"))
	}
	// The format first, reading only: a directory of anything else is left
	// exactly as it was, not even a lock file added.
	if _, err := checkFormat(dir); err != nil {
		return bad(ErrDataFormat, err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return bad(ErrDataUnusable, err)
	}
	if err := lockDir(lock); err != nil {
		lock.Close()
		if errors.Is(err, errLockHeld) {
			return bad(ErrDataLocked, errors.New("another dynamotest holds its lock; stop it first"))
		}
		return bad(ErrDataUnusable, err)
	}
	p := &persistence{db: db, dir: dir, lock: lock}
	fail := func(kind, err error) error {
		lock.Close()
		return bad(kind, err)
	}
	// Again under the lock: another process may have started it meanwhile.
	fresh, err := checkFormat(dir)
	if err != nil {
		return fail(ErrDataFormat, err)
	}
	if fresh {
		if err := writeFormat(dir); err != nil {
			return fail(ErrDataUnusable, err)
		}
	}
	next, logged, err := db.load(p)
	if err != nil {
		var dd *DataDirError
		if errors.As(err, &dd) {
			lock.Close()
			return err
		}
		return fail(ErrDataCorrupt, err)
	}
	f, err := openSegment(dir, next)
	if err != nil {
		return fail(ErrDataUnusable, err)
	}
	p.j = newJournal(dir, f, next)
	p.j.onGrow = p.snapshotSoon
	p.j.grow = logGrowth(p.lastSnap)
	// The log replayed counts toward the next snapshot: a server killed
	// before each of its runs wrote logGrowth would otherwise never take
	// one, and every start would replay a longer log.
	p.j.since = logged
	db.persist = p
	for _, name := range db.tableNames() {
		db.attach(db.table(name))
	}
	return nil
}

// attach makes t log its changes, in a persistent DB.
func (db *DB) attach(t *dbTable) {
	if p := db.persist; p != nil && t != nil {
		t.mu.log = &tableLog{p: p, t: t}
	}
}

// checkFormat reports whether dir is new (nothing in it but perhaps a lock
// file), or an error unless it holds dynamotest data of this version.
func checkFormat(dir string) (fresh bool, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false, err
	}
	var others []string
	hasFormat := false
	for _, e := range entries {
		switch e.Name() {
		case formatFile:
			hasFormat = true
		case lockFile:
		default:
			others = append(others, e.Name())
		}
	}
	if !hasFormat {
		if len(others) == 0 {
			return true, nil
		}
		if len(others) > 3 {
			others = append(others[:3], "…")
		}
		return false, fmt.Errorf("it holds %s and no %s file", strings.Join(others, ", "), formatFile)
	}
	b, err := os.ReadFile(filepath.Join(dir, formatFile))
	if err != nil {
		return false, err
	}
	text := string(b)
	if !strings.HasPrefix(text, formatText) {
		return false, fmt.Errorf("its %s file does not name dynamotest data", formatFile)
	}
	v := strings.TrimSpace(strings.TrimPrefix(text, formatText))
	if v != strconv.Itoa(formatVersion) {
		return false, fmt.Errorf("its data is format version %s; this dynamotest reads version %d", v, formatVersion)
	}
	return false, nil
}

// writeFormat marks dir as dynamotest data of this version, durably.
func writeFormat(dir string) error {
	tmp := filepath.Join(dir, formatFile+".tmp")
	if err := os.WriteFile(tmp, []byte(formatText+strconv.Itoa(formatVersion)+"\n"), 0o644); err != nil {
		return err
	}
	f, err := os.Open(tmp)
	if err != nil {
		return err
	}
	err = f.Sync()
	f.Close()
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, formatFile)); err != nil {
		return err
	}
	return syncDir(dir)
}

// dataFiles lists the numbers of the snapshots and log segments in dir,
// ascending.
func dataFiles(dir string) (snaps, segs []uint64, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		name := e.Name()
		for prefix, list := range map[string]*[]uint64{"snapshot-": &snaps, "log-": &segs} {
			if rest, ok := strings.CutPrefix(name, prefix); ok {
				if n, err := strconv.ParseUint(rest, 10, 64); err == nil {
					*list = append(*list, n)
				}
			}
		}
	}
	sort.Slice(snaps, func(i, k int) bool { return snaps[i] < snaps[k] })
	sort.Slice(segs, func(i, k int) bool { return segs[i] < segs[k] })
	return snaps, segs, nil
}

// load loads the newest snapshot and replays the log segments after it,
// with the clock pinned to the logged times, and returns the number of
// the segment to append to next and the bytes of log it replayed. A torn
// record at the very end of the log (a crash while it was being written)
// is cut off the file; damage anywhere else is an error.
func (db *DB) load(p *persistence) (next uint64, logged int64, err error) {
	defer func() {
		// Decoding trusts data that passed its checksum; anything that
		// still trips it is damage, reported, not a crash.
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", ErrDataCorrupt, r)
		}
	}()
	snaps, segs, err := dataFiles(p.dir)
	if err != nil {
		return 0, 0, err
	}
	clock := db.clock
	defer func() {
		// The clock is the caller's again, moved as the log says it was.
		db.clock = clock
		db.offset.Store(db.replayOffset)
	}()
	var base uint64 = 1
	if len(snaps) > 0 {
		n := snaps[len(snaps)-1]
		size, err := db.loadSnapshot(filepath.Join(p.dir, snapshotName(n)))
		if err != nil {
			return 0, 0, err
		}
		p.lastSnap = size
		base = n
	}
	next = base
	for i, n := range segs {
		if n < base {
			continue
		}
		if n != next {
			return 0, 0, fmt.Errorf("%w: log segment %d is missing", ErrDataCorrupt, next)
		}
		size, err := db.replaySegment(filepath.Join(p.dir, segmentName(n)), i == len(segs)-1)
		if err != nil {
			return 0, 0, err
		}
		logged += size
		next = n + 1
	}
	return next, logged, nil
}

// pin sets the fake's clock to t while recovery replays a change made at
// t.
func (db *DB) pin(t time.Time) {
	db.clock = func() time.Time { return t }
	db.offset.Store(0)
}

// replaySegment applies every record of a log segment and returns the
// bytes of the records it applied. In the last
// segment, a torn record ends the log: the file is cut there, so that the
// damage cannot be mistaken later for damage in the middle.
func (db *DB) replaySegment(path string, last bool) (int64, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	if err := checkFileHeader(r, kindLog, filepath.Base(path)); err != nil {
		if last && errors.Is(err, ErrDataFormat) && isShort(f) {
			// The crash came while the segment was being started: start
			// it again, empty. Cut to nothing, it would read as damage
			// once a later segment follows it.
			return 0, restartSegment(f)
		}
		return 0, err
	}
	offset := int64(fileHeaderSize)
	var buf []byte
	for {
		payload, err := readFrame(r, buf)
		if err == io.EOF {
			return offset - fileHeaderSize, nil
		}
		if errors.Is(err, errTorn) {
			if !last {
				return 0, fmt.Errorf("%w: %s: a damaged record at byte %d", ErrDataCorrupt, filepath.Base(path), offset)
			}
			// Cut the torn tail off and make the cut durable.
			if err := f.Truncate(offset); err != nil {
				return 0, err
			}
			return offset - fileHeaderSize, f.Sync()
		}
		if err := db.applyRecord(payload); err != nil {
			return 0, fmt.Errorf("%w: %s: the record at byte %d: %v", ErrDataCorrupt, filepath.Base(path), offset, err)
		}
		buf = payload
		offset += int64(len(payload)) + 8
	}
}

// restartSegment rewrites f as an empty log segment: its header alone,
// synced.
func restartSegment(f *os.File) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	if _, err := f.WriteAt(fileHeader(kindLog), 0); err != nil {
		return err
	}
	return f.Sync()
}

func isShort(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Size() < fileHeaderSize
}

// logClock records the clock's offset; the caller holds db.mu.
func (db *DB) logClock() uint64 {
	p := db.persist
	if p == nil {
		return 0
	}
	return p.j.append(binary.AppendVarint([]byte{effClock}, db.offset.Load()))
}

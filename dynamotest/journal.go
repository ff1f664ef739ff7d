package dynamotest

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// The journal is the persistent DB's write-ahead log: a sequence of
// segment files, each a header and then framed records. A record is
// everything one operation changed (see effects.go), so a transaction is
// one record and is replayed whole or not at all. A frame is the payload's
// length and its CRC-32C, then the payload: a crash that tears the last
// frame leaves a short or mismatching frame, which recovery drops, never
// applies.
//
// Group commit: a writer appends its record to a buffer under the
// journal's lock and waits until the record is durable. The first waiter
// that finds no write in progress becomes the leader: it writes the whole
// buffer (every record appended so far, its own and others') and syncs the
// file once, outside the lock, while later writers fill the next buffer.
// One sync then acknowledges every writer that was waiting for it.

// fileHeaderSize is the size of the header every data file starts with:
// the magic, the file's kind, and the format version.
const fileHeaderSize = 16

const (
	fileMagic    = "TKDYNAMO"
	kindLog      = 'L'
	kindSnapshot = 'S'
	// maxFrame bounds one record: larger lengths in a frame header are
	// damage, not records (a transaction is at most a few MB).
	maxFrame = 256 << 20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func fileHeader(kind byte) []byte {
	h := make([]byte, fileHeaderSize)
	copy(h, fileMagic)
	h[8] = kind
	binary.LittleEndian.PutUint32(h[12:], formatVersion)
	return h
}

// checkFileHeader reads and checks the header of a data file of the given
// kind.
func checkFileHeader(r io.Reader, kind byte, name string) error {
	h := make([]byte, fileHeaderSize)
	if _, err := io.ReadFull(r, h); err != nil {
		return fmt.Errorf("%w: %s: no header: %v", ErrDataFormat, name, err)
	}
	if string(h[:8]) != fileMagic || h[8] != kind {
		return fmt.Errorf("%w: %s is not a dynamotest data file", ErrDataFormat, name)
	}
	if v := binary.LittleEndian.Uint32(h[12:]); v != formatVersion {
		return fmt.Errorf("%w: %s is format version %d; this dynamotest reads version %d", ErrDataFormat, name, v, formatVersion)
	}
	return nil
}

// appendFrame appends payload to b as one frame.
func appendFrame(b, payload []byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(payload)))
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(payload, castagnoli))
	return append(b, payload...)
}

// errTorn is a frame cut short or failing its checksum.
var errTorn = errors.New("torn or damaged frame")

// readFrame reads one frame. It returns io.EOF at a clean end, and errTorn
// (with the payload nil) for a frame that is short or damaged.
func readFrame(r *bufio.Reader, buf []byte) ([]byte, error) {
	var h [8]byte
	n, err := io.ReadFull(r, h[:])
	if err == io.EOF {
		return nil, io.EOF
	}
	if err != nil || n < 8 {
		return nil, errTorn
	}
	size := binary.LittleEndian.Uint32(h[:4])
	if size > maxFrame {
		return nil, errTorn
	}
	if cap(buf) < int(size) {
		buf = make([]byte, size)
	}
	buf = buf[:size]
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, errTorn
	}
	if crc32.Checksum(buf, castagnoli) != binary.LittleEndian.Uint32(h[4:]) {
		return nil, errTorn
	}
	return buf, nil
}

// journal is the open log. Records are numbered from 1 in append order
// (lsn); durable is the last one known to be on disk.
type journal struct {
	dir string

	mu      sync.Mutex
	cond    *sync.Cond
	f       *os.File // the segment being appended to
	seg     uint64   // its number
	buf     []byte   // frames appended but not yet written
	spare   []byte   // the buffer the last leader wrote, kept for reuse
	lsn     uint64
	durable uint64
	syncing bool
	err     error // the first write or sync failure: the journal is dead
	// since counts the bytes appended since the last snapshot began.
	since int64
	// onGrow is called (without the lock) when since passes grow.
	grow   int64
	onGrow func()
}

func segmentName(n uint64) string  { return fmt.Sprintf("log-%016d", n) }
func snapshotName(n uint64) string { return fmt.Sprintf("snapshot-%016d", n) }

// openSegment creates segment n, writes its header and makes both the file
// and its directory entry durable before any record goes in.
func openSegment(dir string, n uint64) (*os.File, error) {
	path := filepath.Join(dir, segmentName(n))
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(fileHeader(kindLog)); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, err
	}
	if err := syncDir(dir); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// syncDir makes the directory's entries (a created or renamed file)
// durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

func newJournal(dir string, f *os.File, seg uint64) *journal {
	j := &journal{dir: dir, f: f, seg: seg}
	j.cond = sync.NewCond(&j.mu)
	return j
}

// append adds one record and returns its number. The caller holds the
// locks that order it (the tables it changed), so records of one table
// are in the order their changes were applied.
func (j *journal) append(payload []byte) uint64 {
	j.mu.Lock()
	j.buf = appendFrame(j.buf, payload)
	j.lsn++
	lsn := j.lsn
	j.since += int64(len(payload) + 8)
	grown := j.onGrow != nil && j.grow > 0 && j.since >= j.grow
	if grown {
		j.grow = 0 // once until the next snapshot sets it again
	}
	j.mu.Unlock()
	if grown {
		j.onGrow()
	}
	return lsn
}

// wait returns once record lsn is durable, or with the error that keeps it
// from ever being.
func (j *journal) wait(lsn uint64) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	for j.durable < lsn && j.err == nil {
		if j.syncing {
			j.cond.Wait()
			continue
		}
		j.flushLocked()
	}
	if j.durable >= lsn {
		return nil
	}
	return j.err
}

// flushLocked writes every buffered frame and syncs the segment, as the
// leader of a group commit: it releases j.mu during the I/O, while others
// append to the next buffer. The caller holds j.mu and no flush is in
// progress.
func (j *journal) flushLocked() {
	j.syncing = true
	b, upto, f := j.buf, j.lsn, j.f
	j.buf, j.spare = j.spare[:0], nil
	j.mu.Unlock()
	var err error
	if len(b) > 0 {
		_, err = f.Write(b)
	}
	if err == nil {
		err = f.Sync()
	}
	j.mu.Lock()
	j.syncing = false
	if cap(b) <= 4<<20 {
		j.spare = b[:0]
	}
	if err != nil {
		if j.err == nil {
			j.err = fmt.Errorf("%w: writing %s: %v", ErrStorageFailed, f.Name(), err)
		}
	} else if upto > j.durable {
		j.durable = upto
	}
	j.cond.Broadcast()
}

// rotate makes everything appended so far durable and starts the next
// segment, returning its number: records from then on go there. The
// caller holds every table's lock, so nothing is appended meanwhile.
func (j *journal) rotate() (uint64, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for j.syncing {
		j.cond.Wait()
	}
	if len(j.buf) > 0 && j.err == nil {
		j.flushLocked()
	}
	if j.err != nil {
		return 0, j.err
	}
	f, err := openSegment(j.dir, j.seg+1)
	if err != nil {
		j.err = fmt.Errorf("%w: starting a log segment: %v", ErrStorageFailed, err)
		return 0, j.err
	}
	j.f.Close()
	j.f, j.seg = f, j.seg+1
	j.since = 0
	return j.seg, nil
}

// close syncs what is buffered and closes the segment.
func (j *journal) close() error {
	j.mu.Lock()
	for j.syncing {
		j.cond.Wait()
	}
	if len(j.buf) > 0 && j.err == nil {
		j.flushLocked()
	}
	err := j.err
	if j.err == nil {
		j.err = ErrClosed
	}
	f := j.f
	j.mu.Unlock()
	if cerr := f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if errors.Is(err, ErrClosed) {
		return nil
	}
	return err
}

package dynamotest

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest/internal/attr"
	"github.com/tablekit/tablekit/dynamotest/internal/store"
)

// A snapshot is the whole state at the start of a log segment: loading
// snapshot n and replaying segments n, n+1, … rebuilds the DB, and the
// segments before n can go. It is taken in two steps. The capture holds
// every table's read lock and db.mu for as long as it takes to copy
// references (stored items and stream records are immutable, so a
// reference is a copy) and to start a new log segment; writers wait that
// long, readers not at all. The writing happens after, with no lock held,
// into a temporary file that is synced and then renamed into place, so a
// crash leaves either the old snapshot or the new one, whole.
//
// Layout: the file header, then frames (as in the log, each checksummed):
// 'H' the segment number, the capture's time and clock offset; 'Z' one per
// stream; per table 'M' its settings, then 'I' frames of items; 'K' one per
// ClientRequestToken still inside its window; 'E' the counts, last, so a
// snapshot without its end is refused.

const snapshotBatch = 1 << 20 // bytes of items per 'I' frame

type snapshotData struct {
	seg     uint64
	at      time.Time
	offset  int64
	streams []*stream // copies
	tables  []snapshotTable
	tokens  [][]byte // 'K' records
}

type snapshotTable struct {
	settings []byte
	items    []string // encoded items
}

// snapshotSoon starts a snapshot in the background, unless one is running
// or the DB is closing.
func (p *persistence) snapshotSoon() {
	p.snapMu.Lock()
	defer p.snapMu.Unlock()
	if p.closed {
		return
	}
	p.snapWG.Add(1)
	go func() {
		defer p.snapWG.Done()
		if err := p.snapshot(); err != nil {
			p.db.fail(err)
		}
	}()
}

// snapshot captures, writes and installs one snapshot, then removes the
// files it makes unnecessary.
func (p *persistence) snapshot() error {
	p.snapMu.Lock()
	defer p.snapMu.Unlock()
	if p.closed {
		return nil
	}
	d, err := p.db.capture()
	if err != nil {
		return err
	}
	size, err := p.writeSnapshot(d)
	if err != nil {
		return fmt.Errorf("%w: writing a snapshot: %v", ErrStorageFailed, err)
	}
	p.lastSnap = size
	p.j.mu.Lock()
	p.j.grow = logGrowth(size)
	p.j.mu.Unlock()
	snaps, segs, err := dataFiles(p.dir)
	if err != nil {
		return nil // the old files stay; recovery skips them
	}
	for _, n := range snaps {
		if n < d.seg {
			os.Remove(filepath.Join(p.dir, snapshotName(n)))
		}
	}
	for _, n := range segs {
		if n < d.seg {
			os.Remove(filepath.Join(p.dir, segmentName(n)))
		}
	}
	return nil
}

// capture copies the state and starts a new log segment, atomically with
// respect to every write.
func (db *DB) capture() (*snapshotData, error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	names := db.tableNames()
	var locked []*dbTable
	for _, n := range names {
		if t := db.table(n); t != nil {
			t.mu.RLock()
			locked = append(locked, t)
		}
	}
	defer func() {
		for _, t := range locked {
			t.mu.RUnlock()
		}
	}()
	d := &snapshotData{at: db.now(), offset: db.offset.Load()}
	// Under every table's lock: a transaction remembers its token before
	// it releases its tables, so each token here goes with its writes.
	d.tokens = db.tokens.live(d.at, effToken)
	for _, s := range db.streams.list() {
		d.streams = append(d.streams, s.copy())
	}
	for _, t := range locked {
		if t.deleted {
			continue
		}
		st := snapshotTable{settings: t.settings(), items: make([]string, 0, t.items.Len())}
		t.items.AscendPartitions(0, "", func(p *store.Partition) bool {
			p.Ascend("", func(e *store.Entry) bool {
				st.items = append(st.items, e.Data)
				return true
			})
			return true
		})
		d.tables = append(d.tables, st)
	}
	seg, err := db.persist.j.rotate()
	if err != nil {
		return nil, err
	}
	d.seg = seg
	return d, nil
}

// copy returns a copy of the stream that later writes do not change:
// records are immutable and appends go past the copied length.
func (s *stream) copy() *stream {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := &stream{arn: s.arn, label: s.label, tableName: s.tableName, tableARN: s.tableARN, view: s.view,
		keySchema: s.keySchema, created: s.created, pk: s.pk, sk: s.sk, hash: s.hash,
		disabled: s.disabled, next: s.next, opened: s.opened}
	for _, sh := range s.shards {
		cs := *sh
		cs.records = sh.records[:len(sh.records):len(sh.records)]
		c.shards = append(c.shards, &cs)
	}
	return c
}

// writeSnapshot writes d as snapshot d.seg and returns its size.
func (p *persistence) writeSnapshot(d *snapshotData) (int64, error) {
	final := filepath.Join(p.dir, snapshotName(d.seg))
	tmp := final + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return 0, err
	}
	defer os.Remove(tmp) // after the rename, a no-op
	w := bufio.NewWriterSize(f, 1<<20)
	var frame []byte
	put := func(payload []byte) {
		frame = appendFrame(frame[:0], payload)
		w.Write(frame)
	}
	w.Write(fileHeader(kindSnapshot))
	h := binary.AppendUvarint([]byte{'H'}, d.seg)
	h = appendTime(h, d.at)
	h = binary.AppendVarint(h, d.offset)
	put(h)
	for _, s := range d.streams {
		put(s.encode([]byte{'Z'}))
	}
	items := 0
	var b []byte
	for _, t := range d.tables {
		put(appendString([]byte{'M'}, string(t.settings)))
		b = append(b[:0], 'I')
		for _, data := range t.items {
			b = appendString(b, data)
			items++
			if len(b) >= snapshotBatch {
				put(b)
				b = append(b[:0], 'I')
			}
		}
		if len(b) > 1 {
			put(b)
		}
	}
	for _, tok := range d.tokens {
		put(tok)
	}
	e := binary.AppendUvarint([]byte{'E'}, uint64(len(d.streams)))
	e = binary.AppendUvarint(e, uint64(len(d.tables)))
	e = binary.AppendUvarint(e, uint64(items))
	put(e)
	if err := w.Flush(); err != nil {
		f.Close()
		return 0, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return 0, err
	}
	if err := f.Close(); err != nil {
		return 0, err
	}
	if err := os.Rename(tmp, final); err != nil {
		return 0, err
	}
	return fi.Size(), syncDir(p.dir)
}

// loadSnapshot loads a snapshot into db, which is empty, and returns its
// size.
func (db *DB) loadSnapshot(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	r := bufio.NewReaderSize(f, 4<<20)
	name := filepath.Base(path)
	if err := checkFileHeader(r, kindSnapshot, name); err != nil {
		return 0, err
	}
	var (
		t                       *dbTable
		buf                     []byte
		streams, tables, nItems uint64
		ended                   bool
	)
	tablesMap := map[string]*dbTable{}
	for !ended {
		payload, err := readFrame(r, buf)
		if err == io.EOF || errors.Is(err, errTorn) {
			return 0, fmt.Errorf("%w: %s ends before its last record", ErrDataCorrupt, name)
		}
		if err != nil {
			return 0, err
		}
		buf = payload
		rd := reader{b: payload[1:]}
		switch payload[0] {
		case 'H':
			rd.uvarint()
			db.pin(rd.time())
			db.replayOffset = rd.varint()
		case 'Z':
			s := decodeStream(&rd, db.now)
			if rd.err == nil {
				db.streams.all = append(db.streams.all, s)
				streams++
			}
		case 'M':
			var m tableSettings
			if err := json.Unmarshal([]byte(rd.string()), &m); err != nil {
				return 0, fmt.Errorf("%w: %s: table settings: %v", ErrDataCorrupt, name, err)
			}
			t, err = db.tableFromSettings(&m)
			if err != nil {
				return 0, fmt.Errorf("%w: %s: %v", ErrDataCorrupt, name, err)
			}
			if m.Stream != nil {
				t.stream = db.streams.byARN(m.Stream.ARN)
			}
			if m.LastStream != "" {
				t.lastStream = db.streams.byARN(m.LastStream)
			}
			tablesMap[t.name] = t
			tables++
		case 'I':
			if t == nil {
				return 0, fmt.Errorf("%w: %s: items before their table", ErrDataCorrupt, name)
			}
			for rd.more() {
				t.load(rd.bytes())
				nItems++
			}
		case effToken:
			db.tokens.restore(&rd)
		case 'E':
			ended = true
			if rd.uvarint() != streams || rd.uvarint() != tables || rd.uvarint() != nItems {
				return 0, fmt.Errorf("%w: %s: its counts do not match its contents", ErrDataCorrupt, name)
			}
		default:
			return 0, fmt.Errorf("%w: %s: unknown record %q", ErrDataCorrupt, name, payload[0])
		}
		if rd.err != nil {
			return 0, fmt.Errorf("%w: %s: %v", ErrDataCorrupt, name, rd.err)
		}
	}
	for _, t := range tablesMap {
		if t.lagged != nil {
			t.lagged.catchUpAll()
		}
	}
	db.tables.Store(&tablesMap)
	return fi.Size(), nil
}

// load adds one stored item to t while a snapshot loads: its entry is
// built from the encoding, which is decoded only when indexes or the TTL
// order need the item.
func (t *dbTable) load(data []byte) {
	e := store.LoadEntry(data, t.sk.name)
	t.putEntry(attr.KeyString(store.Attr(e.Data, t.pk.name)), e, nil, nil, nil)
}

// encode appends the stream's state: its settings, shards and records.
func (s *stream) encode(b []byte) []byte {
	ks, _ := json.Marshal(s.keySchema)
	for _, str := range []string{s.arn, s.label, s.tableName, s.tableARN, string(s.view), string(ks), s.pk, s.sk} {
		b = appendString(b, str)
	}
	b = appendTime(b, s.created)
	b = appendBool(b, s.disabled)
	b = binary.AppendUvarint(b, s.next)
	b = binary.AppendUvarint(b, uint64(s.opened))
	b = binary.AppendUvarint(b, uint64(len(s.shards)))
	for _, sh := range s.shards {
		b = appendString(b, sh.id)
		b = appendString(b, sh.parent)
		b = appendTime(b, sh.created)
		b = binary.AppendUvarint(b, sh.start)
		b = binary.AppendUvarint(b, sh.end)
		b = appendBool(b, sh.closed)
		b = appendTime(b, sh.closedAt)
		b = binary.AppendUvarint(b, sh.trimmedTo)
		b = binary.AppendUvarint(b, uint64(len(sh.records)))
		for _, r := range sh.records {
			b = binary.AppendUvarint(b, r.seq)
			b = appendTime(b, r.at)
			for _, str := range []string{r.event, r.keys, r.oldImage, r.newImage} {
				b = appendString(b, str)
			}
			b = binary.AppendVarint(b, r.size)
			b = appendBool(b, r.byService)
		}
	}
	return b
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

// decodeStream reads what encode wrote.
func decodeStream(r *reader, clock func() time.Time) *stream {
	s := &stream{now: clock}
	s.arn, s.label, s.tableName, s.tableARN = r.string(), r.string(), r.string(), r.string()
	s.view = types.StreamViewType(r.string())
	if err := json.Unmarshal([]byte(r.string()), &s.keySchema); err != nil && r.err == nil {
		r.err = err
	}
	s.pk, s.sk = r.string(), r.string()
	s.hash = store.Hash(s.arn)
	s.created = r.time()
	s.disabled = r.byte() == 1
	s.next = r.uvarint()
	s.opened = int(r.uvarint())
	for n := r.uvarint(); n > 0 && r.err == nil; n-- {
		sh := &shard{id: r.string(), parent: r.string(), created: r.time(), start: r.uvarint(), end: r.uvarint()}
		sh.closed = r.byte() == 1
		sh.closedAt = r.time()
		sh.trimmedTo = r.uvarint()
		for k := r.uvarint(); k > 0 && r.err == nil; k-- {
			rec := streamRecord{seq: r.uvarint(), at: r.time()}
			rec.event, rec.keys, rec.oldImage, rec.newImage = r.string(), r.string(), r.string(), r.string()
			rec.size = r.varint()
			rec.byService = r.byte() == 1
			sh.records = append(sh.records, rec)
		}
		s.shards = append(s.shards, sh)
	}
	return s
}

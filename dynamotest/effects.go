package dynamotest

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest/internal/attr"
	"github.com/tablekit/tablekit/dynamotest/internal/store"
	"github.com/tablekit/tablekit/table"
)

// A persistent DB logs effects, not requests: what a write did to the
// stored state, decided once, under the locks that decided it. Every item
// write, whatever the operation (PutItem, an update, a batch, a
// transaction, PartiQL, a TTL deletion), ends in dbTable.putEntry or
// dbTable.remove, which note the new item or the removed key in the
// table's pending effects; a stream record notes its time; settings
// changes note the table's settings whole. The table's write unlock then
// turns the pending effects into one journal record and, after releasing
// the lock, waits until the record is durable: the operation answers only
// then. A transaction over several tables seals all their effects into one
// record (DB.lockTables), so a crash keeps all of it or none.
//
// Replaying a record applies the same effects through the same functions
// (putEntry, remove, recordChangeAt), with the fake's clock pinned to the
// logged times, so indexes, the TTL order, item collections and stream
// records come out as they were.

// Effect tags in a record's payload.
const (
	effTable  = 'T' // table name: the following effects apply to it
	effPut    = 'P' // an item, encoded (internal/store): stored whole
	effDelete = 'D' // a key, encoded: its item removed
	effStream = 'S' // time, by-service flag: the last change's stream record
	effMeta   = 'M' // time, settings (JSON): the table created or changed
	effDrop   = 'X' // time: the table deleted
	effRoll   = 'R' // stream ARN, time: a stream's shards rolled over
	effClock  = 'C' // offset: the fake's clock moved (Advance, SetTime)
	effToken  = 'K' // a transaction's ClientRequestToken (see tokenLedger.encode)
)

// tableMutex is a table's lock. In memory it is a sync.RWMutex; in a
// persistent DB its write unlock logs the holder's changes first (see
// above).
type tableMutex struct {
	sync.RWMutex
	log *tableLog // nil in memory; set before the table is shared
}

// Unlock logs the effects the holder left pending, releases the lock and
// waits until they are durable.
func (m *tableMutex) Unlock() {
	l := m.log
	if l == nil || !l.dirty() {
		m.RWMutex.Unlock()
		return
	}
	l.scratch = l.seal(l.scratch[:0])
	lsn := l.p.j.append(l.scratch)
	m.RWMutex.Unlock()
	l.p.durable(lsn)
}

// tableLog is a table's pending effects, guarded by the table's lock.
type tableLog struct {
	p       *persistence
	t       *dbTable
	pending []byte
	meta    bool // settings changed: log them whole at unlock
	drop    bool // the table was deleted
	scratch []byte
}

func (l *tableLog) dirty() bool { return len(l.pending) > 0 || l.meta || l.drop }

func (l *tableLog) begin() {
	if len(l.pending) == 0 {
		l.pending = appendString(append(l.pending, effTable), l.t.name)
	}
}

func (l *tableLog) put(data string) {
	l.begin()
	l.pending = appendString(append(l.pending, effPut), data)
}

// remove notes the removal of the item with key (an item or a key map:
// only the table's key attributes are logged).
func (l *tableLog) remove(t *dbTable, key map[string]types.AttributeValue) {
	k := map[string]types.AttributeValue{t.pk.name: key[t.pk.name]}
	if t.sk.name != "" {
		k[t.sk.name] = key[t.sk.name]
	}
	l.begin()
	l.pending = appendString(append(l.pending, effDelete), store.Encode(k, table.ItemSize(k)))
}

func (l *tableLog) streamAt(at time.Time, byService bool) {
	l.begin()
	l.pending = appendTime(append(l.pending, effStream), at)
	b := byte(0)
	if byService {
		b = 1
	}
	l.pending = append(l.pending, b)
}

// noteToken logs a transaction's ClientRequestToken with the writes it
// made, so a replay of the call after a restart is answered from it. The
// caller holds t's write lock.
func (t *dbTable) noteToken(token string, sum [32]byte, at time.Time, consumed []types.ConsumedCapacity) {
	if l := t.mu.log; l != nil {
		l.begin()
		l.pending = encodeToken(append(l.pending, effToken), token, sum, at, consumed)
	}
}

// changed notes that the table's settings changed (or that it was just
// created): the unlock logs them whole.
func (t *dbTable) changed() {
	if l := t.mu.log; l != nil {
		l.meta = true
	}
}

// dropped notes that the table was deleted.
func (t *dbTable) dropped() {
	if l := t.mu.log; l != nil {
		l.drop = true
	}
}

// seal appends the pending effects to b as part of one record and clears
// them. The caller holds the table's write lock.
func (l *tableLog) seal(b []byte) []byte {
	if !l.dirty() {
		return b
	}
	if len(l.pending) == 0 {
		l.begin()
	}
	b = append(b, l.pending...)
	l.pending = l.pending[:0]
	if l.meta {
		l.meta = false
		b = appendTime(append(b, effMeta), l.p.db.now())
		b = appendString(b, string(l.t.settings()))
	}
	if l.drop {
		l.drop = false
		b = appendTime(append(b, effDrop), l.p.db.now())
	}
	if cap(l.pending) > 1<<20 {
		l.pending = nil
	}
	return b
}

// sealTables is the record of a write over several tables, each
// write-locked by the caller: all their effects in one record, appended to
// the journal. It returns the record's number, 0 when nothing changed.
func (db *DB) sealTables(ts []*dbTable) uint64 {
	p := db.persist
	if p == nil {
		return 0
	}
	var b []byte
	for _, t := range ts {
		if l := t.mu.log; l != nil {
			b = l.seal(b)
		}
	}
	if len(b) == 0 {
		return 0
	}
	return p.j.append(b)
}

// appendString appends s with its length.
func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// reader reads what appendString and binary.Append*varint wrote; the first
// malformed read sets err and every later one returns zero values.
type reader struct {
	b   []byte
	err error
}

var errShort = errors.New("record cut short")

func (r *reader) more() bool { return r.err == nil && len(r.b) > 0 }

func (r *reader) byte() byte {
	if r.err != nil || len(r.b) == 0 {
		r.err = errShort
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errShort
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = errShort
		return 0
	}
	r.b = r.b[n:]
	return v
}

// bytes reads what appendString wrote, without copying: the result is a
// view of the record, valid until the record's buffer is reused.
func (r *reader) bytes() []byte {
	n := r.uvarint()
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)) {
		r.err = errShort
		return nil
	}
	b := r.b[:n:n]
	r.b = r.b[n:]
	return b
}

func (r *reader) string() string {
	n := r.uvarint()
	if r.err != nil {
		return ""
	}
	if n > uint64(len(r.b)) {
		r.err = errShort
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

// appendTime appends t in nanoseconds since the epoch; the zero time is 0.
func appendTime(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return binary.AppendVarint(b, 0)
	}
	return binary.AppendVarint(b, t.UnixNano())
}

func (r *reader) time() time.Time {
	if n := r.varint(); n != 0 {
		return time.Unix(0, n)
	}
	return time.Time{}
}

// applyRecord replays one journal record. The caller is recovery, alone
// with the DB; the clock is pinned by each effect that carries a time.
func (db *DB) applyRecord(payload []byte) error {
	r := reader{b: payload}
	var (
		name    string
		t       *dbTable
		lastOld *store.Entry
		lastKey map[string]types.AttributeValue
	)
	need := func() bool {
		if t == nil && r.err == nil {
			r.err = fmt.Errorf("a change to table %q, which does not exist", name)
		}
		return t != nil
	}
	for r.more() {
		switch tag := r.byte(); tag {
		case effTable:
			name = r.string()
			t = db.table(name)
		case effPut:
			data := r.string()
			if !need() || r.err != nil {
				break
			}
			lastOld, lastKey = t.putData(data)
		case effDelete:
			data := r.string()
			if !need() || r.err != nil {
				break
			}
			lastKey = store.Decode(data)
			lastOld = t.remove(lastKey, nil)
		case effStream:
			at := r.time()
			by := r.byte() == 1
			if !need() || r.err != nil {
				break
			}
			db.pin(at)
			t.recordChangeAt(lastOld, lastKey, by, at)
		case effMeta:
			at := r.time()
			js := r.string()
			if r.err != nil {
				break
			}
			db.pin(at)
			if err := db.applySettings(name, []byte(js)); err != nil {
				return err
			}
			t = db.table(name)
		case effDrop:
			at := r.time()
			if !need() || r.err != nil {
				break
			}
			db.pin(at)
			db.dropTable(t)
			t = nil
		case effRoll:
			arn := r.string()
			at := r.time()
			if r.err != nil {
				break
			}
			if s := db.streams.byARN(arn); s != nil {
				s.mu.Lock()
				s.roll(at)
				s.mu.Unlock()
			}
		case effClock:
			db.replayOffset = r.varint()
		case effToken:
			db.tokens.restore(&r)
		default:
			return fmt.Errorf("unknown effect %q", tag)
		}
	}
	return r.err
}

// putData stores an encoded item, as a write that logged it did, and
// returns the entry it replaced and the item's key.
func (t *dbTable) putData(data string) (*store.Entry, map[string]types.AttributeValue) {
	pk := store.Attr(data, t.pk.name)
	key := map[string]types.AttributeValue{t.pk.name: pk}
	var pos string
	if t.sk.name != "" {
		sk := store.Attr(data, t.sk.name)
		key[t.sk.name] = sk
		pos = store.Key(sk, nil, nil)
	}
	return t.putEntry(attr.KeyString(pk), store.EntryFromData(pos, data), nil, nil, nil), key
}

// dropTable removes a table as DeleteTable does: its stream stops, and
// the table leaves the map. The caller serialises DDL (db.mu or recovery).
func (db *DB) dropTable(t *dbTable) {
	old := db.tableMap()
	next := make(map[string]*dbTable, len(old))
	for k, v := range old {
		if v != t {
			next[k] = v
		}
	}
	db.tables.Store(&next)
	t.deleted = true
	t.stopStream()
}

// rollDue rolls s over on behalf of a reader at now, when a shard is due
// to close: in a persistent DB the roll is logged under the table's lock,
// in order with the table's writes, since a roll's outcome depends on the
// time it happens. In memory (or when nothing is due) the reader's own
// advance rolls as before.
func (db *DB) rollDue(s *stream, now time.Time) {
	if db.persist == nil || !s.due(now) {
		return
	}
	t := db.table(s.tableName)
	if t == nil {
		return
	}
	t.mu.Lock()
	if !t.deleted && t.stream == s {
		s.mu.Lock()
		s.roll(now)
		s.mu.Unlock()
		if l := t.mu.log; l != nil {
			l.begin()
			l.pending = appendTime(appendString(append(l.pending, effRoll), s.arn), now)
		}
	}
	t.mu.Unlock()
}

// due reports whether the open shard should close by now.
func (s *stream) due(now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.disabled || len(s.shards) == 0 {
		return false
	}
	sh := s.shards[len(s.shards)-1]
	return !sh.closed && !now.Before(sh.created.Add(shardLifetime))
}

// tableSettings is what a persistent DB records of a table besides its
// items: everything DescribeTable, DescribeTimeToLive,
// DescribeContinuousBackups and ListTagsOfResource report. Indexes, the
// TTL order and item collection sizes are rebuilt from the items.
type tableSettings struct {
	Name               string                       `json:"name"`
	ID                 string                       `json:"id"`
	Created            time.Time                    `json:"created"`
	Billing            types.BillingMode            `json:"billing"`
	BillingChanged     time.Time                    `json:"billingChanged"`
	Throughput         *types.ProvisionedThroughput `json:"throughput,omitempty"`
	AttributeDefs      []types.AttributeDefinition  `json:"attributeDefinitions"`
	KeySchema          []types.KeySchemaElement     `json:"keySchema"`
	Indexes            []indexSettings              `json:"indexes,omitempty"`
	Tags               map[string]string            `json:"tags,omitempty"`
	TTLAttribute       string                       `json:"ttlAttribute,omitempty"`
	TTLEnabled         bool                         `json:"ttlEnabled,omitempty"`
	Stream             *streamSettings              `json:"stream,omitempty"`
	LastStream         string                       `json:"lastStream,omitempty"`
	KMSKeyARN          string                       `json:"kmsKeyArn,omitempty"`
	DeletionProtection bool                         `json:"deletionProtection,omitempty"`
	PITR               bool                         `json:"pitr,omitempty"`
	TableClass         types.TableClass             `json:"tableClass,omitempty"`
}

type indexSettings struct {
	Name       string                       `json:"name"`
	Local      bool                         `json:"local,omitempty"`
	KeySchema  []types.KeySchemaElement     `json:"keySchema"`
	Projection types.Projection             `json:"projection"`
	Throughput *types.ProvisionedThroughput `json:"throughput,omitempty"`
}

// streamSettings is a stream as it began: enough to start it again
// identically when the log that created it is replayed.
type streamSettings struct {
	ARN        string                   `json:"arn"`
	Label      string                   `json:"label"`
	View       types.StreamViewType     `json:"view"`
	Created    time.Time                `json:"created"`
	KeySchema  []types.KeySchemaElement `json:"keySchema"`
	FirstShard string                   `json:"firstShard"`
}

// settings encodes the table's settings. The caller holds its lock.
func (t *dbTable) settings() []byte {
	m := tableSettings{
		Name: t.name, ID: t.id, Created: t.created, Billing: t.billing, BillingChanged: t.billingChanged,
		Throughput: t.throughput, AttributeDefs: t.attrDefs, KeySchema: t.keySchema, Tags: t.tags,
		TTLAttribute: t.ttlAttr, TTLEnabled: t.ttlEnabled, KMSKeyARN: t.kmsKeyARN,
		DeletionProtection: t.deletionProtection, PITR: t.pitr, TableClass: t.tableClass,
	}
	for _, ix := range t.indexes {
		m.Indexes = append(m.Indexes, indexSettings{Name: ix.name, Local: ix.local, KeySchema: ix.keySchema,
			Projection: ix.projection, Throughput: ix.throughput})
	}
	if s := t.stream; s != nil {
		m.Stream = s.settings()
	}
	if s := t.lastStream; s != nil {
		m.LastStream = s.arn
	}
	b, err := json.Marshal(m)
	if err != nil {
		// Every field is a plain value: this cannot fail.
		panic("dynamotest: encoding table settings: " + err.Error())
	}
	return b
}

func (s *stream) settings() *streamSettings {
	s.mu.Lock()
	defer s.mu.Unlock()
	first := ""
	if len(s.shards) > 0 {
		first = s.shards[0].id
	}
	return &streamSettings{ARN: s.arn, Label: s.label, View: s.view, Created: s.created, KeySchema: s.keySchema, FirstShard: first}
}

// applySettings creates the named table from its settings, or brings an
// existing one to them: indexes added are backfilled, indexes gone are
// dropped, TTL changes rebuild the TTL order, a stream started or stopped
// starts or stops. The caller is recovery.
func (db *DB) applySettings(name string, js []byte) error {
	var m tableSettings
	if err := json.Unmarshal(js, &m); err != nil {
		return fmt.Errorf("table %q settings: %w", name, err)
	}
	if m.Name != name {
		return fmt.Errorf("settings of table %q logged for table %q", m.Name, name)
	}
	fresh, err := db.tableFromSettings(&m)
	if err != nil {
		return err
	}
	old := db.table(name)
	if old != nil {
		// Same table, new settings: keep its items and the indexes that
		// did not change.
		fresh.items, fresh.collections, fresh.lagged = old.items, old.collections, old.lagged
		for i, ix := range fresh.indexes {
			if prev := old.index(ix.name); prev != nil && sameIndex(prev, ix) {
				fresh.indexes[i] = prev
				continue
			}
			fresh.backfill(ix)
			if fresh.lagged != nil {
				fresh.lagged.view.addIndex(ix)
			}
		}
		for _, ix := range old.indexes {
			if fresh.lagged != nil && fresh.index(ix.name) == nil {
				fresh.lagged.view.dropIndex(ix.name)
			}
		}
		fresh.stream, fresh.lastStream = old.stream, old.lastStream
		if old.ttlEnabled != fresh.ttlEnabled || old.ttlAttr != fresh.ttlAttr {
			fresh.rebuildExpiries()
		} else {
			fresh.expiries = old.expiries
		}
	}
	// The stream: started by these settings, or stopped by them.
	switch {
	case m.Stream != nil && (fresh.stream == nil || fresh.stream.arn != m.Stream.ARN):
		if fresh.stream != nil {
			fresh.stopStream()
		}
		s := db.streams.byARN(m.Stream.ARN)
		if s == nil {
			s = restartStream(fresh, m.Stream, db.now)
			db.streams.mu.Lock()
			db.streams.all = append(db.streams.all, s)
			db.streams.mu.Unlock()
		}
		fresh.stream = s
	case m.Stream == nil && fresh.stream != nil:
		fresh.stopStream()
	}
	if m.LastStream != "" && (fresh.lastStream == nil || fresh.lastStream.arn != m.LastStream) {
		fresh.lastStream = db.streams.byARN(m.LastStream)
	}
	next := make(map[string]*dbTable, len(db.tableMap())+1)
	for k, v := range db.tableMap() {
		next[k] = v
	}
	next[name] = fresh
	db.tables.Store(&next)
	return nil
}

func sameIndex(a, b *dbIndex) bool {
	ja, _ := json.Marshal(indexSettings{KeySchema: a.keySchema, Projection: a.projection, Local: a.local})
	jb, _ := json.Marshal(indexSettings{KeySchema: b.keySchema, Projection: b.projection, Local: b.local})
	return string(ja) == string(jb)
}

// tableFromSettings builds an empty table with the given settings, as
// CreateTable built it (no stream yet: applySettings attaches it).
func (db *DB) tableFromSettings(m *tableSettings) (*dbTable, error) {
	defs := make(map[string]types.ScalarAttributeType, len(m.AttributeDefs))
	for _, d := range m.AttributeDefs {
		if d.AttributeName != nil {
			defs[*d.AttributeName] = d.AttributeType
		}
	}
	used := map[string]bool{}
	pk, sk, err := keyAttrs("", m.KeySchema, defs, used)
	if err != nil {
		return nil, fmt.Errorf("table %q: %w", m.Name, err)
	}
	t := &dbTable{
		name: m.Name, arn: tableARN(m.Name), id: m.ID, created: m.Created,
		billing: m.Billing, billingChanged: m.BillingChanged, throughput: m.Throughput,
		attrDefs: m.AttributeDefs, keySchema: m.KeySchema, pk: pk, sk: sk,
		items: store.New(), collectionLimit: db.collectionLimit, tags: m.Tags,
		ttlAttr: m.TTLAttribute, ttlEnabled: m.TTLEnabled, kmsKeyARN: m.KMSKeyARN,
		deletionProtection: m.DeletionProtection, pitr: m.PITR, tableClass: m.TableClass,
	}
	for _, is := range m.Indexes {
		field := "globalSecondaryIndexes"
		if is.Local {
			field = "localSecondaryIndexes"
		}
		ix, err := buildIndex(t, field, is.Name, is.KeySchema, &is.Projection, defs, map[string]bool{})
		if err != nil {
			return nil, fmt.Errorf("table %q index %q: %w", m.Name, is.Name, err)
		}
		ix.local, ix.throughput = is.Local, is.Throughput
		t.indexes = append(t.indexes, ix)
		if is.Local && t.collections == nil {
			t.collections = map[string]int64{}
		}
	}
	t.rebuildExpiries()
	if db.lag > 0 {
		t.lagged = newLagged(t, db.lag, db.now)
	}
	return t, nil
}

// tableARN is the ARN of the table called name.
func tableARN(name string) string {
	return "arn:aws:dynamodb:" + fakeRegion + ":" + fakeAccount + ":table/" + name
}

// restartStream starts a stream again from the settings it began with, as
// newStream started it.
func restartStream(t *dbTable, m *streamSettings, clock func() time.Time) *stream {
	s := &stream{
		tableARN: t.arn, tableName: t.name, view: m.View, keySchema: m.KeySchema, created: m.Created,
		pk: t.pk.name, sk: t.sk.name, next: 1, now: clock,
		arn: m.ARN, label: m.Label, hash: store.Hash(m.ARN),
	}
	s.openShard(m.Created, "")
	if m.FirstShard != "" {
		s.shards[0].id = m.FirstShard
	}
	return s
}

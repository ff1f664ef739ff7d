package dynamotest

import (
	"fmt"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest/internal/store"
	"github.com/tablekit/tablekit/table"
)

// A table's stream is a log of its item changes, as DynamoDB Streams keeps
// it: one record per item change, in the order the changes were applied.
// The fake keeps one open shard per stream at a time; a shard closes after
// shardLifetime of the fake's clock, whether or not it was written to
// (DynamoDB rolls shards over about every four hours), and a child shard
// whose ParentShardId names it takes over, so consumers meet closed shards
// and shard lineage as they do on AWS. Records older than streamRetention
// are trimmed when a reader looks, and shard iterators expire after
// iteratorLifetime, all on the fake's clock.
const (
	streamRetention  = 24 * time.Hour
	iteratorLifetime = 15 * time.Minute
	shardLifetime    = 4 * time.Hour
	maxGetRecords    = 1000
	// maxGetRecordsBytes is the most GetRecords returns in one call
	// (counted as the records' SizeBytes); a record larger than it still
	// comes back alone, so a reader always moves on.
	maxGetRecordsBytes = 1 << 20
)

// stream is one stream of one table: enabling a stream on a table that had
// one before creates a new stream with a new label and ARN, and the old one
// stays readable until its records age out, as in DynamoDB.
type stream struct {
	arn, label, tableName string
	tableARN              string
	view                  types.StreamViewType
	keySchema             []types.KeySchemaElement
	created               time.Time
	pk, sk                string // the table's key attribute names ("" sk: none)
	hash                  uint64 // for event IDs
	now                   func() time.Time

	mu       sync.Mutex
	disabled bool
	shards   []*shard // in creation order; while enabled the last is open
	next     uint64   // the next sequence number
	// opened counts the shards ever opened: it numbers a new shard's id,
	// which must not depend on how many old shards trimming has dropped,
	// so that a persistent DB replaying its log names shards as before.
	opened int
}

// shard is a run of records with consecutive sequence numbers. records
// holds the untrimmed ones; trimmedTo is the sequence number of the last
// record retention has dropped (start-1 when none has).
type shard struct {
	id, parent string
	created    time.Time
	start      uint64
	end        uint64 // the last sequence number; 0 while open
	closed     bool
	closedAt   time.Time
	records    []streamRecord
	trimmedTo  uint64
}

// streamRecord is one change. Images are kept in the store's immutable
// encoding: recording one is cheap and every read decodes a fresh copy.
type streamRecord struct {
	seq       uint64
	at        time.Time
	event     string // INSERT, MODIFY or REMOVE
	keys      string
	oldImage  string // "" when the view does not keep it
	newImage  string
	size      int64
	byService bool // a TTL deletion, DynamoDB's own
}

// streamRegistry holds every stream of a DB, live or disabled, by ARN, so
// readers find a stream after its table stopped streaming (or was deleted).
type streamRegistry struct {
	mu  sync.Mutex
	all []*stream // in creation order
}

func (r *streamRegistry) add(s *stream) {
	if s == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	// A table that streams again within the millisecond its last stream
	// began (a fake clock that stands still) takes the next free label.
	for taken := true; taken; {
		taken = false
		for _, o := range r.all {
			if o.arn == s.arn {
				taken = true
				s.relabel(s.labelTime().Add(time.Millisecond))
				break
			}
		}
	}
	r.all = append(r.all, s)
}

func (r *streamRegistry) byARN(arn string) *stream {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.all {
		if s.arn == arn {
			return s
		}
	}
	return nil
}

func (r *streamRegistry) list() []*stream {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*stream(nil), r.all...)
}

// checkStreamSpec validates a StreamSpecification as CreateTable and
// UpdateTable do. It returns whether the spec enables a stream.
func checkStreamSpec(spec *types.StreamSpecification) (bool, error) {
	if spec == nil {
		return false, nil
	}
	if spec.StreamEnabled == nil {
		return false, constraint("null", "streamSpecification.streamEnabled", "Member must not be null")
	}
	switch spec.StreamViewType {
	case "", types.StreamViewTypeKeysOnly, types.StreamViewTypeNewImage, types.StreamViewTypeOldImage, types.StreamViewTypeNewAndOldImages:
	default:
		return false, constraint(string(spec.StreamViewType), "streamSpecification.streamViewType", "Member must satisfy enum value set: [NEW_AND_OLD_IMAGES, NEW_IMAGE, OLD_IMAGE, KEYS_ONLY]")
	}
	if !*spec.StreamEnabled {
		if spec.StreamViewType != "" {
			return false, validationf("One or more parameter values were invalid: StreamSpecification: StreamViewType cannot be specified when StreamEnabled is false")
		}
		return false, nil
	}
	if spec.StreamViewType == "" {
		return false, validationf("One or more parameter values were invalid: StreamSpecification: StreamViewType must be specified when StreamEnabled is true")
	}
	return true, nil
}

// newStream starts a stream on t, with its first shard open.
func newStream(t *dbTable, view types.StreamViewType, clock func() time.Time) *stream {
	now := clock()
	// DynamoDB's labels are the creation time to the millisecond; a table
	// that enables a stream twice in one millisecond still needs two.
	s := &stream{
		tableARN:  t.arn,
		tableName: t.name,
		view:      view,
		keySchema: append([]types.KeySchemaElement(nil), t.keySchema...),
		created:   now,
		pk:        t.pk.name,
		sk:        t.sk.name,
		next:      1,
		now:       clock,
	}
	s.relabel(now)
	s.openShard(now, "")
	return s
}

// labelLayout is DynamoDB's stream label: the creation time to the
// millisecond.
const labelLayout = "2006-01-02T15:04:05.000"

func (s *stream) relabel(t time.Time) {
	s.label = t.UTC().Format(labelLayout)
	s.arn = s.tableARN + "/stream/" + s.label
	s.hash = store.Hash(s.arn)
}

func (s *stream) labelTime() time.Time {
	t, _ := time.Parse(labelLayout, s.label)
	return t
}

// openShard starts a new shard. The caller holds s.mu (or owns s).
func (s *stream) openShard(now time.Time, parent string) {
	s.shards = append(s.shards, &shard{
		id:        fmt.Sprintf("shardId-%020d-%08x", now.UnixMilli(), uint32(s.hash)+uint32(s.opened)),
		parent:    parent,
		created:   now,
		start:     s.next,
		trimmedTo: s.next - 1,
	})
	s.opened++
}

// closeOpen closes the open shard, if any. The caller holds s.mu.
func (s *stream) closeOpen(now time.Time) {
	if len(s.shards) == 0 {
		return
	}
	sh := s.shards[len(s.shards)-1]
	if sh.closed {
		return
	}
	sh.closed, sh.closedAt = true, now
	sh.end = s.next - 1
	if sh.end < sh.start {
		// An empty shard ends where it starts; no record holds that number.
		sh.end = sh.start
		s.next++
	}
}

// disable stops the stream: its open shard closes and no record is added.
func (s *stream) disable(now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.disabled = true
	s.closeOpen(now)
}

// recordChange appends the record of one item change to t's stream, if it
// streams: old is the entry the write replaced or removed (nil: the item
// was missing), key locates the item, and the item's current entry is read
// back after the write. A write that leaves the item as it was (a put of
// the same item, an update to the same values, a delete of a missing item)
// adds nothing, as in DynamoDB. The caller holds t's write lock, which
// keeps records in the order the writes were applied.
func (t *dbTable) recordChange(old *store.Entry, key map[string]types.AttributeValue, byService bool) {
	if s := t.stream; s != nil {
		t.recordChangeAt(old, key, byService, s.now())
	}
}

// recordChangeAt is recordChange at a given time: a persistent DB replays
// each change at the time it was first recorded (see effects.go).
func (t *dbTable) recordChangeAt(old *store.Entry, key map[string]types.AttributeValue, byService bool, now time.Time) {
	s := t.stream
	if s == nil {
		return
	}
	cur := t.lookup(key)
	if old == nil && cur == nil {
		return
	}
	event := "MODIFY"
	switch {
	case old == nil:
		event = "INSERT"
	case cur == nil:
		event = "REMOVE"
	case sameItem(old, cur):
		return
	}
	keys := map[string]types.AttributeValue{s.pk: key[s.pk]}
	if s.sk != "" {
		keys[s.sk] = key[s.sk]
	}
	ksize := table.ItemSize(keys)
	r := streamRecord{at: now, event: event, keys: store.Encode(keys, ksize), byService: byService, size: int64(ksize)}
	if old != nil && (s.view == types.StreamViewTypeOldImage || s.view == types.StreamViewTypeNewAndOldImages) {
		r.oldImage = old.Data
		r.size += int64(old.Size)
	}
	if cur != nil && (s.view == types.StreamViewTypeNewImage || s.view == types.StreamViewTypeNewAndOldImages) {
		r.newImage = cur.Data
		r.size += int64(cur.Size)
	}
	if l := t.mu.log; l != nil {
		l.streamAt(now, byService)
	}
	s.append(r, now)
}

// sameItem reports whether two stored versions of an item hold the same
// attributes and values.
func sameItem(a, b *store.Entry) bool {
	if a.Data == b.Data {
		return true
	}
	if a.Size != b.Size {
		return false
	}
	return equalItems(a.Item(), b.Item())
}

// append adds r to the open shard, rolling the shard over first when it
// has lived shardLifetime.
func (s *stream) append(r streamRecord, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.disabled {
		return
	}
	s.roll(now)
	sh := s.shards[len(s.shards)-1]
	r.seq = s.next
	s.next++
	sh.records = append(sh.records, r)
}

// roll closes the open shard once it has lived shardLifetime and opens its
// child, at the instant it closed, as many times as the clock has moved on:
// a shard nobody writes to closes on time too. Shards that would close and
// age out entirely before now are skipped, so a clock moved by a year does
// not build thousands of them. The caller holds s.mu.
func (s *stream) roll(now time.Time) {
	if s.disabled || len(s.shards) == 0 {
		return
	}
	for {
		sh := s.shards[len(s.shards)-1]
		if sh.closed {
			return
		}
		at := sh.created.Add(shardLifetime)
		if now.Before(at) {
			return
		}
		s.closeOpen(at)
		if skip := now.Sub(at) - streamRetention - shardLifetime; skip > 0 {
			at = at.Add(skip / shardLifetime * shardLifetime)
		}
		s.openShard(at, sh.id)
	}
}

// advance brings the stream to now: shards roll over and records older
// than the retention period are trimmed. The caller holds s.mu.
func (s *stream) advance(now time.Time) {
	s.roll(now)
	s.trim(now)
}

// trim drops the records older than the retention period and the closed
// shards left with none. The caller holds s.mu.
func (s *stream) trim(now time.Time) {
	horizon := now.Add(-streamRetention)
	kept := s.shards[:0]
	for _, sh := range s.shards {
		n := 0
		for n < len(sh.records) && !sh.records[n].at.After(horizon) {
			n++
		}
		if n > 0 {
			sh.trimmedTo = sh.records[n-1].seq
			sh.records = append([]streamRecord(nil), sh.records[n:]...)
		}
		if sh.closed && len(sh.records) == 0 && !sh.closedAt.After(horizon) {
			continue // the shard has aged out entirely
		}
		kept = append(kept, sh)
	}
	for i := len(kept); i < len(s.shards); i++ {
		s.shards[i] = nil
	}
	s.shards = kept
}

// shard returns the shard with the given id, or nil. The caller holds s.mu.
func (s *stream) shard(id string) *shard {
	for _, sh := range s.shards {
		if sh.id == id {
			return sh
		}
	}
	return nil
}

// status is the stream's StreamStatus.
func (s *stream) status() string {
	if s.disabled {
		return "DISABLED"
	}
	return "ENABLED"
}

// last is the sequence number of the shard's newest record, or the one
// just before its first when it has none.
func (sh *shard) last() uint64 {
	if n := len(sh.records); n > 0 {
		return sh.records[n-1].seq
	}
	return sh.trimmedTo
}

// after returns the records with sequence numbers above seq: at most limit
// of them and, past the first, at most maxGetRecordsBytes in all.
func (sh *shard) after(seq uint64, limit int) []streamRecord {
	// Sequence numbers grow along the shard: a binary search keeps a
	// reader at the end of a long shard from walking all of it per call.
	i := sort.Search(len(sh.records), func(i int) bool { return sh.records[i].seq > seq })
	end := min(len(sh.records), i+limit)
	var bytes int64
	for j := i; j < end; j++ {
		bytes += sh.records[j].size
		if bytes > maxGetRecordsBytes && j > i {
			end = j
			break
		}
	}
	return sh.records[i:end]
}

// formatSeq writes a sequence number as DynamoDB does: a decimal string,
// here fixed-width so that string order is numeric order.
func formatSeq(n uint64) string { return fmt.Sprintf("%021d", n) }

func parseSeq(s string) (uint64, bool) {
	if len(s) < 1 || len(s) > 40 {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	return n, err == nil
}

// describeStream is how DescribeTable shows the table's stream. A table
// whose stream was disabled still names it as its latest stream, with no
// StreamSpecification: the API reference's TableDescription.LatestStreamArn
// is "the latest stream for this table", and the Developer Guide's
// "Enabling a stream" says a disabled stream's records stay readable for
// 24 hours, so consumers go on finding it through DescribeTable.
func (t *dbTable) describeStream(d *types.TableDescription) {
	s := t.stream
	if s == nil {
		s = t.lastStream
	}
	if s == nil {
		return
	}
	if t.stream != nil {
		d.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: s.view}
	}
	d.LatestStreamArn = aws.String(s.arn)
	d.LatestStreamLabel = aws.String(s.label)
}

// stopStream disables t's stream, if any: UpdateTable turning it off, or
// DeleteTable. The caller holds t's write lock.
func (t *dbTable) stopStream() {
	if t.stream == nil {
		return
	}
	t.stream.disable(t.stream.now())
	t.lastStream, t.stream = t.stream, nil
}

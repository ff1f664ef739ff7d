package blobstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"iter"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/table"
)

// DefaultOffloadThreshold is the item size an Offloader keeps items under
// unless told otherwise: a quarter of DynamoDB's 400 KB item limit, which
// leaves room for later updates to grow the item and keeps reads of it at
// a few capacity units (reads are charged per 4 KB).
const DefaultOffloadThreshold = 100 * 1024

// DefaultOrphanMinAge is how old an object must be before Orphans may
// report it; see OffloadOptions.OrphanMinAge.
const DefaultOrphanMinAge = 15 * time.Minute

// OffloadOptions configure an Offloader.
type OffloadOptions struct {
	// Threshold is the largest item, in bytes as table.ItemSize counts
	// them, that Offload leaves in DynamoDB. Zero means
	// DefaultOffloadThreshold; above table.MaxItemSize means MaxItemSize.
	Threshold int
	// Prefix is put before every object key the Offloader writes, so that
	// offloaded bodies live apart from other objects in the same bucket
	// ("attrs/" for example). Orphans only looks under it.
	Prefix string
	// Keep names attributes that are never offloaded, beyond the key
	// attributes of the table and its indexes, which Put always keeps.
	Keep []string
	// OrphanMinAge protects uploads in progress: Put writes the object
	// before the item, so for a moment every new object has no item.
	// Orphans reports only objects last modified longer ago than this.
	// Set it above the longest a Put can take; 0 turns the protection off
	// (tests).
	OrphanMinAge time.Duration
	// Clock tells Orphans the time. Nil: table.ClockOf the API of the
	// table Orphans scans, which is the fake's time on dynamotest (so a
	// test that moves the fake ages the objects) and time.Now on AWS.
	Clock func() time.Time
}

// Offloader keeps DynamoDB items under a size threshold by moving their
// largest attributes to a Store and leaving a pointer in their place. It
// is the one hybrid-storage mechanism every tablekit package uses. It is
// safe for concurrent use.
//
// # Pointer layout
//
// An offloaded attribute keeps its name; its value becomes a map:
//
//	"body": {"M": {
//	    "tkblob": {"S": "v1"},                 // marks the map as a pointer (layout version)
//	    "key":    {"S": "<Prefix><objectKey>/<attribute>/<sha256>"},
//	    "size":   {"N": "1048576"},            // bytes of the object
//	    "sha256": {"S": "9f86d0..."},          // hex SHA-256 of the object
//	    "type":   {"S": "S"}                   // the attribute's DynamoDB type
//	}}
//
// The key is relative to the Store, never naming a bucket or directory, so
// items stay valid when the data moves between buckets or backends. The
// attribute name in the key is escaped (bytes other than letters, digits,
// '-' and '_' become %XX) so any attribute name makes a valid key on every
// store. The object holds the value's bytes for S (UTF-8) and B (raw), and
// the value in DynamoDB JSON ({"M":{...}}) for every other type, so Restore
// gives back an identical attribute. A map attribute of exactly this shape
// is read as a pointer; do not store such maps yourself.
//
// # Why the content hash is in the key
//
// The key is deterministic (same item key, attribute and content: same
// object key, so a retried Put rewrites the same object) and changes when
// the content does. A Put that replaces an item therefore never overwrites
// the object the current item points at: if the new item's conditional
// write fails (an optimistic-lock conflict), the current item still reads
// back exactly as it was. The replaced item's objects become orphans.
//
// # Orphans
//
// Put writes the objects, then the item. A failed or interrupted Put, and
// every successful replace or delete of an item, leaves objects no item
// points at. Orphans lists them and RemoveOrphans deletes them; both scan
// the whole table (strongly consistent), so run them as occasional
// maintenance, not on a request path.
type Offloader struct {
	store Store
	opts  OffloadOptions
}

// NewOffloader returns an Offloader that writes to store. A nil store, a
// negative Threshold or OrphanMinAge, or a Prefix that is not a valid
// List prefix is an *InputError wrapping ErrInvalidInput.
func NewOffloader(store Store, opts ...func(*OffloadOptions)) (*Offloader, error) {
	o := OffloadOptions{Threshold: DefaultOffloadThreshold, OrphanMinAge: DefaultOrphanMinAge}
	for _, fn := range opts {
		if fn != nil {
			fn(&o)
		}
	}
	switch {
	case store == nil:
		return nil, inputError("store", "nil", "NewOffloader needs a Store to write to")
	case o.Threshold < 0:
		return nil, inputError("OffloadOptions.Threshold", o.Threshold, "must not be negative (0: the default)")
	case o.OrphanMinAge < 0:
		return nil, inputError("OffloadOptions.OrphanMinAge", o.OrphanMinAge, "must not be negative")
	}
	if err := ValidatePrefix(o.Prefix); err != nil {
		return nil, err
	}
	if o.Threshold == 0 {
		o.Threshold = DefaultOffloadThreshold
	}
	if o.Threshold > table.MaxItemSize {
		o.Threshold = table.MaxItemSize
	}
	o.Keep = append([]string(nil), o.Keep...)
	return &Offloader{store: store, opts: o}, nil
}

// now is the time orphans are aged by: Clock, or the clock of t's API.
func (off *Offloader) now(t *table.Table) time.Time {
	if off.opts.Clock != nil {
		return off.opts.Clock()
	}
	return table.ClockOf(t.DB())()
}

// checkTable refuses a nil table before anything is written.
func checkTable(t *table.Table) error {
	if t == nil {
		return inputError("table", "nil", "pass the *table.Table the items live in")
	}
	return nil
}

// Store returns the store objects are written to (nil for an Offloader
// not made by NewOffloader).
func (off *Offloader) Store() Store {
	if off == nil {
		return nil
	}
	return off.store
}

// ready refuses an Offloader not made by NewOffloader (nil or zero) before
// it touches a store or a table.
func (off *Offloader) ready() error {
	if off == nil || off.store == nil {
		return inputError("offloader", "zero value", "use NewOffloader")
	}
	return nil
}

// Pointer is an offloaded attribute's location, as stored in the item.
type Pointer struct {
	Key    string // the object's key in the Offloader's Store
	Size   int64
	SHA256 string // hex
	Type   string // "S", "B", "N", "BOOL", "NULL", "M", "L", "SS", "NS" or "BS"
}

// Fields of the pointer map.
const (
	ptrMarker  = "tkblob"
	ptrVersion = "v1"
	ptrKey     = "key"
	ptrSize    = "size"
	ptrSHA256  = "sha256"
	ptrType    = "type"
)

func (p Pointer) attributeValue() types.AttributeValue {
	return &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
		ptrMarker: &types.AttributeValueMemberS{Value: ptrVersion},
		ptrKey:    &types.AttributeValueMemberS{Value: p.Key},
		ptrSize:   &types.AttributeValueMemberN{Value: strconv.FormatInt(p.Size, 10)},
		ptrSHA256: &types.AttributeValueMemberS{Value: p.SHA256},
		ptrType:   &types.AttributeValueMemberS{Value: p.Type},
	}}
}

// PointerOf reports whether v is an offload pointer and, if so, where it
// points. Use it to hand out a presigned URL for a large body instead of
// reading it through the service.
func PointerOf(v types.AttributeValue) (Pointer, bool) {
	m, ok := v.(*types.AttributeValueMemberM)
	if !ok || len(m.Value) != 5 {
		return Pointer{}, false
	}
	s := func(name string) (string, bool) {
		sv, ok := m.Value[name].(*types.AttributeValueMemberS)
		if !ok {
			return "", false
		}
		return sv.Value, true
	}
	if ver, ok := s(ptrMarker); !ok || ver != ptrVersion {
		return Pointer{}, false
	}
	var p Pointer
	var ok1, ok2, ok3 bool
	p.Key, ok1 = s(ptrKey)
	p.SHA256, ok2 = s(ptrSHA256)
	p.Type, ok3 = s(ptrType)
	n, ok4 := m.Value[ptrSize].(*types.AttributeValueMemberN)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return Pointer{}, false
	}
	size, err := strconv.ParseInt(n.Value, 10, 64)
	if err != nil || size < 0 {
		return Pointer{}, false
	}
	p.Size = size
	return p, true
}

// Pointers returns the offloaded attributes of item by name.
func Pointers(item table.Item) map[string]Pointer {
	out := map[string]Pointer{}
	for name, v := range item {
		if p, ok := PointerOf(v); ok {
			out[name] = p
		}
	}
	return out
}

// escapeAttr makes an attribute name safe as one key segment on every
// store, reversibly: '.', '/', '%', spaces and non-ASCII all become %XX,
// so no segment is ever "." or "..".
func escapeAttr(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// OffloadError reports an item that cannot be brought under the threshold
// or an objectKey that cannot be used. It wraps table.ErrItemTooLarge or
// ErrInvalidKey.
type OffloadError struct {
	ObjectKey string
	Reason    string
	Err       error
}

func (e *OffloadError) Error() string {
	return fmt.Sprintf("blobstore: offload %q: %s", e.ObjectKey, e.Reason)
}

func (e *OffloadError) Unwrap() error { return e.Err }

// planned is one attribute chosen to move.
type planned struct {
	name        string
	body        []byte
	contentType string
	ptr         Pointer
}

// plan decides which attributes move, largest first (ties by name, so the
// choice is deterministic), until the item is within the threshold.
func (off *Offloader) plan(objectKey string, item table.Item, keep map[string]bool) ([]planned, table.Item, error) {
	if err := ValidateKey(objectKey); err != nil {
		return nil, nil, &OffloadError{ObjectKey: objectKey, Reason: err.Error(), Err: err}
	}
	if strings.HasSuffix(objectKey, "/") {
		err := keyError(objectKey, "ends with '/': attribute keys would have an empty segment")
		return nil, nil, &OffloadError{ObjectKey: objectKey, Reason: err.Error(), Err: err}
	}
	out := make(table.Item, len(item))
	for k, v := range item {
		out[k] = v
	}
	size := table.ItemSize(out)
	if size <= off.opts.Threshold {
		return nil, out, nil
	}
	type candidate struct {
		name string
		size int
	}
	var cands []candidate
	for name, v := range out {
		if keep[name] {
			continue
		}
		if _, isPtr := PointerOf(v); isPtr {
			continue
		}
		cands = append(cands, candidate{name, table.ItemSize(table.Item{name: v})})
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].size != cands[j].size {
			return cands[i].size > cands[j].size
		}
		return cands[i].name < cands[j].name
	})
	var moves []planned
	for _, c := range cands {
		if size <= off.opts.Threshold {
			break
		}
		v := out[c.name]
		body, typ, ct, err := objectBody(v)
		if err != nil {
			return nil, nil, fmt.Errorf("blobstore: offload %q: attribute %q: %w", objectKey, c.name, err)
		}
		sum := sha256.Sum256(body)
		hexSum := hex.EncodeToString(sum[:])
		p := Pointer{
			Key:    off.opts.Prefix + objectKey + "/" + escapeAttr(c.name) + "/" + hexSum,
			Size:   int64(len(body)),
			SHA256: hexSum,
			Type:   typ,
		}
		pv := p.attributeValue()
		newSize := table.ItemSize(table.Item{c.name: pv})
		if newSize >= c.size {
			continue // the pointer would be no smaller than the value
		}
		if err := ValidateKey(p.Key); err != nil {
			return nil, nil, &OffloadError{ObjectKey: objectKey, Reason: fmt.Sprintf("attribute %q: %v", c.name, err), Err: err}
		}
		moves = append(moves, planned{name: c.name, body: body, contentType: ct, ptr: p})
		out[c.name] = pv
		size += newSize - c.size
	}
	if size > off.opts.Threshold {
		return nil, nil, &OffloadError{
			ObjectKey: objectKey,
			Reason: fmt.Sprintf("item is %d bytes with every movable attribute offloaded, over the %d-byte threshold",
				size, off.opts.Threshold),
			Err: table.ErrItemTooLarge,
		}
	}
	return moves, out, nil
}

// objectBody is what an attribute's object holds (see Offloader).
func objectBody(v types.AttributeValue) (body []byte, typ, contentType string, err error) {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return []byte(v.Value), "S", "text/plain; charset=utf-8", nil
	case *types.AttributeValueMemberB:
		return v.Value, "B", DefaultContentType, nil
	}
	body, err = encodeAV(v)
	if err != nil {
		return nil, "", "", err
	}
	return body, avType(v), "application/json", nil
}

func avType(v types.AttributeValue) string {
	if t := table.TypeOf(v); t != "" {
		return t
	}
	return fmt.Sprintf("%T", v)
}

func (off *Offloader) keepSet(extra []string) map[string]bool {
	keep := map[string]bool{}
	for _, k := range off.opts.Keep {
		keep[k] = true
	}
	for _, k := range extra {
		keep[k] = true
	}
	return keep
}

// Offload writes the attributes that must move to the store under
// objectKey (which should identify the item: its key, say) and returns a
// new item with pointers in their place; item itself is not modified. An
// item already within the threshold comes back unchanged, and nothing is
// written. Attributes named in OffloadOptions.Keep stay; use Put to keep
// the table's key attributes too.
func (off *Offloader) Offload(ctx context.Context, objectKey string, item table.Item) (table.Item, error) {
	if err := off.ready(); err != nil {
		return nil, err
	}
	return off.offload(ctx, objectKey, item, off.keepSet(nil))
}

func (off *Offloader) offload(ctx context.Context, objectKey string, item table.Item, keep map[string]bool) (table.Item, error) {
	if len(item) == 0 {
		return nil, &OffloadError{ObjectKey: objectKey, Reason: "empty item", Err: table.ErrInvalidInput}
	}
	moves, out, err := off.plan(objectKey, item, keep)
	if err != nil {
		return nil, err
	}
	for _, m := range moves {
		err := off.store.Put(ctx, m.ptr.Key, bytes.NewReader(m.body),
			WithContentType(m.contentType),
			WithSize(m.ptr.Size),
			WithMetadata(map[string]string{
				"tablekit-attribute": escapeAttr(m.name),
				"tablekit-type":      m.ptr.Type,
			}))
		if err != nil {
			return nil, fmt.Errorf("blobstore: offload %q: attribute %q: %w", objectKey, m.name, err)
		}
	}
	return out, nil
}

// Restore returns a copy of item with every pointer replaced by the
// attribute it stands for, read from the store and checked against the
// pointer's size and SHA-256 (ErrChecksumMismatch). A missing object is an
// error wrapping ErrNotFound that names the attribute.
func (off *Offloader) Restore(ctx context.Context, item table.Item) (table.Item, error) {
	if err := off.ready(); err != nil {
		return nil, err
	}
	out := make(table.Item, len(item))
	for name, v := range item {
		p, ok := PointerOf(v)
		if !ok {
			out[name] = v
			continue
		}
		restored, err := off.fetch(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("blobstore: restore attribute %q: %w", name, err)
		}
		out[name] = restored
	}
	return out, nil
}

func (off *Offloader) fetch(ctx context.Context, p Pointer) (types.AttributeValue, error) {
	rc, _, err := off.store.Get(ctx, p.Key)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	// One byte more than expected is enough to notice a longer object
	// without reading all of it.
	body, err := io.ReadAll(io.LimitReader(rc, p.Size+1))
	if err != nil {
		return nil, fmt.Errorf("reading %q: %w", p.Key, err)
	}
	sum := sha256.Sum256(body)
	if int64(len(body)) != p.Size || hex.EncodeToString(sum[:]) != p.SHA256 {
		return nil, fmt.Errorf("%w: %q", ErrChecksumMismatch, p.Key)
	}
	switch p.Type {
	case "S":
		return &types.AttributeValueMemberS{Value: string(body)}, nil
	case "B":
		return &types.AttributeValueMemberB{Value: body}, nil
	}
	v, err := decodeAV(body)
	if err != nil {
		return nil, fmt.Errorf("decoding %q: %w", p.Key, err)
	}
	if got := avType(v); got != p.Type {
		return nil, fmt.Errorf("%q holds a %s value, the pointer says %s", p.Key, got, p.Type)
	}
	return v, nil
}

// keyAttributes are the attributes Put never offloads: the table's key
// and every index key, which DynamoDB must see to store and index the item.
func keyAttributes(t *table.Table) []string {
	s := t.Schema()
	names := []string{s.PartitionKey.Name, s.SortKey.Name}
	for _, ix := range s.Indexes {
		names = append(names, ix.PartitionKey.Name, ix.SortKey.Name)
	}
	if s.TTLAttribute != "" {
		names = append(names, s.TTLAttribute)
	}
	return names
}

// Put offloads item's large attributes under objectKey, then writes the
// item to t with opts (conditions included). The objects are written
// first, so no item ever points at a missing object; if the item's write
// fails, the objects are left for RemoveOrphans, and never deleted here:
// an identical object may be what the current item points at.
func (off *Offloader) Put(ctx context.Context, t *table.Table, objectKey string, item table.Item, opts ...func(*table.WriteOptions)) error {
	if err := off.ready(); err != nil {
		return err
	}
	if err := checkTable(t); err != nil {
		return err
	}
	out, err := off.offload(ctx, objectKey, item, off.keepSet(keyAttributes(t)))
	if err != nil {
		return err
	}
	return t.Put(ctx, out, opts...)
}

// Get reads the item with key from t and restores its offloaded attributes.
func (off *Offloader) Get(ctx context.Context, t *table.Table, key table.Key, opts ...func(*table.GetOptions)) (table.Item, error) {
	if err := off.ready(); err != nil {
		return nil, err
	}
	if err := checkTable(t); err != nil {
		return nil, err
	}
	var item table.Item
	if err := t.Get(ctx, key, &item, opts...); err != nil {
		return nil, err
	}
	return off.Restore(ctx, item)
}

// Orphans yields, in key order, the keys of objects under the Offloader's
// Prefix followed by prefix that no item in t points at and that were last
// modified more than OrphanMinAge ago. Only keys of the Offloader's shape
// (ending in a SHA-256) are considered, so other objects sharing the prefix
// are never reported. It lists the objects first, then scans t with
// strongly consistent reads.
func (off *Offloader) Orphans(ctx context.Context, t *table.Table, prefix string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		if err := off.ready(); err != nil {
			yield("", err)
			return
		}
		if err := checkTable(t); err != nil {
			yield("", err)
			return
		}
		full := off.opts.Prefix + prefix
		cutoff := off.now(t).Add(-off.opts.OrphanMinAge)
		var candidates []string
		for info, err := range off.store.List(ctx, full) {
			if err != nil {
				yield("", err)
				return
			}
			if offloadShaped(info.Key) && info.LastModified.Before(cutoff) {
				candidates = append(candidates, info.Key)
			}
		}
		if len(candidates) == 0 {
			return
		}
		referenced := map[string]bool{}
		for item, err := range table.ScanAll[table.Item](ctx, t, table.Scan{Consistent: true}) {
			if err != nil {
				yield("", fmt.Errorf("blobstore: orphans: scanning %s: %w", t.Name(), err))
				return
			}
			for _, p := range Pointers(item) {
				referenced[p.Key] = true
			}
		}
		for _, k := range candidates {
			if referenced[k] {
				continue
			}
			if !yield(k, nil) {
				return
			}
		}
	}
}

// offloadShaped reports whether key looks like one Offload writes:
// .../<attribute>/<64 hex digits>.
func offloadShaped(key string) bool {
	i := strings.LastIndexByte(key, '/')
	if i < 0 || len(key)-i-1 != 64 || strings.Count(key, "/") < 2 {
		return false
	}
	for _, c := range key[i+1:] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// RemoveOrphans deletes what Orphans reports and returns the deleted keys.
// Each object is checked again just before it is deleted, and kept if a
// Put has rewritten it since it was listed.
func (off *Offloader) RemoveOrphans(ctx context.Context, t *table.Table, prefix string) ([]string, error) {
	if err := off.ready(); err != nil {
		return nil, err
	}
	if err := checkTable(t); err != nil {
		return nil, err
	}
	var removed []string
	cutoff := off.now(t).Add(-off.opts.OrphanMinAge)
	for k, err := range off.Orphans(ctx, t, prefix) {
		if err != nil {
			return removed, err
		}
		info, err := off.store.Head(ctx, k)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return removed, err
		}
		if !info.LastModified.Before(cutoff) {
			continue
		}
		if err := off.store.Delete(ctx, k); err != nil {
			return removed, err
		}
		removed = append(removed, k)
	}
	return removed, nil
}

package entity

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/table"
)

// DefaultTypeAttribute is the attribute that names an item's entity unless
// the registry says otherwise (TypeAttribute, NoTypeAttribute).
const DefaultTypeAttribute = "_type"

// RegistryOptions configure a Registry.
type RegistryOptions struct {
	// TypeAttribute is the attribute every item of the registry's entities
	// carries with its entity's name, so that a reader who does not know
	// the key templates (tablekit inspect, another language) can tell items
	// apart. Default DefaultTypeAttribute. Empty with NoTypeAttribute: a
	// table whose layout is fixed by others (a seed) gets none, and items
	// are told apart by their key shapes alone.
	TypeAttribute string
	// Clock gives created and updated timestamps, TTLs and the expiry
	// checks of reads. Default table.ClockOf the table's API: the fake's
	// time on dynamotest (so a test passes no clock), time.Now on AWS.
	Clock func() time.Time
	// Blobs is where attributes declared with Offload go when an item is
	// over OffloadThreshold (S3 in production). Nil: an item over the
	// threshold is written whole, and one over DynamoDB's 400 KB is
	// refused with table.ErrItemTooLarge.
	Blobs blobstore.Store
	// OffloadThreshold is the item size (table.ItemSize) above which
	// offloadable attributes move to Blobs. Default
	// blobstore.DefaultOffloadThreshold.
	OffloadThreshold int
	// OffloadPrefix is the key prefix of offloaded objects. Default
	// "entity/<table name>/".
	OffloadPrefix string
	// OrphanMinAge is how old an offloaded object must be before Orphans
	// and RemoveOrphans may report or delete it: a write puts its objects
	// before its item, so for a moment every new object has no item. Set
	// it above the longest a write can take. Default (zero)
	// blobstore.DefaultOrphanMinAge; the OrphanMinAge option sets any
	// value, 0 included (no protection: tests that sweep at once). An
	// entity with its own Offloader (OffloadWith) keeps that one's.
	OrphanMinAge time.Duration

	// NoSpans starts no span per call: for a store built on entities that
	// starts its own span per store call (jobs.Get), whose requests nest
	// under it. By default each entity call is a span (table.Start),
	// named "<entity>.<Call>" ("album.Create").
	NoSpans bool

	noType       bool
	orphanAgeSet bool // OrphanMinAge was given by the option, 0 included
}

// TypeAttribute sets RegistryOptions.TypeAttribute.
func TypeAttribute(name string) func(*RegistryOptions) {
	return func(o *RegistryOptions) { o.TypeAttribute, o.noType = name, name == "" }
}

// NoTypeAttribute stores no entity-type attribute: items are told apart by
// their key shapes (see New: no two entities' keys can collide).
func NoTypeAttribute() func(*RegistryOptions) {
	return func(o *RegistryOptions) { o.TypeAttribute, o.noType = "", true }
}

// NoSpans sets RegistryOptions.NoSpans.
func NoSpans() func(*RegistryOptions) { return func(o *RegistryOptions) { o.NoSpans = true } }

// Clock sets RegistryOptions.Clock.
func Clock(now func() time.Time) func(*RegistryOptions) {
	return func(o *RegistryOptions) { o.Clock = now }
}

// Blobs sets RegistryOptions.Blobs.
func Blobs(store blobstore.Store) func(*RegistryOptions) {
	return func(o *RegistryOptions) { o.Blobs = store }
}

// OrphanMinAge sets RegistryOptions.OrphanMinAge; OrphanMinAge(0) turns
// the protection off.
func OrphanMinAge(d time.Duration) func(*RegistryOptions) {
	return func(o *RegistryOptions) { o.OrphanMinAge, o.orphanAgeSet = d, true }
}

// OffloadThreshold sets RegistryOptions.OffloadThreshold.
func OffloadThreshold(n int) func(*RegistryOptions) {
	return func(o *RegistryOptions) { o.OffloadThreshold = n }
}

// Registry is the entities of one table: it keeps their declarations, so
// that New can refuse an entity whose keys collide with another's, a read
// of several entities (a collection, a change record, tablekit inspect)
// can tell each item's entity, and the operations called are recorded as
// access patterns. It is safe for concurrent use.
type Registry struct {
	t         *table.Table
	opts      RegistryOptions
	tableName *string

	mu          sync.RWMutex
	models      []*model
	collections []*Collection

	patterns patternLog
}

// NewRegistry returns the registry of the entities stored in t. A nil
// table or a bad option is an *table.InputError.
func NewRegistry(t *table.Table, opts ...func(*RegistryOptions)) (*Registry, error) {
	o := RegistryOptions{TypeAttribute: DefaultTypeAttribute}
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	if t == nil || t.DB() == nil {
		return nil, inputError("table", "nil", "NewRegistry needs a *table.Table made by table.New", ErrNoEntity)
	}
	if o.Clock == nil {
		o.Clock = table.ClockOf(t.DB())
	}
	if o.OffloadThreshold < 0 || o.OffloadThreshold > table.MaxItemSize {
		return nil, inputError("RegistryOptions.OffloadThreshold", fmt.Sprint(o.OffloadThreshold),
			fmt.Sprintf("must be between 0 (the default) and %d", table.MaxItemSize), nil)
	}
	if o.OffloadThreshold == 0 {
		o.OffloadThreshold = blobstore.DefaultOffloadThreshold
	}
	if o.OrphanMinAge < 0 {
		return nil, inputError("RegistryOptions.OrphanMinAge", o.OrphanMinAge.String(), "must not be negative", nil)
	}
	if o.OrphanMinAge == 0 && !o.orphanAgeSet {
		o.OrphanMinAge = blobstore.DefaultOrphanMinAge
	}
	if o.OffloadPrefix == "" {
		o.OffloadPrefix = "entity/" + t.Name() + "/"
	}
	s := t.Schema()
	if o.TypeAttribute != "" && isKeyAttribute(s, o.TypeAttribute) {
		return nil, inputError("RegistryOptions.TypeAttribute", o.TypeAttribute, "is a key attribute of "+t.Name(), nil)
	}
	return &Registry{t: t, opts: o, tableName: aws.String(t.Name())}, nil
}

func isKeyAttribute(s table.Schema, name string) bool {
	if s.PartitionKey.Name == name || s.SortKey.Name == name {
		return true
	}
	for _, ix := range s.Indexes {
		if ix.PartitionKey.Name == name || ix.SortKey.Name == name {
			return true
		}
	}
	return false
}

// Table is the table the registry's entities live in (nil for a nil
// Registry).
func (r *Registry) Table() *table.Table {
	if r == nil {
		return nil
	}
	return r.t
}

// Schema is the table's schema (the zero Schema for a nil Registry).
func (r *Registry) Schema() table.Schema {
	if r == nil {
		return table.Schema{}
	}
	return r.t.Schema()
}

// TypeAttribute is the attribute naming each item's entity ("" when the
// registry stores none).
func (r *Registry) TypeAttribute() string {
	if r == nil {
		return ""
	}
	return r.opts.TypeAttribute
}

// Names lists the registry's entities in the order they were declared.
func (r *Registry) Names() []string {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, len(r.models))
	for i, m := range r.models {
		names[i] = m.name
	}
	return names
}

func (r *Registry) usable() error {
	if r == nil || r.t == nil {
		return noEntity()
	}
	return nil
}

func (r *Registry) now() time.Time { return r.opts.Clock() }

// register adds m unless its name is taken or its table keys can collide
// with another entity's.
func (r *Registry) register(m *model) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, o := range r.models {
		if o.name == m.name {
			return declError(m.name, "New", "the registry already has an entity of that name")
		}
		if o.pk.overlaps(&m.pk) && o.sk.overlaps(&m.sk) {
			return declError(m.name, "Key", fmt.Sprintf("its keys (%s) can be the keys of entity %q (%s): one item could be either, and one write would replace the other's item",
				m.keyShape(), o.name, o.keyShape()))
		}
	}
	r.models = append(r.models, m)
	return nil
}

// identify returns the entity item belongs to: the one that owns it (by
// the type attribute when the item has one, else by key shape), nil for
// none.
func (r *Registry) identify(item table.Item) *model {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, m := range r.models {
		if m.owns(item) {
			return m
		}
	}
	return nil
}

// Identify names the entity item belongs to, and false for an item of no
// entity the registry knows.
func (r *Registry) Identify(item table.Item) (string, bool) {
	if r == nil || item == nil {
		return "", false
	}
	if m := r.identify(item); m != nil {
		return m.name, true
	}
	return "", false
}

// Decode decodes item into a value of its entity's type (an Album, not a
// *Album), restoring offloaded attributes. An item of no known entity is
// ErrUnknownItem. Use it on change records (changes.DecodeItem) and on
// items read by hand:
//
//	v, err := reg.Decode(ctx, ch.New)
//	switch v := v.(type) { case Album: ...; case Photo: ... }
func (r *Registry) Decode(ctx context.Context, item table.Item) (any, error) {
	if err := r.usable(); err != nil {
		return nil, err
	}
	if ctx == nil {
		return nil, inputError("ctx", "nil", "Decode needs a context", nil)
	}
	m := r.identify(item)
	if m == nil {
		return nil, fmt.Errorf("%w: %s", ErrUnknownItem, table.Key(item).String())
	}
	return m.decodeAny(ctx, item)
}

// model returns the declared entity called name.
func (r *Registry) model(name string) *model {
	r.mu.RLock()
	defer r.mu.RUnlock()
	i := slices.IndexFunc(r.models, func(m *model) bool { return m.name == name })
	if i < 0 {
		return nil
	}
	return r.models[i]
}

// start begins the span of one call named operation, unless NoSpans.
func (r *Registry) start(ctx context.Context, operation string) (context.Context, table.Span) {
	if r.opts.NoSpans {
		return ctx, table.Span{}
	}
	return r.t.Start(ctx, operation)
}

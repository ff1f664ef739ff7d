package entity

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"time"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

// Entity is one kind of item of a registry's table, stored from and read
// into values of the Go type T (a struct). Everything per call is filling
// values: templates, conditions and expressions are built by New. It is
// safe for concurrent use.
type Entity[T any] struct {
	m *model
	// scratch holds copies of keys being read: reflection on a copy in a
	// pooled *T keeps the caller's value off the heap.
	scratch sync.Pool
}

// model is an entity's declaration, built and checked once by New; the
// part of an Entity that does not depend on T, so a Registry holds every
// entity in one list.
type model struct {
	reg    *Registry
	name   string
	typ    reflect.Type
	fields map[string]*field
	order  []*field
	delim  string

	pk, sk  keyPart
	indexes []indexPart

	typeAttr  string
	typeValue types.AttributeValue

	created, updated *stamp
	version          *field
	ttl              *field
	ttlAfter         time.Duration
	keyOnly          []*field
	rules            []rule
	check            bool // a rule is a Check of the whole value

	extra       []int           // the Extra field's index, nil without one
	known       map[string]bool // attribute names that are not extras
	offload     map[string]bool
	renamed     map[*field]string    // Renames: a field's second name
	offNames    []string             // offload's keys, for a quick look at an item
	projections sync.Map             // reflect.Type of a GetAs projection -> *projection
	offloader   *blobstore.Offloader // whole items, at the registry's threshold
	attrOff     *blobstore.Offloader // one attribute of an update, at half of it

	ops     [opCount]opInfo
	listUse []usage // List and collection reads: the table's, then each index's
	expr    exprs
	shapes  shapeCache
}

// indexPart is an entity's place in one index.
type indexPart struct {
	name     string
	pk, sk   keyPart
	sparse   bool
	tieBreak []string // the table key attributes, less the index's sort key
}

// stamp is a timestamp attribute and how it is written.
type stamp struct {
	f      *field
	kind   kind
	layout string
}

// New declares the entity name (its type attribute's value, and the first
// word of its span names and access patterns) for values of T in reg's
// table. Everything is checked here, once: a template naming a field T
// does not have, a key type the schema does not declare, an index the
// schema does not have, a version that is not an integer, keys that could
// collide with another entity's of the registry. Such a declaration is a
// *DeclarationError (ErrDeclaration).
func New[T any](reg *Registry, name string, opts ...func(*Options)) (*Entity[T], error) {
	if err := reg.usable(); err != nil {
		return nil, err
	}
	var o Options
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	m, err := declare(reg, name, reflect.TypeFor[T](), o)
	if err != nil {
		return nil, err
	}
	if err := reg.register(m); err != nil {
		return nil, err
	}
	return &Entity[T]{m: m}, nil
}

func declare(reg *Registry, name string, typ reflect.Type, o Options) (*model, error) {
	if name == "" || !validName(name) {
		return nil, declError(name, "New", "an entity name is 1 to 64 letters, digits, '_', '-' and '.'")
	}
	if typ.Kind() != reflect.Struct {
		return nil, declError(name, "New", fmt.Sprintf("entities are structs, not %s", typ))
	}
	m := &model{reg: reg, name: name, typ: typ, delim: o.Delimiter, offload: map[string]bool{}}
	if m.delim == "" {
		m.delim = keys.DefaultDelimiter
	}
	m.fields, m.order = structFields(typ)
	if len(m.fields) == 0 {
		return nil, declError(name, "New", fmt.Sprintf("%s has no exported attributes", typ))
	}
	s := reg.t.Schema()
	if reg.opts.TypeAttribute != "" {
		if _, clash := m.fields[reg.opts.TypeAttribute]; clash {
			return nil, declError(name, "New", fmt.Sprintf("%s has an attribute %q, which the registry writes with the entity name", typ, reg.opts.TypeAttribute))
		}
		m.typeAttr = reg.opts.TypeAttribute
		m.typeValue = &types.AttributeValueMemberS{Value: name}
	}
	var err error
	if m.pk, err = m.declareKey("Key", s.PartitionKey, o.PartitionKey, true, false); err != nil {
		return nil, err
	}
	if m.sk, err = m.declareKey("Key", s.SortKey, o.SortKey, false, false); err != nil {
		return nil, err
	}
	if err := m.declareIndexes(s, o.Indexes); err != nil {
		return nil, err
	}
	if err := m.checkKeyFields(s); err != nil {
		return nil, err
	}
	if err := m.declareAttributes(s, o); err != nil {
		return nil, err
	}
	if err := m.declareExtra(o.Extra); err != nil {
		return nil, err
	}
	if err := m.declareOffload(o.Offload, o.Offloader); err != nil {
		return nil, err
	}
	if err := m.declareRenames(o.Renames); err != nil {
		return nil, err
	}
	if m.rules, err = m.declareRules(o.Rules); err != nil {
		return nil, err
	}
	m.listUse = make([]usage, len(m.indexes)+1)
	m.prepare()
	return m, nil
}

func validName(s string) bool {
	if len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

func (m *model) declareIndexes(s table.Schema, decls []IndexOptions) error {
	seen := map[string]bool{}
	for _, d := range decls {
		option := "Index " + d.Name
		ix, ok := s.Index(d.Name)
		if !ok {
			return declError(m.name, option, fmt.Sprintf("table %s has no index %q", s.Name, d.Name))
		}
		if seen[d.Name] {
			return declError(m.name, option, "declared twice")
		}
		seen[d.Name] = true
		if err := m.checkLocal(s, d, ix); err != nil {
			return err
		}
		p := indexPart{name: d.Name, sparse: d.Sparse}
		var err error
		if p.pk, err = m.declareIndexKey(option+" partition key", s, ix.PartitionKey, d.PartitionKey, true); err != nil {
			return err
		}
		if p.sk, err = m.declareIndexKey(option+" sort key", s, ix.SortKey, d.SortKey, false); err != nil {
			return err
		}
		if ix.SortKey.Name != "" {
			// Ties on the index's sort key are broken by the table key,
			// which is unique per item: the table's sort key alone is
			// unique only within one table partition, and an index
			// partition gathers several.
			for _, a := range []table.Attribute{s.PartitionKey, s.SortKey} {
				if a.Name != "" && a.Name != ix.SortKey.Name {
					p.tieBreak = append(p.tieBreak, a.Name)
				}
			}
		}
		m.indexes = append(m.indexes, p)
	}
	return nil
}

// checkLocal refuses a declaration that says another kind of index than
// the schema's (LocalIndex of a global index, Index of a local one), and
// what DynamoDB refuses of a local index: a partition key other than the
// table's, and a schema CreateTable would refuse (more than
// table.MaxLocalIndexes, no table sort key, no index sort key: Validate).
func (m *model) checkLocal(s table.Schema, d IndexOptions, ix table.Index) error {
	option := "Index " + d.Name
	if d.Local {
		option = "LocalIndex " + d.Name
	}
	switch {
	case d.Local && !ix.Local:
		return declError(m.name, option, fmt.Sprintf("index %q of table %s is a global secondary index: declare it with Index", d.Name, s.Name))
	case !d.Local && ix.Local:
		return declError(m.name, option, fmt.Sprintf("index %q of table %s is a local secondary index: declare it with LocalIndex", d.Name, s.Name))
	case !d.Local:
		return nil
	case d.PartitionKey != "":
		return declError(m.name, option+" partition key", fmt.Sprintf("a local secondary index has the table's partition key (%s), built by Key: leave the template empty", s.PartitionKey.Name))
	}
	if err := s.Validate(); err != nil {
		return &DeclarationError{Entity: m.name, Option: option, Reason: "the table's schema is one CreateTable refuses", Err: err}
	}
	return nil
}

// declareIndexKey is declareKey for an index: "" leaves the attribute to
// a table key or an attribute of the entity.
func (m *model) declareIndexKey(option string, s table.Schema, attr table.Attribute, pattern string, partition bool) (keyPart, error) {
	byTable := attr.Name != "" && (attr.Name == s.PartitionKey.Name || attr.Name == s.SortKey.Name)
	if byTable && pattern != "" {
		return keyPart{}, declError(m.name, option, fmt.Sprintf("%s is a table key, written by Key; leave the index template empty", attr.Name))
	}
	f, isField := m.fields[attr.Name]
	k, err := m.declareKey(option, attr, pattern, partition, byTable || isField)
	if err != nil || !k.inherit {
		return k, err
	}
	// Inherited: keep how the value is built, for queries on the index.
	switch {
	case attr.Name == s.PartitionKey.Name:
		k = m.pk
	case attr.Name == s.SortKey.Name:
		k = m.sk
	default:
		if want := ownKeyType(f); want != attr.Type {
			return k, declError(m.name, option, fmt.Sprintf("attribute %q is %s in the schema, but field %s (%s) is stored as %s",
				attr.Name, attr.Type, f.goName, f.typ, typeOr(want)))
		}
		k = keyPart{attr: attr, own: f}
	}
	k.attr, k.inherit = attr, true
	return k, nil
}

// checkKeyFields refuses a field that would be written over by a computed
// key, or that would put items in an index the entity does not declare.
func (m *model) checkKeyFields(s table.Schema) error {
	computed := map[string]bool{}
	for _, k := range m.parts() {
		if k.present() && k.own == nil {
			computed[k.attr.Name] = true
		}
	}
	for name := range computed {
		if f := m.fields[name]; f != nil {
			return declError(m.name, "Key", fmt.Sprintf("field %s is stored as %q, the key attribute its template writes", f.goName, name))
		}
	}
	for _, ix := range s.Indexes {
		if slices.ContainsFunc(m.indexes, func(p indexPart) bool { return p.name == ix.Name }) {
			continue
		}
		for _, a := range []table.Attribute{ix.PartitionKey, ix.SortKey} {
			if f := m.fields[a.Name]; f != nil && a.Name != s.PartitionKey.Name && a.Name != s.SortKey.Name {
				return declError(m.name, "Index "+ix.Name, fmt.Sprintf("field %s is stored as %q, a key of index %s: declare the index (Index(%q, ...)) or rename the field", f.goName, a.Name, ix.Name, ix.Name))
			}
		}
	}
	return nil
}

// parts lists every key part: the table's, then each index's.
func (m *model) parts() []*keyPart {
	ps := []*keyPart{&m.pk, &m.sk}
	for i := range m.indexes {
		ps = append(ps, &m.indexes[i].pk, &m.indexes[i].sk)
	}
	return ps
}

func (m *model) field(option, name string) (*field, error) {
	f := m.fields[name]
	if f == nil {
		return nil, declError(m.name, option, fmt.Sprintf("%s has no attribute %q", m.typ, name))
	}
	return f, nil
}

func (m *model) declareAttributes(s table.Schema, o Options) error {
	layout := o.TimeLayout
	if layout == "" {
		layout = time.RFC3339Nano
	}
	stampOf := func(option, name string) (*stamp, error) {
		if name == "" {
			return nil, nil
		}
		f, err := m.field(option, name)
		if err != nil {
			return nil, err
		}
		k := kindOf(f.typ)
		switch k {
		case kindTime, kindString, kindInt:
		default:
			return nil, declError(m.name, option, fmt.Sprintf("field %s is %s; a timestamp is a time.Time, a string (TimeLayout) or an integer (Unix ms)", f.goName, f.typ))
		}
		return &stamp{f: f, kind: k, layout: layout}, nil
	}
	var err error
	if m.created, err = stampOf("Created", o.Created); err != nil {
		return err
	}
	if m.updated, err = stampOf("Updated", o.Updated); err != nil {
		return err
	}
	if o.Version != "" {
		if m.version, err = m.field("Version", o.Version); err != nil {
			return err
		}
		if k := kindOf(m.version.typ); k != kindInt && k != kindUint {
			return declError(m.name, "Version", fmt.Sprintf("field %s is %s, not an integer", m.version.goName, m.version.typ))
		}
	}
	if o.TTL != "" {
		if m.ttl, err = m.field("TTL", o.TTL); err != nil {
			return err
		}
		k := kindOf(m.ttl.typ)
		if k != kindInt && !(k == kindTime && m.ttl.unixTime) {
			return declError(m.name, "TTL", fmt.Sprintf("field %s is %s; DynamoDB's TTL is epoch seconds: an integer, or a time.Time tagged unixtime", m.ttl.goName, m.ttl.typ))
		}
		if s.TTLAttribute != o.TTL {
			return declError(m.name, "TTL", fmt.Sprintf("the table's TTL attribute is %q, not %q", s.TTLAttribute, o.TTL))
		}
		m.ttlAfter = o.TTLAfter
	} else if o.TTLAfter != 0 {
		return declError(m.name, "TTL", "TTLAfter without a TTL attribute")
	}
	if o.TTLAfter < 0 {
		return declError(m.name, "TTL", "TTLAfter is negative")
	}
	for _, name := range o.KeyOnly {
		f, err := m.field("KeyOnly", name)
		if err != nil {
			return err
		}
		k := m.keyPartOf(f)
		if k == nil {
			return declError(m.name, "KeyOnly", fmt.Sprintf("%q is in no key template, so it would be lost", name))
		}
		if !k.readsBack(f) {
			return declError(m.name, "KeyOnly", fmt.Sprintf("%q is cased by %s, so it would read back in another case", name, k.tmpl))
		}
		m.keyOnly = append(m.keyOnly, f)
	}
	return nil
}

// keyPartOf returns a template key part that holds f.
func (m *model) keyPartOf(f *field) *keyPart {
	for _, k := range m.parts() {
		if k.tmpl != nil && slices.Contains(k.fields, f) {
			return k
		}
	}
	return nil
}

var extraType = reflect.TypeFor[map[string]types.AttributeValue]()

// declareExtra resolves the Extra field and the attribute names that are
// not extras.
func (m *model) declareExtra(name string) error {
	m.known = map[string]bool{}
	for n := range m.fields {
		m.known[n] = true
	}
	for _, k := range m.parts() {
		if k.attr.Name != "" {
			m.known[k.attr.Name] = true
		}
	}
	if m.typeAttr != "" {
		m.known[m.typeAttr] = true
	}
	if name == "" {
		return nil
	}
	sf, ok := m.typ.FieldByName(name)
	if !ok || sf.Type != extraType || !sf.IsExported() {
		return declError(m.name, "Extra", fmt.Sprintf("%s has no exported field %s of type map[string]types.AttributeValue", m.typ, name))
	}
	if tag := sf.Tag.Get("dynamodbav"); tag != "-" {
		return declError(m.name, "Extra", fmt.Sprintf("field %s must be tagged dynamodbav:\"-\" (attributevalue would store the map as one attribute)", name))
	}
	m.extra = sf.Index
	return nil
}

func (m *model) declareOffload(names []string, own *blobstore.Offloader) error {
	for _, name := range names {
		f, err := m.field("Offload", name)
		if err != nil {
			return err
		}
		for _, k := range m.parts() {
			if k.own == f {
				return declError(m.name, "Offload", fmt.Sprintf("%q is a key attribute: DynamoDB must see it", name))
			}
		}
		if f == m.ttl || f == m.version {
			return declError(m.name, "Offload", fmt.Sprintf("%q is the TTL or version attribute: DynamoDB must see it", name))
		}
		m.offload[name] = true
		m.offNames = append(m.offNames, name)
	}
	if own != nil {
		m.offloader, m.attrOff = own, own
		return nil
	}
	if len(m.offload) == 0 || m.reg.opts.Blobs == nil {
		return nil
	}
	var keep []string
	for _, f := range m.order {
		if !m.offload[f.name] {
			keep = append(keep, f.name)
		}
	}
	for _, k := range m.parts() {
		if k.attr.Name != "" {
			keep = append(keep, k.attr.Name)
		}
	}
	if m.typeAttr != "" {
		keep = append(keep, m.typeAttr)
	}
	newOffloader := func(threshold int) (*blobstore.Offloader, error) {
		return blobstore.NewOffloader(m.reg.opts.Blobs, func(oo *blobstore.OffloadOptions) {
			oo.Threshold = threshold
			oo.Prefix = m.reg.opts.OffloadPrefix
			oo.Keep = keep
			oo.Clock = m.reg.opts.Clock
			oo.OrphanMinAge = m.reg.opts.OrphanMinAge
		})
	}
	var err error
	if m.offloader, err = newOffloader(m.reg.opts.OffloadThreshold); err != nil {
		return err
	}
	m.attrOff, err = newOffloader(max(1, m.reg.opts.OffloadThreshold/2))
	return err
}

// keyShape describes the table keys, for messages.
func (m *model) keyShape() string {
	if m.sk.attr.Name == "" {
		return m.pk.attr.Name + " " + m.pk.pattern()
	}
	return m.pk.attr.Name + " " + m.pk.pattern() + ", " + m.sk.attr.Name + " " + m.sk.pattern()
}

// matches reports whether item has this entity's key shape.
func (m *model) matches(item table.Item) bool {
	return m.pk.matches(item[m.pk.attr.Name]) && (m.sk.attr.Name == "" || m.sk.matches(item[m.sk.attr.Name]))
}

// owns reports whether item is one of the entity's: by the type attribute
// when the item carries one, else by the shape of its table key (which New
// made unambiguous). It is the one test every read makes — List, Items,
// collections, Get, BatchGet, Decode, FromChange, Registry.Identify — so
// an item is the entity's on every path or on none.
func (m *model) owns(item table.Item) bool {
	if m.typeAttr != "" {
		if s, ok := item[m.typeAttr].(*types.AttributeValueMemberS); ok {
			return s.Value == m.name
		}
	}
	return m.matches(item)
}

// live reports whether a read returns item: the entity's, and not expired
// at now.
func (m *model) live(item table.Item, now time.Time) bool {
	return m.owns(item) && !m.expiredAt(item, now)
}

// Name is the entity's name ("" for a nil Entity).
func (e *Entity[T]) Name() string {
	if e == nil || e.m == nil {
		return ""
	}
	return e.m.name
}

// Registry is the registry the entity belongs to.
func (e *Entity[T]) Registry() *Registry {
	if e == nil || e.m == nil {
		return nil
	}
	return e.m.reg
}

// ready refuses a nil or zero Entity and a nil context before any request.
func (e *Entity[T]) ready(ctx context.Context) error {
	if e == nil || e.m == nil {
		return noEntity()
	}
	if ctx == nil {
		return inputError("ctx", "nil", "a request needs a context", nil)
	}
	return nil
}

// tableKey builds the table key of key's key fields.
func (e *Entity[T]) tableKey(key T) (table.Key, error) {
	p, _ := e.scratch.Get().(*T)
	if p == nil {
		p = new(T)
	}
	*p = key
	k, err := e.m.key(reflect.ValueOf(p).Elem())
	var zero T
	*p = zero
	e.scratch.Put(p)
	return k, err
}

// key builds the table key of v.
func (m *model) key(v reflect.Value) (table.Key, error) {
	pk, err := m.pk.build(m.name, v)
	if err != nil {
		return nil, err
	}
	if m.sk.attr.Name == "" {
		return table.Key{m.pk.attr.Name: pk}, nil
	}
	sk, err := m.sk.build(m.name, v)
	if err != nil {
		return nil, err
	}
	return table.Key{m.pk.attr.Name: pk, m.sk.attr.Name: sk}, nil
}

// keyOf extracts the table key from one of the entity's items.
func (m *model) keyOf(item table.Item) table.Key {
	k := table.Key{m.pk.attr.Name: item[m.pk.attr.Name]}
	if m.sk.attr.Name != "" {
		k[m.sk.attr.Name] = item[m.sk.attr.Name]
	}
	return k
}

// setStamp writes now into a timestamp field of v.
func (s *stamp) set(v reflect.Value, now time.Time) {
	fv := s.f.settable(v)
	switch s.kind {
	case kindTime:
		// Written in place: reflect.ValueOf(now) would allocate per call.
		*(*time.Time)(unsafe.Pointer(fv.UnsafeAddr())) = now
	case kindString:
		fv.SetString(now.UTC().Format(s.layout))
	case kindInt:
		fv.SetInt(now.UnixMilli())
	}
}

// isZero reports whether the timestamp field of v is unset.
func (s *stamp) isZero(v reflect.Value) bool { return s.f.value(v).IsZero() }

// stampValue is the attribute value of now for the timestamp.
func (s *stamp) value(now time.Time) types.AttributeValue {
	switch s.kind {
	case kindString:
		return &types.AttributeValueMemberS{Value: now.UTC().Format(s.layout)}
	case kindInt:
		return &types.AttributeValueMemberN{Value: strconv.FormatInt(now.UnixMilli(), 10)}
	}
	if s.f.unixTime {
		return &types.AttributeValueMemberN{Value: strconv.FormatInt(now.Unix(), 10)}
	}
	return &types.AttributeValueMemberS{Value: now.Format(time.RFC3339Nano)}
}

// versionOf reads the version field of v.
func (m *model) versionOf(v reflect.Value) int64 {
	fv := m.version.value(v)
	if fv.CanInt() {
		return fv.Int()
	}
	return int64(fv.Uint())
}

func (m *model) setVersion(v reflect.Value, n int64) {
	fv := m.version.settable(v)
	if fv.CanInt() {
		fv.SetInt(n)
	} else {
		fv.SetUint(uint64(n))
	}
}

// setTTL gives v its expiry when the entity declares TTLAfter and v has none.
func (m *model) setTTL(v reflect.Value, now time.Time) {
	if m.ttl == nil || m.ttlAfter == 0 {
		return
	}
	fv := m.ttl.settable(v)
	if !fv.IsZero() {
		return
	}
	at := now.Add(m.ttlAfter)
	if fv.Type() == timeType {
		fv.Set(reflect.ValueOf(time.Unix(table.TTL(at), 0).UTC()))
		return
	}
	fv.SetInt(table.TTL(at))
}

// expiredAt reports whether a stored item has expired at now.
func (m *model) expiredAt(item table.Item, now time.Time) bool {
	return m.ttl != nil && table.ItemExpired(item, m.ttl.name, now)
}

// expired reports whether a stored item has expired by the registry's
// clock, reading the clock only for an entity with a TTL.
func (m *model) expired(item table.Item) bool {
	return m.ttl != nil && table.ItemExpired(item, m.ttl.name, m.reg.now())
}

// tableName is the table's name, shared by every request.
func (m *model) tableName() *string { return m.reg.tableName }

// listUsage is the usage of reads of index ("" for the table).
func (m *model) listUsage(index string) *usage {
	for i := range m.indexes {
		if m.indexes[i].name == index {
			return &m.listUse[i+1]
		}
	}
	return &m.listUse[0]
}

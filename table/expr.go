package table

import (
	"reflect"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Built is a request's expressions as expression.Builder.Build renders
// them: the same strings, names and values, with the same accessors.
type Built struct {
	shape  *shape
	values map[string]types.AttributeValue
}

// Condition, Filter, KeyCondition, Projection and Update are the rendered
// expressions, nil for one the builder did not set.
func (e Built) Condition() *string    { return e.shape.text(exprCondition) }
func (e Built) Filter() *string       { return e.shape.text(exprFilter) }
func (e Built) KeyCondition() *string { return e.shape.text(exprKeyCondition) }
func (e Built) Projection() *string   { return e.shape.text(exprProjection) }
func (e Built) Update() *string       { return e.shape.text(exprUpdate) }

// Names is ExpressionAttributeNames, nil when the expressions name
// nothing. Every Built of one shape shares the map: do not modify it.
func (e Built) Names() map[string]string {
	if e.shape == nil {
		return nil
	}
	return e.shape.names
}

// Values is ExpressionAttributeValues, nil when there are none; the map is
// the caller's.
func (e Built) Values() map[string]types.AttributeValue { return e.values }

// Build renders b as b.Build() does, from a cache of the builders built
// before: a builder of the same shape (the same expressions, operators,
// names and number of values, whatever the values) reuses the strings and
// names rendered the first time and only marshals its values. A service
// sends few shapes, each many times, and rendering one costs more than
// the rest of its request's marshaling; the cache holds at most
// MaxCachedShapes.
//
// A builder Build cannot read (an operand type of the caller's own, a
// value with encoder options) is built by b.Build() every time.
func Build(b expression.Builder) (Built, error) {
	p, ok := partsOf(b)
	if !ok {
		e, err := b.Build()
		if err != nil {
			return Built{}, err
		}
		return builtOf(e), nil
	}
	return p.build()
}

// builders are the expressions of one request, each nil when unset: what
// a Builder holds, kept apart so that tablekit's own requests are walked
// without reading the Builder's map.
type builders struct {
	condition, filter *expression.ConditionBuilder
	keyCondition      *expression.KeyConditionBuilder
	projection        *expression.ProjectionBuilder
	update            *expression.UpdateBuilder
}

// builder is the expression.Builder of p.
func (p builders) builder() expression.Builder {
	b := expression.NewBuilder()
	if p.condition != nil {
		b = b.WithCondition(*p.condition)
	}
	if p.filter != nil {
		b = b.WithFilter(*p.filter)
	}
	if p.keyCondition != nil {
		b = b.WithKeyCondition(*p.keyCondition)
	}
	if p.projection != nil {
		b = b.WithProjection(*p.projection)
	}
	if p.update != nil {
		b = b.WithUpdate(*p.update)
	}
	return b
}

// build renders p from the cache of shapes, or builds it and learns its
// shape.
func (p builders) build() (Built, error) {
	w := walkers.Get().(*walker)
	defer w.release()
	if w.parts(p) {
		if s := shapes.get(w.key); s != nil {
			if vals, ok := s.fill(w.values); ok {
				return Built{shape: s, values: vals}, nil
			}
		}
	}
	e, err := p.builder().Build()
	if err != nil {
		return Built{}, err
	}
	built := builtOf(e)
	if w.ok {
		if slots, ok := learnSlots(w.values, e.Values()); ok {
			built.shape.slots = slots
			shapes.put(w.key, built.shape)
		}
	}
	return built, nil
}

// builtOf is e as a Built.
func builtOf(e expression.Expression) Built {
	return Built{
		shape: &shape{
			texts: [numExprKinds]*string{e.Condition(), e.Filter(), e.KeyCondition(), e.Projection(), e.Update()},
			names: e.Names(),
		},
		values: e.Values(),
	}
}

// MaxCachedShapes bounds Build's cache: shapes come from code, so a
// service has a few dozen; builders made from data (attribute names
// chosen per request) stop being cached past this many.
const MaxCachedShapes = 4096

type exprKind int

const (
	exprCondition exprKind = iota
	exprFilter
	exprKeyCondition
	exprProjection
	exprUpdate
	numExprKinds
)

// shape is what a builder renders to whatever its values: the expression
// strings, the names, and where each value goes.
type shape struct {
	texts [numExprKinds]*string
	names map[string]string
	// slots[i] is the placeholder (":3") of the i-th value in the walk's
	// order (learnSlots).
	slots []string

	targetsOnce sync.Once
	targets     []string // the attributes the update writes (updateTargets)
}

func (s *shape) text(k exprKind) *string {
	if s == nil {
		return nil
	}
	return s.texts[k]
}

// updateTargets lists the attributes the update writes (updateTargets),
// computed once per shape.
func (e Built) updateTargets() []string {
	s := e.shape
	if s == nil || s.texts[exprUpdate] == nil {
		return nil
	}
	s.targetsOnce.Do(func() { s.targets = updateTargets(*s.texts[exprUpdate], s.names) })
	return s.targets
}

// fill marshals a builder's values (in the walk's order) into the
// shape's placeholders; ok is false when one does not marshal, so that
// Build reports it with the expression package's error.
func (s *shape) fill(values []any) (map[string]types.AttributeValue, bool) {
	if len(values) != len(s.slots) {
		return nil, false
	}
	if len(values) == 0 {
		return nil, true
	}
	out := make(map[string]types.AttributeValue, len(values))
	for i, v := range values {
		av, err := marshalValue(v)
		if err != nil {
			return nil, false
		}
		out[s.slots[i]] = av
	}
	return out, true
}

// marshalValue marshals an expression value as expression.ValueBuilder
// does: an AttributeValue as itself (a member type given by value too),
// anything else as attributevalue.Marshal does (marshalAttr).
func marshalValue(v any) (types.AttributeValue, error) {
	switch v := v.(type) {
	case types.AttributeValueMemberS:
		return &v, nil
	case types.AttributeValueMemberN:
		return &v, nil
	case types.AttributeValueMemberB:
		return &v, nil
	case types.AttributeValueMemberSS:
		return &v, nil
	case types.AttributeValueMemberNS:
		return &v, nil
	case types.AttributeValueMemberBS:
		return &v, nil
	case types.AttributeValueMemberM:
		return &v, nil
	case types.AttributeValueMemberL:
		return &v, nil
	case types.AttributeValueMemberNULL:
		return &v, nil
	case types.AttributeValueMemberBOOL:
		return &v, nil
	case types.AttributeValue:
		return v, nil
	}
	return marshalAttr(v)
}

// marshalAttr is attributevalue.Marshal, without its reflection for the
// common scalar types.
func marshalAttr(v any) (types.AttributeValue, error) {
	switch v := v.(type) {
	case string:
		return &types.AttributeValueMemberS{Value: v}, nil
	case int:
		return &types.AttributeValueMemberN{Value: strconv.Itoa(v)}, nil
	case int64:
		return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}, nil
	case bool:
		return &types.AttributeValueMemberBOOL{Value: v}, nil
	case time.Time:
		return &types.AttributeValueMemberS{Value: v.Format(time.RFC3339Nano)}, nil
	}
	return attributevalue.Marshal(v)
}

// learnSlots checks that the expression package named the values
// :0, :1, ... in the walk's order, and returns those names: the order
// is the package's (see walker), which this checks on every shape it
// learns, so that a release that renders in another order is never
// cached wrongly.
func learnSlots(values []any, built map[string]types.AttributeValue) (slots []string, ok bool) {
	if len(values) != len(built) {
		return nil, false
	}
	slots = make([]string, len(values))
	for i, v := range values {
		av, err := marshalValue(v)
		if err != nil {
			return nil, false
		}
		slots[i] = ":" + strconv.Itoa(i)
		if !reflect.DeepEqual(av, built[slots[i]]) {
			return nil, false
		}
	}
	return slots, true
}

// shapeCache maps a builder's shape key to its shape.
type shapeCache struct {
	mu sync.RWMutex
	m  map[string]*shape
}

var shapes = &shapeCache{m: map[string]*shape{}}

func (c *shapeCache) get(key []byte) *shape {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.m[string(key)]
}

func (c *shapeCache) put(key []byte, s *shape) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) < MaxCachedShapes {
		c.m[string(key)] = s
	}
}

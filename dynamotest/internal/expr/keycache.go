package expr

import (
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// keyConds holds the key conditions parsed so far, as templates.
//
// A parse succeeds or fails, and yields its result, depending on the
// expression, the key names, the ExpressionAttributeNames and the types of
// the ExpressionAttributeValues, but not on the values themselves: with one
// exception, BETWEEN, whose bounds must be in order, and which is never
// cached. The cache key is all of those, so a template found under it is
// exactly what parsing would return, with the request's values bound in.
var keyConds keyCache

// maxKeyConds bounds the cache. A program whose expressions embed
// ever-changing text would otherwise grow it without end; when it is full,
// it starts over.
const maxKeyConds = 1024

// maxCachedPlaceholders bounds the placeholders of a key condition the
// cache keeps, and with them its keys' size: a Query names a handful, and
// 1,024 keys of 2 MB of ExpressionAttributeNames each would hold 2 GB.
const maxCachedPlaceholders = 16

type keyCache struct {
	m sync.Map // cache key -> *keyTemplate
	n atomic.Int64
}

// keyTemplate is a parsed key condition with its values left as the
// placeholders they came from.
type keyTemplate struct {
	// names and values are the placeholders the expression resolved, to be
	// marked used in each Env, as parsing marks them.
	names, values []string
	hash          string
	hashOp        RangeOp
	op            RangeOp // 0: no sort-key condition
	rangeValues   []string
}

func (c *keyCache) get(key string) *keyTemplate {
	t, _ := c.m.Load(key)
	tmpl, _ := t.(*keyTemplate)
	return tmpl
}

func (c *keyCache) put(key string, t *keyTemplate) {
	if t == nil {
		return
	}
	if c.n.Add(1) > maxKeyConds {
		c.m.Clear()
		c.n.Store(1)
	}
	c.m.Store(key, t)
}

// key identifies what a key condition's parse depends on. Every part is
// length-prefixed, so no two inputs share a key whatever bytes their
// names hold.
func (c *keyCache) key(e *Env, src, hashKey, rangeKey string) string {
	b := make([]byte, 0, 2*len(src)+64)
	field := func(s string) {
		b = strconv.AppendInt(b, int64(len(s)), 10)
		b = append(b, ':')
		b = append(b, s...)
	}
	field(src)
	field(hashKey)
	field(rangeKey)
	var buf [8]string
	for _, k := range sortedInto(buf[:0], e.names) {
		field(k)
		field(e.names[k])
	}
	b = append(b, '|')
	for _, k := range sortedInto(buf[:0], e.values) {
		field(k)
		field(shortType(e.values[k]))
	}
	return string(b)
}

// bind returns the key condition with e's values, marking the placeholders
// used as a parse would.
func (t *keyTemplate) bind(e *Env) *KeyCondition {
	for _, n := range t.names {
		e.name(n)
	}
	for _, v := range t.values {
		e.value(v)
	}
	kc := &KeyCondition{Hash: e.values[t.hash], HashOp: t.hashOp}
	if t.op != 0 {
		vals := make([]types.AttributeValue, len(t.rangeValues))
		for i, ph := range t.rangeValues {
			vals[i] = e.values[ph]
		}
		kc.Range = &RangeCondition{Op: t.op, Values: vals}
	}
	return kc
}

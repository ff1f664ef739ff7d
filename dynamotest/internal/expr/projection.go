package expr

import (
	"sort"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Projection is a parsed ProjectionExpression, kept as a tree of the
// requested paths.
type Projection struct {
	root *projNode
}

// projNode is one step of the requested paths. A leaf takes the whole
// value; otherwise names (for a map) or indexes (for a list) select
// parts of it. Overlap and conflict checks guarantee a node is one of
// these three.
type projNode struct {
	leaf    bool
	names   map[string]*projNode
	order   []string // names in first-mention order
	indexes map[int]*projNode
	sorted  []int // indexes ascending
}

// Projection parses a ProjectionExpression: comma-separated paths that
// may not overlap or conflict.
func (e *Env) Projection(s string) (*Projection, error) {
	if err := precheck(e, kindProjection, s); err != nil {
		return nil, err
	}
	p := newParser(e, kindProjection, s)
	var paths []path
	err := p.run(func() {
		for {
			switch p.peekKind() {
			case tIdent, tName:
			default:
				p.syntaxError(p.pos)
			}
			paths = append(paths, p.parsePath())
			if p.peekKind() != tComma {
				break
			}
			p.next()
		}
		p.expectEOF()
		p.checkPaths(paths)
		p.flush()
	})
	if err != nil {
		return nil, err
	}
	return newProjection(paths), nil
}

// newProjection builds the projection of paths that neither overlap nor
// conflict.
func newProjection(paths []path) *Projection {
	root := &projNode{}
	for _, pa := range paths {
		n := root
		for _, e := range pa {
			n = n.child(e)
		}
		n.leaf = true
	}
	root.finish()
	return &Projection{root: root}
}

func (n *projNode) child(e pathElem) *projNode {
	if e.isIndex {
		if n.indexes == nil {
			n.indexes = map[int]*projNode{}
		}
		c, ok := n.indexes[e.index]
		if !ok {
			c = &projNode{}
			n.indexes[e.index] = c
		}
		return c
	}
	if n.names == nil {
		n.names = map[string]*projNode{}
	}
	c, ok := n.names[e.name]
	if !ok {
		c = &projNode{}
		n.names[e.name] = c
		n.order = append(n.order, e.name)
	}
	return c
}

func (n *projNode) finish() {
	for i := range n.indexes {
		n.sorted = append(n.sorted, i)
	}
	sort.Ints(n.sorted)
	for _, c := range n.names {
		c.finish()
	}
	for _, c := range n.indexes {
		c.finish()
	}
}

// TopLevelNames lists the top-level attributes the projection reads.
func (pr *Projection) TopLevelNames() []string {
	return append([]string(nil), pr.root.order...)
}

// NestedNames lists the top-level attributes the projection reads into
// (a.b, a[0]) rather than whole, for the engine's check that key
// attributes, which are scalars, are read whole.
func (pr *Projection) NestedNames() []string {
	var names []string
	for _, name := range pr.root.order {
		if !pr.root.names[name].leaf {
			names = append(names, name)
		}
	}
	return names
}

// Apply returns the projected item: the requested attributes, and for
// nested paths maps holding just the requested keys and lists holding
// just the requested elements, in index order (DynamoDB returns
// "a[3], a[1]" of [w, x, y, z] as [x, z]). Paths that are missing are
// left out. Requested values are shared with item, not copied.
func (pr *Projection) Apply(item map[string]types.AttributeValue) map[string]types.AttributeValue {
	out := make(map[string]types.AttributeValue, len(pr.root.order))
	for _, name := range pr.root.order {
		v, ok := item[name]
		if !ok {
			continue
		}
		if pv := project(v, pr.root.names[name]); pv != nil {
			out[name] = pv
		}
	}
	return out
}

func project(v types.AttributeValue, n *projNode) types.AttributeValue {
	if n.leaf {
		return v
	}
	if n.names != nil {
		m, ok := v.(*types.AttributeValueMemberM)
		if !ok {
			return nil
		}
		var out map[string]types.AttributeValue
		for _, name := range n.order {
			cv, ok := m.Value[name]
			if !ok {
				continue
			}
			if pv := project(cv, n.names[name]); pv != nil {
				if out == nil {
					out = make(map[string]types.AttributeValue, len(n.order))
				}
				out[name] = pv
			}
		}
		if out == nil {
			return nil
		}
		return &types.AttributeValueMemberM{Value: out}
	}
	l, ok := v.(*types.AttributeValueMemberL)
	if !ok {
		return nil
	}
	var out []types.AttributeValue
	for _, i := range n.sorted {
		if i >= len(l.Value) {
			break
		}
		if pv := project(l.Value[i], n.indexes[i]); pv != nil {
			out = append(out, pv)
		}
	}
	if out == nil {
		return nil
	}
	return &types.AttributeValueMemberL{Value: out}
}

package expr

import (
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest/internal/attr"
)

type actionKind uint8

const (
	aSet actionKind = iota
	aRemove
	aAdd
	aDelete
)

var clauseNames = [...]string{aSet: "SET", aRemove: "REMOVE", aAdd: "ADD", aDelete: "DELETE"}

// action is one SET, REMOVE, ADD or DELETE of an update expression.
type action struct {
	kind  actionKind
	path  path
	left  *operand // SET's value, or its left side of + / -; ADD and DELETE's value
	op    tokKind  // tPlus, tMinus, or tEOF for none
	right *operand
}

// Update is a parsed UpdateExpression.
type Update struct {
	sets, removes, adds, deletes []*action
	topLevel                     []string
}

// Update parses an UpdateExpression: up to one each of the SET, REMOVE,
// ADD and DELETE clauses, in any order, whose paths may not overlap.
func (e *Env) Update(s string) (*Update, error) {
	if err := precheck(e, kindUpdate, s); err != nil {
		return nil, err
	}
	p := newParser(e, kindUpdate, s)
	var u *Update
	if err := p.run(func() {
		u = p.parseUpdate()
		p.flush()
	}); err != nil {
		return nil, err
	}
	return u, nil
}

func (p *parser) parseUpdate() *Update {
	u := &Update{}
	var all []*action
	var seen [4]bool
	for p.peekKind() != tEOF {
		t := p.peek()
		kind := actionKind(255)
		if t.kind == tIdent {
			for k, name := range clauseNames {
				if keyword(p.text(t), name) {
					kind = actionKind(k)
				}
			}
		}
		if kind == 255 {
			p.syntaxError(p.pos)
		}
		if seen[kind] {
			p.later(phaseClauses, `The "`+clauseNames[kind]+`" section can only be used once in an update expression;`)
		}
		seen[kind] = true
		p.next()
		for {
			a := p.parseAction(kind)
			all = append(all, a)
			switch kind {
			case aSet:
				u.sets = append(u.sets, a)
			case aRemove:
				u.removes = append(u.removes, a)
			case aAdd:
				u.adds = append(u.adds, a)
			case aDelete:
				u.deletes = append(u.deletes, a)
			}
			if p.peekKind() != tComma {
				break
			}
			p.next()
		}
	}
	p.checkOverlap(all)
	seenName := map[string]bool{}
	for _, a := range all {
		if n := a.path[0].name; !seenName[n] {
			seenName[n] = true
			u.topLevel = append(u.topLevel, n)
		}
	}
	// SET applies in element order, so that "SET a[84] = :x, a[37] = :y"
	// appends :y before :x, as DynamoDB documents; REMOVE takes list
	// elements from the highest index down, so every index names an
	// element of the list as it was.
	sort.SliceStable(u.sets, func(i, j int) bool { return comparePaths(u.sets[i].path, u.sets[j].path, false) < 0 })
	sort.SliceStable(u.removes, func(i, j int) bool { return comparePaths(u.removes[i].path, u.removes[j].path, true) < 0 })
	return u
}

func comparePaths(a, b path, indexDesc bool) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		x, y := a[i], b[i]
		switch {
		case x.isIndex && y.isIndex:
			if x.index != y.index {
				c := 1
				if x.index < y.index {
					c = -1
				}
				if indexDesc {
					c = -c
				}
				return c
			}
		case x.isIndex != y.isIndex:
			if x.isIndex {
				return 1
			}
			return -1
		case x.name != y.name:
			return strings.Compare(x.name, y.name)
		}
	}
	return len(a) - len(b)
}

func (p *parser) parseAction(kind actionKind) *action {
	a := &action{kind: kind, op: tEOF}
	switch p.peekKind() {
	case tIdent, tName:
	default:
		p.syntaxError(p.pos)
	}
	a.path = p.parsePath()
	switch kind {
	case aSet:
		p.expect(tEq)
		a.left = p.parseUpdateOperand(false)
		if k := p.peekKind(); k == tPlus || k == tMinus {
			p.countOp()
			p.next()
			a.op = k
			a.right = p.parseUpdateOperand(false)
			name := "+"
			if k == tMinus {
				name = "-"
			}
			for _, o := range []*operand{a.left, a.right} {
				if o.kind == opValue {
					if _, isN := o.val.(*types.AttributeValueMemberN); !isN {
						p.operandTypeError(name, o.val)
					}
				}
			}
		}
	case aAdd, aDelete:
		t := p.peek()
		if t.kind != tValue {
			p.syntaxError(p.pos)
		}
		a.left = p.parseOperand()
		ok := false
		switch a.left.val.(type) {
		case *types.AttributeValueMemberSS, *types.AttributeValueMemberNS, *types.AttributeValueMemberBS:
			ok = true
		case *types.AttributeValueMemberN:
			ok = kind == aAdd
		}
		if !ok {
			typeSet := "ALLOWED_FOR_ADD_OPERAND"
			if kind == aDelete {
				typeSet = "ALLOWED_FOR_DELETE_OPERAND"
			}
			p.later(phaseChecks, "Incorrect operand type for operator or function; operator: "+clauseNames[kind]+", operand type: "+longType(a.left.val)+", typeSet: "+typeSet)
		}
	}
	return a
}

// parseUpdateOperand parses a SET operand and checks its functions:
// if_not_exists(path, operand) and list_append(operand, operand);
// list_append may not be nested in another call.
func (p *parser) parseUpdateOperand(nested bool) *operand {
	o := p.parseArgument() // "SET a = (:v)" is valid
	p.checkUpdateCall(o, nested)
	return o
}

func (p *parser) checkUpdateCall(o *operand, nested bool) {
	if o.kind != opCall {
		return
	}
	if !knownFunction(o.fn) {
		p.laterAt(phaseNames, o.at, "Invalid function name; function: "+o.fn)
		return
	}
	switch o.fn {
	case fnIfNotExists:
		for _, a := range o.args[1:] {
			p.checkUpdateCall(a, true)
		}
		if !p.checkArity(o, 2) {
			return
		}
		if o.args[0].kind != opPath {
			p.later(phaseChecks, "Operator or function requires a document path; operator or function: "+o.fn)
		}
	case fnListAppend:
		if nested {
			p.laterAt(phaseNames, o.at, "The function is not allowed to be used this way in an expression; function: "+o.fn)
		}
		for _, a := range o.args {
			p.checkUpdateCall(a, true)
		}
		if !p.checkArity(o, 2) {
			return
		}
		for _, a := range o.args {
			if a.kind == opValue {
				if _, isL := a.val.(*types.AttributeValueMemberL); !isL {
					p.operandTypeError(o.fn, a.val)
				}
			}
		}
	default:
		p.laterAt(phaseNames, o.at, "The function is not allowed in an update expression; function: "+o.fn)
	}
}

// checkOverlap rejects two actions on one path or on a path and its
// ancestor ("overlap"), and on a.b and a[1] ("conflict").
func (p *parser) checkOverlap(actions []*action) {
	paths := make([]path, len(actions))
	for i, a := range actions {
		paths[i] = a.path
	}
	p.checkPaths(paths)
}

// checkPaths rejects two paths that overlap (one is the other or its
// ancestor) or conflict (where they part, one names a map key and the
// other a list index), reporting the pair DynamoDB reports: an overlap
// before any conflict (dynalite's AWS-written getItem and updateItem tests:
// "b[1], b.a, #a.b, a" overlaps on [a, b] and [a], though [b, [1]] and
// [b, a] come first), and of each kind the first path that clashes with a
// later one, with the first such. The paths that clash are found with a
// trie in one pass and the pair with one more scan, so a projection of
// thousands of paths costs their length, not its square.
func (p *parser) checkPaths(paths []path) {
	for _, overlap := range []bool{true, false} {
		first := firstClash(paths, overlap)
		if first < 0 {
			continue
		}
		for _, b := range paths[first+1:] {
			if msg := clash(paths[first], b, overlap); msg != "" {
				p.later(phasePaths, msg)
				return
			}
		}
	}
}

// clash is DynamoDB's message for two paths that overlap (overlap true) or
// conflict, "" for two that do not.
func clash(a, b path, overlap bool) string {
	for k := 0; k < len(a) && k < len(b); k++ {
		x, y := a[k], b[k]
		if x == y {
			continue
		}
		if !overlap && x.isIndex != y.isIndex {
			return "Two document paths conflict with each other; must remove or rewrite one of these paths; path one: " + pathString(a) + ", path two: " + pathString(b)
		}
		return ""
	}
	if !overlap {
		return ""
	}
	return "Two document paths overlap with each other; must remove or rewrite one of these paths; path one: " + pathString(a) + ", path two: " + pathString(b)
}

// pathTrie counts the paths through each step.
type pathTrie struct {
	names   map[string]*pathTrie
	indexes map[int]*pathTrie
	ends    int // paths that end here
	beyond  int // paths that go on past here
}

func (n *pathTrie) child(e pathElem) *pathTrie {
	if e.isIndex {
		if n.indexes == nil {
			n.indexes = map[int]*pathTrie{}
		}
		c := n.indexes[e.index]
		if c == nil {
			c = &pathTrie{}
			n.indexes[e.index] = c
		}
		return c
	}
	if n.names == nil {
		n.names = map[string]*pathTrie{}
	}
	c := n.names[e.name]
	if c == nil {
		c = &pathTrie{}
		n.names[e.name] = c
	}
	return c
}

// next is the step e from n; every path walked was inserted.
func (n *pathTrie) next(e pathElem) *pathTrie {
	if e.isIndex {
		return n.indexes[e.index]
	}
	return n.names[e.name]
}

// firstClash returns the index of the first path that overlaps (overlap
// true) or conflicts with another, -1 when none does. A path overlaps when
// another ends at one of its steps or goes on past its end; it conflicts
// when another turns at one of its steps the other way, into a list where
// it reads a map or the reverse.
func firstClash(paths []path, overlap bool) int {
	if len(paths) < 2 {
		return -1
	}
	root := &pathTrie{}
	for _, pa := range paths {
		n := root
		for _, e := range pa {
			n.beyond++
			n = n.child(e)
		}
		n.ends++
	}
	for i, pa := range paths {
		n := root
		for k, e := range pa {
			if overlap && k > 0 && n.ends > 0 {
				return i // another path ends at one of this one's steps
			}
			if !overlap && (e.isIndex && len(n.names) > 0 || !e.isIndex && len(n.indexes) > 0) {
				return i
			}
			n = n.next(e)
		}
		if overlap && (n.ends > 1 || n.beyond > 0) {
			return i
		}
	}
	return -1
}

// ReadNestedNames lists the top-level attributes the update's values read
// into (SET e = d[1], list_append(m.l, :v)) rather than whole, in the order
// the expression names them, for the engine's check that key attributes,
// which are scalars, are read whole.
func (u *Update) ReadNestedNames() []string {
	var names []string
	seen := map[string]bool{}
	var walk func(o *operand)
	walk = func(o *operand) {
		if o == nil {
			return
		}
		if o.kind == opPath && len(o.path) > 1 && !seen[o.path[0].name] {
			seen[o.path[0].name] = true
			names = append(names, o.path[0].name)
		}
		for _, a := range o.args {
			walk(a)
		}
	}
	for _, list := range [][]*action{u.sets, u.adds, u.deletes} {
		for _, a := range list {
			walk(a.left)
			walk(a.right)
		}
	}
	return names
}

// TopLevelNames lists the top-level attributes the update writes, in the
// order the expression names them, for the engine's key-attribute check
// and for ReturnValues UPDATED_OLD / UPDATED_NEW.
func (u *Update) TopLevelNames() []string {
	return append([]string(nil), u.topLevel...)
}

// Updated returns the projection of the paths the update changes, which
// ReturnValues UPDATED_OLD (old true) and UPDATED_NEW return: for a nested
// path only that part of the attribute, as DynamoDB does. UPDATED_NEW leaves
// out the paths REMOVE deletes, which the new item does not have (a removed
// list element's index names another element there).
func (u *Update) Updated(old bool) *Projection {
	var paths []path
	lists := [][]*action{u.sets, u.adds, u.deletes}
	if old {
		lists = append(lists, u.removes)
	}
	for _, list := range lists {
		for _, a := range list {
			paths = append(paths, a.path)
		}
	}
	return newProjection(paths)
}

// Apply returns the item after the update. item is not modified: the
// result shares unchanged values with it and has fresh copies of every
// map and list on a changed path, so treat both as immutable. A nil item
// is an item that does not exist yet. As in DynamoDB, every value on the
// right of SET is read from the item as it was before the update, and
// list indexes name elements of the list as it was.
//
// When several actions fail, the error reported is the one DynamoDB Local
// reports: on a new item, any nested path; then REMOVE paths; then ADD and
// DELETE, in path order; then the values of SET; then SET's paths.
func (u *Update) Apply(item map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {
	if item == nil {
		for _, list := range [][]*action{u.removes, u.adds, u.deletes, u.sets} {
			for _, a := range list {
				if len(a.path) > 1 {
					return nil, errInvalidPath
				}
			}
		}
	}
	for _, a := range u.removes {
		if !parentExists(item, a.path) {
			return nil, errInvalidPath
		}
	}
	changes, err := u.setChanges(item)
	if err != nil {
		return nil, err
	}
	setValues := make([]types.AttributeValue, len(u.sets))
	for i, a := range u.sets {
		v, err := a.evalSet(item)
		if err != nil {
			return nil, err
		}
		// An attribute may nest 31 lists and maps (the item is one more).
		if len(a.path)-1+attr.Depth(v) > attr.MaxDepth-1 {
			return nil, &Error{Message: "Nesting Levels have exceeded supported limits"}
		}
		setValues[i] = v
	}

	w := &writer{out: make(map[string]types.AttributeValue, len(item)+len(u.sets)+len(u.adds)), fresh: map[any]bool{}}
	for k, v := range item {
		w.out[k] = v
	}
	for i, a := range u.sets {
		if err := w.set(a.path, setValues[i]); err != nil {
			return nil, err
		}
	}
	for _, c := range changes {
		var err error
		if c.value == nil {
			err = w.remove(c.path)
		} else {
			err = w.set(c.path, c.value)
		}
		if err != nil {
			return nil, err
		}
	}
	for _, a := range u.removes {
		if err := w.remove(a.path); err != nil {
			return nil, err
		}
	}
	return w.out, nil
}

// change is the outcome of an ADD or DELETE: the new value at path, or
// nil to remove it (a set emptied by DELETE).
type change struct {
	path  path
	value types.AttributeValue
}

// setChanges computes what ADD and DELETE do, in path order, from the item
// as it was.
func (u *Update) setChanges(item map[string]types.AttributeValue) ([]change, error) {
	if len(u.adds)+len(u.deletes) == 0 {
		return nil, nil
	}
	actions := append(append([]*action(nil), u.adds...), u.deletes...)
	sort.SliceStable(actions, func(i, j int) bool { return comparePaths(actions[i].path, actions[j].path, false) < 0 })
	var out []change
	for _, a := range actions {
		cur, ok := a.path.get(item)
		if !ok && !parentExists(item, a.path) {
			return nil, errInvalidPath
		}
		var next types.AttributeValue
		var keep bool
		var err error
		if a.kind == aAdd {
			next, err = addValues(cur, ok, attr.Copy(a.left.val))
			keep = true
		} else {
			if !ok {
				continue // nothing to delete from
			}
			next, keep, err = deleteValues(cur, a.left.val)
		}
		if err != nil {
			return nil, err
		}
		if !keep {
			next = nil
		}
		out = append(out, change{path: a.path, value: next})
	}
	return out, nil
}

// parentExists reports whether the map or list that would hold the last
// element of p exists in item with the right type; top-level paths always
// have one.
func parentExists(item map[string]types.AttributeValue, p path) bool {
	if len(p) == 1 {
		return true
	}
	parent, ok := p[:len(p)-1].get(item)
	if !ok {
		return false
	}
	switch parent.(type) {
	case *types.AttributeValueMemberM:
		return !p[len(p)-1].isIndex
	case *types.AttributeValueMemberL:
		return p[len(p)-1].isIndex
	}
	return false
}

func (a *action) evalSet(item map[string]types.AttributeValue) (types.AttributeValue, error) {
	left, err := evalUpdateOperand(a.left, item)
	if err != nil || a.op == tEOF {
		return left, err
	}
	right, err := evalUpdateOperand(a.right, item)
	if err != nil {
		return nil, err
	}
	ln, lok := left.(*types.AttributeValueMemberN)
	rn, rok := right.(*types.AttributeValueMemberN)
	if !lok || !rok {
		return nil, &Error{Message: msgBadOperand}
	}
	var sum string
	if a.op == tPlus {
		sum, err = attr.AddNumbers(ln.Value, rn.Value)
	} else {
		sum, err = attr.SubtractNumbers(ln.Value, rn.Value)
	}
	if err != nil {
		return nil, &Error{Message: err.Error()}
	}
	return &types.AttributeValueMemberN{Value: sum}, nil
}

func evalUpdateOperand(o *operand, item map[string]types.AttributeValue) (types.AttributeValue, error) {
	switch o.kind {
	case opPath:
		v, ok := o.path.get(item)
		if !ok {
			return nil, &Error{Message: msgMissingAttr}
		}
		return v, nil
	case opValue:
		return attr.Copy(o.val), nil
	}
	switch o.fn {
	case fnIfNotExists:
		if v, ok := o.args[0].path.get(item); ok {
			return v, nil
		}
		return evalUpdateOperand(o.args[1], item)
	case fnListAppend:
		// Each operand is read and checked before the next, as in DynamoDB.
		a, err := evalUpdateOperand(o.args[0], item)
		if err != nil {
			return nil, err
		}
		al, ok := a.(*types.AttributeValueMemberL)
		if !ok {
			return nil, &Error{Message: msgBadOperand}
		}
		b, err := evalUpdateOperand(o.args[1], item)
		if err != nil {
			return nil, err
		}
		bl, ok := b.(*types.AttributeValueMemberL)
		if !ok {
			return nil, &Error{Message: msgBadOperand}
		}
		joined := make([]types.AttributeValue, 0, len(al.Value)+len(bl.Value))
		joined = append(append(joined, al.Value...), bl.Value...)
		return &types.AttributeValueMemberL{Value: joined}, nil
	}
	return nil, &Error{Message: "Invalid function name; function: " + o.fn}
}

// writer applies changes to a copy of an item, copying each map and list
// on a changed path once (fresh records the copies it owns).
type writer struct {
	out   map[string]types.AttributeValue
	fresh map[any]bool
}

var errInvalidPath = &Error{Message: msgInvalidPath}

// container returns a copy, owned by the writer, of the map or list at p,
// relinked into the item; ok is false when p is missing or a scalar.
func (w *writer) container(p path) (types.AttributeValue, bool) {
	cur, ok := w.out[p[0].name]
	if !ok {
		return nil, false
	}
	cur = w.own(cur)
	if cur == nil {
		return nil, false
	}
	w.out[p[0].name] = cur
	for _, e := range p[1:] {
		var child types.AttributeValue
		switch c := cur.(type) {
		case *types.AttributeValueMemberM:
			if e.isIndex {
				return nil, false
			}
			if child, ok = c.Value[e.name]; !ok {
				return nil, false
			}
			if child = w.own(child); child == nil {
				return nil, false
			}
			c.Value[e.name] = child
		case *types.AttributeValueMemberL:
			if !e.isIndex || e.index >= len(c.Value) {
				return nil, false
			}
			if child = w.own(c.Value[e.index]); child == nil {
				return nil, false
			}
			c.Value[e.index] = child
		}
		cur = child
	}
	return cur, true
}

// own returns v itself when the writer already copied it, a shallow copy
// of a map or list otherwise, and nil for any other type.
func (w *writer) own(v types.AttributeValue) types.AttributeValue {
	if w.fresh[v] {
		return v
	}
	var c types.AttributeValue
	switch v := v.(type) {
	case *types.AttributeValueMemberM:
		m := make(map[string]types.AttributeValue, len(v.Value)+1)
		for k, x := range v.Value {
			m[k] = x
		}
		c = &types.AttributeValueMemberM{Value: m}
	case *types.AttributeValueMemberL:
		c = &types.AttributeValueMemberL{Value: append([]types.AttributeValue(nil), v.Value...)}
	default:
		return nil
	}
	w.fresh[c] = true
	return c
}

func (w *writer) set(p path, v types.AttributeValue) error {
	if len(p) == 1 {
		w.out[p[0].name] = v
		return nil
	}
	parent, ok := w.container(p[:len(p)-1])
	if !ok {
		return errInvalidPath
	}
	last := p[len(p)-1]
	switch c := parent.(type) {
	case *types.AttributeValueMemberM:
		if last.isIndex {
			return errInvalidPath
		}
		c.Value[last.name] = v
	case *types.AttributeValueMemberL:
		if !last.isIndex {
			return errInvalidPath
		}
		if last.index < len(c.Value) {
			c.Value[last.index] = v
		} else {
			// Past the end, SET appends (DynamoDB does not pad lists).
			c.Value = append(c.Value, v)
		}
	}
	return nil
}

func (w *writer) remove(p path) error {
	if len(p) == 1 {
		delete(w.out, p[0].name)
		return nil
	}
	// DynamoDB Local rejects REMOVE a.b when a is missing even on an item
	// that does not exist yet; the service is said to ignore it there. We
	// follow Local, the reference our conformance suite runs against.
	parent, ok := w.container(p[:len(p)-1])
	if !ok {
		return errInvalidPath
	}
	last := p[len(p)-1]
	switch c := parent.(type) {
	case *types.AttributeValueMemberM:
		if last.isIndex {
			return errInvalidPath
		}
		delete(c.Value, last.name)
	case *types.AttributeValueMemberL:
		if !last.isIndex {
			return errInvalidPath
		}
		if last.index < len(c.Value) {
			c.Value = append(c.Value[:last.index], c.Value[last.index+1:]...)
		}
	}
	return nil
}

// addValues applies ADD to the current value (present or not): numbers
// are summed (a missing attribute counts as 0) and sets are joined (a
// missing attribute as the empty set).
func addValues(cur types.AttributeValue, present bool, v types.AttributeValue) (types.AttributeValue, error) {
	if !present {
		return v, nil
	}
	switch c := cur.(type) {
	case *types.AttributeValueMemberN:
		n, isN := v.(*types.AttributeValueMemberN)
		if !isN {
			return nil, &Error{Message: msgBadOperand}
		}
		sum, err := attr.AddNumbers(c.Value, n.Value)
		if err != nil {
			return nil, &Error{Message: err.Error()}
		}
		return &types.AttributeValueMemberN{Value: sum}, nil
	case *types.AttributeValueMemberSS:
		if s, ok := v.(*types.AttributeValueMemberSS); ok {
			return &types.AttributeValueMemberSS{Value: union(c.Value, s.Value, func(x string) string { return x })}, nil
		}
	case *types.AttributeValueMemberNS:
		if s, ok := v.(*types.AttributeValueMemberNS); ok {
			return &types.AttributeValueMemberNS{Value: union(c.Value, s.Value, numberKey)}, nil
		}
	case *types.AttributeValueMemberBS:
		if s, ok := v.(*types.AttributeValueMemberBS); ok {
			return &types.AttributeValueMemberBS{Value: union(c.Value, s.Value, func(x []byte) string { return string(x) })}, nil
		}
	}
	return nil, &Error{Message: msgBadOperand}
}

// deleteValues applies DELETE: removes members from a set; keep is false
// when no member is left, and then the attribute goes, as DynamoDB cannot
// store an empty set.
func deleteValues(cur, v types.AttributeValue) (next types.AttributeValue, keep bool, err error) {
	switch c := cur.(type) {
	case *types.AttributeValueMemberSS:
		if s, ok := v.(*types.AttributeValueMemberSS); ok {
			rest := difference(c.Value, s.Value, func(x string) string { return x })
			return &types.AttributeValueMemberSS{Value: rest}, len(rest) > 0, nil
		}
	case *types.AttributeValueMemberNS:
		if s, ok := v.(*types.AttributeValueMemberNS); ok {
			rest := difference(c.Value, s.Value, numberKey)
			return &types.AttributeValueMemberNS{Value: rest}, len(rest) > 0, nil
		}
	case *types.AttributeValueMemberBS:
		if s, ok := v.(*types.AttributeValueMemberBS); ok {
			rest := difference(c.Value, s.Value, func(x []byte) string { return string(x) })
			return &types.AttributeValueMemberBS{Value: rest}, len(rest) > 0, nil
		}
	}
	return nil, false, &Error{Message: msgBadOperand}
}

func numberKey(s string) string {
	if c, err := attr.CanonicalNumber(s); err == nil {
		return c
	}
	return s
}

func union[T any](a, b []T, key func(T) string) []T {
	out := append(make([]T, 0, len(a)+len(b)), a...)
	seen := make(map[string]bool, len(a)+len(b))
	for _, x := range a {
		seen[key(x)] = true
	}
	for _, x := range b {
		if k := key(x); !seen[k] {
			seen[k] = true
			out = append(out, x)
		}
	}
	return out
}

func difference[T any](a, b []T, key func(T) string) []T {
	drop := make(map[string]bool, len(b))
	for _, x := range b {
		drop[key(x)] = true
	}
	out := make([]T, 0, len(a))
	for _, x := range a {
		if !drop[key(x)] {
			out = append(out, x)
		}
	}
	return out
}

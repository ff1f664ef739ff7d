package dynamotest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/tablekit/tablekit/table"
)

// Compare returns a Comparison: a table.API that sends every call to
// reference (DynamoDB, or DynamoDB Local) and then to candidate (the fake),
// answers with the reference's result, and records every way the
// candidate's answer, error or stored item differed. A team runs its
// integration tests once through it against DynamoDB and learns whether
// the fake answers its calls the same:
//
//	cmp := dynamotest.Compare(client, dynamotest.New())
//	store, err := jobs.NewStore(cmp, blobs)
//	... the tests ...
//	if err := cmp.Err(); err != nil { t.Error(err) }
//
// What is compared, per call:
//   - the answer: every output field that two correct stores fill alike
//     (items and their order, Count and ScannedCount, LastEvaluatedKey,
//     Attributes, UnprocessedItems and UnprocessedKeys, a table's keys,
//     indexes, billing, table class and stream settings, TTL and backup
//     settings);
//   - the error: whether the call failed, its code (DiffError), and its
//     message (DiffMessage), and the CancellationReasons of a canceled
//     transaction and the item a failed condition returned;
//   - the item afterwards: after a write that succeeded on either store,
//     every key it wrote (PutItem's, UpdateItem's, DeleteItem's, a batch's,
//     a transaction's) is read back from both with a consistent GetItem
//     and compared (DiffItem).
//
// What is not compared, because correct stores differ there:
// ResultMetadata and request ids; ConsumedCapacity unless
// CompareOptions.Capacity; a table's status, ARNs, ids, creation time, item
// count and sizes, stream ARN and label; ListTables' names (the reference
// lists its whole account); a TTL status on its way (ENABLING counts as
// ENABLED); the order of items in a BatchGetItem answer, of map keys and of
// set members; numbers by their text ("1.0" is "1"); the part of a batch
// the reference left unprocessed (the candidate is sent only the part the
// reference processed, and the caller's retry of the rest is compared when
// it comes). An item whose TTL has passed (on CompareOptions.Now) is
// dropped from both sides, and the counts of a page that held one are not
// compared: DynamoDB deletes expired items some time within days, so
// either store may still hold it.
//
// Calls are serialized: each goes to the reference, then to the candidate,
// then to the read-backs, before the next call starts, so both stores
// apply the same writes in the same order even when the caller's
// goroutines race (a race test through a Comparison still interleaves its
// calls, one call at a time).
//
// When the two stores come to hold different items, the difference is
// recorded once (DiffItem) and the candidate is resynced: the reference's
// item is written into it (or the candidate's deleted), so later calls
// start from the same state and report only their own differences. What
// cannot be resynced (a table one store has and the other has not, a
// resync the candidate refused) marks the table: every later difference
// on it is recorded with Follows set to the difference that split the
// stores, so a reader fixes the first and skips the rest.
//
// A call the reference did not answer (a context's end, a network error,
// an error of the SDK's own checks) or refused for capacity (throttling,
// a transaction conflict, an internal error) is not sent to the
// candidate: the reference may or may not have applied it, so the keys it
// writes are resynced from the reference instead. Its result goes back to
// the caller, whose retries are then compared.
//
// A difference that one of CompareOptions.Deviations matches is recorded
// with the deviation's name: it is the reference departing from DynamoDB's
// API reference (LocalDeviations, for DynamoDB Local), not the candidate's
// bug, and Unexpected and Err leave it out.
//
// Against DynamoDB itself, reads without ConsistentRead and reads of a
// global secondary index may return an older state than the candidate:
// make such reads consistent, or read the Differences with that in mind.
func Compare(reference, candidate table.API, opts ...func(*CompareOptions)) *Comparison {
	var o CompareOptions
	for _, fn := range opts {
		if fn != nil {
			fn(&o)
		}
	}
	if o.Now == nil {
		o.Now = table.ClockOf(reference)
	}
	return &Comparison{ref: reference, cand: candidate, o: o, tables: map[string]*tableInfo{}}
}

// CompareOptions configure Compare.
type CompareOptions struct {
	// Capacity compares ConsumedCapacity, for a caller that asks for it
	// (ReturnConsumedCapacity). Off by default: DynamoDB Local reports
	// capacity its own way (see LocalDeviations).
	Capacity bool
	// Deviations are the documented ways the reference departs from
	// DynamoDB's API reference: the differences they match are counted
	// apart from the candidate's bugs. None by default (the reference is
	// DynamoDB); LocalDeviations for DynamoDB Local.
	Deviations []Deviation
	// Now is the time a TTL is compared with; nil means the reference's
	// clock (table.ClockOf: the fake's when the reference is one, else
	// the wall clock, DynamoDB's own).
	Now func() time.Time
}

// CompareCapacity sets CompareOptions.Capacity.
func CompareCapacity() func(*CompareOptions) {
	return func(o *CompareOptions) { o.Capacity = true }
}

// KnownDeviations adds documented deviations of the reference to
// CompareOptions.Deviations: Compare(local, fake,
// KnownDeviations(LocalDeviations()...)).
func KnownDeviations(devs ...Deviation) func(*CompareOptions) {
	return func(o *CompareOptions) { o.Deviations = append(o.Deviations, devs...) }
}

// DiffClass says what kind of difference a Difference is.
type DiffClass string

// The classes of difference.
const (
	// DiffAnswer: both stores answered, and a field of the answers differs
	// (or the payload of the same error: a canceled transaction's items,
	// the item a failed condition returned).
	DiffAnswer DiffClass = "answer"
	// DiffError: one store failed and the other did not, or they failed
	// with different error codes (or a transaction's cancellation reasons
	// differ).
	DiffError DiffClass = "error"
	// DiffMessage: both failed with the same code, in other words.
	DiffMessage DiffClass = "message"
	// DiffItem: after a write, the item stored under a key it wrote
	// differs between the stores.
	DiffItem DiffClass = "item"
)

// Difference is one way the candidate differed from the reference.
type Difference struct {
	// ID numbers the differences of a Comparison from 1, in the order
	// they were found.
	ID int
	// Call numbers the call that showed it, from 1, in the order calls
	// went through the Comparison.
	Call int
	// Op is the operation ("PutItem"), Table the first table the request
	// names, Request the input the caller passed (*dynamodb.PutItemInput).
	Op, Table string
	Request   any
	// Class is the kind of difference; Field names what differs: an
	// answer's field ("Items[2]", "Count", "LastEvaluatedKey"), "error",
	// "CancellationReasons", or "item" followed by the key.
	Class DiffClass
	Field string
	// Reference and Candidate are what each store had there, as canonical
	// DynamoDB JSON for items and values, "ok" or "Code: message" for an
	// error, "(none)" for what is missing.
	Reference, Candidate string
	// Deviation names the documented deviation of the reference this
	// difference is, "" when it is the candidate's to fix.
	Deviation string
	// Follows is the ID of an earlier difference this one follows from (a
	// table the stores hold differently, the answer of the same call), 0
	// when it stands on its own.
	Follows int
}

// String renders d for a person: where, what, the two sides and the
// request.
func (d Difference) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "#%d call %d %s %s: %s %s: reference %s, candidate %s", d.ID, d.Call, d.Op, d.Table,
		d.Class, d.Field, d.Reference, d.Candidate)
	if d.Deviation != "" {
		fmt.Fprintf(&b, " [reference deviation %s]", d.Deviation)
	}
	if d.Follows != 0 {
		fmt.Fprintf(&b, " [follows #%d]", d.Follows)
	}
	fmt.Fprintf(&b, "\n\trequest: %s", requestJSON(d.Request))
	return b.String()
}

// Comparison is the table.API Compare returns. It is safe for concurrent
// use; calls through it are serialized.
type Comparison struct {
	ref, cand table.API
	o         CompareOptions

	mu     sync.Mutex
	calls  int
	diffs  []Difference
	tables map[string]*tableInfo
}

// tableInfo is what a Comparison knows of a table: its key attributes and
// TTL attribute (from the reference), and the difference that split the
// stores' versions of it, if any.
type tableInfo struct {
	pk, sk, ttl string
	indexes     map[string][2]string // index name -> its partition and sort key attributes
	known       bool                 // pk, sk, indexes and ttl were read
	split       int                  // ID of the difference that split the table, 0 if none
}

var errNoComparison = errors.New("dynamotest: a Comparison must be made by Compare, with a reference and a candidate")

// Now is the reference's time (CompareOptions.Now): a store built on c
// stamps and expires by the clock of the store that answers it. A nil c
// says time.Now.
func (c *Comparison) Now() time.Time {
	if c == nil || c.o.Now == nil {
		return time.Now()
	}
	return c.o.Now()
}

// Calls returns how many calls went through c.
func (c *Comparison) Calls() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls
}

// Differences returns every difference found so far, in order.
func (c *Comparison) Differences() []Difference {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Difference(nil), c.diffs...)
}

// Unexpected returns the differences no documented deviation of the
// reference explains: the candidate's to fix (or to document).
func (c *Comparison) Unexpected() []Difference {
	var out []Difference
	for _, d := range c.Differences() {
		if d.Deviation == "" {
			out = append(out, d)
		}
	}
	return out
}

// Err returns an error listing the unexpected differences, nil when there
// are none.
func (c *Comparison) Err() error {
	un := c.Unexpected()
	if len(un) == 0 {
		return nil
	}
	return &DifferenceError{Differences: un}
}

// DifferenceError is Comparison.Err's error: the unexpected differences.
type DifferenceError struct {
	Differences []Difference
}

// maxListed bounds how many differences an error message lists in full.
const maxListed = 20

func (e *DifferenceError) Error() string {
	if e == nil {
		return "dynamotest: no differences"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "dynamotest: the candidate answered %d call(s) unlike the reference (%d difference(s))",
		e.calls(), len(e.Differences))
	for i, d := range e.Differences {
		if i == maxListed {
			fmt.Fprintf(&b, "\n... and %d more", len(e.Differences)-maxListed)
			break
		}
		b.WriteString("\n")
		b.WriteString(d.String())
	}
	return b.String()
}

func (e *DifferenceError) calls() int {
	seen := map[int]bool{}
	for _, d := range e.Differences {
		seen[d.Call] = true
	}
	return len(seen)
}

// Report renders every difference, the unexpected ones first, with how
// many the reference's deviations explain.
func (c *Comparison) Report() string {
	all := c.Differences()
	var b strings.Builder
	explained := 0
	for _, d := range all {
		if d.Deviation != "" {
			explained++
		}
	}
	fmt.Fprintf(&b, "%d call(s), %d difference(s): %d unexpected, %d documented deviations of the reference",
		c.Calls(), len(all), len(all)-explained, explained)
	for _, pass := range []bool{false, true} {
		for _, d := range all {
			if (d.Deviation != "") == pass {
				b.WriteString("\n")
				b.WriteString(d.String())
			}
		}
	}
	return b.String()
}

// callState is one call on its way through a Comparison.
type callState struct {
	n       int
	op      string
	table   string
	in      any
	firstID int // ID of the call's first difference, 0 if none yet
}

// record adds a difference of the call, marking what it follows and which
// deviation it is. The caller holds c.mu.
func (c *Comparison) record(cs *callState, class DiffClass, fieldName, ref, cand string) {
	d := Difference{ID: len(c.diffs) + 1, Call: cs.n, Op: cs.op, Table: cs.table, Request: cs.in,
		Class: class, Field: fieldName, Reference: ref, Candidate: cand}
	if t := c.tables[cs.table]; t != nil && t.split != 0 {
		d.Follows = t.split
	} else if class == DiffItem && cs.firstID != 0 {
		d.Follows = cs.firstID
	}
	if d.Follows != 0 {
		// What follows from a deviation of the reference is that deviation.
		d.Deviation = c.diffs[d.Follows-1].Deviation
	}
	if d.Deviation == "" {
		for _, dev := range c.o.Deviations {
			if dev.Match != nil && dev.Match(d) {
				d.Deviation = dev.Name
				break
			}
		}
	}
	c.diffs = append(c.diffs, d)
	if cs.firstID == 0 {
		cs.firstID = d.ID
	}
}

// split marks a table as held differently by the two stores from
// difference id on. The caller holds c.mu.
func (c *Comparison) split(tableName string, id int) {
	t := c.table(tableName)
	if t.split == 0 {
		t.split = id
	}
}

func (c *Comparison) table(name string) *tableInfo {
	t := c.tables[name]
	if t == nil {
		t = &tableInfo{}
		c.tables[name] = t
	}
	return t
}

// do sends one call to both stores and compares what they did. It is the
// one path every operation of a Comparison takes.
func do[I, O any](c *Comparison, ctx context.Context, op string, in *I, opts []func(*dynamodb.Options),
	ref, cand func(context.Context, *I, ...func(*dynamodb.Options)) (*O, error)) (*O, error) {
	if c == nil || c.ref == nil || c.cand == nil {
		return nil, errNoComparison
	}
	if ctx == nil {
		ctx = context.Background()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	rout, rerr := ref(ctx, in, opts...)
	// The reference got the request as the caller made it; from here on a
	// nil one is the empty request it stands for.
	in = orEmpty(in)
	cs := &callState{n: c.calls, op: op, in: in}
	if tables := requestTables(in); len(tables) > 0 {
		cs.table = tables[0]
	}
	// The candidate and the read-backs run to the end even when the
	// caller's context ends meanwhile: the reference has answered.
	bg := context.WithoutCancel(ctx)
	if unanswered(rerr) {
		c.resync(bg, cs, c.writtenKeys(bg, in), false)
		return rout, rerr
	}
	var cout *O
	var cerr error
	switch part, rest := processedPart(in, rout, rerr); {
	case part == nil:
		cout, cerr = cand(bg, in)
	case isEmptyBatch(part):
		cout = new(O) // the reference processed nothing: neither does the candidate
		rest(cout)
	default:
		if cout, cerr = cand(bg, part.(*I)); cerr == nil {
			rest(cout)
		}
	}
	c.learn(bg, requestTables(in), in)
	c.compareAnswers(cs, in, orEmpty(rout), orEmpty(cout), rerr, cerr)
	c.afterTableCall(cs, in, rerr, cerr)
	if wrote(rerr) || wrote(cerr) {
		c.resync(bg, cs, c.writtenKeys(bg, in), true)
	}
	return rout, rerr
}

// processedPart is the part of a batch the reference processed when it
// left some of it unprocessed, and a function adding the reference's
// unprocessed rest to the candidate's answer; nil when in is no batch or
// the reference processed all of it. DynamoDB may leave any part of a
// batch unprocessed (throughput, the 16 MB of a BatchGetItem), and a
// caller sends that part again: the candidate is sent only what the
// reference processed, so the part one store left is no difference, and
// the retry is compared when it comes.
func processedPart(in, rout any, rerr error) (part any, rest func(cout any)) {
	if rerr != nil {
		return nil, nil
	}
	switch in := in.(type) {
	case *dynamodb.BatchWriteItemInput:
		out, _ := rout.(*dynamodb.BatchWriteItemOutput)
		if out == nil || len(out.UnprocessedItems) == 0 {
			return nil, nil
		}
		left := map[string]int{}
		for name, ws := range out.UnprocessedItems {
			for _, w := range ws {
				left[name+"\x00"+canonWrite(w)]++
			}
		}
		p := *in
		p.RequestItems = map[string][]types.WriteRequest{}
		for name, ws := range in.RequestItems {
			for _, w := range ws {
				if k := name + "\x00" + canonWrite(w); left[k] > 0 {
					left[k]--
					continue
				}
				p.RequestItems[name] = append(p.RequestItems[name], w)
			}
		}
		return &p, func(cout any) {
			o := cout.(*dynamodb.BatchWriteItemOutput)
			if o.UnprocessedItems == nil {
				o.UnprocessedItems = map[string][]types.WriteRequest{}
			}
			for name, ws := range out.UnprocessedItems {
				o.UnprocessedItems[name] = append(o.UnprocessedItems[name], ws...)
			}
		}
	case *dynamodb.BatchGetItemInput:
		out, _ := rout.(*dynamodb.BatchGetItemOutput)
		if out == nil || len(out.UnprocessedKeys) == 0 {
			return nil, nil
		}
		left := map[string]int{}
		for name, ka := range out.UnprocessedKeys {
			for _, k := range ka.Keys {
				left[name+"\x00"+canonItem(k)]++
			}
		}
		p := *in
		p.RequestItems = map[string]types.KeysAndAttributes{}
		for name, ka := range in.RequestItems {
			sent := ka
			sent.Keys = nil
			for _, k := range ka.Keys {
				if id := name + "\x00" + canonItem(k); left[id] > 0 {
					left[id]--
					continue
				}
				sent.Keys = append(sent.Keys, k)
			}
			if len(sent.Keys) > 0 {
				p.RequestItems[name] = sent
			}
		}
		return &p, func(cout any) {
			o := cout.(*dynamodb.BatchGetItemOutput)
			if o.UnprocessedKeys == nil {
				o.UnprocessedKeys = map[string]types.KeysAndAttributes{}
			}
			for name, ka := range out.UnprocessedKeys {
				if have, ok := o.UnprocessedKeys[name]; ok {
					ka.Keys = append(have.Keys, ka.Keys...)
				}
				o.UnprocessedKeys[name] = ka
			}
		}
	}
	return nil, nil
}

// isEmptyBatch reports whether a processed part holds no item.
func isEmptyBatch(part any) bool {
	switch p := part.(type) {
	case *dynamodb.BatchWriteItemInput:
		return len(p.RequestItems) == 0
	case *dynamodb.BatchGetItemInput:
		return len(p.RequestItems) == 0
	}
	return false
}

// wrote reports whether a write that ended with err may have written:
// every success does; a refusal (a failed condition, a validation error)
// writes nothing on a correct store, and the call's error difference says
// so if the other store wrote.
func wrote(err error) bool { return err == nil }

// unanswered reports whether the reference gave no answer to compare with:
// the call failed before an answer (context, network, the SDK's own
// checks), or the reference refused it for capacity, which the candidate
// has none of.
func unanswered(err error) bool {
	if err == nil {
		return false
	}
	var api smithy.APIError
	if !errors.As(err, &api) {
		return true
	}
	switch api.ErrorCode() {
	case "ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded",
		"InternalServerError", "InternalFailure", "ServiceUnavailable", "TransactionInProgressException",
		"TransactionConflictException", "LimitExceededException":
		return true
	}
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		for _, r := range tce.CancellationReasons {
			switch aws.ToString(r.Code) {
			case "TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded":
				return true
			}
		}
	}
	return false
}

// compareAnswers records how the two results of a call differ. The caller
// holds c.mu.
func (c *Comparison) compareAnswers(cs *callState, in, rout, cout any, rerr, cerr error) {
	switch {
	case rerr == nil && cerr == nil:
		v := answerView{now: c.o.Now(), ttl: c.ttlOf, index: c.indexOf, capacity: c.o.Capacity}
		ref, cand := withoutUndefined(answerFields(v, in, rout), answerFields(v, in, cout))
		c.compareFields(cs, DiffAnswer, ref, cand)
	case rerr == nil || cerr == nil:
		c.record(cs, DiffError, "error", errorText(rerr), errorText(cerr))
	default:
		rc, rm := errorParts(rerr)
		cc, cm := errorParts(cerr)
		if rc != cc {
			c.record(cs, DiffError, "error", errorText(rerr), errorText(cerr))
			return
		}
		c.compareFields(cs, DiffError, reasonFields(rerr), reasonFields(cerr))
		c.compareFields(cs, DiffAnswer, errorItemFields(rerr), errorItemFields(cerr))
		if rm != cm {
			c.record(cs, DiffMessage, "message", errorText(rerr), errorText(cerr))
		}
	}
}

// compareFields records each field whose text differs, in the reference's
// order and then the candidate's extra fields. Lists of items compare
// their lengths, and element by element.
func (c *Comparison) compareFields(cs *callState, class DiffClass, ref, cand []field) {
	candBy := make(map[string]field, len(cand))
	for _, f := range cand {
		candBy[f.name] = f
	}
	seen := make(map[string]bool, len(ref))
	for _, f := range ref {
		seen[f.name] = true
		got, ok := candBy[f.name]
		if !ok {
			got = field{text: none}
		}
		loose := f.coarse != "" || got.coarse != ""
		if got.compared(loose) != f.compared(loose) {
			c.record(cs, class, f.name, f.compared(loose), got.compared(loose))
		}
	}
	for _, f := range cand {
		if !seen[f.name] && f.text != none {
			c.record(cs, class, f.name, none, f.text)
		}
	}
}

func errorParts(err error) (code, message string) {
	var api smithy.APIError
	if errors.As(err, &api) {
		return api.ErrorCode(), api.ErrorMessage()
	}
	return "", err.Error()
}

func errorText(err error) string {
	if err == nil {
		return "ok"
	}
	code, msg := errorParts(err)
	if code == "" {
		return msg
	}
	return code + ": " + msg
}

// reasonFields are a canceled transaction's reasons, by code.
func reasonFields(err error) []field {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		return nil
	}
	codes := make([]string, len(tce.CancellationReasons))
	for i, r := range tce.CancellationReasons {
		codes[i] = aws.ToString(r.Code)
		if codes[i] == "" {
			codes[i] = "None"
		}
	}
	return []field{{name: "CancellationReasons", text: strings.Join(codes, ", ")}}
}

// errorItemFields are the items an error carries: the old item of a
// failed condition (ReturnValuesOnConditionCheckFailure) and of each
// canceled transaction action.
func errorItemFields(err error) []field {
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return []field{{name: "Item", text: canonItem(ccf.Item)}}
	}
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		return nil
	}
	var f []field
	for i, r := range tce.CancellationReasons {
		f = append(f, field{name: fmt.Sprintf("CancellationReasons[%d].Item", i), text: canonItem(r.Item)})
	}
	return f
}

// indexOf is the key attributes of a table's index, "" when the
// Comparison does not know it. The caller holds c.mu.
func (c *Comparison) indexOf(tableName, index string) (pk, sk string) {
	if t := c.tables[tableName]; t != nil {
		k := t.indexes[index]
		return k[0], k[1]
	}
	return "", ""
}

// ttlOf is the TTL attribute of a table, "" when it has none or the
// Comparison does not know it. The caller holds c.mu.
func (c *Comparison) ttlOf(tableName string) string {
	if t := c.tables[tableName]; t != nil {
		return t.ttl
	}
	return ""
}

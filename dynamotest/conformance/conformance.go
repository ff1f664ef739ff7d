package conformance

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/tablekit/tablekit/table"
)

// Backend names used in [Case.Skip] and [Options.Backend].
const (
	InProcess     = "inprocess"
	HTTP          = "http"
	DynamoDBLocal = "dynamodblocal"
	AWS           = "aws"
)

// Capability is something a case needs from a backend beyond table.API.
type Capability int

const (
	// NeedsClock: the backend's API value also has Advance(time.Duration),
	// which moves its clock and deletes TTL-expired items. DynamoDB deletes
	// expired items in the background, some time after they expire, and
	// DynamoDB Local never does, so TTL expiry can only be checked on a
	// backend whose clock a test controls.
	NeedsClock Capability = 1 << iota
)

// Clock is the capability behind [NeedsClock].
type Clock interface {
	Advance(d time.Duration)
}

// Case is one conformance check: a table, the items it starts with, and a
// closure that calls the API and asserts what comes back.
type Case struct {
	// Name is "group/what-it-pins-down"; it becomes the subtest's name.
	Name string
	// Schema is the table the case runs on; the zero value means [PKSK].
	Schema Schema
	// NoTable: the case creates (or deliberately does not create) its own tables.
	NoTable bool
	// Seed is written with PutItem, in order, before Run.
	Seed []Item
	// Needs lists capabilities; a backend without one skips the case.
	Needs Capability
	// Skip gives, per backend name, why the case cannot run there.
	Skip map[string]string
	// Run makes the calls and the assertions.
	Run func(c *C)
}

// Options configure [Run].
type Options struct {
	// Backend names the backend under test (InProcess, HTTP, DynamoDBLocal,
	// AWS, or another name) so cases can skip it with a reason.
	Backend string
	// Filter, when set, runs only the cases for which it returns true.
	Filter func(Case) bool
}

// WithBackend sets Options.Backend.
func WithBackend(name string) func(*Options) {
	return func(o *Options) { o.Backend = name }
}

// Run runs every case in [Cases] as a parallel subtest of t, each against a
// fresh API value from newAPI and a table of its own with a unique name, so
// it can share one DynamoDB (Local) with other tests.
func Run(t *testing.T, newAPI func(t *testing.T) table.API, opts ...func(*Options)) {
	var o Options
	for _, fn := range opts {
		fn(&o)
	}
	seen := map[string]bool{}
	for _, tc := range Cases() {
		if seen[tc.Name] {
			t.Fatalf("conformance: two cases are named %q", tc.Name)
		}
		seen[tc.Name] = true
		if o.Filter != nil && !o.Filter(tc) {
			continue
		}
		t.Run(tc.Name, func(t *testing.T) {
			if reason := tc.Skip[o.Backend]; reason != "" {
				t.Skip(reason)
			}
			t.Parallel()
			api := newAPI(t)
			if tc.Needs&NeedsClock != 0 {
				if _, ok := api.(Clock); !ok {
					t.Skip("needs a backend whose clock the test controls (Advance): DynamoDB deletes expired items " +
						"in the background some time after expiry, and DynamoDB Local never does")
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			t.Cleanup(cancel)
			c := &C{T: t, API: api, Ctx: ctx, Backend: o.Backend, Schema: tc.Schema}
			if c.Schema.Hash.Name == "" {
				c.Schema = PKSK
			}
			if !tc.NoTable {
				c.Table = c.CreateTable(c.Schema)
				for _, item := range tc.Seed {
					if _, err := api.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(c.Table), Item: item}); err != nil {
						t.Fatalf("seeding %s: %v", RenderItem(item), err)
					}
				}
			}
			c.seed = tc.Seed
			tc.Run(c)
		})
	}
}

// C is what a case's Run gets: the API under test, its table, and
// assertion helpers that report through the embedded *testing.T.
type C struct {
	*testing.T
	API     table.API
	Ctx     context.Context
	Backend string
	// Table is the name of the case's table; Schema its shape.
	Table  string
	Schema Schema
	seed   []Item
}

// TableName returns the case table's name for an SDK input.
func (c *C) TableName() *string { return aws.String(c.Table) }

// UniqueTableName returns a fresh table name for this case.
func (c *C) UniqueTableName(base string) string {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	name := base + "-" + strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '-'
	}, c.Name())
	if len(name) > 200 {
		name = name[:200]
	}
	return name + "-" + hex.EncodeToString(b[:])
}

// Token returns a fresh ClientRequestToken (32 random hex digits), so
// reruns against a long-lived DynamoDB never reuse one.
func (c *C) Token() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b[:])
}

// CreateTable creates a table of shape s with a fresh name, waits until it
// is active, and deletes it when the case ends.
func (c *C) CreateTable(s Schema) string {
	c.Helper()
	name := c.UniqueTableName("conf")
	if _, err := c.API.CreateTable(c.Ctx, s.CreateTableInput(name)); err != nil {
		c.Fatalf("CreateTable %s: %v", name, err)
	}
	c.Cleanup(func() {
		_, _ = c.API.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	c.WaitActive(name)
	if s.TTL != "" {
		_, err := c.API.UpdateTimeToLive(c.Ctx, &dynamodb.UpdateTimeToLiveInput{
			TableName:               aws.String(name),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(s.TTL), Enabled: aws.Bool(true)},
		})
		if err != nil {
			c.Fatalf("UpdateTimeToLive %s: %v", name, err)
		}
	}
	return name
}

// activeWait bounds how long a case waits for a table (and the indexes it
// was created with) to become ACTIVE: DynamoDB takes seconds, DynamoDB Local
// and the fake answer ACTIVE at once.
const activeWait = 60 * time.Second

// WaitActive waits until the table and every index on it are ACTIVE.
func (c *C) WaitActive(name string) {
	c.Helper()
	c.waitTable(name, activeWait, "ACTIVE with every index ACTIVE", func(d *types.TableDescription) bool {
		for _, g := range d.GlobalSecondaryIndexes {
			if g.IndexStatus != types.IndexStatusActive {
				return false
			}
		}
		return true
	})
}

// waitTable waits until the table is ACTIVE and done holds for its
// description, and returns that description; after bound it fails the case
// with the table's status and every index's, saying it is not yet want.
func (c *C) waitTable(name string, bound time.Duration, want string, done func(*types.TableDescription) bool) *types.TableDescription {
	c.Helper()
	d, ok := c.pollTable(name, bound, done)
	if !ok {
		c.Fatalf("table %s not %s after %s: %s", name, want, bound, describeStatus(d))
	}
	return d
}

// pollTable polls DescribeTable every 100 ms until the table is ACTIVE and
// done holds (true), or bound has passed (false, with the last description).
func (c *C) pollTable(name string, bound time.Duration, done func(*types.TableDescription) bool) (*types.TableDescription, bool) {
	c.Helper()
	deadline := time.Now().Add(bound)
	for {
		out, err := c.API.DescribeTable(c.Ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err != nil {
			c.Fatalf("DescribeTable %s: %v", name, err)
		}
		if out.Table.TableStatus == types.TableStatusActive && done(out.Table) {
			return out.Table, true
		}
		if time.Now().After(deadline) {
			return out.Table, false
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// describeStatus renders a table's status and each index's, for messages:
// "table ACTIVE; index byColor CREATING (backfilling)".
func describeStatus(d *types.TableDescription) string {
	var b strings.Builder
	fmt.Fprintf(&b, "table %s", d.TableStatus)
	for _, g := range d.GlobalSecondaryIndexes {
		fmt.Fprintf(&b, "; index %s %s", aws.ToString(g.IndexName), g.IndexStatus)
		if aws.ToBool(g.Backfilling) {
			b.WriteString(" (backfilling)")
		}
	}
	if len(d.GlobalSecondaryIndexes) == 0 {
		b.WriteString("; no global secondary index")
	}
	return b.String()
}

// Seed returns the items the case started with.
func (c *C) Seed() []Item { return c.seed }

// Put writes items with PutItem and fails the case on an error.
func (c *C) Put(items ...Item) {
	c.Helper()
	for _, item := range items {
		if _, err := c.API.PutItem(c.Ctx, &dynamodb.PutItemInput{TableName: c.TableName(), Item: item}); err != nil {
			c.Fatalf("PutItem %s: %v", RenderItem(item), err)
		}
	}
}

// Get reads one item with a consistent GetItem; nil when it is missing.
func (c *C) Get(key Item) Item {
	c.Helper()
	out, err := c.API.GetItem(c.Ctx, &dynamodb.GetItemInput{TableName: c.TableName(), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		c.Fatalf("GetItem %s: %v", RenderItem(key), err)
	}
	return out.Item
}

// All reads every item of the case's table with consistent Scans.
func (c *C) All() []Item {
	c.Helper()
	return c.AllOf(c.Table)
}

// AllOf reads every item of the named table with consistent Scans.
func (c *C) AllOf(name string) []Item {
	c.Helper()
	var items []Item
	var start Item
	for {
		out, err := c.API.Scan(c.Ctx, &dynamodb.ScanInput{TableName: aws.String(name), ConsistentRead: aws.Bool(true), ExclusiveStartKey: start})
		if err != nil {
			c.Fatalf("Scan %s: %v", name, err)
		}
		items = append(items, out.Items...)
		if len(out.LastEvaluatedKey) == 0 {
			return items
		}
		start = out.LastEvaluatedKey
	}
}

// ExpectTable asserts the table holds exactly want, in any order.
func (c *C) ExpectTable(want []Item) {
	c.Helper()
	c.ExpectSameItems("table contents", c.All(), want)
}

// ExpectUnchanged asserts the table holds exactly the seed items: a
// request that failed changed nothing.
func (c *C) ExpectUnchanged() {
	c.Helper()
	c.ExpectSameItems("table contents after the failed request (must be unchanged)", c.All(), c.seed)
}

// ExpectItems asserts got equals want item by item, in order.
func (c *C) ExpectItems(what string, got, want []Item) {
	c.Helper()
	g, w := renderItems(got), renderItems(want)
	if strings.Join(g, "\n") != strings.Join(w, "\n") {
		c.Errorf("%s:\n got %s\nwant %s", what, renderList(got), renderList(want))
	}
}

// ExpectSameItems asserts got and want hold the same items, in any order.
func (c *C) ExpectSameItems(what string, got, want []Item) {
	c.Helper()
	g, w := renderItems(got), renderItems(want)
	sort.Strings(g)
	sort.Strings(w)
	if strings.Join(g, "\n") != strings.Join(w, "\n") {
		sortItems(got)
		sortItems(want)
		c.Errorf("%s (any order):\n got %s\nwant %s", what, renderList(got), renderList(want))
	}
}

func sortItems(items []Item) {
	sort.Slice(items, func(i, j int) bool { return RenderItem(items[i]) < RenderItem(items[j]) })
}

// ExpectItem asserts got equals want; a nil want means no item.
func (c *C) ExpectItem(what string, got, want Item) {
	c.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if RenderItem(got) != RenderItem(want) {
		c.Errorf("%s:\n got %s\nwant %s", what, RenderItem(got), RenderItem(want))
	}
}

// OK fails the case now when err is not nil.
func (c *C) OK(err error) {
	c.Helper()
	if err != nil {
		c.Fatalf("unexpected error: %v", err)
	}
}

// ExpectErr asserts err is the API error with the given code, of the Go
// type the real client returns for it, and that its message contains each
// of msgs. An empty code asserts err is nil.
func (c *C) ExpectErr(err error, code string, msgs ...string) {
	c.Helper()
	if code == "" {
		if err != nil {
			c.Fatalf("unexpected error: %v", err)
		}
		return
	}
	if err == nil {
		c.Fatalf("succeeded; want %s", code)
	}
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		c.Fatalf("error %v (%T) is not a smithy.APIError; want %s", err, err, code)
	}
	if ae.ErrorCode() != code {
		c.Fatalf("error code %q (%v); want %s", ae.ErrorCode(), err, code)
	}
	if !hasModeledType(err, code) {
		c.Errorf("error %v is %T; want the SDK's modeled type for %s", err, ae, code)
	}
	for _, m := range msgs {
		if !strings.Contains(ae.ErrorMessage(), m) {
			c.Errorf("error message %q does not contain %q", ae.ErrorMessage(), m)
		}
	}
}

// hasModeledType reports whether err is (wraps) the SDK's own type for the
// code; codes the SDK does not model (ValidationException) pass.
func hasModeledType(err error, code string) bool {
	switch code {
	case "ConditionalCheckFailedException":
		var e *types.ConditionalCheckFailedException
		return errors.As(err, &e)
	case "TransactionCanceledException":
		var e *types.TransactionCanceledException
		return errors.As(err, &e)
	case "ResourceNotFoundException":
		var e *types.ResourceNotFoundException
		return errors.As(err, &e)
	case "ResourceInUseException":
		var e *types.ResourceInUseException
		return errors.As(err, &e)
	case "IdempotentParameterMismatchException":
		var e *types.IdempotentParameterMismatchException
		return errors.As(err, &e)
	case "TransactionConflictException":
		var e *types.TransactionConflictException
		return errors.As(err, &e)
	case "ProvisionedThroughputExceededException":
		var e *types.ProvisionedThroughputExceededException
		return errors.As(err, &e)
	}
	return true
}

// CancellationCodes returns the reason codes of a TransactionCanceledException.
func CancellationCodes(err error) ([]string, []types.CancellationReason) {
	var e *types.TransactionCanceledException
	if !errors.As(err, &e) {
		return nil, nil
	}
	codes := make([]string, len(e.CancellationReasons))
	for i, r := range e.CancellationReasons {
		codes[i] = aws.ToString(r.Code)
	}
	return codes, e.CancellationReasons
}

// ExpectReasons asserts err is a TransactionCanceledException whose reasons
// have these codes, in action order.
func (c *C) ExpectReasons(err error, codes ...string) []types.CancellationReason {
	c.Helper()
	c.ExpectErr(err, "TransactionCanceledException")
	got, reasons := CancellationCodes(err)
	if fmt.Sprint(got) != fmt.Sprint(codes) {
		c.Errorf("cancellation reasons %v; want %v", got, codes)
	}
	return reasons
}

// ExpectCCFItem asserts err is a ConditionalCheckFailedException carrying
// want as the item (nil: carrying none).
func (c *C) ExpectCCFItem(err error, want Item) {
	c.Helper()
	c.ExpectErr(err, "ConditionalCheckFailedException")
	var e *types.ConditionalCheckFailedException
	if errors.As(err, &e) {
		c.ExpectItem("item in ConditionalCheckFailedException", e.Item, want)
	}
}

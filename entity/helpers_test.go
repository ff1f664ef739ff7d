package entity_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/table"
)

// The test domain: albums, their photos and shares, in one table with one
// overloaded index, as the albums example program stores them.

type Album struct {
	ID         string    `dynamodbav:"albumId"`
	OwnerID    string    `dynamodbav:"ownerId"`
	Title      string    `dynamodbav:"title"`
	Visibility string    `dynamodbav:"visibility"`
	PhotoCount int       `dynamodbav:"photoCount"`
	Tags       []string  `dynamodbav:"tags,omitempty"`
	CreatedAt  time.Time `dynamodbav:"createdAt"`
	UpdatedAt  time.Time `dynamodbav:"updatedAt"`
	Version    int       `dynamodbav:"version"`
}

type Photo struct {
	AlbumID   string    `dynamodbav:"albumId"`
	ID        string    `dynamodbav:"photoId"`
	OwnerID   string    `dynamodbav:"ownerId"`
	TakenAt   time.Time `dynamodbav:"takenAt"`
	Caption   string    `dynamodbav:"caption,omitempty"`
	Metadata  string    `dynamodbav:"metadata,omitempty"`
	CreatedAt time.Time `dynamodbav:"createdAt"`
	UpdatedAt time.Time `dynamodbav:"updatedAt"`
}

// Tag is a label on a photo, in the album's partition: its sort key
// extends the photo's (PHOTO#p1 and PHOTO#p1#TAG#snow), so a read of the
// photos' range reaches the tags too and the entity filter must leave them
// out.
type Tag struct {
	AlbumID string `dynamodbav:"albumId"`
	PhotoID string `dynamodbav:"photoId"`
	Name    string `dynamodbav:"tag"`
}

// Invite is an invitation to an album that expires: its TTL is stored even
// when 0 (no omitempty: 0 means "never"), it counts its uses within
// bounds, and it is versioned.
type Invite struct {
	AlbumID   string   `dynamodbav:"albumId"`
	Email     string   `dynamodbav:"email"`
	Role      string   `dynamodbav:"role,omitempty"`
	Uses      int      `dynamodbav:"uses"`
	Notes     []string `dynamodbav:"notes,omitempty"`
	Seats     uint     `dynamodbav:"seats"`
	ExpiresAt int64    `dynamodbav:"expiresAt"`
	Version   int      `dynamodbav:"version"`
}

// Ticket is a support ticket: listed per assignee across tenants on GSI1,
// newest change first (its sort key follows updatedAt, which the entity
// keeps), and per tenant on GSI2 by priority and status (a key of two
// attributes the caller sets).
type Ticket struct {
	TenantID  string    `dynamodbav:"tenantId"`
	ID        string    `dynamodbav:"ticketId"`
	Assignee  string    `dynamodbav:"assignee"`
	Priority  string    `dynamodbav:"priority"`
	Status    string    `dynamodbav:"status"`
	Comments  int       `dynamodbav:"comments"`
	CreatedAt time.Time `dynamodbav:"createdAt"`
	UpdatedAt time.Time `dynamodbav:"updatedAt"`
	Version   int       `dynamodbav:"version"`
}

// Doc is a versioned document listed per tenant by version (GSI1), a key
// built from the version the entity keeps.
type Doc struct {
	TenantID string `dynamodbav:"tenantId"`
	ID       string `dynamodbav:"docId"`
	Body     string `dynamodbav:"body"`
	Version  int    `dynamodbav:"version"`
}

type Share struct {
	AlbumID   string `dynamodbav:"albumId"`
	UserID    string `dynamodbav:"userId"`
	Role      string `dynamodbav:"role"`
	ExpiresAt int64  `dynamodbav:"expiresAt,omitempty"`
}

func testSchema(name string) table.Schema {
	s := func(n string) table.Attribute { return table.Attribute{Name: n, Type: types.ScalarAttributeTypeS} }
	return table.Schema{
		Name: name, PartitionKey: s("pk"), SortKey: s("sk"),
		Indexes: []table.Index{{Name: "GSI1", PartitionKey: s("gsi1pk"), SortKey: s("gsi1sk")},
			{Name: "GSI2", PartitionKey: s("gsi2pk"), SortKey: s("gsi2sk")}},
		TTLAttribute: "expiresAt",
	}
}

type env struct {
	db      *dynamotest.DB
	t       *table.Table
	reg     *entity.Registry
	blobs   *blobstore.Memory
	albums  *entity.Entity[Album]
	photos  *entity.Entity[Photo]
	shares  *entity.Entity[Share]
	tags    *entity.Entity[Tag]
	invites *entity.Entity[Invite]
	tickets *entity.Entity[Ticket]
	docs    *entity.Entity[Doc]
	// clock is the registry's time, and the fake's: moving it (lag) lets
	// items expire without the fake deleting them, as DynamoDB deletes
	// expired items days late; db.Advance moves it and deletes them.
	clock *testClock
}

// testClock is a clock tests move by hand.
type testClock struct {
	mu sync.Mutex
	at time.Time
}

func newTestClock() *testClock { return &testClock{at: time.Now().Truncate(time.Second)} }

// Now is the clock's time.
func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.at
}

// lag moves the clock by d without the fake's TTL sweep: what expires
// stays stored, as in DynamoDB until its sweeper comes.
func (e *env) lag(d time.Duration) {
	e.clock.mu.Lock()
	defer e.clock.mu.Unlock()
	e.clock.at = e.clock.at.Add(d)
}

// now is the registry's time.
func (e *env) now() time.Time {
	if e.db != nil {
		return e.db.Now()
	}
	return e.clock.Now()
}

var ctx = context.Background()

func albumOptions() []func(*entity.Options) {
	return []func(*entity.Options){
		entity.Key("ALBUM#{albumId}", "ALBUM"),
		entity.Index("GSI1", "USER#{ownerId}", "ALBUM#{createdAt:time}"),
		entity.Timestamps("createdAt", "updatedAt"),
		entity.Version("version"),
		entity.Required("title", "ownerId"),
		entity.Enum("visibility", "public", "private"),
		entity.Bounds("photoCount", 0, 10000),
	}
}

func newEnv(t testing.TB, opts ...func(*entity.RegistryOptions)) *env {
	t.Helper()
	clock := newTestClock()
	db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = clock.Now })
	s := testSchema("albums")
	require.NoError(t, s.EnsureTable(ctx, db))
	// The blob store sees no API, so it is given the fake's clock: an
	// object's age is then measured on the one clock the sweep reads.
	blobs := blobstore.NewMemory(func(o *blobstore.MemoryOptions) { o.Clock = db.Now })
	e := &env{db: db, t: table.New(db, s, fastBackoff), blobs: blobs, clock: clock}
	// No Clock: the registry reads the fake's (table.ClockOf).
	e.declare(t, e.blobs, opts...)
	return e
}

// declare makes the registry of e's table and the test domain's entities.
func (e *env) declare(t testing.TB, blobs blobstore.Store, opts ...func(*entity.RegistryOptions)) {
	t.Helper()
	reg, err := entity.NewRegistry(e.t, append([]func(*entity.RegistryOptions){entity.Blobs(blobs)}, opts...)...)
	require.NoError(t, err)
	e.declareOn(t, reg)
}

// declareOn declares the test domain's entities on reg (e's or an
// Offline one).
func (e *env) declareOn(t testing.TB, reg *entity.Registry) {
	t.Helper()
	var err error
	e.reg = reg
	e.albums, err = entity.New[Album](e.reg, "album", albumOptions()...)
	require.NoError(t, err)
	e.photos, err = entity.New[Photo](e.reg, "photo",
		entity.Key("ALBUM#{albumId}", "PHOTO#{photoId}"),
		entity.Index("GSI1", "USER#{ownerId}", "PHOTO#{takenAt:time}#{photoId}"),
		entity.Timestamps("createdAt", "updatedAt"),
		entity.Offload("metadata"),
		entity.Required("ownerId"))
	require.NoError(t, err)
	e.shares, err = entity.New[Share](e.reg, "share",
		entity.Key("ALBUM#{albumId}", "SHARE#{userId}"),
		entity.TTL("expiresAt", 0),
		entity.Enum("role", "viewer", "editor"))
	require.NoError(t, err)
	e.tags, err = entity.New[Tag](e.reg, "tag", entity.Key("ALBUM#{albumId}", "PHOTO#{photoId}#TAG#{tag}"))
	require.NoError(t, err)
	e.invites, err = entity.New[Invite](e.reg, "invite",
		entity.Key("ALBUM#{albumId}", "INVITE#{email}"),
		entity.TTL("expiresAt", 0), entity.Version("version"),
		entity.Enum("role", "viewer", "editor"), entity.Bounds("uses", 0, 5), entity.Bounds("notes", 0, 3),
		entity.Bounds("seats", 1, 4))
	require.NoError(t, err)
	e.tickets, err = entity.New[Ticket](e.reg, "ticket",
		entity.Key("TENANT#{tenantId}", "TICKET#{ticketId}"),
		entity.Index("GSI1", "ASSIGNEE#{assignee}", "TICKET#{updatedAt:time}"),
		entity.Index("GSI2", "TENANT#{tenantId}", "P#{priority}#{status}#{ticketId}"),
		entity.Timestamps("createdAt", "updatedAt"), entity.Version("version"),
		entity.Required("assignee", "priority", "status"))
	require.NoError(t, err)
	e.docs, err = entity.New[Doc](e.reg, "doc",
		entity.Key("TENANT#{tenantId}", "DOC#{docId}"),
		entity.Index("GSI1", "DOCS#{tenantId}", "V#{version:06d}#{docId}"),
		entity.Version("version"))
	require.NoError(t, err)
}

// raw reads an item as stored.
func (e *env) raw(t testing.TB, pk, sk string) table.Item {
	t.Helper()
	out, err := e.t.DB().GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(e.t.Name()), ConsistentRead: aws.Bool(true),
		Key: table.Item{"pk": &types.AttributeValueMemberS{Value: pk}, "sk": &types.AttributeValueMemberS{Value: sk}}})
	require.NoError(t, err)
	return out.Item
}

// count is how many items the table holds.
func (e *env) count(t testing.TB) int {
	t.Helper()
	out, err := e.db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(e.t.Name())})
	require.NoError(t, err)
	return len(out.Items)
}

func s(v string) *types.AttributeValueMemberS { return &types.AttributeValueMemberS{Value: v} }

// exampleEnv is newEnv for examples, which have no *testing.T.
func exampleEnv() *env {
	return newEnv(&panicTB{})
}

// panicTB is the testing.TB of examples: a failure panics.
type panicTB struct{ testing.TB }

func (*panicTB) Helper()                           {}
func (*panicTB) Errorf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
func (*panicTB) FailNow()                          { panic("FailNow") }

// race runs fn(0..n-1) at once and counts the calls that succeeded and
// those that failed with lost; any other error fails the test.
func race(t *testing.T, n int, lost error, fn func(i int) error) (wins, losses int) {
	t.Helper()
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := fn(i)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				wins++
			case errors.Is(err, lost):
				losses++
			default:
				t.Errorf("unexpected error: %v", err)
			}
		}()
	}
	wg.Wait()
	return wins, losses
}

func albumExists() expression.ConditionBuilder {
	return expression.AttributeExists(expression.Name("pk"))
}

// fastBackoff keeps the retries of unprocessed batch items short.
func fastBackoff(o *table.Options) {
	o.Backoff = table.Backoff{Initial: time.Microsecond, Max: time.Millisecond}
}

// rawN is the text of a stored Number ("" for another type).
func rawN(t testing.TB, av types.AttributeValue) string {
	t.Helper()
	n, ok := av.(*types.AttributeValueMemberN)
	if !ok {
		return ""
	}
	return n.Value
}

// rawS is the text of a stored String ("" for another type).
func rawS(t testing.TB, av types.AttributeValue) string {
	t.Helper()
	s, ok := av.(*types.AttributeValueMemberS)
	if !ok {
		return ""
	}
	return s.Value
}

package entity_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/datamodel"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/iam"
	"github.com/tablekit/tablekit/internal/compared"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

// Task is a project's task, listed within its project on two local
// secondary indexes: by last change (LSI1, a key built from the updatedAt
// the entity keeps) and by priority (LSI2, whose values tie across tasks).
type Task struct {
	ProjectID string    `dynamodbav:"projectId"`
	ID        string    `dynamodbav:"taskId"`
	Priority  string    `dynamodbav:"priority"`
	Title     string    `dynamodbav:"title"`
	Comments  int       `dynamodbav:"comments"`
	CreatedAt time.Time `dynamodbav:"createdAt"`
	UpdatedAt time.Time `dynamodbav:"updatedAt"`
	Version   int       `dynamodbav:"version"`
}

// Note shares the tasks' partitions and their priority index, with the
// same "P#" keys: a read of the tasks on LSI2 meets notes and must leave
// them out.
type Note struct {
	ProjectID string `dynamodbav:"projectId"`
	ID        string `dynamodbav:"noteId"`
	Priority  string `dynamodbav:"priority"`
}

// lsiSchema is a table with two local secondary indexes beside a global
// one.
func lsiSchema(name string) table.Schema {
	s := func(n string) table.Attribute { return table.Attribute{Name: n, Type: types.ScalarAttributeTypeS} }
	return table.Schema{
		Name: name, PartitionKey: s("pk"), SortKey: s("sk"),
		Indexes: []table.Index{
			{Name: "GSI1", PartitionKey: s("gsi1pk"), SortKey: s("gsi1sk")},
			{Name: "LSI1", PartitionKey: s("pk"), SortKey: s("lsi1sk"), Local: true},
			{Name: "LSI2", PartitionKey: s("pk"), SortKey: s("lsi2sk"), Local: true},
		},
		TTLAttribute: "expiresAt",
	}
}

type lsiEnv struct {
	db    *dynamotest.DB // nil on DynamoDB Local
	rec   *queries
	t     *table.Table
	reg   *entity.Registry
	tasks *entity.Entity[Task]
	notes *entity.Entity[Note]
	clock *testClock
}

type makeLSIEnv func(t *testing.T, opts ...func(*entity.RegistryOptions)) *lsiEnv

func fakeLSIEnv(t *testing.T, opts ...func(*entity.RegistryOptions)) *lsiEnv {
	clock := newTestClock()
	db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = clock.Now })
	s := lsiSchema("projects")
	require.NoError(t, s.EnsureTable(ctx, db))
	e := &lsiEnv{db: db, rec: &queries{API: db}, clock: clock}
	e.t = table.New(e.rec, s)
	e.declare(t, opts...)
	return e
}

// queries records the Query requests sent through it.
type queries struct {
	table.API
	mu   sync.Mutex
	sent []*dynamodb.QueryInput
}

func (q *queries) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	q.mu.Lock()
	q.sent = append(q.sent, in)
	q.mu.Unlock()
	return q.API.Query(ctx, in, opts...)
}

func (q *queries) inputs() []*dynamodb.QueryInput {
	q.mu.Lock()
	defer q.mu.Unlock()
	return slices.Clone(q.sent)
}

func localLSIEnv(t *testing.T, opts ...func(*entity.RegistryOptions)) *lsiEnv {
	client := compared.DynamoDB(t)
	name := testenv.TableName(t, "projects")
	s := lsiSchema(name)
	require.NoError(t, s.Create(ctx, client))
	t.Cleanup(func() { client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)}) })
	e := &lsiEnv{rec: &queries{API: client}, clock: newTestClock()}
	e.t = table.New(e.rec, s)
	e.declare(t, opts...)
	return e
}

func (e *lsiEnv) declare(t *testing.T, opts ...func(*entity.RegistryOptions)) {
	t.Helper()
	var err error
	// The clock is given: the recorder hides the fake's (table.ClockOf).
	e.reg, err = entity.NewRegistry(e.t, append([]func(*entity.RegistryOptions){entity.Clock(e.clock.Now)}, opts...)...)
	require.NoError(t, err)
	e.tasks, err = entity.New[Task](e.reg, "task",
		entity.Key("PROJECT#{projectId}", "TASK#{taskId}"),
		entity.LocalIndex("LSI1", "UPDATED#{updatedAt:time}"),
		entity.LocalIndex("LSI2", "P#{priority}"),
		entity.Timestamps("createdAt", "updatedAt"), entity.Version("version"),
		entity.Required("priority"))
	require.NoError(t, err)
	e.notes, err = entity.New[Note](e.reg, "note",
		entity.Key("PROJECT#{projectId}", "NOTE#{noteId}"),
		entity.LocalIndex("LSI2", "P#{priority}"))
	require.NoError(t, err)
}

// tick moves the registry's clock (not the fake's TTL sweep).
func (e *lsiEnv) tick() {
	e.clock.mu.Lock()
	defer e.clock.mu.Unlock()
	e.clock.at = e.clock.at.Add(time.Second)
}

func (e *lsiEnv) raw(t *testing.T, project, id string) table.Item {
	t.Helper()
	out, err := e.t.DB().GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(e.t.Name()), ConsistentRead: aws.Bool(true),
		Key: table.Item{"pk": s("PROJECT#" + project), "sk": s("TASK#" + id)}})
	require.NoError(t, err)
	require.NotNil(t, out.Item, "task %s/%s stored", project, id)
	return out.Item
}

func lsiRegistries(t *testing.T, mk makeLSIEnv, fn func(t *testing.T, e *lsiEnv)) {
	t.Run("type attribute", func(t *testing.T) { fn(t, mk(t)) })
	t.Run("no type attribute", func(t *testing.T) { fn(t, mk(t, entity.NoTypeAttribute())) })
}

// testEveryWriteStoresTheLocalIndexKeys: each write path builds the local
// indexes' sort keys as it builds a global index's: from the whole value
// (Create, Put, Upsert, BatchPut, TxCreate, TxPut), and, for an update,
// from what it sets, the kept updatedAt included (Patch, Update, an
// update's Action).
func testEveryWriteStoresTheLocalIndexKeys(t *testing.T, mk makeLSIEnv) {
	lsiRegistries(t, mk, func(t *testing.T, e *lsiEnv) {
		check := func(what, project, id, priority string) {
			t.Helper()
			v, err := e.tasks.Get(ctx, Task{ProjectID: project, ID: id}, entity.Consistent())
			require.NoError(t, err, what)
			item := e.raw(t, project, id)
			assert.Equal(t, s("UPDATED#"+keys.FormatTime(v.UpdatedAt)), item["lsi1sk"], "%s: LSI1 follows updatedAt", what)
			assert.Equal(t, s("P#"+priority), item["lsi2sk"], "%s: LSI2 is the priority", what)
			assert.Equal(t, s("PROJECT#"+project), item["pk"], "%s: the partition is the table's", what)
		}
		_, err := e.tasks.Create(ctx, Task{ProjectID: "p", ID: "t1", Priority: "2"})
		require.NoError(t, err)
		check("Create", "p", "t1", "2")

		e.tick()
		v, err := e.tasks.Get(ctx, Task{ProjectID: "p", ID: "t1"}, entity.Consistent())
		require.NoError(t, err)
		v.Priority = "1"
		_, err = e.tasks.Put(ctx, v)
		require.NoError(t, err)
		check("Put", "p", "t1", "1")

		e.tick()
		_, err = e.tasks.Patch(Task{ProjectID: "p", ID: "t1"}).Set("priority", "3").Run(ctx)
		require.NoError(t, err)
		check("Patch setting the priority", "p", "t1", "3")
		e.tick()
		_, err = e.tasks.Patch(Task{ProjectID: "p", ID: "t1"}).Add("comments", 1).Run(ctx)
		require.NoError(t, err)
		check("Patch setting neither (updatedAt moves)", "p", "t1", "3")

		e.tick()
		_, err = e.tasks.Update(Task{ProjectID: "p", ID: "t2"}).Set("priority", "4").Run(ctx)
		require.NoError(t, err)
		check("Update creating the item", "p", "t2", "4")

		e.tick()
		_, err = e.tasks.Upsert(ctx, Task{ProjectID: "p", ID: "t2", Priority: "5"})
		require.NoError(t, err)
		check("Upsert", "p", "t2", "5")

		e.tick()
		_, err = e.tasks.BatchPut(ctx, []Task{{ProjectID: "p", ID: "t3", Priority: "6"}, {ProjectID: "q", ID: "t3", Priority: "7"}})
		require.NoError(t, err)
		check("BatchPut", "p", "t3", "6")
		check("BatchPut", "q", "t3", "7")

		e.tick()
		t3, err := e.tasks.Get(ctx, Task{ProjectID: "p", ID: "t3"}, entity.Consistent())
		require.NoError(t, err)
		t3.Priority = "8"
		require.NoError(t, entity.Transact(ctx,
			e.tasks.TxCreate(Task{ProjectID: "p", ID: "t4", Priority: "9"}),
			e.tasks.TxPut(t3),
			e.tasks.Patch(Task{ProjectID: "p", ID: "t1"}).Set("priority", "0").Action()))
		check("TxCreate", "p", "t4", "9")
		check("TxPut", "p", "t3", "8")
		check("an update's Action", "p", "t1", "0")
	})
}

func TestEveryWriteStoresTheLocalIndexKeys(t *testing.T) {
	testEveryWriteStoresTheLocalIndexKeys(t, fakeLSIEnv)
}

func TestIntegrationEveryWriteStoresTheLocalIndexKeys(t *testing.T) {
	testEveryWriteStoresTheLocalIndexKeys(t, localLSIEnv)
}

// taskIDs are the tasks' ids, in order.
func taskIDs(ts []Task) []string {
	out := make([]string, len(ts))
	for i, v := range ts {
		out[i] = v.ID
	}
	return out
}

// testAListOnALocalIndexReadsTheEntitysItemsInIndexOrder: a List on a
// local index reads one table partition in the index's order, either way,
// page by page, under sort conditions; ties on the index's sort key come
// in table key order (the tie-break); notes sharing the index keys and
// tasks of other partitions are never in it.
func testAListOnALocalIndexReadsTheEntitysItemsInIndexOrder(t *testing.T, mk makeLSIEnv) {
	lsiRegistries(t, mk, func(t *testing.T, e *lsiEnv) {
		// Priorities in p: t5 1, t2 2, t4 2, t1 2, t3 3 (three ties, written
		// out of key order); notes at every priority; another project.
		for _, v := range []Task{{ID: "t4", Priority: "2"}, {ID: "t1", Priority: "2"}, {ID: "t3", Priority: "3"},
			{ID: "t5", Priority: "1"}, {ID: "t2", Priority: "2"}} {
			v.ProjectID = "p"
			_, err := e.tasks.Create(ctx, v)
			require.NoError(t, err)
			e.tick()
		}
		for i, pr := range []string{"1", "2", "2", "3"} {
			_, err := e.notes.Create(ctx, Note{ProjectID: "p", ID: fmt.Sprint("n", i), Priority: pr})
			require.NoError(t, err)
		}
		_, err := e.tasks.Create(ctx, Task{ProjectID: "q", ID: "t9", Priority: "2"})
		require.NoError(t, err)

		list := func(opts ...func(*entity.ListOptions)) []string {
			t.Helper()
			var all []Task
			for v, err := range e.tasks.Items(ctx, Task{ProjectID: "p"}, opts...) {
				require.NoError(t, err)
				all = append(all, v)
			}
			for _, limit := range []int{1, 2} {
				got := walk(t, func(cursor string) (table.Page[Task], error) {
					return e.tasks.List(ctx, Task{ProjectID: "p"}, cursor, append(opts, entity.Limit(limit))...)
				})
				require.Equal(t, taskIDs(all), taskIDs(got), "pages of %d hold what Items reads", limit)
			}
			return taskIDs(all)
		}
		lsi2 := entity.ByIndex("LSI2")
		assert.Equal(t, []string{"t5", "t1", "t2", "t4", "t3"}, list(lsi2), "by priority, ties by the table key")
		assert.Equal(t, []string{"t3", "t4", "t2", "t1", "t5"}, list(lsi2, entity.Descending()), "descending")
		assert.Equal(t, []string{"t1", "t2", "t4"}, list(lsi2, entity.SortBeginsWith("2")))
		assert.Equal(t, []string{"t1", "t2", "t4", "t3"}, list(lsi2, entity.SortBetween([]any{"2"}, []any{"3"})))
		assert.Equal(t, []string{"t3", "t4", "t2", "t1"}, list(lsi2, entity.SortGreaterOrEqual("2"), entity.Descending()))
		assert.Equal(t, []string{"t5", "t1", "t2", "t4"}, list(lsi2, entity.SortLessOrEqual("2")))
		assert.Equal(t, []string{"t5"}, list(lsi2, entity.SortLess("2")))
		assert.Equal(t, []string{"t3"}, list(lsi2, entity.SortGreater("2")))
		assert.Equal(t, []string{"t4", "t1", "t3", "t5", "t2"}, list(entity.ByIndex("LSI1")), "by creation, the updatedAt order")
		assert.Equal(t, []string{"t2", "t5", "t3", "t1", "t4"}, list(entity.ByIndex("LSI1"), entity.Descending()))

		// A change moves the item in the index its key follows.
		e.tick()
		_, err = e.tasks.Patch(Task{ProjectID: "p", ID: "t4"}).Add("comments", 1).Run(ctx)
		require.NoError(t, err)
		assert.Equal(t, []string{"t1", "t3", "t5", "t2", "t4"}, list(entity.ByIndex("LSI1")), "t4 changed last")

		// The notes list their own items on the index they share.
		var notes []string
		for v, err := range e.notes.Items(ctx, Note{ProjectID: "p"}, lsi2, entity.SortBeginsWith("2")) {
			require.NoError(t, err)
			notes = append(notes, v.ID)
		}
		assert.Equal(t, []string{"n1", "n2"}, notes)
	})
}

func TestAListOnALocalIndexReadsTheEntitysItemsInIndexOrder(t *testing.T) {
	testAListOnALocalIndexReadsTheEntitysItemsInIndexOrder(t, fakeLSIEnv)
}

func TestIntegrationAListOnALocalIndexReadsTheEntitysItemsInIndexOrder(t *testing.T) {
	testAListOnALocalIndexReadsTheEntitysItemsInIndexOrder(t, localLSIEnv)
}

// testALocalIndexIsReadStronglyConsistentAGlobalOneIsNot: DynamoDB reads a
// local secondary index strongly consistent on request and refuses
// ConsistentRead on a global one (ValidationException); entity sends the
// first and refuses the second before any request.
func testALocalIndexIsReadStronglyConsistentAGlobalOneIsNot(t *testing.T, mk makeLSIEnv) {
	e := mk(t)
	_, err := e.tasks.Create(ctx, Task{ProjectID: "p", ID: "t1", Priority: "2"})
	require.NoError(t, err)
	before := len(e.rec.inputs())
	page, err := e.tasks.List(ctx, Task{ProjectID: "p"}, "", entity.ByIndex("LSI2"), entity.Consistent())
	require.NoError(t, err, "a consistent read of a local index")
	assert.Equal(t, []string{"t1"}, taskIDs(page.Items))
	var got []string
	for v, err := range e.tasks.Items(ctx, Task{ProjectID: "p"}, entity.ByIndex("LSI1"), entity.Consistent()) {
		require.NoError(t, err)
		got = append(got, v.ID)
	}
	assert.Equal(t, []string{"t1"}, got)
	sent := e.rec.inputs()[before:]
	require.Len(t, sent, 2)
	for _, q := range sent {
		assert.True(t, aws.ToBool(q.ConsistentRead), "sent as a strongly consistent Query of %s", aws.ToString(q.IndexName))
	}

	// A global index: refused, nothing sent.
	tickets, err := entity.New[Ticket](e.reg, "ticket",
		entity.Key("TENANT#{tenantId}", "TICKET#{ticketId}"),
		entity.Index("GSI1", "ASSIGNEE#{assignee}", "TICKET#{ticketId}"))
	require.NoError(t, err)
	before = len(e.rec.inputs())
	_, err = tickets.List(ctx, Ticket{Assignee: "bob"}, "", entity.ByIndex("GSI1"), entity.Consistent())
	var ie *table.InputError
	require.ErrorAs(t, err, &ie, "a consistent read of a global index")
	assert.Contains(t, ie.Reason, "global secondary indexes")
	assert.Len(t, e.rec.inputs(), before, "nothing sent")
	_, err = tickets.List(ctx, Ticket{Assignee: "bob"}, "", entity.ByIndex("GSI1"))
	require.NoError(t, err, "the same read, eventually consistent")
}

func TestALocalIndexIsReadStronglyConsistentAGlobalOneIsNot(t *testing.T) {
	testALocalIndexIsReadStronglyConsistentAGlobalOneIsNot(t, fakeLSIEnv)
}

func TestIntegrationALocalIndexIsReadStronglyConsistentAGlobalOneIsNot(t *testing.T) {
	testALocalIndexIsReadStronglyConsistentAGlobalOneIsNot(t, localLSIEnv)
}

// TestALocalIndexDeclarationDynamoDBWouldRefuseFailsAtNew: what CreateTable
// or a write would refuse, and a declaration of the wrong kind of index,
// is a *DeclarationError from New.
func TestALocalIndexDeclarationDynamoDBWouldRefuseFailsAtNew(t *testing.T) {
	attr := func(n string) table.Attribute { return table.Attribute{Name: n, Type: types.ScalarAttributeTypeS} }
	local := func(name, sk string) table.Index {
		return table.Index{Name: name, PartitionKey: attr("pk"), SortKey: attr(sk), Local: true}
	}
	key := entity.Key("PROJECT#{projectId}", "TASK#{taskId}")
	cases := []struct {
		name   string
		schema func(s *table.Schema)
		opts   []func(*entity.Options)
		reason string
	}{
		{name: "LocalIndex of a global index", opts: []func(*entity.Options){entity.LocalIndex("GSI1", "P#{priority}")},
			reason: "is a global secondary index: declare it with Index"},
		{name: "Index of a local index", opts: []func(*entity.Options){entity.Index("LSI2", "", "P#{priority}")},
			reason: "is a local secondary index: declare it with LocalIndex"},
		{name: "a partition key template", opts: []func(*entity.Options){
			func(o *entity.Options) {
				o.Indexes = append(o.Indexes, entity.IndexOptions{Name: "LSI2", PartitionKey: "PROJECT#{projectId}", SortKey: "P#{priority}", Local: true})
			}},
			reason: "has the table's partition key"},
		{name: "more local indexes than DynamoDB allows", schema: func(s *table.Schema) {
			for i := 3; i <= 6; i++ {
				s.Indexes = append(s.Indexes, local(fmt.Sprint("LSI", i), fmt.Sprint("lsi", i, "sk")))
			}
		}, opts: []func(*entity.Options){entity.LocalIndex("LSI2", "P#{priority}")}, reason: "CreateTable refuses"},
		{name: "a local index keyed by another partition", schema: func(s *table.Schema) {
			s.Indexes[2].PartitionKey = attr("gsi1pk")
		}, opts: []func(*entity.Options){entity.LocalIndex("LSI2", "P#{priority}")}, reason: "CreateTable refuses"},
		{name: "a local index without a sort key", schema: func(s *table.Schema) {
			s.Indexes[2].SortKey = table.Attribute{}
		}, opts: []func(*entity.Options){entity.LocalIndex("LSI2", "P#{priority}")}, reason: "CreateTable refuses"},
		{name: "a field stored as the local index's key, the index undeclared", opts: []func(*entity.Options){
			entity.LocalIndex("LSI2", "P#{priority}")}, schema: func(s *table.Schema) { s.Indexes[1].SortKey = attr("title") },
			reason: "a key of index LSI1"},
		{name: "a field stored as the key its template writes", opts: []func(*entity.Options){
			entity.LocalIndex("LSI1", "T#{taskId}")}, schema: func(s *table.Schema) { s.Indexes[1].SortKey = attr("title") },
			reason: "the key attribute its template writes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := lsiSchema("projects")
			if c.schema != nil {
				c.schema(&s)
			}
			reg, err := entity.NewRegistry(table.New(dynamotest.New(), s))
			require.NoError(t, err)
			_, err = entity.New[Task](reg, "task", append([]func(*entity.Options){key}, c.opts...)...)
			var de *entity.DeclarationError
			require.ErrorAs(t, err, &de)
			assert.ErrorIs(t, err, entity.ErrDeclaration)
			assert.Contains(t, de.Error(), c.reason)
		})
	}

	// The type attribute cannot be a local index's key either.
	s := lsiSchema("projects")
	_, err := entity.NewRegistry(table.New(dynamotest.New(), s), entity.TypeAttribute("lsi1sk"))
	var ie *table.InputError
	require.ErrorAs(t, err, &ie)
	assert.Contains(t, ie.Reason, "is a key attribute")
	assert.False(t, errors.Is(err, entity.ErrDeclaration))
}

// TestALocalIndexReadIsAnAccessPatternThePolicyAllows: a List of a local
// index is recorded as a Query of that index, which datamodel costs and
// whose least-privilege policy grants that index and not another.
func TestALocalIndexReadIsAnAccessPatternThePolicyAllows(t *testing.T) {
	e := fakeLSIEnv(t)
	_, err := e.tasks.Create(ctx, Task{ProjectID: "p", ID: "t1", Priority: "2"})
	require.NoError(t, err)
	_, err = e.tasks.List(ctx, Task{ProjectID: "p"}, "", entity.ByIndex("LSI2"), entity.Consistent())
	require.NoError(t, err)
	ps := e.reg.Patterns()
	var indexes []string
	for _, ap := range ps {
		indexes = append(indexes, ap.Index)
	}
	assert.Contains(t, indexes, "LSI2")
	_, err = datamodel.EstimateSchema(e.reg.Schema(), ps)
	require.NoError(t, err)

	policy, err := datamodel.PolicyFor(e.reg.Schema(), ps, func(o *datamodel.PolicyOptions) { o.Env = dynamotest.Env })
	require.NoError(t, err)
	fresh := fakeLSIEnv(t)
	enforced, err := dynamotest.Enforce(fresh.db, policy)
	require.NoError(t, err)
	reg, err := entity.NewRegistry(table.New(enforced, fresh.t.Schema()), entity.Clock(fresh.db.Now))
	require.NoError(t, err)
	tasks, err := entity.New[Task](reg, "task", entity.Key("PROJECT#{projectId}", "TASK#{taskId}"),
		entity.LocalIndex("LSI1", "UPDATED#{updatedAt:time}"), entity.LocalIndex("LSI2", "P#{priority}"),
		entity.Timestamps("createdAt", "updatedAt"), entity.Version("version"))
	require.NoError(t, err)
	_, err = tasks.List(ctx, Task{ProjectID: "p"}, "", entity.ByIndex("LSI2"), entity.Consistent())
	require.NoError(t, err, "the index read granted")
	_, err = tasks.List(ctx, Task{ProjectID: "p"}, "", entity.ByIndex("LSI1"))
	var denied *iam.AccessDeniedError
	require.ErrorAs(t, err, &denied, "LSI1 was never read, so it is not granted")
}

// TaskTitle is a projection of Task.
type TaskTitle struct {
	ID    string `dynamodbav:"taskId"`
	Title string `dynamodbav:"title"`
}

// testListAsReadsWhatListReadsProjected: ListAs returns List's items
// (the entity's own: the note in the index is left out), order and
// cursors, each decoded into P, asking DynamoDB for P's attributes and
// what List's meanings need.
func testListAsReadsWhatListReadsProjected(t *testing.T, mk makeLSIEnv) {
	lsiRegistries(t, mk, func(t *testing.T, e *lsiEnv) {
		for _, v := range []Task{{ID: "t2", Priority: "2", Title: "b"}, {ID: "t1", Priority: "2", Title: "a"}, {ID: "t3", Priority: "1", Title: "c"}} {
			v.ProjectID = "p"
			_, err := e.tasks.Create(ctx, v)
			require.NoError(t, err)
		}
		_, err := e.notes.Create(ctx, Note{ProjectID: "p", ID: "n1", Priority: "2"})
		require.NoError(t, err)
		got := walk(t, func(cursor string) (table.Page[TaskTitle], error) {
			return entity.ListAs[TaskTitle](ctx, e.tasks, Task{ProjectID: "p"}, cursor, entity.ByIndex("LSI2"), entity.Limit(1))
		})
		assert.Equal(t, []TaskTitle{{"t3", "c"}, {"t1", "a"}, {"t2", "b"}}, got)
		last := e.rec.inputs()[len(e.rec.inputs())-1]
		var asked []string
		for _, n := range last.ExpressionAttributeNames {
			asked = append(asked, n)
		}
		assert.NotEmpty(t, aws.ToString(last.ProjectionExpression))
		assert.NotContains(t, asked, "priority", "an attribute P does not name is not asked for")
		assert.Contains(t, asked, "title")
		assert.Contains(t, asked, "lsi2sk", "the index key, for the cursor")
	})
}

func TestListAsReadsWhatListReadsProjected(t *testing.T) {
	testListAsReadsWhatListReadsProjected(t, fakeLSIEnv)
}

func TestIntegrationListAsReadsWhatListReadsProjected(t *testing.T) {
	testListAsReadsWhatListReadsProjected(t, localLSIEnv)
}

// ShareRole is a projection of Share without its TTL.
type ShareRole struct {
	UserID string `dynamodbav:"userId"`
	Role   string `dynamodbav:"role"`
}

// TestListAsLeavesOutExpiredItems: an item past its TTL that DynamoDB has
// not deleted is left out of ListAs as of List, though P does not name
// the TTL (the projection asks for it).
func TestListAsLeavesOutExpiredItems(t *testing.T) {
	e := newEnv(t)
	_, err := e.shares.Create(ctx, Share{AlbumID: "a1", UserID: "u1", Role: "viewer", ExpiresAt: e.now().Add(time.Hour).Unix()})
	require.NoError(t, err)
	_, err = e.shares.Create(ctx, Share{AlbumID: "a1", UserID: "u2", Role: "editor"})
	require.NoError(t, err)
	page, err := entity.ListAs[ShareRole](ctx, e.shares, Share{AlbumID: "a1"}, "")
	require.NoError(t, err)
	assert.Equal(t, []ShareRole{{"u1", "viewer"}, {"u2", "editor"}}, page.Items)
	e.lag(2 * time.Hour)
	page, err = entity.ListAs[ShareRole](ctx, e.shares, Share{AlbumID: "a1"}, "")
	require.NoError(t, err)
	assert.Equal(t, []ShareRole{{"u2", "editor"}}, page.Items)
}

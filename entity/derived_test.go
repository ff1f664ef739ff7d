package entity_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

// ticketsBy lists the tickets of an assignee on GSI1: by updatedAt, the
// index key the entity keeps in step with it.
func ticketsBy(t *testing.T, e *env, assignee string) []string {
	t.Helper()
	var out []string
	for v, err := range e.tickets.Items(ctx, Ticket{Assignee: assignee}, entity.ByIndex("GSI1")) {
		require.NoError(t, err)
		out = append(out, v.ID)
	}
	return out
}

// testDerivedIndexKeysFollowWhatAnOperationSets: an index key built from
// updatedAt went stale after a Patch (the item's updatedAt new, its index
// sort key the old one), and the user could not set updatedAt either; an
// update that changed one part of a two-part index key was refused without
// naming the missing part. Every write now rebuilds, without a read, the
// index keys built from what it sets — the kept Updated and Version too —
// and refuses, naming the attributes, one it cannot rebuild.
func testDerivedIndexKeysFollowWhatAnOperationSets(t *testing.T, mk makeEnv) {
	registries(t, mk, func(t *testing.T, e *env) {
		tick := func() { e.lag(time.Second) }
		stored := func(tenant, id string) Ticket {
			v, err := e.tickets.Get(ctx, Ticket{TenantID: tenant, ID: id}, entity.Consistent())
			require.NoError(t, err)
			return v
		}
		_, err := e.tickets.Create(ctx, Ticket{TenantID: "A", ID: "t1", Assignee: "bob", Priority: "low", Status: "open"})
		require.NoError(t, err)
		tick()
		_, err = e.tickets.Create(ctx, Ticket{TenantID: "B", ID: "t2", Assignee: "bob", Priority: "low", Status: "open"})
		require.NoError(t, err)
		assert.Equal(t, []string{"t1", "t2"}, ticketsBy(t, e, "bob"))
		// write runs one write and checks it read nothing first.
		write := func(what string, fn func() error) {
			t.Helper()
			reads := callsOf(e, "GetItem") + callsOf(e, "Query") + callsOf(e, "BatchGetItem")
			require.NoError(t, fn(), what)
			assert.Equal(t, reads, callsOf(e, "GetItem")+callsOf(e, "Query")+callsOf(e, "BatchGetItem"), "%s reads nothing", what)
		}

		tick()
		write("Patch", func() error {
			_, err := e.tickets.Patch(Ticket{TenantID: "A", ID: "t1"}).Add("comments", 1).Run(ctx)
			return err
		})
		assert.Equal(t, []string{"t2", "t1"}, ticketsBy(t, e, "bob"), "Patch")
		item := e.raw(t, "TENANT#A", "TICKET#t1")
		assert.Equal(t, s("TICKET#"+keys.FormatTime(stored("A", "t1").UpdatedAt)), item["gsi1sk"], "the index key is the item's updatedAt")
		tick()
		write("Update", func() error {
			_, err := e.tickets.Update(Ticket{TenantID: "B", ID: "t2"}).Add("comments", 1).Run(ctx)
			return err
		})
		assert.Equal(t, []string{"t1", "t2"}, ticketsBy(t, e, "bob"), "Update")
		tick()
		write("Upsert", func() error {
			_, err := e.tickets.Upsert(ctx, Ticket{TenantID: "A", ID: "t1", Assignee: "bob", Priority: "low", Status: "open"})
			return err
		})
		assert.Equal(t, []string{"t2", "t1"}, ticketsBy(t, e, "bob"), "Upsert")
		tick()
		_, err = e.tickets.Put(ctx, stored("B", "t2"))
		require.NoError(t, err)
		assert.Equal(t, []string{"t1", "t2"}, ticketsBy(t, e, "bob"), "Put")
		tick()
		write("Transact", func() error {
			return entity.Transact(ctx, e.tickets.Patch(Ticket{TenantID: "A", ID: "t1"}).Add("comments", 1).Action())
		})
		assert.Equal(t, []string{"t2", "t1"}, ticketsBy(t, e, "bob"), "a transaction's update")
		tick()
		require.NoError(t, entity.Transact(ctx, e.tickets.TxPut(stored("B", "t2"))))
		assert.Equal(t, []string{"t1", "t2"}, ticketsBy(t, e, "bob"), "TxPut")
		_, err = e.tickets.Patch(Ticket{TenantID: "A", ID: "t1"}).Set("updatedAt", time.Now()).Run(ctx)
		require.ErrorIs(t, err, table.ErrInvalidInput, "updatedAt is kept by the entity: the index follows it without the caller")

		// GSI2's sort key is built from priority and status: one of them
		// alone cannot rebuild it.
		calls := callsOf(e, "UpdateItem")
		_, err = e.tickets.Patch(Ticket{TenantID: "A", ID: "t1"}).Set("priority", "high").Run(ctx)
		require.ErrorIs(t, err, table.ErrInvalidInput)
		var ie *table.InputError
		require.ErrorAs(t, err, &ie)
		assert.Equal(t, "status", ie.Value, "the error names the missing attribute")
		assert.Contains(t, ie.Reason, "GSI2")
		assert.Equal(t, calls, callsOf(e, "UpdateItem"), "refused before sending")
		_, err = e.tickets.Patch(Ticket{TenantID: "A", ID: "t1"}).Set("priority", "high").Set("status", "open").Run(ctx)
		require.NoError(t, err)
		var high []string
		for v, err := range e.tickets.Items(ctx, Ticket{TenantID: "A"}, entity.ByIndex("GSI2"), entity.SortBeginsWith("high")) {
			require.NoError(t, err)
			high = append(high, v.ID)
		}
		assert.Equal(t, []string{"t1"}, high)

		// An Update that creates writes the index keys built from the
		// key alone (GSI2's partition key), as Create does.
		_, err = e.tickets.Update(Ticket{TenantID: "A", ID: "t3"}).Set("assignee", "ann").Set("priority", "low").Set("status", "open").Run(ctx)
		require.NoError(t, err)
		var ofA []string
		for v, err := range e.tickets.Items(ctx, Ticket{TenantID: "A"}, entity.ByIndex("GSI2")) {
			require.NoError(t, err)
			ofA = append(ofA, v.ID)
		}
		assert.Equal(t, []string{"t1", "t3"}, ofA, "the created ticket is in GSI2")
		assert.Equal(t, []string{"t3"}, ticketsBy(t, e, "ann"), "and in GSI1")

		// Doc's index key is built from the version the entity keeps.
		_, err = e.docs.Create(ctx, Doc{TenantID: "A", ID: "d1", Body: "one"})
		require.NoError(t, err)
		_, err = e.docs.Patch(Doc{TenantID: "A", ID: "d1"}).Set("body", "two").Run(ctx)
		require.ErrorAs(t, err, &ie, "an update that does not know the version it makes")
		assert.Equal(t, "version", ie.Value)
		_, err = e.docs.Upsert(ctx, Doc{TenantID: "A", ID: "d1", Body: "two"})
		require.ErrorAs(t, err, &ie, "Upsert adds to the version without knowing it")
		assert.Equal(t, "version", ie.Value)
		var d Doc
		write("a Patch with IfVersion", func() error {
			d, err = e.docs.Patch(Doc{TenantID: "A", ID: "d1"}).Set("body", "two").IfVersion(1).Run(ctx)
			return err
		})
		assert.Equal(t, s("V#000002#d1"), e.raw(t, "TENANT#A", "DOC#d1")["gsi1sk"])
		_, err = e.docs.Put(ctx, d)
		require.NoError(t, err)
		assert.Equal(t, s("V#000003#d1"), e.raw(t, "TENANT#A", "DOC#d1")["gsi1sk"])

		// An album's index sort key is built from createdAt, which an
		// Upsert keeps: the key stays too.
		a, err := e.albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "t"})
		require.NoError(t, err)
		tick()
		_, err = e.albums.Upsert(ctx, Album{ID: "a1", OwnerID: "u1", Title: "t2"})
		require.NoError(t, err)
		assert.Equal(t, s("ALBUM#"+keys.FormatTime(a.CreatedAt)), e.raw(t, "ALBUM#a1", "ALBUM")["gsi1sk"])
		tick()
		up, err := e.albums.Update(Album{ID: "a2"}).Set("ownerId", "u1").Set("title", "new").Run(ctx)
		require.NoError(t, err, "an Update creating an album")
		assert.Equal(t, s("ALBUM#"+keys.FormatTime(up.CreatedAt)), e.raw(t, "ALBUM#a2", "ALBUM")["gsi1sk"])
		tick()
		up2, err := e.albums.Update(Album{ID: "a2"}).Set("ownerId", "u1").Set("title", "newer").Run(ctx)
		require.NoError(t, err)
		assert.Equal(t, up.CreatedAt, up2.CreatedAt)
		assert.Equal(t, s("ALBUM#"+keys.FormatTime(up.CreatedAt)), e.raw(t, "ALBUM#a2", "ALBUM")["gsi1sk"], "and keeps it after")
	})
}

func TestDerivedIndexKeysFollowWhatAnOperationSets(t *testing.T) {
	testDerivedIndexKeysFollowWhatAnOperationSets(t, fakeEnv)
}

func TestIntegrationDerivedIndexKeysFollowWhatAnOperationSets(t *testing.T) {
	testDerivedIndexKeysFollowWhatAnOperationSets(t, localEnv)
}

package entity_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/table"
)

// Teammate is a tenant's user, unique by email whatever its case: its keys
// hold the email lower-cased and the team upper-cased, the attributes as
// the caller wrote them.
type Teammate struct {
	Tenant  string `dynamodbav:"tenant"`
	Email   string `dynamodbav:"email"`
	Team    string `dynamodbav:"team"`
	Name    string `dynamodbav:"name"`
	Version int    `dynamodbav:"version"`
}

func declareTeammates(t *testing.T, e *env) *entity.Entity[Teammate] {
	t.Helper()
	members, err := entity.New[Teammate](e.reg, "member",
		entity.Key("TENANT#{tenant}", "MEMBER#{email:lower}"),
		entity.Index("GSI1", "TEAM#{team:upper}", "MEMBER#{email:lower}"),
		entity.Version("version"))
	require.NoError(t, err)
	return members
}

func TestAKeyPartIsCasedOnEveryPath(t *testing.T) { testAKeyPartIsCasedOnEveryPath(t, fakeEnv) }

func TestIntegrationAKeyPartIsCasedOnEveryPath(t *testing.T) {
	testAKeyPartIsCasedOnEveryPath(t, localEnv)
}

// testAKeyPartIsCasedOnEveryPath: an email written "Ann@Example.com" is
// one key whatever case a later call spells it in, on every path that
// builds the key: writes, reads, updates, deletes, sort conditions, the
// index, transactions and batches.
func testAKeyPartIsCasedOnEveryPath(t *testing.T, mk makeEnv) {
	registries(t, mk, func(t *testing.T, e *env) {
		members := declareTeammates(t, e)
		m, err := members.Create(ctx, Teammate{Tenant: "t1", Email: "Ann@Example.com", Team: "ops", Name: "Ann"})
		require.NoError(t, err)
		item := e.raw(t, "TENANT#t1", "MEMBER#ann@example.com")
		require.NotEmpty(t, item, "Create: the key holds the lower-cased email")
		assert.Equal(t, "Ann@Example.com", rawS(t, item["email"]), "the attribute keeps the caller's spelling")
		assert.Equal(t, "TEAM#OPS", rawS(t, item["gsi1pk"]), "the index key is cased too")

		_, err = members.Create(ctx, Teammate{Tenant: "t1", Email: "ann@example.COM", Team: "ops"})
		require.ErrorIs(t, err, table.ErrAlreadyExists, "Create: one key for both spellings")
		got, err := members.Get(ctx, Teammate{Tenant: "t1", Email: "ANN@EXAMPLE.COM"}, entity.Consistent())
		require.NoError(t, err, "Get")
		assert.Equal(t, "Ann", got.Name)

		m.Email, m.Name = "ann@example.com", "Ann B"
		m, err = members.Put(ctx, m)
		require.NoError(t, err, "Put")
		assert.Equal(t, 2, m.Version, "Put replaced the one item")
		m, err = members.Patch(Teammate{Tenant: "t1", Email: "ANN@example.com"}).Set("name", "Ann C").Run(ctx)
		require.NoError(t, err, "Patch")
		assert.Equal(t, 3, m.Version)
		m, err = members.Update(Teammate{Tenant: "t1", Email: "Ann@EXAMPLE.com"}).Set("team", "Dev").Run(ctx)
		require.NoError(t, err, "Update")
		assert.Equal(t, "TEAM#DEV", rawS(t, e.raw(t, "TENANT#t1", "MEMBER#ann@example.com")["gsi1pk"]), "the derived index key is cased")
		_, err = members.Upsert(ctx, Teammate{Tenant: "t1", Email: "ANN@EXAMPLE.COM", Team: "dev", Name: "Ann D"})
		require.NoError(t, err, "Upsert")

		_, err = members.Create(ctx, Teammate{Tenant: "t1", Email: "Bob@Example.com", Team: "dev", Name: "Bob"})
		require.NoError(t, err)
		page, err := members.List(ctx, Teammate{Tenant: "t1"}, "", entity.Consistent())
		require.NoError(t, err)
		require.Len(t, page.Items, 2, "List: still one Ann")
		page, err = members.List(ctx, Teammate{Tenant: "t1"}, "", entity.Consistent(), entity.SortBeginsWith("BOB@example.com"))
		require.NoError(t, err)
		require.Len(t, page.Items, 1, "a sort condition is cased")
		assert.Equal(t, "Bob", page.Items[0].Name)
		page, err = members.List(ctx, Teammate{Tenant: "t1"}, "", entity.Consistent(), entity.SortBetween([]any{"A"}, []any{"AZ"}))
		require.NoError(t, err)
		require.Len(t, page.Items, 1, "SortBetween is cased")
		assert.Equal(t, "Ann D", page.Items[0].Name)
		var team []Teammate
		for v, err := range members.Items(ctx, Teammate{Team: "Dev"}, entity.ByIndex("GSI1")) {
			require.NoError(t, err)
			team = append(team, v)
		}
		assert.Len(t, team, 2, "the index partition is cased")

		read := members.TxGet(Teammate{Tenant: "t1", Email: "BOB@EXAMPLE.COM"})
		require.NoError(t, entity.TransactGet(ctx, read), "TxGet")
		bob, err := read.Value()
		require.NoError(t, err)
		bob.Email = "bob@example.com"
		require.NoError(t, entity.Transact(ctx, members.TxPut(bob)), "TxPut over the one Bob")
		require.NoError(t, entity.Transact(ctx,
			members.Patch(Teammate{Tenant: "t1", Email: "BOB@example.com"}).Set("name", "Bob B").Action()), "an update's Action")
		batch, err := members.BatchGet(ctx, []Teammate{{Tenant: "t1", Email: "ANN@example.com"}, {Tenant: "t1", Email: "bob@EXAMPLE.com"}}, entity.Consistent())
		require.NoError(t, err)
		assert.Len(t, batch, 2, "BatchGet")
		_, err = members.BatchPut(ctx, []Teammate{{Tenant: "t1", Email: "CAROL@example.com", Team: "ops", Name: "Carol"}})
		require.NoError(t, err)
		_, err = members.Get(ctx, Teammate{Tenant: "t1", Email: "carol@example.com"}, entity.Consistent())
		require.NoError(t, err, "BatchPut")

		require.NoError(t, entity.Transact(ctx, members.TxDelete(Teammate{Tenant: "t1", Email: "BOB@EXAMPLE.COM"})), "TxDelete")
		require.NoError(t, members.BatchDelete(ctx, []Teammate{{Tenant: "t1", Email: "Carol@Example.com"}}), "BatchDelete")
		deleted, err := members.Delete(ctx, Teammate{Tenant: "t1", Email: "ANN@EXAMPLE.COM"})
		require.NoError(t, err, "Delete")
		assert.True(t, deleted)
		page, err = members.List(ctx, Teammate{Tenant: "t1"}, "", entity.Consistent())
		require.NoError(t, err)
		assert.Empty(t, page.Items, "every member deleted by another spelling")
	})
}

func TestACasedKeyOnlyAttributeIsRefusedAtDeclaration(t *testing.T) {
	e := newEnv(t)
	_, err := entity.New[Teammate](e.reg, "member",
		entity.Key("TENANT#{tenant}", "MEMBER#{email:lower}"), entity.KeyOnly("email"))
	var de *entity.DeclarationError
	require.ErrorAs(t, err, &de, "it would read back lower-cased")
	assert.ErrorContains(t, err, "case")
	_, err = entity.New[Teammate](e.reg, "member",
		entity.Key("TENANT#{tenant:upper}", "MEMBER#{email:lower}"), entity.KeyOnly("tenant"))
	require.ErrorAs(t, err, &de)
	_, err = entity.New[Teammate](e.reg, "member",
		entity.Key("TENANT#{tenant}", "MEMBER#{email:lower}"), entity.KeyOnly("tenant"))
	require.NoError(t, err, "an uncased KeyOnly attribute reads back as written")
}

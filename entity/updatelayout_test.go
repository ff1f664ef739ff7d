package entity_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/table"
)

// Member is in a sparse index under a constant partition whose sort key is
// built from its table key alone (no rank): every member is in it.
type Member struct {
	ID    string `dynamodbav:"memberId"`
	Owner string `dynamodbav:"ownerId"`
}

// indexKeys are the GSI2 key attributes stored at key, raw: nil when the
// item has none.
func indexKeys(t *testing.T, e *env, key table.Key) map[string]string {
	t.Helper()
	out, err := e.t.DB().GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(e.t.Name()), Key: key, ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	require.NotEmpty(t, out.Item, "no item at %v", key)
	var keys map[string]string
	for _, name := range []string{"gsi2pk", "gsi2sk"} {
		if av, ok := out.Item[name]; ok {
			if keys == nil {
				keys = map[string]string{}
			}
			sv, ok := av.(*types.AttributeValueMemberS)
			require.True(t, ok, "%s is not a string", name)
			keys[name] = sv.Value
		}
	}
	return keys
}

// testAnUpdateThatCreatesWritesTheIndexKeysAPutWrites: an Update that
// creates an item writes the keys of a sparse index under a constant
// partition exactly as a Put of the same value does: both when its sort
// key is built from the table key (the item is in the index), neither
// when it is built from an attribute the update does not set (found by
// the model test: the Update wrote the constant partition alone, a half
// key a Put never writes).
func testAnUpdateThatCreatesWritesTheIndexKeysAPutWrites(t *testing.T, mk makeEnv) {
	registries(t, mk, func(t *testing.T, e *env) {
		members, err := entity.New[Member](e.reg, "member",
			entity.Key("MEMBER#{memberId}", "MEMBER"),
			entity.SparseIndex("GSI2", "MEMBERS", "M#{memberId}"), entity.Required("ownerId"))
		require.NoError(t, err)
		_, err = members.Update(Member{ID: "a"}).Set("ownerId", "u").Run(ctx)
		require.NoError(t, err)
		_, err = members.Put(ctx, Member{ID: "b", Owner: "u"})
		require.NoError(t, err)
		assert.Equal(t, map[string]string{"gsi2pk": "MEMBERS", "gsi2sk": "M#a"}, indexKeys(t, e, table.Key{"pk": s("MEMBER#a"), "sk": s("MEMBER")}), "Update")
		assert.Equal(t, map[string]string{"gsi2pk": "MEMBERS", "gsi2sk": "M#b"}, indexKeys(t, e, table.Key{"pk": s("MEMBER#b"), "sk": s("MEMBER")}), "Put")
		var listed []string
		for v, err := range members.Items(ctx, Member{}, entity.ByIndex("GSI2")) {
			require.NoError(t, err)
			listed = append(listed, v.ID)
		}
		assert.Equal(t, []string{"a", "b"}, listed)

		ranked := rankedEntity(t, e)
		_, err = ranked.Update(Ranked{ID: "a"}).Set("ownerId", "u").Run(ctx)
		require.NoError(t, err)
		_, err = ranked.Put(ctx, Ranked{ID: "b", Owner: "u"})
		require.NoError(t, err)
		assert.Nil(t, indexKeys(t, e, table.Key{"pk": s("RANKED#a"), "sk": s("RANKED")}), "Update of no rank")
		assert.Nil(t, indexKeys(t, e, table.Key{"pk": s("RANKED#b"), "sk": s("RANKED")}), "Put of no rank")
	})
}

func TestAnUpdateThatCreatesWritesTheIndexKeysAPutWrites(t *testing.T) {
	testAnUpdateThatCreatesWritesTheIndexKeysAPutWrites(t, fakeEnv)
}

func TestIntegrationAnUpdateThatCreatesWritesTheIndexKeysAPutWrites(t *testing.T) {
	testAnUpdateThatCreatesWritesTheIndexKeysAPutWrites(t, localEnv)
}

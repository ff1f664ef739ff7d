package entity_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/table"
)

type oddTypes struct {
	ID      string  `dynamodbav:"id"`
	Count   int     `dynamodbav:"count"`
	Score   float64 `dynamodbav:"score"`
	Payload []byte  `dynamodbav:"payload"`
	PK      string  `dynamodbav:"pk"`
	GSI1    string  `dynamodbav:"gsi1pk"`
}

func TestNewRefusesABadDeclarationWithAClearError(t *testing.T) {
	cases := []struct {
		name    string
		declare func(reg *entity.Registry) error
		says    string
	}{
		{"a template naming a missing field", func(reg *entity.Registry) error {
			_, err := entity.New[Album](reg, "album", entity.Key("ALBUM#{nosuch}", "ALBUM"))
			return err
		}, `names "nosuch", which is no attribute`},
		{"no sort key template for a table with one", func(reg *entity.Registry) error {
			_, err := entity.New[Album](reg, "album", entity.Key("ALBUM#{albumId}", ""))
			return err
		}, "a template for sk is needed"},
		{"a placeholder of the wrong kind", func(reg *entity.Registry) error {
			_, err := entity.New[Album](reg, "album", entity.Key("ALBUM#{title:time}", "ALBUM"))
			return err
		}, "does not take field Title"},
		{"an index the table does not have", func(reg *entity.Registry) error {
			_, err := entity.New[Album](reg, "album", entity.Key("A#{albumId}", "A"), entity.Index("GSI9", "U#{ownerId}", "A"))
			return err
		}, `has no index "GSI9"`},
		{"a version that is no integer", func(reg *entity.Registry) error {
			_, err := entity.New[Album](reg, "album", entity.Key("A#{albumId}", "A"), entity.Version("title"))
			return err
		}, "not an integer"},
		{"a TTL the table does not expire by", func(reg *entity.Registry) error {
			_, err := entity.New[Album](reg, "album", entity.Key("A#{albumId}", "A"), entity.TTL("photoCount", 0))
			return err
		}, `TTL attribute is "expiresAt"`},
		{"a timestamp that is no time", func(reg *entity.Registry) error {
			_, err := entity.New[Album](reg, "album", entity.Key("A#{albumId}", "A"), entity.Timestamps("tags", ""))
			return err
		}, "a timestamp is a time.Time"},
		{"a bad pattern", func(reg *entity.Registry) error {
			_, err := entity.New[Album](reg, "album", entity.Key("A##{albumId}", "A"))
			return err
		}, "bad template"},
		{"a field stored under a computed key's name", func(reg *entity.Registry) error {
			_, err := entity.New[oddTypes](reg, "odd", entity.Key("O#{id}", "O"), entity.Index("GSI1", "X#{id}", "X"))
			return err
		}, "the key attribute its template writes"},
		{"a field that is an undeclared index's key", func(reg *entity.Registry) error {
			type withGSI struct {
				ID   string `dynamodbav:"id"`
				GSI1 string `dynamodbav:"gsi1pk"`
			}
			_, err := entity.New[withGSI](reg, "odd", entity.Key("O#{id}", "O"))
			return err
		}, "declare the index"},
		{"an enum on a number", func(reg *entity.Registry) error {
			_, err := entity.New[Album](reg, "album", entity.Key("A#{albumId}", "A"), entity.Enum("photoCount", "1"))
			return err
		}, "not a string"},
		{"a check of another type", func(reg *entity.Registry) error {
			_, err := entity.New[Album](reg, "album", entity.Key("A#{albumId}", "A"), entity.Check(func(Photo) error { return nil }))
			return err
		}, "the check takes"},
		{"offloading a key attribute", func(reg *entity.Registry) error {
			type own struct {
				PK string `dynamodbav:"pk"`
				SK string `dynamodbav:"sk"`
			}
			_, err := entity.New[own](reg, "own", entity.Key("{pk}", "{sk}"), entity.Offload("pk"))
			return err
		}, "is a key attribute"},
		{"a name taken", func(reg *entity.Registry) error {
			if _, err := entity.New[Album](reg, "album", entity.Key("A#{albumId}", "A")); err != nil {
				return err
			}
			_, err := entity.New[Photo](reg, "album", entity.Key("P#{albumId}", "P"))
			return err
		}, "already has an entity of that name"},
		{"two entities claiming one key shape", func(reg *entity.Registry) error {
			if _, err := entity.New[Album](reg, "album", entity.Key("ALBUM#{albumId}", "META")); err != nil {
				return err
			}
			_, err := entity.New[Photo](reg, "photo", entity.Key("ALBUM#{albumId}", "{photoId}"))
			return err
		}, `can be the keys of entity "album"`},
		{"not a struct", func(reg *entity.Registry) error {
			_, err := entity.New[string](reg, "s", entity.Key("A", "B"))
			return err
		}, "entities are structs"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db := dynamotest.New()
			reg, err := entity.NewRegistry(table.New(db, testSchema("decl")))
			require.NoError(t, err)
			err = c.declare(reg)
			require.ErrorIs(t, err, entity.ErrDeclaration)
			var de *entity.DeclarationError
			require.ErrorAs(t, err, &de)
			assert.Contains(t, err.Error(), c.says)
		})
	}
}

func TestEntitiesWhoseKeysCannotCollideShareATable(t *testing.T) {
	e := newEnv(t)
	assert.Equal(t, []string{"album", "photo", "share", "tag", "invite", "ticket", "doc"}, e.reg.Names())
	_, err := e.albums.Create(ctx, Album{ID: "a", OwnerID: "u", Title: "t"})
	require.NoError(t, err)
	name, ok := e.reg.Identify(e.raw(t, "ALBUM#a", "ALBUM"))
	assert.True(t, ok)
	assert.Equal(t, "album", name)
}

func TestNewRegistryRefusesANilTable(t *testing.T) {
	_, err := entity.NewRegistry(nil)
	require.ErrorIs(t, err, entity.ErrNoEntity)
	_, err = entity.New[Album](nil, "album")
	require.ErrorIs(t, err, entity.ErrNoEntity)
}

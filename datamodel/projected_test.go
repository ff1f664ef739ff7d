package datamodel_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/access"
	"github.com/tablekit/tablekit/datamodel"
	"github.com/tablekit/tablekit/tasks"
)

// Each GSI section lists the attributes every pattern it serves needs
// and whether the projection keeps them: keys always, INCLUDE's
// attributes, ALL everything; the whole item when none are declared.
func TestGSISectionListsEachPatternsProjectedAttributes(t *testing.T) {
	s := tasks.Schema("tasks")
	s.Indexes[0].Projection, s.Indexes[0].NonKeyAttributes = types.ProjectionTypeInclude, []string{"payload"}
	read := func(name string) access.Pattern {
		return access.Pattern{Name: name, Operation: access.Query, Index: tasks.IndexGSI1, ItemSize: 100, ItemsPerRequest: 1, RatePerSecond: 1, Partition: "P"}
	}
	m := datamodel.Model{Store: "x", Schema: s, Patterns: []access.Pattern{read("claim"), read("admin"), read("whole"),
		{Name: "get", Operation: access.GetItem, ItemSize: 100, RatePerSecond: 1, Partition: "TASK#{taskId}"}},
		Attributes: map[string][]string{"claim": {"PK", "GSI1SK", "payload"}, "admin": {"payload", "owner", "status"}}}
	doc := func() string {
		out, err := datamodel.Render(t.Context(), m)
		require.NoError(t, err)
		return string(out)
	}
	want := "- **Per-Pattern Projected Attributes**:\n" +
		"  - #1 claim: `PK`, `GSI1SK`, `payload`: all kept\n" +
		"  - #2 admin: `payload`, `owner`, `status`: lacks `owner`, `status`, a GetItem per row\n" +
		"  - #3 whole: the whole item (no attributes declared): not kept by INCLUDE, a GetItem per row\n" +
		"- **Written By**" // the table's own GetItem (#4) is not the index's
	assert.Contains(t, doc(), want)

	m.Schema.Indexes[0].Projection, m.Schema.Indexes[0].NonKeyAttributes = types.ProjectionTypeKeysOnly, nil
	assert.Contains(t, doc(), "  - #1 claim: `PK`, `GSI1SK`, `payload`: lacks `payload`, a GetItem per row\n")

	m.Schema.Indexes[0].Projection = types.ProjectionTypeAll
	d := doc()
	assert.Contains(t, d, "  - #2 admin: `payload`, `owner`, `status`: all kept\n")
	assert.Contains(t, d, "  - #3 whole: the whole item (no attributes declared): kept, ALL\n")
}

// The document has a Denormalization Ideas section with the model's ideas,
// and none without them.
func TestDenormalizationIdeasAreRenderedWhenGiven(t *testing.T) {
	m := datamodel.Model{Store: "x", Schema: tasks.Schema("tasks"), Patterns: tasks.Patterns(), Entities: tasks.Entities()}
	out, err := datamodel.Render(t.Context(), m)
	require.NoError(t, err)
	assert.NotContains(t, string(out), "Denormalization Ideas")
	m.Prose.Denormalization = []string{" **Taken: a copy** kept true by X. "}
	out, err = datamodel.Render(t.Context(), m)
	require.NoError(t, err)
	assert.Contains(t, string(out), "### Denormalization Ideas\n\n- **Taken: a copy** kept true by X.\n\n")
}

package datamodel_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/access"
	"github.com/tablekit/tablekit/datamodel"
	"github.com/tablekit/tablekit/iam"
	"github.com/tablekit/tablekit/tasks"
)

func orderModel() datamodel.Model {
	return datamodel.Model{
		Store:  "orders",
		Schema: testSchema(),
		Patterns: pats(
			access.Pattern{Name: "Get order", Operation: access.GetItem, ItemSize: 2048, RatePerSecond: 50, Partition: "ORDER#{id}"},
			access.Pattern{Name: "New orders", Description: "oldest | first", Operation: access.Query, Index: "GSI1", ItemSize: 2048, ItemsPerRequest: 25, RatePerSecond: 10, Partition: "NEW"},
			access.Pattern{Name: "Place order", Operation: access.PutItem, ItemSize: 2048, RatePerSecond: 600, Partition: "ORDER#{id}",
				IndexWrites: []access.IndexWrite{{Index: "GSI1", Partition: "NEW"}}},
			access.Pattern{Name: "Ship order", Operation: access.UpdateItem, ItemSize: 2048, RatePerSecond: 5, Partition: "ORDER#{id}",
				IndexWrites: []access.IndexWrite{{Index: "ByStatus", Move: true, Partition: "{status}"}}},
		),
		Prose: datamodel.Prose{
			Philosophy: "Orders by id.",
			Indexes:    map[string]datamodel.IndexProse{"GSI1": {Purpose: "new orders"}},
			TradeOffs:  []string{"**Sparse GSI1**: only new orders."},
		},
		Items: []datamodel.Sample{
			{{"PK", "ORDER#1"}, {"SK", "ORDER"}, {"GSI1PK", "NEW"}, {"GSI1SK", "2025-01-01"}, {"total", "12"}},
			{{"PK", "ORDER#2"}, {"SK", "ORDER"}, {"status", "SHIPPED"}, {"total", "7"}},
		},
	}
}

// sections returns the document's headings in order.
func sections(doc string) []string {
	var out []string
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out
}

// TestRenderFollowsSeed002Template checks the document's structure: the
// template's sections in its order, one mapping row per pattern, tables
// with as many cells as headers, GSI tables holding only the items the
// index would hold, and the hot partition flagged with its remedy.
func TestRenderFollowsSeed002Template(t *testing.T) {
	out, err := datamodel.Render(context.Background(), orderModel())
	require.NoError(t, err)
	doc := string(out)
	want := []string{
		"# DynamoDB Data Model: orders (`orders`)",
		"## Design Philosophy & Approach",
		"## Aggregate Design Decisions",
		"## Table Designs",
		"### orders Table",
		"### GSI1 GSI",
		"### ByStatus GSI",
		"## Access Pattern Mapping",
		"### Solved Patterns",
		"### Capacity and Cost",
		"### Storage",
		"### GSI Projection Analysis",
		"### Alternatives Priced",
		"## Hot Partition Analysis",
		"## Trade-offs and Optimizations",
		"## Validation Results 🔴",
		"### Estimates Replayed on dynamotest",
	}
	assert.Equal(t, strings.Join(want, "\n"), strings.Join(sections(doc), "\n"), "sections")
	// Every markdown table row has as many cells as its header.
	cols := 0
	for i, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(line, "|") {
			cols = 0
			continue
		}
		n := strings.Count(strings.ReplaceAll(line, `\|`, ""), "|")
		if cols == 0 {
			cols = n
		} else {
			assert.Equal(t, cols, n, "line %d: cell borders, against its table's: %s", i+1, line)
		}
	}
	for i, name := range []string{"Get order", "New orders", "Place order", "Ship order"} {
		assert.Contains(t, doc, fmt.Sprintf("| %d | %s |", i+1, name), "no mapping row for #%d %s", i+1, name)
	}
	// GSI1 is sparse: its table shows ORDER#1 only; ByStatus (KEYS_ONLY)
	// shows ORDER#2 without its non-key attributes.
	gsi := doc[strings.Index(doc, "- **Capacity Planning**"):strings.Index(doc, "### GSI1 GSI")]
	assert.Contains(t, gsi, "| NEW | 2025-01-01 | ORDER#1 | ORDER | 12 |", "GSI1 items table")
	assert.NotContains(t, gsi, "ORDER#2", "GSI1 items table")
	ks := doc[strings.Index(doc, "### GSI1 GSI"):strings.Index(doc, "### ByStatus GSI")]
	assert.Contains(t, ks, "| status | PK | SK |\n|---|---|---|\n| SHIPPED | ORDER#2 | ORDER |", "KEYS_ONLY items table")
	// 600 puts/s of 2 KB into GSI1 NEW: 1,200 WCU on one key value; 10
	// queries/s of 25 x 2 KB: 13 units, halved, 65 RCU.
	hot := doc[strings.Index(doc, "## Hot Partition"):strings.Index(doc, "## Trade-offs")]
	assert.Contains(t, doc, "**GSI1** `NEW`: 65 RCU/s, 1,200 WCU/s", "hot partition NEW not flagged:\n%s", hot)
	assert.Contains(t, doc, "write sharding (the seed)", "hot partition NEW not flagged with its remedy:\n%s", hot)
	assert.Contains(t, doc, "oldest \\| first", "a | in a description was not escaped")
	assert.Contains(t, doc, "- [ ] Hot partition analysis completed: `NEW` pass", "validation does not report the hot partition")
	again, _ := datamodel.Render(context.Background(), orderModel())
	assert.True(t, bytes.Equal(out, again), "two renderings differ")
}

// TestRenderRefusesABadSchema: nothing is rendered from a declaration
// that cannot be costed.
func TestRenderRefusesABadSchema(t *testing.T) {
	m := orderModel()
	m.Patterns[0].ItemSize = 0
	doc, err := datamodel.Render(context.Background(), m)
	assert.Nil(t, doc, "got %d bytes, want none", len(doc))
	assert.ErrorIs(t, err, datamodel.ErrInvalidSize)
}

// TestRenderOpensWithAMermaidDiagramOfKeysEntitiesAndPatterns: the
// diagram comes before the first section and names the table and index
// keys, each entity, and an arrow per pattern from what it reads or to
// what it writes.
func TestRenderOpensWithAMermaidDiagramOfKeysEntitiesAndPatterns(t *testing.T) {
	m := orderModel()
	m.Entities = []access.Entity{{Name: `Order "v2"`, Size: 2048, CreatedBy: "Place order", Indexes: []string{"GSI1"}}}
	doc, err := datamodel.Render(context.Background(), m)
	require.NoError(t, err)
	text := string(doc)
	start, first := strings.Index(text, "```mermaid\nflowchart LR\n"), strings.Index(text, "\n## ")
	require.GreaterOrEqual(t, start, 0)
	assert.Less(t, start, first, "the diagram opens the document")
	diagram := text[start : start+strings.Index(text[start+3:], "```")+3]
	for _, want := range []string{
		`T[("orders<br/>PK PK · SK SK")]`,
		`I1[("GSI1<br/>PK GSI1PK · SK GSI1SK · ALL")]`,
		`I2[("ByStatus<br/>PK status · KEYS_ONLY")]`,
		`E1["Order #quot;v2#quot;<br/>2,048 B · kept until deleted"]`,
		"T -- GetItem --> P1", "I1 -- Query --> P2", "P3 -- PutItem --> T", "P3 -.-> I1", "P4 -.-> I2",
	} {
		assert.Contains(t, diagram, want)
	}
}

// TestRenderRequirementsFollowsSeed002Template: the working document has
// the template's sections, both rates of every pattern, and the entities.
func TestRenderRequirementsFollowsSeed002Template(t *testing.T) {
	m := orderModel()
	m.Patterns[0].AveragePerSecond = 5
	m.Entities = []access.Entity{{Name: "Order", Size: 2048, CreatedBy: "Place order", Indexes: []string{"GSI1"}}}
	m.Attributes = map[string][]string{"New orders": {"id", "placedAt"}}
	doc, err := datamodel.RenderRequirements(m)
	require.NoError(t, err)
	text := string(doc)
	for _, want := range []string{
		"# DynamoDB Modeling Session: orders", "## Application Overview", "## Access Patterns Analysis",
		"| Pattern # | Description | RPS (Peak and Average) | Type | Attributes Needed | Key Requirements | Design Considerations | Status |",
		"| 1 | Get order | 50 peak / 5 average | Read | the whole item |",
		"| 2 | New orders: oldest \\| first | 10 peak / average not declared | Read | id, placedAt |",
		"## Entity Relationships Deep Dive", "- **Order**: 2,048 B, created by `Place order`",
		"## Design Considerations (Scratchpad - Subject to Change)", "GSI1 `NEW` at 120% of a partition's limit ⚠️ write sharding",
		"## Validation Checklist", "- [ ] Every access pattern has: RPS (avg/peak)",
	} {
		assert.Contains(t, text, want)
	}
	_, err = datamodel.RenderRequirements(datamodel.Model{})
	assert.ErrorIs(t, err, datamodel.ErrInvalidSchema)
}

// TestProjectionsCompareAllIncludeAndKeysOnly works one index out by hand:
// GSI1 holds orders (2,048 B) written by a put at 10/s and by an update
// that moves no key at 4/s, read by a 25-row query at 2/s that needs one
// 32-byte attribute.
func TestProjectionsCompareAllIncludeAndKeysOnly(t *testing.T) {
	m := datamodel.Model{Schema: testSchema(),
		Patterns: pats(
			access.Pattern{Name: "place", Operation: access.PutItem, ItemSize: 2048, RatePerSecond: 10, AveragePerSecond: 10,
				IndexWrites: []access.IndexWrite{{Index: "GSI1", Partition: "NEW"}}},
			access.Pattern{Name: "touch", Operation: access.UpdateItem, ItemSize: 2048, RatePerSecond: 4, AveragePerSecond: 4,
				IndexWrites: []access.IndexWrite{{Index: "GSI1", Partition: "NEW"}}},
			access.Pattern{Name: "list", Operation: access.Query, Index: "GSI1", ItemSize: 2048, ItemsPerRequest: 25, RatePerSecond: 2, AveragePerSecond: 2},
			access.Pattern{Name: "by status", Operation: access.Query, Index: "ByStatus", ItemSize: 2048, ItemsPerRequest: 1, RatePerSecond: 1, AveragePerSecond: 1},
		),
		Attributes: map[string][]string{"list": {"total"}},
	}
	ps, err := m.Projections()
	require.NoError(t, err)
	require.Len(t, ps, 2)
	g := ps[0]
	assert.Equal(t, "GSI1", g.Index)
	assert.Equal(t, []string{"total"}, g.Needed)
	require.Len(t, g.Options, 3)
	all, incl, keys := g.Options[0], g.Options[1], g.Options[2]
	// ALL: 2 WCU an entry, 14 writes/s; a query reads 50 KB, 6.5 RCU eventual.
	assert.InDelta(t, 28, all.WritePerSecond, 1e-9)
	assert.InDelta(t, 13, all.ReadPerSecond, 1e-9)
	// INCLUDE: four keys and the attribute at 32 B each, one unit per write.
	assert.InDelta(t, 14, incl.WritePerSecond, 1e-9)
	assert.InDelta(t, 1, incl.ReadPerSecond, 1e-9)
	// KEYS_ONLY: the update writes nothing; each of 25 rows is fetched
	// (0.5 RCU eventual) on top of the query.
	assert.InDelta(t, 10, keys.WritePerSecond, 1e-9)
	assert.InDelta(t, 2*(0.5+25*0.5), keys.ReadPerSecond, 1e-9)
	assert.Less(t, incl.MonthlyCost, all.MonthlyCost)
	// ByStatus's reader declares no attributes: no INCLUDE option.
	assert.True(t, ps[1].Whole)
	assert.Len(t, ps[1].Options, 2)
}

// TestRenderChecklistNamesEveryStatementOfThePolicy: the validation
// checklist lists each statement of the runtime policy by what it is on:
// the table, the index by name, the objects under the store's prefix and
// the bucket listed only under that prefix.
func TestRenderChecklistNamesEveryStatementOfThePolicy(t *testing.T) {
	m := orderModel()
	m.Objects = []iam.Objects{{Bucket: "order-files", Prefix: "orders/", Actions: []string{iam.S3GetObject, iam.S3PutObject, iam.S3ListBucket}}}
	p, err := m.Policy()
	require.NoError(t, err)
	assert.Contains(t, p.Resources(), "arn:aws:s3:::order-files/orders/*", "the model's policy holds its objects")
	out, err := datamodel.Render(context.Background(), m)
	require.NoError(t, err)
	doc := string(out)
	for _, line := range []string{
		"  - table `orders`: dynamodb:GetItem, dynamodb:PutItem, dynamodb:UpdateItem\n",
		"  - index `GSI1` of `orders`: dynamodb:Query\n",
		"  - objects `order-files/orders/*`: s3:AbortMultipartUpload, s3:GetObject, s3:PutObject\n",
		"  - bucket `order-files` only with s3:prefix `orders/*`: s3:ListBucket\n",
	} {
		assert.Contains(t, doc, line)
	}
	m.Objects = nil
	out, err = datamodel.Render(context.Background(), m)
	require.NoError(t, err)
	assert.NotContains(t, string(out), "s3:", "a store without objects has no S3 statement")
}

// TestAModelsOtherTablesAreGrantedAndCostedBesideItsOwn: a store that
// also calls another store's table (jobs' work on the tasks table) gets
// that table in its runtime policy, by what its patterns there use, and
// the document lists those patterns and adds their cost to the store's.
func TestAModelsOtherTablesAreGrantedAndCostedBesideItsOwn(t *testing.T) {
	m := orderModel()
	queue := testSchema().WithName("queue")
	m.OtherTables = []datamodel.OtherTable{{Schema: queue, Patterns: pats(
		access.Pattern{Name: "Enqueue", Operation: access.PutItem, ItemSize: 1024, RatePerSecond: 10, AveragePerSecond: 1, Partition: "Q#{id}", Latency: time.Second, Entities: []string{"Message"}},
		access.Pattern{Name: "Poll", Operation: access.Query, Index: "GSI1", ItemSize: 1024, ItemsPerRequest: 4, RatePerSecond: 2, AveragePerSecond: 2, Partition: "READY"},
	), Entities: []access.Entity{{Name: "Message", Size: 1024, CreatedBy: "Enqueue", Retention: 24 * time.Hour}}}}

	p, err := m.Policy()
	require.NoError(t, err)
	doc := string(p.JSON())
	assert.Contains(t, doc, `table/queue"`, "the other table's items")
	assert.Contains(t, doc, `table/queue/index/GSI1"`, "the index its patterns query")
	assert.NotContains(t, doc, `table/queue/index/ByStatus"`, "no index its patterns do not read")

	own, err := m.Estimate()
	require.NoError(t, err)
	others, err := m.OtherEstimates()
	require.NoError(t, err)
	require.Len(t, others, 1)
	assert.InDelta(t, 10, others[0].WritePerSecond, 1e-9, "Enqueue: 1 WCU at 10/s")
	assert.InDelta(t, 2*0.5, others[0].ReadPerSecond, 1e-9, "Poll: 4 KB eventual at 2/s")
	assert.Positive(t, others[0].StorageGB, "the messages it keeps there")

	out, err := datamodel.Render(context.Background(), m)
	require.NoError(t, err)
	rendered := string(out)
	assert.Contains(t, rendered, "### Other Tables\n")
	assert.Contains(t, rendered, "#### `queue`\n")
	assert.Contains(t, rendered, "| 1 | Enqueue |")
	assert.Contains(t, rendered, "| 2 | Poll |")
	require.InDelta(t, 3951.53, own.MonthlyCost+others[0].MonthlyCost, 0.005)
	assert.Contains(t, rendered, "The store with its other tables: **$3,951.53/month**", "the store's cost and the other table's")
	assert.Contains(t, rendered, "`queue`: dynamodb:PutItem\n", "the checklist names the other table's statement")

	m.OtherTables = nil
	out, err = datamodel.Render(context.Background(), m)
	require.NoError(t, err)
	assert.NotContains(t, string(out), "Other Tables", "a store alone has no such section")
}

// TestValidationResultsAreHeadedByWhatTheirBoxesSay: the section's mark is
// computed: red while a box is unticked (orderModel's hot partition), green
// for a model that meets every box (the task queue's).
func TestValidationResultsAreHeadedByWhatTheirBoxesSay(t *testing.T) {
	validation := func(m datamodel.Model) string {
		out, err := datamodel.Render(context.Background(), m)
		require.NoError(t, err)
		doc := string(out)
		start := strings.Index(doc, "## Validation Results")
		require.GreaterOrEqual(t, start, 0)
		end := strings.Index(doc[start:], "### Estimates Replayed")
		require.Greater(t, end, 0)
		return doc[start : start+end]
	}
	hot := validation(orderModel())
	assert.True(t, strings.HasPrefix(hot, "## Validation Results 🔴\n"), hot)
	assert.Contains(t, hot, "- [ ] Hot partition analysis completed")

	// The task queue's declaration meets every box (its generated
	// document, docs/tasks, says so).
	cool := datamodel.Model{Store: "tasks", Schema: tasks.Schema("tasks"), Patterns: tasks.Patterns(), Entities: tasks.Entities()}
	met := validation(cool)
	assert.NotContains(t, met, "- [ ]", "the cooled model still misses a box")
	assert.True(t, strings.HasPrefix(met, "## Validation Results ✅\n"), met)
}

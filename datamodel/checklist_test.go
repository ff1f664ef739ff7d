package datamodel_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/access"
	"github.com/tablekit/tablekit/datamodel"
	"github.com/tablekit/tablekit/table"
)

// shopModel is a model that meets every box of the requirements
// checklist: users with their orders in the user's partition (an
// identifying relationship, 60% of the reads need both, at most 100
// orders a user), every pattern with its entities, rates, latency, size
// and bound, every entity read and written, every GSI explained.
func shopModel() datamodel.Model {
	s := func(n string) table.Attribute { return table.Attribute{Name: n, Type: types.ScalarAttributeTypeS} }
	user, order := "User", "Order"
	up := "USER#{userId}"
	ms := time.Millisecond
	return datamodel.Model{
		Store: "shop",
		Schema: table.Schema{Name: "shop", PartitionKey: s("PK"), SortKey: s("SK"),
			Indexes: []table.Index{{Name: "ByEmail", PartitionKey: s("email"), Projection: types.ProjectionTypeKeysOnly}}},
		Entities: []access.Entity{
			{Name: user, Size: 1024, CreatedBy: "Sign up", Partition: up, Indexes: []string{"ByEmail"}},
			{Name: order, Size: 2048, CreatedBy: "Place order", Parent: user, PerParent: 5, MaxPerParent: 100, Partition: up},
		},
		Patterns: []access.Pattern{
			{Name: "Get user", Operation: access.GetItem, ItemSize: 1024, RatePerSecond: 20, AveragePerSecond: 4, Latency: 10 * ms, Partition: up, Entities: []string{user}},
			{Name: "User with orders", Operation: access.Query, ItemSize: 2048, ItemsPerRequest: 6, RatePerSecond: 30, AveragePerSecond: 6, Latency: 20 * ms, Partition: up, Entities: []string{user, order}},
			{Name: "User by email", Operation: access.Query, Index: "ByEmail", ItemSize: 100, ItemsPerRequest: 1, RatePerSecond: 1, AveragePerSecond: 0.5, Latency: 20 * ms, Partition: "{email}", Entities: []string{user}},
			{Name: "Sign up", Operation: access.PutItem, ItemSize: 1024, RatePerSecond: 1, AveragePerSecond: 0.1, Latency: 20 * ms, Partition: up, Entities: []string{user},
				IndexWrites: []access.IndexWrite{{Index: "ByEmail", Partition: "{email}"}}},
			{Name: "Place order", Operation: access.PutItem, ItemSize: 2048, RatePerSecond: 5, AveragePerSecond: 1, Latency: 20 * ms, Partition: up, Entities: []string{order}},
		},
		Prose: datamodel.Prose{
			Purpose:           "An online shop's users and orders.",
			AggregateBoundary: "A user's orders are an item collection in the user's partition.",
			Indexes:           map[string]datamodel.IndexProse{"ByEmail": {Projection: "keys only: the login needs the id", Sparse: "every user has an email"}},
		},
	}
}

func checkItem(t *testing.T, m datamodel.Model, box string) datamodel.CheckItem {
	t.Helper()
	items, err := datamodel.Checklist(m)
	require.NoError(t, err)
	for _, c := range items {
		if c.Box == box {
			return c
		}
	}
	require.Failf(t, "no such box", "%q", box)
	return datamodel.CheckItem{}
}

func TestChecklistTicksEveryBoxOfAModelThatMeetsThem(t *testing.T) {
	items, err := datamodel.Checklist(shopModel())
	require.NoError(t, err)
	require.Len(t, items, 10, "the data-modeling method's ten boxes")
	for _, c := range items {
		assert.True(t, c.OK, "%s: %s", c.Box, c.Detail)
	}
}

// TestChecklistLeavesABoxUntickedForAModelThatMissesIt: one case per
// box, each a model that fails that box, which must then be unticked and
// name what is missing.
func TestChecklistLeavesABoxUntickedForAModelThatMissesIt(t *testing.T) {
	cases := []struct {
		box    string
		break_ func(*datamodel.Model)
		says   string
	}{
		{datamodel.BoxDomainAndScale, func(m *datamodel.Model) { m.Prose.Purpose = "" }, "the domain (Prose.Purpose)"},
		{datamodel.BoxDomainAndScale, func(m *datamodel.Model) { m.Patterns[2].RatePerSecond = 0; m.Patterns[2].AveragePerSecond = 0 }, "a peak rate for #3 User by email"},
		{datamodel.BoxEntitiesMapped, func(m *datamodel.Model) { m.Patterns[0].Entities = nil }, "#1 Get user names no entity"},
		{datamodel.BoxEntitiesMapped, func(m *datamodel.Model) { m.Entities[1].Parent = "Customer" }, `Order's parent "Customer" is not another declared entity`},
		{datamodel.BoxAggregates, func(m *datamodel.Model) { m.Patterns[1].Entities = []string{"User"} }, "Order is read by no access pattern"},
		{datamodel.BoxIdentifying, func(m *datamodel.Model) { m.Entities[0].Partition = "" }, "the partition of User (Entity.Partition)"},
		{datamodel.BoxIdentifying, func(m *datamodel.Model) {
			// Orders in partitions of their own, listed through a GSI by
			// the user id every read has.
			m.Entities[1].Partition = "ORDER#{orderId}"
			m.Patterns[1].Index = "ByEmail"
		}, "an identifying relationship (partition key = the parent's) would make the GSI unnecessary"},
		{datamodel.BoxConsolidation, func(m *datamodel.Model) { m.Entities[1].PerParent = 0 }, "how many Order a User has (Entity.PerParent)"},
		{datamodel.BoxPatternFigures, func(m *datamodel.Model) { m.Patterns[3].Latency = 0 }, "#4 Sign up: latency SLO"},
		{datamodel.BoxPatternFigures, func(m *datamodel.Model) { m.Patterns[0].AveragePerSecond = 0 }, "#1 Get user: average RPS"},
		{datamodel.BoxPatternFigures, func(m *datamodel.Model) { m.Patterns[1].ItemsPerRequest = 0 }, "#2 User with orders: expected result bound"},
		{datamodel.BoxWriteForEveryRead, func(m *datamodel.Model) { m.Patterns[4].Entities = []string{"User"} }, "Order is read (#2 User with orders) but no write pattern writes it"},
		{datamodel.BoxHotPartitions, func(m *datamodel.Model) { m.Patterns[2].Partition = "" }, "#3 User by email names no partition key value"},
		{datamodel.BoxFrameworkApplied, func(m *datamodel.Model) {
			// Most reads want the user alone: below 30% overlap the
			// framework keeps orders apart, yet they share the partition.
			m.Patterns[0].AveragePerSecond = 40
			m.Patterns[0].RatePerSecond = 40
		}, "the framework says separate"},
		{datamodel.BoxDesignConsiderations, func(m *datamodel.Model) { m.Prose.Indexes = nil }, "why ByEmail projects what it does"},
		{datamodel.BoxDesignConsiderations, func(m *datamodel.Model) { m.Prose.AggregateBoundary = "" }, "the item collection decision"},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s/%s", tc.box, tc.says), func(t *testing.T) {
			m := shopModel()
			tc.break_(&m)
			c := checkItem(t, m, tc.box)
			assert.False(t, c.OK, "ticked for a model that misses it")
			assert.Contains(t, c.Detail, tc.says)
		})
	}
}

// A justification (Prose.Relationships) or a declined read (Prose.Declined)
// is what the seed lets a model answer a departure with.
func TestChecklistAcceptsAJustifiedDepartureAndADeclinedRead(t *testing.T) {
	m := shopModel()
	m.Patterns[0].AveragePerSecond, m.Patterns[0].RatePerSecond = 40, 40
	require.False(t, checkItem(t, m, datamodel.BoxFrameworkApplied).OK)
	m.Prose.Relationships = map[string]string{"Order": "a user's page shows the user with the latest orders in one Query."}
	assert.True(t, checkItem(t, m, datamodel.BoxFrameworkApplied).OK)

	m = shopModel()
	m.Patterns = append(m.Patterns, access.Pattern{Name: "Audit", Operation: access.PutItem, ItemSize: 100, RatePerSecond: 1, AveragePerSecond: 1,
		Latency: time.Second, Partition: "AUDIT#{day}", Entities: []string{"Audit entry"}})
	m.Entities = append(m.Entities, access.Entity{Name: "Audit entry", Size: 100, CreatedBy: "Audit", Partition: "AUDIT#{day}"})
	require.False(t, checkItem(t, m, datamodel.BoxWriteForEveryRead).OK)
	m.Prose.Declined = map[string]string{"Audit entry": "read by the auditors' own tooling"}
	c := checkItem(t, m, datamodel.BoxWriteForEveryRead)
	assert.True(t, c.OK, c.Detail)
	assert.Contains(t, c.Detail, "declined: Audit entry: read by the auditors' own tooling")
}

// The correlation figures are the reads' shares at the average rates:
// Get user 4/s (user only), User with orders 6/s (both), User by email
// 0.5/s (user only): 6 / 10.5 = 57.1% both.
func TestRequirementsShowTheComputedAggregateAnalysis(t *testing.T) {
	doc, err := datamodel.RenderRequirements(shopModel())
	require.NoError(t, err)
	text := string(doc)
	for _, want := range []string{
		"- **User → Order**: 1:Many (avg 5 per User, max 100)",
		"### User + Order Item Collection Analysis",
		"- **Access Correlation**: 57.1% of the reads that need either need both",
		"  - User only: 42.9% of reads/s (#1 Get user, #3 User by email)",
		"  - Both together: 57.1% (#2 User with orders)",
		"- **Size Constraints**: User 1 KB + 5 × 2 KB Order = 11 KB typical, at most 201 KB (100 per parent)",
		"independent: no write writes both",
		"identifying relationship in place ✅",
		"the data-modeling method's rules say **consolidate**",
		"## Table Consolidation Analysis", "| User | Order | 1:Many | 57.1% | child keyed by the parent's key | ≤ 201 KB | consolidate | ✅ item collection |",
		"<10ms latency (p99)",
		"- [x] " + datamodel.BoxIdentifying,
	} {
		assert.Contains(t, text, want)
	}
}

func TestSectionsSayWhyTheyDoNotApplyToASingleEntity(t *testing.T) {
	m := shopModel()
	m.Entities = m.Entities[:1]
	for i := range m.Patterns {
		m.Patterns[i].Entities = []string{"User"}
	}
	doc, err := datamodel.RenderRequirements(m)
	require.NoError(t, err)
	assert.Contains(t, string(doc), "_Does not apply: one entity (User), a single-item aggregate")
	assert.Contains(t, string(doc), "The candidate review does not apply: one entity (User)")
}

package journey

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
)

// TestExportImportRestoresEveryItem: a journey exported from one table and
// imported into an empty one reads back identical, item for item.
func TestExportImportRestoresEveryItem(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	buildJourney(t, e, "JRN-B")
	c := must[*Complete](t)(e.store.Journeys().Load(ctx, "JRN-B"))
	l := must[*StepLogger](t)(e.store.Logs().Logger(c.Jobs[0].Ref(), "s"))
	l.Info("kept", map[string]any{"n": 1.5})
	require.NoError(t, l.Close(ctx))
	must[*ReportEntry](t)(e.store.Reports().Write(ctx, c.Jobs[0].Ref(), "s", Report{ReportType: ReportMetricsDashboard, Title: "m"}))
	before := must[*Complete](t)(e.store.Journeys().Load(ctx, "JRN-B"))
	info := must[*ExportInfo](t)(e.store.Backups().Export(ctx, "JRN-B"))
	require.Equal(t, "journeys/JRN-B/backup.json", info.Key, "the export's object key")
	require.Equal(t, 1+6+15+20+1+1, info.Items, "exported items: metadata, 6 stages, 15 rules, 20 jobs, a log summary, a report")

	// Another table, same backups store.
	db2 := dynamotest.New()
	require.NoError(t, Schema("").Create(ctx, db2))
	s2 := mustStore(t, db2, e.logs, func(o *Options) { o.Backups = e.backups })
	_, err := s2.Backups().Import(ctx, "JRN-B")
	require.NoError(t, err)
	after := must[*Complete](t)(s2.Journeys().Load(ctx, "JRN-B"))
	assert.Equal(t, before, after, "restored journey differs:\nbefore %+v\nafter  %+v", before.Journey, after.Journey)
	// Importing over it again is refused unless asked.
	_, err = s2.Backups().Import(ctx, "JRN-B")
	assert.ErrorIs(t, err, ErrJourneyExists, "second import: %v", err)
	_, err = s2.Backups().Import(ctx, "JRN-B", Overwrite())
	assert.NoError(t, err, "overwrite: %v", err)
	_, err = e.store.Backups().Export(ctx, "JRN-NONE")
	assert.ErrorIs(t, err, ErrJourneyNotFound, "export of a missing journey: %v", err)
}

// TestImportRejectsForeignItemsBeforeWriting: a backup holding an item of
// another journey, an unknown key shape or a wrong entity type is refused
// with ErrInvalidBackup and nothing is written.
func TestImportRejectsForeignItemsBeforeWriting(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	meta := `{"PK":"JOURNEY#JRN-X","SK":"METADATA","EntityType":"Journey","CreatedAt":"2025-11-01T20:00:00.000000Z","Data":{"journeyId":"JRN-X"}}`
	cases := map[string]string{
		"not json":     `{`,
		"format":       `{"format":"other","journeyId":"JRN-X","items":[` + meta + `]}`,
		"journey id":   `{"format":"` + BackupFormat + `","journeyId":"JRN-Y","items":[` + meta + `]}`,
		"foreign PK":   `{"format":"` + BackupFormat + `","journeyId":"JRN-X","items":[` + meta + `,{"PK":"JOURNEY#JRN-Y","SK":"STAGE#01#a","EntityType":"StageDefinition","Data":{}}]}`,
		"unknown SK":   `{"format":"` + BackupFormat + `","journeyId":"JRN-X","items":[` + meta + `,{"PK":"JOURNEY#JRN-X","SK":"FOO#1","EntityType":"Foo","Data":{}}]}`,
		"entity type":  `{"format":"` + BackupFormat + `","journeyId":"JRN-X","items":[` + meta + `,{"PK":"JOURNEY#JRN-X","SK":"STAGE#01#a","EntityType":"JobExecution","Data":{}}]}`,
		"no metadata":  `{"format":"` + BackupFormat + `","journeyId":"JRN-X","items":[]}`,
		"duplicate SK": `{"format":"` + BackupFormat + `","journeyId":"JRN-X","items":[` + meta + `,` + meta + `]}`,
	}
	for name, doc := range cases {
		e.db.ResetCalls()
		_, err := e.store.Backups().ImportFrom(ctx, "JRN-X", strings.NewReader(doc))
		assert.ErrorIs(t, err, ErrInvalidBackup, "%s: %v", name, err)
		assert.Equal(t, 0, e.calls(), "%s: %d requests", name, e.calls())
	}
}

// TestExportNeedsABackupsStore: without Options.Backups, Export and Import
// refuse with a typed error before any request, rather than writing
// backups into the logs bucket.
func TestExportNeedsABackupsStore(t *testing.T) {
	e := newEnv(t)
	e.newJourney(t)
	s := mustStore(t, e.db, e.logs)
	e.db.ResetCalls()
	_, err := s.Backups().Export(context.Background(), "JRN-T")
	assert.ErrorIs(t, err, table.ErrInvalidInput, "export: %v", err)
	_, err = s.Backups().Import(context.Background(), "JRN-T")
	assert.ErrorIs(t, err, table.ErrInvalidInput, "import: %v", err)
	assert.Zero(t, e.calls(), "DynamoDB requests without a backups store")
	assert.Empty(t, objects(t, e.logs), "objects written to the logs store instead")
}

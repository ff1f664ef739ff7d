package journey

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/internal/compared"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/table"
)

// hookedAPI runs onWrite before every write request (PutItem, UpdateItem,
// DeleteItem, BatchWriteItem, TransactWriteItems), numbered from 1; an
// error from it fails that request without sending it. It stands between
// Import's reads and its writes, where another caller can race it.
type hookedAPI struct {
	table.API
	mu      sync.Mutex
	writes  int
	onWrite func(n int) error
}

func (h *hookedAPI) before() error {
	h.mu.Lock()
	h.writes++
	n, f := h.writes, h.onWrite
	h.mu.Unlock()
	if f == nil {
		return nil
	}
	return f(n)
}

func (h *hookedAPI) hook(f func(n int) error) {
	h.mu.Lock()
	h.writes, h.onWrite = 0, f
	h.mu.Unlock()
}

func (h *hookedAPI) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	if err := h.before(); err != nil {
		return nil, err
	}
	return h.API.PutItem(ctx, in, o...)
}

func (h *hookedAPI) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	if err := h.before(); err != nil {
		return nil, err
	}
	return h.API.UpdateItem(ctx, in, o...)
}

func (h *hookedAPI) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	if err := h.before(); err != nil {
		return nil, err
	}
	return h.API.DeleteItem(ctx, in, o...)
}

func (h *hookedAPI) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	if err := h.before(); err != nil {
		return nil, err
	}
	return h.API.BatchWriteItem(ctx, in, o...)
}

func (h *hookedAPI) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	if err := h.before(); err != nil {
		return nil, err
	}
	return h.API.TransactWriteItems(ctx, in, o...)
}

// importRig is a journey built and exported from one table (src) and
// imported into another (dst, through hooked); plain is a second store on
// dst's table that does not pass the hook: the racing caller.
type importRig struct {
	src, dst, plain *Store
	hooked          *hookedAPI
	id              string
	// want is the journey as exported: what an import must restore exactly.
	want *Complete
}

// importLogs makes the partition longer than one transaction (100
// actions), so Import needs several.
const importLogs = 150

func newImportRig(t *testing.T, api table.API, srcTable, dstTable string) *importRig {
	t.Helper()
	ctx := context.Background()
	backups := blobstore.NewMemory()
	open := func(api table.API, name string) *Store {
		return mustStore(t, api, blobstore.NewMemory(), func(o *Options) { o.TableName, o.Backups = name, backups })
	}
	r := &importRig{src: open(api, srcTable), hooked: &hookedAPI{API: api}, id: "JRN-IMPORT"}
	r.dst, r.plain = open(r.hooked, dstTable), open(api, dstTable)

	_, err := r.src.Journeys().Create(ctx, NewJourney{ID: r.id, Name: "exported"})
	require.NoError(t, err)
	_, err = r.src.Rules().Add(ctx, NewRule{JourneyID: r.id, StageID: "raw_analysis", Title: "r", Type: RuleValidation})
	require.NoError(t, err)
	job, err := r.src.Jobs().Start(ctx, NewJob{JourneyID: r.id, StageID: "raw_analysis"})
	require.NoError(t, err)
	l, err := r.src.Logs().Logger(job.Ref(), "schema_extraction")
	require.NoError(t, err)
	for i := range importLogs {
		l.Info("entry", map[string]any{"i": i})
	}
	require.NoError(t, l.Close(ctx))
	_, err = r.src.Reports().Write(ctx, job.Ref(), "schema_extraction", Report{ReportType: ReportSummary, Title: "s"})
	require.NoError(t, err)
	_, err = r.src.Jobs().Finish(ctx, job.Ref(), Finish{Status: JobCompleted})
	require.NoError(t, err)
	r.want, err = r.src.Journeys().Load(ctx, r.id, Consistent(), IncludeLogSummaries())
	require.NoError(t, err)
	_, err = r.src.Backups().Export(ctx, r.id)
	require.NoError(t, err)
	return r
}

// partitionSize counts the raw items of the journey's partition in dst.
func (r *importRig) partitionSize(t *testing.T) int {
	t.Helper()
	pk, _ := journeyPK.Build(r.id)
	n := 0
	for _, err := range table.QueryAll[table.Item](context.Background(), r.plain.t, table.Query{Partition: pk, Consistent: true}) {
		require.NoError(t, err)
		n++
	}
	return n
}

// backupBytes is the backup Export wrote.
func (r *importRig) backupBytes(t *testing.T) []byte {
	t.Helper()
	key, err := objectKey(backupObjects, r.id)
	require.NoError(t, err)
	rc, _, err := r.src.backups.Get(context.Background(), key)
	require.NoError(t, err)
	defer rc.Close()
	b, err := io.ReadAll(rc)
	require.NoError(t, err)
	return b
}

// relabelLogs returns the backup with every log summary's message set to
// msg: a second backup of the same journey, different in every log item.
func relabelLogs(t *testing.T, backup []byte, msg string) []byte {
	t.Helper()
	var b map[string]any
	require.NoError(t, json.Unmarshal(backup, &b))
	n := 0
	for _, it := range b["items"].([]any) {
		item := it.(map[string]any)
		if item[attrEntityType] == EntityLog {
			item[attrData].(map[string]any)["message"] = msg
			n++
		}
	}
	require.Equal(t, importLogs, n)
	out, err := json.Marshal(b)
	require.NoError(t, err)
	return out
}

func (r *importRig) assertRestored(t *testing.T) {
	t.Helper()
	got, err := r.plain.Journeys().Load(context.Background(), r.id, Consistent(), IncludeLogSummaries())
	require.NoError(t, err)
	assert.Equal(t, r.want, got, "the imported journey differs from the exported one")
	assert.Equal(t, 1+len(r.want.Stages)+len(r.want.Rules)+len(r.want.Jobs)+len(r.want.Logs)+len(r.want.Reports),
		r.partitionSize(t), "the partition holds items the backup does not")
}

// racer is the journey CreateJourney writes while an import runs: one
// stage the backup does not have, so a mix of the two would show.
func racer(id string) NewJourney {
	return NewJourney{ID: id, Name: "racer", Stages: []Stage{{StageID: "racer_stage"}}}
}

// importRaces runs every race and interruption of Import against api
// (the fake, or DynamoDB Local), on tables named by table(base).
func importRaces(t *testing.T, api table.API, tableName func(base string) string) {
	ctx := context.Background()
	create := func(t *testing.T, name string) {
		require.NoError(t, Schema(name).EnsureTable(ctx, api))
	}
	rig := func(t *testing.T) *importRig {
		src, dst := tableName("src"), tableName("dst")
		create(t, src)
		create(t, dst)
		return newImportRig(t, api, src, dst)
	}

	t.Run("CreateJourneyBeforeTheClaimWinsAndImportChangesNothing", func(t *testing.T) {
		r := rig(t)
		r.hooked.hook(func(n int) error {
			if n == 1 { // Import read the backup and is about to write
				_, err := r.plain.Journeys().Create(ctx, racer(r.id))
				require.NoError(t, err)
			}
			return nil
		})
		_, err := r.dst.Backups().Import(ctx, r.id)
		require.ErrorIs(t, err, ErrJourneyExists)
		got, err := r.plain.Journeys().Load(ctx, r.id, Consistent())
		require.NoError(t, err)
		assert.Equal(t, "racer", got.Journey.Name)
		require.Len(t, got.Stages, 1)
		assert.Equal(t, "racer_stage", got.Stages[0].StageID)
		assert.Empty(t, got.Rules)
		assert.Empty(t, got.Jobs)
		assert.Empty(t, got.Logs)
		assert.Empty(t, got.Reports)
		assert.Equal(t, 2, r.partitionSize(t))
	})

	t.Run("CreateJourneyAfterTheClaimFailsAndImportRestoresTheWhole", func(t *testing.T) {
		r := rig(t)
		var raceErr error
		r.hooked.hook(func(n int) error {
			if n == 2 { // the claim is written, the items are not
				_, raceErr = r.plain.Journeys().Create(ctx, racer(r.id))
			}
			return nil
		})
		_, err := r.dst.Backups().Import(ctx, r.id)
		require.NoError(t, err)
		assert.ErrorIs(t, raceErr, ErrJourneyExists)
		r.assertRestored(t)
	})

	t.Run("InterruptedImportIsInvisibleAndTheNextImportCompletesIt", func(t *testing.T) {
		r := rig(t)
		crash := errors.New("injected crash")
		r.hooked.hook(func(n int) error {
			if n == 3 { // the claim and one transaction of items are written
				return crash
			}
			return nil
		})
		_, err := r.dst.Backups().Import(ctx, r.id)
		require.ErrorIs(t, err, crash)
		r.hooked.hook(nil)

		_, err = r.plain.Journeys().Get(ctx, r.id)
		assert.ErrorIs(t, err, ErrImportInProgress)
		_, err = r.plain.Journeys().Load(ctx, r.id, Consistent())
		assert.ErrorIs(t, err, ErrImportInProgress)
		_, err = r.plain.Journeys().Create(ctx, racer(r.id))
		assert.ErrorIs(t, err, ErrJourneyExists)
		_, err = r.plain.Jobs().Start(ctx, NewJob{JourneyID: r.id, StageID: "raw_analysis"})
		assert.ErrorIs(t, err, ErrImportInProgress)
		_, err = r.plain.Journeys().Pause(ctx, r.id)
		assert.ErrorIs(t, err, ErrImportInProgress)
		for j, err := range r.plain.Journeys().All(ctx) {
			require.NoError(t, err)
			assert.NotEqual(t, r.id, j.ID, "ListJourneys shows a journey half imported")
		}

		_, err = r.plain.Backups().Import(ctx, r.id)
		require.NoError(t, err)
		r.assertRestored(t)
	})

	t.Run("ImportTakenOverMidwayWritesNothingMoreOfItsBackup", func(t *testing.T) {
		// Two imports of different backups of one journey: A claims the
		// journey and writes its first transaction of items; B (a second
		// import, which completes an interrupted one) takes the claim over
		// and finishes. A's next transaction must fail on its guard (the
		// claim is no longer A's), or A would write its backup's items
		// over B's and leave a partition that is part one backup and part
		// the other.
		r := rig(t)
		x := r.backupBytes(t)
		y := relabelLogs(t, x, "from backup Y")
		var errB error
		r.hooked.hook(func(n int) error {
			if n == 3 { // A's claim and first transaction are written
				_, errB = r.plain.Backups().ImportFrom(ctx, r.id, bytes.NewReader(y))
			}
			return nil
		})
		_, errA := r.dst.Backups().ImportFrom(ctx, r.id, bytes.NewReader(x))
		require.NoError(t, errB)
		require.ErrorIs(t, errA, ErrImportInProgress, "A went on after B took its claim over")
		got, err := r.plain.Journeys().Load(ctx, r.id, Consistent(), IncludeLogSummaries())
		require.NoError(t, err)
		require.Len(t, got.Logs, importLogs)
		for _, l := range got.Logs {
			require.Equal(t, "from backup Y", l.Message, "a log summary of backup X landed after B's import")
		}
		assert.Equal(t, 1+len(r.want.Stages)+len(r.want.Rules)+len(r.want.Jobs)+len(r.want.Logs)+len(r.want.Reports),
			r.partitionSize(t))
	})

	t.Run("OverwriteReplacesTheJourneyAsAWhole", func(t *testing.T) {
		r := rig(t)
		_, err := r.plain.Backups().Import(ctx, r.id)
		require.NoError(t, err)
		// Changes after the export: a rule and a second job.
		_, err = r.plain.Rules().Add(ctx, NewRule{JourneyID: r.id, StageID: "tmf_mapping", Title: "later", Type: RuleValidation})
		require.NoError(t, err)
		_, err = r.plain.Jobs().Start(ctx, NewJob{JourneyID: r.id, StageID: "stripped_schema"})
		require.NoError(t, err)

		_, err = r.plain.Backups().Import(ctx, r.id)
		require.ErrorIs(t, err, ErrJourneyExists, "without Overwrite an existing journey stays")
		_, err = r.plain.Backups().Import(ctx, r.id, Overwrite())
		require.NoError(t, err)
		r.assertRestored(t)
	})
}

// TestImportIsAllOrNothing: on the fake, CreateJourney racing Import on
// either side of its claim, an import interrupted half way, and Overwrite
// never leave a journey that is part backup and part something else.
func TestImportIsAllOrNothing(t *testing.T) {
	db := dynamotest.New()
	n := 0
	importRaces(t, db, func(base string) string {
		n++
		return base + "-" + string(rune('a'+n))
	})
}

// TestIntegrationImportIsAllOrNothing is TestImportIsAllOrNothing on
// DynamoDB Local.
func TestIntegrationImportIsAllOrNothing(t *testing.T) {
	client := compared.DynamoDB(t)
	importRaces(t, client, func(base string) string { return testenv.TableName(t, base) })
}

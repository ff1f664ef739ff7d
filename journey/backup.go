package journey

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/table"
)

// BackupFormat names the layout of Export's document.
const BackupFormat = "tablekit.journey.backup/v1"

// Backup is the document Export writes: every item of the journey's
// partition in the seed's notation (the plain JSON of its "Data
// Structure" examples: PK, SK, EntityType, GSI1PK, GSI1SK, CreatedAt,
// UpdatedAt, Data), so a restore reproduces the items exactly.
type Backup struct {
	Format     string           `json:"format"`
	JourneyID  string           `json:"journeyId"`
	ExportedAt Time             `json:"exportedAt"`
	Items      []map[string]any `json:"items"`
}

// ExportInfo says where an export went.
type ExportInfo struct {
	Key   string `json:"key"` // object key in the backups store: journeys/{id}/backup.json
	Items int    `json:"items"`
	Size  int64  `json:"size"` // bytes
}

// export implements [Backups.Export].
func (s *Store) export(ctx context.Context, journeyID string) (*ExportInfo, error) {
	if err := checkID("journeyId", journeyID); err != nil {
		return nil, err
	}
	backups, err := s.backupStore()
	if err != nil {
		return nil, err
	}
	pk, _ := journeyPK.Build(journeyID)
	b := Backup{Format: BackupFormat, JourneyID: journeyID, ExportedAt: Time{s.now()}}
	found := false
	for item, err := range table.QueryAll[table.Item](ctx, s.t, table.Query{Partition: pk, Consistent: true}) {
		if err != nil {
			return nil, err
		}
		if stringAttr(item, attrSK) == metadataSK {
			if claimed(item) {
				return nil, claimedError(journeyID, item, nil)
			}
			found = true
		}
		delete(item, attrRestoredBy) // the change feed's, not the journey's: a backup is the seed's notation
		j, err := itemToJSON(item)
		if err != nil {
			return nil, fmt.Errorf("journey: export %s: item %q: %w", journeyID, stringAttr(item, attrSK), err)
		}
		b.Items = append(b.Items, j)
	}
	if !found {
		return nil, notFound(ErrJourneyNotFound, journeyID, nil)
	}
	body, err := json.Marshal(b)
	if err != nil {
		return nil, fmt.Errorf("journey: export %s: %w", journeyID, err)
	}
	key, err := objectKey(backupObjects, journeyID)
	if err != nil {
		return nil, err
	}
	if err := backups.Put(ctx, key, bytes.NewReader(body), blobstore.WithContentType("application/json"),
		blobstore.WithSize(int64(len(body)))); err != nil {
		return nil, fmt.Errorf("journey: write backup %s: %w", key, err)
	}
	return &ExportInfo{Key: key, Items: len(b.Items), Size: int64(len(body))}, nil
}

// ImportOptions configure Import.
type ImportOptions struct {
	// Overwrite replaces a journey that exists, as a whole: afterwards its
	// partition holds exactly the backup's items.
	Overwrite bool
}

// Overwrite lets Import replace an existing journey.
func Overwrite() func(*ImportOptions) { return func(o *ImportOptions) { o.Overwrite = true } }

// importJourney implements [Backups.Import].
func (s *Store) importJourney(ctx context.Context, journeyID string, opts ...func(*ImportOptions)) (*Complete, error) {
	if err := checkID("journeyId", journeyID); err != nil {
		return nil, err
	}
	key, err := objectKey(backupObjects, journeyID)
	if err != nil {
		return nil, err
	}
	backups, err := s.backupStore()
	if err != nil {
		return nil, err
	}
	rc, _, err := backups.Get(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("journey: read backup of %s: %w", journeyID, err)
	}
	defer rc.Close()
	return s.importBackup(ctx, journeyID, rc, opts...)
}

// attrImportID, on a METADATA item, marks the journey as being imported:
// the item is the import's claim, not a journey to read or change.
const attrImportID = "ImportId"

// attrRestoredBy, on every item an import wrote but the METADATA item, is
// that import's id. It tells the change feed that the item was restored,
// not moved: ProgressEvents reports no job start or end for it (a running
// job restored into an empty partition would otherwise read as a job that
// started). Later writes leave it as it is, so a change that carries the
// same value before and after is the journey's own progress again.
const attrRestoredBy = "RestoredBy"

// restoredBySize bounds what attrRestoredBy adds to an item.
const restoredBySize = len(attrRestoredBy) + maxIDLength

// journeyOwn is the condition every write to a journey's METADATA item
// carries: the item is the journey's own, neither an import's claim nor
// marked by Journeys.Delete, so no job, rule or log count lands in a
// partition an import is replacing or a delete is removing.
func journeyOwn() expression.ConditionBuilder {
	return expression.AttributeNotExists(expression.Name(attrImportID)).
		And(expression.AttributeNotExists(expression.Name(attrDeleting)))
}

// importing reports whether a raw METADATA item is an import's claim.
func importing(item table.Item) bool { return stringAttr(item, attrImportID) != "" }

// claimed reports whether a raw METADATA item is not the journey's own:
// an import's claim, or marked by Journeys.Delete.
func claimed(item table.Item) bool { return importing(item) || deleting(item) }

// claimedError is the error of a call refused for a claimed METADATA item
// (cause may be nil): ErrImportInProgress, or for a journey being deleted
// ErrJourneyNotFound with ErrDeleteInProgress.
func claimedError(journeyID string, item table.Item, cause error) error {
	if deleting(item) {
		return deletingError(journeyID, cause)
	}
	if cause == nil {
		return fmt.Errorf("%w: %q", ErrImportInProgress, journeyID)
	}
	return fmt.Errorf("%w: %q: %w", ErrImportInProgress, journeyID, cause)
}

// importTxBytes keeps each of Import's transactions under DynamoDB's 4 MB
// per transaction, with room for the guard and request overhead.
const importTxBytes = 3 << 20

// importBackup implements [Backups.ImportFrom].
func (s *Store) importBackup(ctx context.Context, journeyID string, r io.Reader, opts ...func(*ImportOptions)) (*Complete, error) {
	if err := checkID("journeyId", journeyID); err != nil {
		return nil, err
	}
	if r == nil {
		return nil, inputError("r", "nil", "Backups.ImportFrom needs a reader")
	}
	var o ImportOptions
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	body, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("journey: read backup of %s: %w", journeyID, err)
	}
	var b Backup
	if err := decodeJSON(body, &b); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidBackup, err)
	}
	if b.Format != BackupFormat {
		return nil, fmt.Errorf("%w: format %q, want %q", ErrInvalidBackup, b.Format, BackupFormat)
	}
	if b.JourneyID != journeyID {
		return nil, fmt.Errorf("%w: it holds journey %q, not %q", ErrInvalidBackup, b.JourneyID, journeyID)
	}
	items, meta, err := backupItems(journeyID, b.Items)
	if err != nil {
		return nil, err
	}
	if journeyID == GlobalRules { // only Library.ImportFrom gets here
		// The rule library is not a journey to list, whatever the backup's
		// metadata says (libraries created before Library were listed).
		delete(meta, attrGSI1PK)
		delete(meta, attrGSI1SK)
	}
	importID, err := s.newID("IMP")
	if err != nil {
		return nil, err
	}
	metaKey, _ := s.journeyKey(journeyID)

	// 1. The claim.
	claim := maps.Clone(meta)
	delete(claim, attrGSI1PK)
	delete(claim, attrGSI1SK)
	claim[attrImportID] = &types.AttributeValueMemberS{Value: importID}
	// Never over a journey Journeys.Delete is removing: its items are
	// being deleted without a guard an import's writes would pass.
	cond := expression.AttributeNotExists(expression.Name(attrDeleting))
	if !o.Overwrite {
		cond = expression.AttributeNotExists(expression.Name(attrPK)).
			Or(expression.AttributeExists(expression.Name(attrImportID)))
	}
	if err := s.t.Put(ctx, claim, table.If(cond), table.ItemOnConditionFailure()); err != nil {
		if item := tableErrorItem(err); deleting(item) {
			return nil, claimedError(journeyID, item, err)
		}
		if errors.Is(err, table.ErrConditionFailed) {
			return nil, fmt.Errorf("%w: %q: %w", ErrJourneyExists, journeyID, err)
		}
		return nil, err
	}
	s.log(ctx, "import claimed", "journeyId", journeyID, "importId", importID, "items", len(items)+1)

	// 2. The items: the backup's, and deletes of everything else.
	keep := make(map[string]bool, len(items))
	for _, it := range items {
		keep[stringAttr(it, attrSK)] = true
	}
	pk, _ := journeyPK.Build(journeyID)
	var stale []table.Key
	keysOnly := expression.NamesList(expression.Name(attrPK), expression.Name(attrSK))
	q := table.Query{Partition: pk, Consistent: true, Projection: &keysOnly}
	for item, err := range table.QueryAll[table.Item](ctx, s.t, q) {
		if err != nil {
			return nil, err
		}
		if sk := stringAttr(item, attrSK); sk != metadataSK && !keep[sk] {
			stale = append(stale, s.t.Key(pk, sk))
		}
	}
	guard := expression.Name(attrImportID).Equal(expression.Value(importID))
	var tx *table.WriteTx
	actions, size := 0, 0
	flush := func() error {
		if actions == 0 {
			return nil
		}
		err := tx.Run(ctx)
		tx, actions, size = nil, 0, 0
		if failedAction(err) == 0 {
			return fmt.Errorf("%w: %q: another import took the journey over: %w", ErrImportInProgress, journeyID, err)
		}
		return err
	}
	add := func(n int, write func(*table.WriteTx)) error {
		if tx != nil && (actions == 99 || size+n > importTxBytes) {
			if err := flush(); err != nil {
				return err
			}
		}
		if tx == nil {
			tx = s.t.WriteTx().Check(metaKey, guard)
		}
		write(tx)
		actions, size = actions+1, size+n
		return nil
	}
	for _, it := range items {
		restored := maps.Clone(it)
		restored[attrRestoredBy] = &types.AttributeValueMemberS{Value: importID}
		if err := add(table.ItemSize(restored), func(tx *table.WriteTx) { tx.Put(restored) }); err != nil {
			return nil, err
		}
	}
	for _, k := range stale {
		if err := add(table.ItemSize(table.Item(k)), func(tx *table.WriteTx) { tx.Delete(k) }); err != nil {
			return nil, err
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}

	// 3. The swap.
	if err := s.t.Put(ctx, meta, table.If(guard)); err != nil {
		if errors.Is(err, table.ErrConditionFailed) {
			return nil, fmt.Errorf("%w: %q: another import took the journey over: %w", ErrImportInProgress, journeyID, err)
		}
		return nil, err
	}
	s.log(ctx, "import done", "journeyId", journeyID, "importId", importID, "deleted", len(stale))
	return s.decodePartition(ctx, append(items, meta))
}

// backupItems converts and checks a backup's items; the metadata item is
// returned apart.
func backupItems(journeyID string, raw []map[string]any) ([]table.Item, table.Item, error) {
	pk, _ := journeyPK.Build(journeyID)
	var items []table.Item
	var meta table.Item
	seen := map[string]bool{}
	for i, m := range raw {
		item, err := jsonToItem(m)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: item %d: %v", ErrInvalidBackup, i, err)
		}
		sk := stringAttr(item, attrSK)
		bad := func(reason string) error {
			return fmt.Errorf("%w: item %d (SK %q): %s", ErrInvalidBackup, i, sk, reason)
		}
		if got := stringAttr(item, attrPK); got != pk {
			return nil, nil, bad(fmt.Sprintf("PK is %q, not %q", got, pk))
		}
		if seen[sk] {
			return nil, nil, bad("the sort key appears twice")
		}
		seen[sk] = true
		want := ""
		switch {
		case sk == metadataSK:
			want = EntityJourney
		case stageSK.Match(sk):
			want = EntityStage
		case ruleSK.Match(sk):
			want = EntityRule
		case jobSK.Match(sk):
			want = EntityJob
		case logSK.Match(sk):
			want = EntityLog
		case reportSK.Match(sk):
			want = EntityReport
		default:
			return nil, nil, bad("not one of the seed's sort key shapes")
		}
		if got := stringAttr(item, attrEntityType); got != want {
			return nil, nil, bad(fmt.Sprintf("EntityType %q, the key is a %s's", got, want))
		}
		if _, ok := item[attrData]; !ok {
			return nil, nil, bad("no Data")
		}
		// Import adds attrRestoredBy to every item but the metadata.
		if table.ItemSize(item)+restoredBySize > table.MaxItemSize {
			return nil, nil, bad(fmt.Sprintf("%d bytes, over DynamoDB's item limit once marked as restored", table.ItemSize(item)))
		}
		if want == EntityJourney {
			meta = item
			continue
		}
		items = append(items, item)
	}
	if meta == nil {
		return nil, nil, fmt.Errorf("%w: no METADATA item", ErrInvalidBackup)
	}
	return items, meta, nil
}

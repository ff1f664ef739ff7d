package journey

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

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
	Key   string // object key in the backups store: journeys/{id}/backup.json
	Items int
	Size  int64 // bytes
}

// Export writes the whole journey (every item of its partition, log
// summaries included) as one JSON object to the backups store at
// journeys/{id}/backup.json, the seed's on-demand backup.
func (s *Store) Export(ctx context.Context, journeyID string) (*ExportInfo, error) {
	if s.err != nil {
		return nil, s.err
	}
	if err := checkID("journeyId", journeyID); err != nil {
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
			found = true
		}
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
	key := backupObjectKey(journeyID)
	if err := s.backups.Put(ctx, key, bytes.NewReader(body), blobstore.WithContentType("application/json"),
		blobstore.WithSize(int64(len(body)))); err != nil {
		return nil, fmt.Errorf("journey: write backup %s: %w", key, err)
	}
	return &ExportInfo{Key: key, Items: len(b.Items), Size: int64(len(body))}, nil
}

// ImportOptions configure Import.
type ImportOptions struct {
	// Overwrite replaces the items of a journey that exists. Items in the
	// table that the backup does not hold are left alone.
	Overwrite bool
}

// Overwrite lets Import replace an existing journey's items.
func Overwrite() func(*ImportOptions) { return func(o *ImportOptions) { o.Overwrite = true } }

// Import restores the journey from journeys/{id}/backup.json in the
// backups store. See ImportBackup.
func (s *Store) Import(ctx context.Context, journeyID string, opts ...func(*ImportOptions)) (*Complete, error) {
	if s.err != nil {
		return nil, s.err
	}
	if err := checkID("journeyId", journeyID); err != nil {
		return nil, err
	}
	rc, _, err := s.backups.Get(ctx, backupObjectKey(journeyID))
	if err != nil {
		return nil, fmt.Errorf("journey: read backup of %s: %w", journeyID, err)
	}
	defer rc.Close()
	return s.ImportBackup(ctx, journeyID, rc, opts...)
}

// ImportBackup restores a journey from a document Export wrote (or one
// in the same notation). Every item is checked before anything is sent:
// it must belong to journeyID's partition and have one of the seed's key
// shapes, or the import fails with ErrInvalidBackup. Unless Overwrite, a
// journey that exists is ErrJourneyExists. The metadata item is written
// last, conditional on not existing, so a journey never appears in
// ListJourneys half restored.
func (s *Store) ImportBackup(ctx context.Context, journeyID string, r io.Reader, opts ...func(*ImportOptions)) (*Complete, error) {
	if s.err != nil {
		return nil, s.err
	}
	if err := checkID("journeyId", journeyID); err != nil {
		return nil, err
	}
	var o ImportOptions
	for _, f := range opts {
		f(&o)
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
	if !o.Overwrite {
		if _, err := s.GetJourney(ctx, journeyID, Consistent()); err == nil {
			return nil, fmt.Errorf("%w: %q", ErrJourneyExists, journeyID)
		} else if !errors.Is(err, ErrJourneyNotFound) {
			return nil, err
		}
	}
	puts := make([]any, 0, len(items))
	for _, it := range items {
		puts = append(puts, it)
	}
	if len(puts) > 0 {
		if err := s.t.BatchWrite(ctx, puts, nil); err != nil {
			return nil, err
		}
	}
	var put []func(*table.WriteOptions)
	if !o.Overwrite {
		put = append(put, table.IfNotExists())
	}
	if err := s.t.Put(ctx, meta, put...); err != nil {
		if errors.Is(err, table.ErrAlreadyExists) {
			return nil, fmt.Errorf("%w: %q: %w", ErrJourneyExists, journeyID, err)
		}
		return nil, err
	}
	c, err := decodePartition(append(items, meta))
	if err != nil {
		return nil, err
	}
	return c, nil
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
		if table.ItemSize(item) > table.MaxItemSize {
			return nil, nil, bad(fmt.Sprintf("%d bytes, over DynamoDB's item limit", table.ItemSize(item)))
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

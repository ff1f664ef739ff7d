// Command albums is a user's own single-table service built on package
// entity, the way a team whose domain is none of tablekit's stores builds
// one: albums, their photos and shares in one table with one overloaded
// index (GSI1, a user's albums and photos), large photo metadata offloaded
// to S3, an album read with its photos and shares in one Query, a
// transaction that adds a photo and counts it, a paged listing, an
// optimistic update that loses a race, and a change consumer that follows
// the table's stream as typed values.
//
//	go run ./examples/albums             # in-memory fake, in-memory blobs
//	TABLEKIT_DYNAMODB_ENDPOINT=http://127.0.0.1:8000 \
//	TABLEKIT_S3_ENDPOINT=http://127.0.0.1:4568 go run ./examples/albums
//	go run ./examples/albums -aws         # real AWS, default config chain
//
// Each run makes its own table (and the consumer's lease table) and
// deletes them at the end unless -keep is given; it exits non-zero on any
// failure or unexpected outcome.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/datamodel"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/examples/internal/exampleenv"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

// The service's records: plain structs, stored as attributevalue writes
// them, plus the keys the declarations below compute.

// Album is a user's photo album.
type Album struct {
	ID         string    `dynamodbav:"albumId"`
	OwnerID    string    `dynamodbav:"ownerId"`
	Title      string    `dynamodbav:"title"`
	Visibility string    `dynamodbav:"visibility"`
	PhotoCount int       `dynamodbav:"photoCount"`
	CreatedAt  time.Time `dynamodbav:"createdAt"`
	UpdatedAt  time.Time `dynamodbav:"updatedAt"`
	Version    int       `dynamodbav:"version"`
}

// Photo is a photo of an album; Metadata (EXIF, labels, a thumbnail) can
// be large, and moves to S3 when it is.
type Photo struct {
	AlbumID  string    `dynamodbav:"albumId"`
	ID       string    `dynamodbav:"photoId"`
	OwnerID  string    `dynamodbav:"ownerId"`
	TakenAt  time.Time `dynamodbav:"takenAt"`
	Caption  string    `dynamodbav:"caption,omitempty"`
	Metadata string    `dynamodbav:"metadata,omitempty"`
	Created  time.Time `dynamodbav:"createdAt"`
}

// Share gives another user access to an album, until it expires.
type Share struct {
	AlbumID   string    `dynamodbav:"albumId"`
	UserID    string    `dynamodbav:"userId"`
	Role      string    `dynamodbav:"role"`
	ExpiresAt time.Time `dynamodbav:"expiresAt,unixtime"`
}

// Schema is the service's table: pk/sk, GSI1 for a user's things, a TTL
// for shares, and a stream for the change consumer.
func Schema(name string) table.Schema {
	s := func(n string) table.Attribute { return table.Attribute{Name: n, Type: types.ScalarAttributeTypeS} }
	return table.Schema{Name: name, PartitionKey: s("pk"), SortKey: s("sk"),
		Indexes:      []table.Index{{Name: "GSI1", PartitionKey: s("gsi1pk"), SortKey: s("gsi1sk")}},
		TTLAttribute: "expiresAt", Stream: types.StreamViewTypeNewAndOldImages}
}

// Service is the albums service: its entities and the moves it makes.
type Service struct {
	reg    *entity.Registry
	albums *entity.Entity[Album]
	photos *entity.Entity[Photo]
	shares *entity.Entity[Share]
	// view is an album with its photos and shares: one partition.
	view *entity.Collection
}

// NewService declares the entities once; a bad declaration fails here.
func NewService(t *table.Table, blobs blobstore.Store) (*Service, error) {
	reg, err := entity.NewRegistry(t, entity.Blobs(blobs), entity.OffloadThreshold(64*1024))
	if err != nil {
		return nil, err
	}
	s := &Service{reg: reg}
	//	pk ALBUM#<albumId>  sk ALBUM              gsi1pk USER#<ownerId>  gsi1sk ALBUM#<createdAt>
	//	pk ALBUM#<albumId>  sk PHOTO#<photoId>    gsi1pk USER#<ownerId>  gsi1sk PHOTO#<takenAt>#<photoId>
	//	pk ALBUM#<albumId>  sk SHARE#<userId>
	if s.albums, err = entity.New[Album](reg, "album",
		entity.Key("ALBUM#{albumId}", "ALBUM"),
		entity.Index("GSI1", "USER#{ownerId}", "ALBUM#{createdAt:time}"),
		entity.Timestamps("createdAt", "updatedAt"),
		entity.Version("version"),
		entity.Required("title", "ownerId"),
		entity.Enum("visibility", "private", "public"),
		entity.Bounds("photoCount", 0, 100_000)); err != nil {
		return nil, err
	}
	if s.photos, err = entity.New[Photo](reg, "photo",
		entity.Key("ALBUM#{albumId}", "PHOTO#{photoId}"),
		entity.Index("GSI1", "USER#{ownerId}", "PHOTO#{takenAt:time}#{photoId}"),
		entity.Timestamps("createdAt", ""),
		entity.Offload("metadata"),
		entity.Required("ownerId")); err != nil {
		return nil, err
	}
	if s.shares, err = entity.New[Share](reg, "share",
		entity.Key("ALBUM#{albumId}", "SHARE#{userId}"),
		entity.TTL("expiresAt", 30*24*time.Hour),
		entity.Enum("role", "viewer", "editor")); err != nil {
		return nil, err
	}
	if s.view, err = entity.NewCollection(reg, "albumView", "", s.albums, s.photos, s.shares); err != nil {
		return nil, err
	}
	return s, nil
}

// AddPhoto creates a photo and counts it on its album in one transaction:
// both or neither, so the count never drifts.
func (s *Service) AddPhoto(ctx context.Context, p Photo) error {
	return entity.Transact(ctx,
		s.photos.TxCreate(p),
		s.albums.Patch(Album{ID: p.AlbumID}).Add("photoCount", 1).Action())
}

// AlbumView is an album with its photos and shares, read in one Query.
type AlbumView struct {
	Album  Album
	Photos []Photo
	Shares []Share
}

// View reads an album's partition.
func (s *Service) View(ctx context.Context, albumID string) (AlbumView, error) {
	var v AlbumView
	for item, err := range s.view.Items(ctx, Album{ID: albumID}, entity.Consistent()) {
		if err != nil {
			return v, err
		}
		switch it := item.(type) {
		case Album:
			v.Album = it
		case Photo:
			v.Photos = append(v.Photos, it)
		case Share:
			v.Shares = append(v.Shares, it)
		}
	}
	if v.Album.ID == "" {
		return v, fmt.Errorf("album %q: %w", albumID, table.ErrNotFound)
	}
	return v, nil
}

// UserPhotos is one page of a user's photos, newest first (GSI1).
func (s *Service) UserPhotos(ctx context.Context, userID, cursor string, limit int) (table.Page[Photo], error) {
	return s.photos.List(ctx, Photo{OwnerID: userID}, cursor, entity.ByIndex("GSI1"), entity.Descending(), entity.Limit(limit))
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "albums example:", err)
		os.Exit(1)
	}
}

// run is the whole program; its flags are its own FlagSet, so the test
// can run it twice in one process.
func run(args []string, out io.Writer) (err error) {
	fs := flag.NewFlagSet("albums", flag.ContinueOnError)
	useAWS := fs.Bool("aws", false, exampleenv.AWSFlagUsage)
	bucket := fs.String("bucket", "tablekit-examples", "S3 bucket for offloaded photo metadata")
	keep := fs.Bool("keep", false, "keep the tables this run created")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	env, err := exampleenv.Open(ctx, exampleenv.Config{AWS: *useAWS, Bucket: *bucket})
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "using", env)

	run := strings.ToLower(keys.ULIDs()(time.Now())[16:]) // the run's own names
	tableName, leaseTable := "albums-"+run, "tablekit-changes-albums-"+run
	if !*keep {
		defer func() {
			for _, name := range []string{tableName, leaseTable} {
				_, derr := env.DB.DeleteTable(context.WithoutCancel(ctx), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
				var nf *types.ResourceNotFoundException
				if derr != nil && !errors.As(derr, &nf) {
					err = errors.Join(err, fmt.Errorf("delete table %s: %w", name, derr))
				}
			}
		}()
	}
	tbl := table.New(env.DB, Schema(tableName))
	if err := tbl.EnsureTable(ctx); err != nil {
		return fmt.Errorf("table: %w", err)
	}
	svc, err := NewService(tbl, env.Blobs)
	if err != nil {
		return err
	}
	consumer, err := changes.New[table.Item](env.DB, env.Streams, tableName, changes.Decode(changes.DecodeItem),
		changes.LeaseTable(leaseTable), changes.PollInterval(0))
	if err != nil {
		return err
	}
	if err := consumer.EnsureTable(ctx); err != nil {
		return fmt.Errorf("lease table: %w", err)
	}
	fmt.Fprintln(out, "table", tableName, "with GSI1 and a stream; entities", svc.reg.Names())

	// Albums: a create, and a second create of the same id refused.
	alice, bob := "alice-"+run, "bob-"+run
	album, err := svc.albums.Create(ctx, Album{ID: "trip-" + run, OwnerID: alice, Title: "Alps 2025", Visibility: "private"})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "created album %s (version %d)\n", album.ID, album.Version)
	if _, err := svc.albums.Create(ctx, album); !errors.Is(err, table.ErrAlreadyExists) {
		return fmt.Errorf("a second create of %s: want ErrAlreadyExists, got %v", album.ID, err)
	}
	if _, err := svc.albums.Create(ctx, Album{ID: "bad#id", OwnerID: alice, Title: "t"}); !errors.Is(err, keys.ErrDelimiter) {
		return fmt.Errorf("an id holding the delimiter: want keys.ErrDelimiter, got %v", err)
	}
	fmt.Fprintln(out, "a second create is refused (ErrAlreadyExists), an id holding '#' too (keys.ErrDelimiter)")

	// Photos: each added and counted in one transaction; the last one's
	// metadata is large, and goes to S3.
	taken := time.Date(2025, 7, 14, 9, 0, 0, 0, time.UTC)
	for i := range 5 {
		p := Photo{AlbumID: album.ID, ID: fmt.Sprintf("p%d", i), OwnerID: alice, TakenAt: taken.Add(time.Duration(i) * time.Hour),
			Caption: fmt.Sprintf("photo %d", i), Metadata: `{"exif":{"camera":"X100"}}`}
		if i == 4 {
			p.Metadata = `{"labels":"` + strings.Repeat("mountain,", 20_000) + `"}` // ~180 KB
		}
		if err := svc.AddPhoto(ctx, p); err != nil {
			return fmt.Errorf("add photo %s: %w", p.ID, err)
		}
	}
	if err := svc.AddPhoto(ctx, Photo{AlbumID: album.ID, ID: "p0", OwnerID: alice, TakenAt: taken}); !errors.Is(err, table.ErrAlreadyExists) {
		return fmt.Errorf("adding p0 again: want ErrAlreadyExists, got %v", err)
	}
	fmt.Fprintln(out, "added 5 photos, each with its count in one transaction; adding p0 again changed nothing")
	raw, err := rawItem(ctx, tbl, "ALBUM#"+album.ID, "PHOTO#p4")
	if err != nil {
		return err
	}
	ptr, ok := blobstore.PointerOf(raw["metadata"])
	if !ok {
		return errors.New("p4's metadata was not offloaded")
	}
	fmt.Fprintf(out, "p4's %d-byte metadata is in the blob store at %s; its item is %d bytes\n", ptr.Size, ptr.Key, table.ItemSize(raw))

	// Shares: one for bob.
	if _, err := svc.shares.Create(ctx, Share{AlbumID: album.ID, UserID: bob, Role: "viewer"}); err != nil {
		return err
	}

	// The album with everything in it: one Query.
	view, err := svc.View(ctx, album.ID)
	if err != nil {
		return err
	}
	if view.Album.PhotoCount != 5 || len(view.Photos) != 5 || len(view.Shares) != 1 || len(view.Photos[4].Metadata) < 100_000 {
		return fmt.Errorf("album view: count %d, %d photos, %d shares", view.Album.PhotoCount, len(view.Photos), len(view.Shares))
	}
	fmt.Fprintf(out, "album view in one Query: %q, %d photos (count %d), shared with %s until %s\n",
		view.Album.Title, len(view.Photos), view.Album.PhotoCount, view.Shares[0].UserID, view.Shares[0].ExpiresAt.Format(time.DateOnly))

	// A paged listing: alice's photos, newest first, two a page.
	var order []string
	cursor, pages := "", 0
	for {
		page, err := svc.UserPhotos(ctx, alice, cursor, 2)
		if err != nil {
			return err
		}
		for _, p := range page.Items {
			order = append(order, p.ID)
		}
		pages++
		if cursor = page.Next; cursor == "" {
			break
		}
	}
	if want := "p4 p3 p2 p1 p0"; strings.Join(order, " ") != want {
		return fmt.Errorf("alice's photos: got %v, want %s", order, want)
	}
	fmt.Fprintf(out, "alice's photos, newest first, %d pages of 2: %v\n", pages, order)

	// Optimistic locking: two edits of the same version, one wins.
	mine, theirs := view.Album, view.Album
	mine.Title, theirs.Title = "Alps, summer 2025", "Alps!"
	saved, err := svc.albums.Put(ctx, mine)
	if err != nil {
		return err
	}
	if _, err := svc.albums.Put(ctx, theirs); !errors.Is(err, entity.ErrVersionConflict) {
		return fmt.Errorf("a stale put: want ErrVersionConflict, got %v", err)
	}
	fmt.Fprintf(out, "renamed to %q (version %d); an edit of version %d was refused (ErrVersionConflict)\n", saved.Title, saved.Version, view.Album.Version)

	// The change consumer: every change so far, as typed values.
	counts := map[string]int{}
	for {
		n, err := consumer.Step(ctx, func(ctx context.Context, batch []changes.Change[table.Item]) error {
			for _, ch := range batch {
				v, ok, err := svc.reg.FromChange(ctx, ch)
				if err != nil {
					return err
				}
				if ok {
					counts[fmt.Sprintf("%T", v)]++
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("consumer: %w", err)
		}
		if n == 0 {
			break
		}
	}
	if counts["main.Photo"] != 5 || counts["main.Share"] != 1 || counts["main.Album"] < 7 {
		return fmt.Errorf("changes seen: %v", counts)
	}
	fmt.Fprintf(out, "the stream, decoded: %d album, %d photo and %d share changes\n", counts["main.Album"], counts["main.Photo"], counts["main.Share"])

	// What this run called is the service's access patterns: datamodel
	// prices them (at the rates the service expects) and writes the
	// least-privilege policy of the table.
	patterns := svc.reg.Patterns()
	fmt.Fprintln(out, "access patterns of this run:")
	for _, p := range patterns {
		fmt.Fprintf(out, "  %-48s %-18s %s\n", p.Name, p.Operation, p.KeyCondition)
	}
	rates := map[string]float64{}
	for _, p := range patterns {
		rates[p.Name] = 10 // the service's expected peak, per pattern
	}
	est, err := datamodel.EstimateSchema(tbl.Schema(), patterns, datamodel.WithRates(rates), datamodel.WithEntities(svc.reg.Entities()))
	if err != nil {
		return err
	}
	policy, err := datamodel.PolicyFor(tbl.Schema(), patterns)
	if err != nil {
		return err
	}
	// One clause per statement: the actions and what they are granted on
	// (the table, or an index of it), as the policy says them.
	var grants []string
	for _, st := range policy.Statement {
		var on []string
		for _, arn := range st.Resource {
			_, name, _ := strings.Cut(arn, ":table/")
			on = append(on, name)
		}
		grants = append(grants, strings.Join(st.Action, " ")+" on "+strings.Join(on, ", "))
	}
	fmt.Fprintf(out, "at 10 requests/s each: $%.2f a month on demand; runtime policy: %s\n", est.MonthlyCost, strings.Join(grants, "; "))
	return nil
}

// rawItem reads an item as stored, to show what the table holds.
func rawItem(ctx context.Context, t *table.Table, pk, sk string) (table.Item, error) {
	var item table.Item
	err := t.Get(ctx, t.Key(pk, sk), &item, table.Consistent())
	return item, err
}

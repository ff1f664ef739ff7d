package entity_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/table"
)

// A user's own single-table design: albums keyed by id, listed by owner
// through GSI1.
func ExampleNew() {
	ctx := context.Background()
	db := dynamotest.New()
	s := func(n string) table.Attribute { return table.Attribute{Name: n, Type: types.ScalarAttributeTypeS} }
	schema := table.Schema{Name: "albums", PartitionKey: s("pk"), SortKey: s("sk"),
		Indexes: []table.Index{{Name: "GSI1", PartitionKey: s("gsi1pk"), SortKey: s("gsi1sk")}}}
	if err := schema.EnsureTable(ctx, db); err != nil {
		panic(err)
	}
	type Album struct {
		ID        string    `dynamodbav:"albumId"`
		OwnerID   string    `dynamodbav:"ownerId"`
		Title     string    `dynamodbav:"title"`
		CreatedAt time.Time `dynamodbav:"createdAt"`
		Version   int       `dynamodbav:"version"`
	}
	reg, err := entity.NewRegistry(table.New(db, schema))
	if err != nil {
		panic(err)
	}
	albums, err := entity.New[Album](reg, "album",
		entity.Key("ALBUM#{albumId}", "ALBUM"),
		entity.Index("GSI1", "USER#{ownerId}", "ALBUM#{createdAt:time}"),
		entity.Timestamps("createdAt", ""),
		entity.Version("version"),
		entity.Required("title"))
	if err != nil {
		panic(err)
	}
	a, err := albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "Alps"})
	fmt.Println(a.Title, a.Version, err)
	_, err = albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "again"})
	fmt.Println(errors.Is(err, table.ErrAlreadyExists))
	a.Title = "Alps 2025"
	a, err = albums.Put(ctx, a)
	fmt.Println(a.Title, a.Version, err)
	page, err := albums.List(ctx, Album{OwnerID: "u1"}, "", entity.ByIndex("GSI1"))
	fmt.Println(len(page.Items), page.Items[0].Title, err)
	// A Delete is conditional on the item existing; Unchecked drops that
	// and says whether there was one.
	deleted, err := albums.Delete(ctx, Album{ID: "a1"})
	fmt.Println(deleted, err)
	_, err = albums.Delete(ctx, Album{ID: "a1"})
	fmt.Println(errors.Is(err, table.ErrNotFound))
	deleted, err = albums.Delete(ctx, Album{ID: "a1"}, entity.Unchecked())
	fmt.Println(deleted, err)
	// Output:
	// Alps 1 <nil>
	// true
	// Alps 2025 2 <nil>
	// 1 Alps 2025 <nil>
	// true <nil>
	// true
	// false <nil>
}

// A typed update: Patch writes only an existing item.
func ExampleEntity_Patch() {
	ctx := context.Background()
	e := exampleEnv()
	_, _ = e.albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "Alps"})
	a, err := e.albums.Patch(Album{ID: "a1"}).Add("photoCount", 3).Append("tags", "snow").Run(ctx)
	fmt.Println(a.PhotoCount, a.Tags, a.Version, err)
	_, err = e.albums.Patch(Album{ID: "nosuch"}).Add("photoCount", 1).Run(ctx)
	fmt.Println(errors.Is(err, table.ErrNotFound))
	// Output:
	// 3 [snow] 2 <nil>
	// true
}

// A read transaction: an album and one of its photos as one snapshot (no
// write lands between the two reads), each decoded into its own type; a
// missing item is its own read's table.ErrNotFound.
func ExampleTransactGet() {
	ctx := context.Background()
	e := exampleEnv()
	_, _ = e.albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "Alps"})
	_, _ = e.photos.Create(ctx, Photo{AlbumID: "a1", ID: "p1", OwnerID: "u1", TakenAt: e.db.Now(), Caption: "summit"})
	album := e.albums.TxGet(Album{ID: "a1"})
	photo := e.photos.TxGet(Photo{AlbumID: "a1", ID: "p1"})
	other := e.photos.TxGet(Photo{AlbumID: "a1", ID: "p2"})
	err := entity.TransactGet(ctx, album, photo, other)
	fmt.Println(errors.Is(err, table.ErrNotFound))
	a, err := album.Value()
	fmt.Println(a.Title, err)
	p, err := photo.Value()
	fmt.Println(p.Caption, err)
	_, err = other.Value()
	fmt.Println(errors.Is(err, table.ErrNotFound))
	// Output:
	// true
	// Alps <nil>
	// summit <nil>
	// true
}

// A projection: the title of an album, not the album. AlbumTitle is a
// type of its own, so it cannot be Put back as the whole album.
func ExampleGetAs() {
	ctx := context.Background()
	e := exampleEnv()
	_, _ = e.albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "Alps", Tags: []string{"snow"}})
	type AlbumTitle struct {
		ID    string `dynamodbav:"albumId"`
		Title string `dynamodbav:"title"`
	}
	t, err := entity.GetAs[AlbumTitle](ctx, e.albums, Album{ID: "a1"})
	fmt.Printf("%+v %v\n", t, err)
	// Output:
	// {ID:a1 Title:Alps} <nil>
}

// A listing of titles only: ListAs reads the page List would read, in the
// same order and with the same cursor, and asks DynamoDB for the
// attributes the smaller struct names (and what the listing's meanings
// need: keys, the type attribute, the TTL).
func ExampleListAs() {
	ctx := context.Background()
	e := exampleEnv()
	for _, id := range []string{"a2", "a1", "a3"} {
		_, _ = e.albums.Create(ctx, Album{ID: id, OwnerID: "u1", Title: "Album " + id})
	}
	type AlbumTitle struct {
		ID    string `dynamodbav:"albumId"`
		Title string `dynamodbav:"title"`
	}
	page, err := entity.ListAs[AlbumTitle](ctx, e.albums, Album{OwnerID: "u1"}, "", entity.ByIndex("GSI1"), entity.Limit(2))
	fmt.Printf("%+v %v %v\n", page.Items, page.Next != "", err)
	page, err = entity.ListAs[AlbumTitle](ctx, e.albums, Album{OwnerID: "u1"}, page.Next, entity.ByIndex("GSI1"), entity.Limit(2))
	fmt.Printf("%+v %v %v\n", page.Items, page.Next != "", err)
	// Output:
	// [{ID:a1 Title:Album a1} {ID:a2 Title:Album a2}] true <nil>
	// [{ID:a3 Title:Album a3}] false <nil>
}

// A project's tasks listed by priority within the project, on a local
// secondary index: the partition is the table's, the index sorts it
// another way, and a read of it may be strongly consistent.
func ExampleLocalIndex() {
	ctx := context.Background()
	db := dynamotest.New()
	s := func(n string) table.Attribute { return table.Attribute{Name: n, Type: types.ScalarAttributeTypeS} }
	schema := table.Schema{Name: "projects", PartitionKey: s("pk"), SortKey: s("sk"),
		Indexes: []table.Index{{Name: "LSI1", PartitionKey: s("pk"), SortKey: s("lsi1sk"), Local: true}}}
	if err := schema.EnsureTable(ctx, db); err != nil { // CreateTable: the only time an LSI can be made
		panic(err)
	}
	type Task struct {
		ProjectID string `dynamodbav:"projectId"`
		ID        string `dynamodbav:"taskId"`
		Priority  int    `dynamodbav:"priority"`
	}
	reg, err := entity.NewRegistry(table.New(db, schema))
	if err != nil {
		panic(err)
	}
	tasks, err := entity.New[Task](reg, "task",
		entity.Key("PROJECT#{projectId}", "TASK#{taskId}"),
		entity.LocalIndex("LSI1", "P#{priority:02d}"))
	if err != nil {
		panic(err)
	}
	for _, v := range []Task{{"p1", "write", 2}, {"p1", "test", 1}, {"p1", "ship", 3}} {
		if _, err := tasks.Create(ctx, v); err != nil {
			panic(err)
		}
	}
	for v, err := range tasks.Items(ctx, Task{ProjectID: "p1"}, entity.ByIndex("LSI1"), entity.Consistent()) {
		fmt.Println(v.Priority, v.ID, err)
	}
	// Output:
	// 1 test <nil>
	// 2 write <nil>
	// 3 ship <nil>
}

package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/pipeline"
	"github.com/tablekit/tablekit/table"
)

func inspectCommand() *command {
	return &command{
		name:    "inspect",
		args:    "<partition key value>",
		summary: "print one partition of a store's table, or of any table (or of an index), grouped by entity",
		help: `Reads every item whose partition key is the value given (a strongly consistent
Query of the table, or an eventually consistent one of -index), and prints them
grouped by entity: for a store built on package entity (pipeline), the entity
each item's key shape belongs to (pipeline, version, execution, group, tag, ...);
else the item's type attribute (-type-attribute, default "_type", what package
entity writes for a service's own entities) or EntityType (the journey design,
docs/systems/journey.md); else the sort key's prefix before its first '#' or ':'
(META, EVENT, ...). Without -store, -table names any table; its keys come from
DescribeTable. Example:

  tablekit inspect -store tasks TASK#t-123
  tablekit inspect -store pipeline P:01HF3Q0Z8W6T4X1N5R2K7M9C3D
  tablekit inspect -table albums ALBUM#a1
  tablekit inspect -store tasks -index GSI1 STATUS#PENDING -limit 20`,
		setup: func(fs *flag.FlagSet, a *app) runner {
			var sf storeFlags
			sf.register(fs, true)
			index := fs.String("index", "", "a global secondary index to read instead of the table")
			limit := fs.Int("limit", 1000, "read at most this many items (0: all)")
			typeAttr := fs.String("type-attribute", entity.DefaultTypeAttribute, "the attribute naming each item's entity")
			return func(ctx context.Context, args []string) error {
				return inspect(ctx, a, &sf, *index, *limit, *typeAttr, args)
			}
		},
	}
}

// entityGroup is the items of one kind.
type entityGroup struct {
	Kind  string           `json:"kind"`
	Items []map[string]any `json:"items"`
}

func inspect(ctx context.Context, a *app, sf *storeFlags, index string, limit int, typeAttr string, args []string) error {
	if len(args) != 1 || args[0] == "" {
		return usagef("inspect takes one partition key value")
	}
	if limit < 0 {
		return usagef("-limit %d: want 0 or more", limit)
	}
	c, err := a.connect(ctx)
	if err != nil {
		return err
	}
	var sc table.Schema
	if sf.store == "" && sf.table != "" {
		if sc, err = describedSchema(ctx, c.db, sf.table); err != nil {
			return err
		}
	} else if sc, err = sf.schemaOf(sf.store); err != nil {
		return err
	}
	kinds := kindsOf(c.db, sf.store, sc, typeAttr)
	pkName, pkType := sc.PartitionKey.Name, sc.PartitionKey.Type
	skName := sc.SortKey.Name
	if index != "" {
		idx, ok := sc.Index(index)
		if !ok {
			return usagef("-index %q: the %s table has no such index", index, sc.Name)
		}
		// The kind still comes from the base table's sort key: it is what
		// the item is, where the index's sort key is only where it stands.
		pkName, pkType = idx.PartitionKey.Name, idx.PartitionKey.Type
	}
	var value types.AttributeValue = &types.AttributeValueMemberS{Value: args[0]}
	if pkType == types.ScalarAttributeTypeN {
		value = &types.AttributeValueMemberN{Value: args[0]}
	}
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(sc.Name),
		KeyConditionExpression:    aws.String("#pk = :pk"),
		ExpressionAttributeNames:  map[string]string{"#pk": pkName},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": value},
	}
	if index != "" {
		in.IndexName = aws.String(index)
	} else {
		in.ConsistentRead = aws.Bool(true)
	}
	var groups []*entityGroup
	byKind := map[string]*entityGroup{}
	n := 0
	for {
		out, err := c.db.Query(ctx, in)
		if err != nil {
			return table.WrapError("Query "+sc.Name, err)
		}
		for _, item := range out.Items {
			if limit > 0 && n == limit {
				break
			}
			n++
			kind := kinds(item, skName)
			g := byKind[kind]
			if g == nil {
				g = &entityGroup{Kind: kind}
				byKind[kind] = g
				groups = append(groups, g)
			}
			var plain map[string]any
			if err := attributevalue.UnmarshalMap(item, &plain); err != nil {
				return fmt.Errorf("decode item: %w", err)
			}
			g.Items = append(g.Items, plain)
		}
		if out.LastEvaluatedKey == nil || (limit > 0 && n == limit) {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	if n == 0 {
		return fmt.Errorf("partition %s=%q of %s: %w", pkName, args[0], sc.Name, table.ErrNotFound)
	}
	return a.emit(groups, func(w io.Writer) {
		fmt.Fprintf(w, "%s %s=%s: %d items\n", sc.Name, pkName, args[0], n)
		for _, g := range groups {
			fmt.Fprintf(w, "\n%s (%d)\n", g.Kind, len(g.Items))
			for _, it := range g.Items {
				b, _ := json.Marshal(it)
				fmt.Fprintf(w, "  %s\n", b)
			}
		}
	})
}

// kindsOf returns how inspect names an item's entity: by the store's
// entity registry for a store built on package entity, else entityKind.
func kindsOf(db table.API, store string, sc table.Schema, typeAttr string) func(table.Item, string) string {
	var reg *entity.Registry
	if store == "pipeline" {
		if s, err := pipeline.NewStore(db, nil, pipeline.TableName(sc.Name)); err == nil {
			reg = s.Registry()
		}
	}
	return func(item table.Item, skName string) string {
		if name, ok := reg.Identify(item); ok {
			return name
		}
		return entityKind(item, skName, typeAttr)
	}
}

// entityKind names what an item is: its type attribute (package entity's),
// its EntityType attribute (the journey design, docs/systems/journey.md), or
// the prefix of its sort key.
func entityKind(item map[string]types.AttributeValue, skName, typeAttr string) string {
	for _, attr := range []string{typeAttr, "EntityType"} {
		if et, ok := item[attr].(*types.AttributeValueMemberS); ok && et.Value != "" {
			return et.Value
		}
	}
	if skName == "" {
		return "item"
	}
	sk, ok := item[skName].(*types.AttributeValueMemberS)
	if !ok {
		return "item"
	}
	if i := strings.IndexAny(sk.Value, "#:"); i > 0 {
		return sk.Value[:i]
	}
	return sk.Value
}

// describedSchema is the keys and indexes of an existing table, as
// DescribeTable tells them: what inspect needs of a table no store names.
func describedSchema(ctx context.Context, db table.API, name string) (table.Schema, error) {
	out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		return table.Schema{}, fmt.Errorf("table %s: %w", name, table.WrapError("DescribeTable", err))
	}
	d := out.Table
	typeOf := map[string]types.ScalarAttributeType{}
	for _, ad := range d.AttributeDefinitions {
		typeOf[aws.ToString(ad.AttributeName)] = ad.AttributeType
	}
	keysOf := func(ks []types.KeySchemaElement) (pk, sk table.Attribute) {
		for _, k := range ks {
			a := table.Attribute{Name: aws.ToString(k.AttributeName), Type: typeOf[aws.ToString(k.AttributeName)]}
			if k.KeyType == types.KeyTypeHash {
				pk = a
			} else {
				sk = a
			}
		}
		return pk, sk
	}
	sc := table.Schema{Name: name}
	sc.PartitionKey, sc.SortKey = keysOf(d.KeySchema)
	for _, ix := range d.GlobalSecondaryIndexes {
		pk, sk := keysOf(ix.KeySchema)
		sc.Indexes = append(sc.Indexes, table.Index{Name: aws.ToString(ix.IndexName), PartitionKey: pk, SortKey: sk})
	}
	for _, ix := range d.LocalSecondaryIndexes {
		pk, sk := keysOf(ix.KeySchema)
		sc.Indexes = append(sc.Indexes, table.Index{Name: aws.ToString(ix.IndexName), PartitionKey: pk, SortKey: sk, Local: true})
	}
	return sc, nil
}

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

	"github.com/tablekit/tablekit/table"
)

func inspectCommand() *command {
	return &command{
		name:    "inspect",
		args:    "<partition key value>",
		summary: "print one partition of a store's table (or of an index), grouped by entity kind",
		help: `Reads every item whose partition key is the value given (a strongly consistent
Query of the table, or an eventually consistent one of -index), and prints them
grouped by entity kind: the item's EntityType attribute where it has one (the journey
design, docs/systems/journey.md), else the sort key's prefix before its first '#' or ':' (META, EVENT,
PV, G, ...). Example:

  tablekit inspect -store tasks TASK#t-123
  tablekit inspect -store journey JOURNEY#JRN-01
  tablekit inspect -store tasks -index GSI1 STATUS#PENDING -limit 20`,
		setup: func(fs *flag.FlagSet, a *app) runner {
			var sf storeFlags
			sf.register(fs, true)
			index := fs.String("index", "", "a global secondary index to read instead of the table")
			limit := fs.Int("limit", 1000, "read at most this many items (0: all)")
			return func(ctx context.Context, args []string) error {
				return inspect(ctx, a, &sf, *index, *limit, args)
			}
		},
	}
}

// entityGroup is the items of one kind.
type entityGroup struct {
	Kind  string           `json:"kind"`
	Items []map[string]any `json:"items"`
}

func inspect(ctx context.Context, a *app, sf *storeFlags, index string, limit int, args []string) error {
	if len(args) != 1 || args[0] == "" {
		return usagef("inspect takes one partition key value")
	}
	if limit < 0 {
		return usagef("-limit %d: want 0 or more", limit)
	}
	sc, err := sf.schemaOf(sf.store)
	if err != nil {
		return err
	}
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
	c, err := a.connect(ctx)
	if err != nil {
		return err
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
			kind := entityKind(item, skName)
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

// entityKind names what an item is: its EntityType attribute (the journey design (docs/systems/journey.md)) or
// the prefix of its sort key.
func entityKind(item map[string]types.AttributeValue, skName string) string {
	if et, ok := item["EntityType"].(*types.AttributeValueMemberS); ok && et.Value != "" {
		return et.Value
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

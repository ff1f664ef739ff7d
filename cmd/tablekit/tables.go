package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/journey"
	"github.com/tablekit/tablekit/pipeline"
	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

// storeFlags select a store and its table: -store, -env, -table.
type storeFlags struct {
	store, env, table string
}

func (s *storeFlags) register(fs *flag.FlagSet, required bool) {
	help := "the store: jobs, tasks, journey or pipeline"
	if !required {
		help += " (default: all four)"
	}
	fs.StringVar(&s.store, "store", "", help)
	fs.StringVar(&s.env, "env", "dev", "environment (names the jobs table photoeditor-{env}-jobs)")
	fs.StringVar(&s.table, "table", "", "table name, instead of the store's default")
}

// storeNames lists the stores in the order commands print them.
var storeNames = []string{"jobs", "tasks", "journey", "pipeline"}

// schemaOf returns the schema of a store's table, named as the flags say.
func (s *storeFlags) schemaOf(store string) (table.Schema, error) {
	var sc table.Schema
	switch store {
	case "jobs":
		sc = jobs.Schema(jobs.TableNameForEnv(s.env))
	case "tasks":
		sc = tasks.Schema(tasks.DefaultTableName)
	case "journey":
		sc = journey.Schema(journey.DefaultTableName)
	case "pipeline":
		sc = pipeline.Schema(pipeline.DefaultTableName)
	default:
		return table.Schema{}, usagef("-store %q: want one of %s", store, strings.Join(storeNames, ", "))
	}
	if s.table != "" {
		sc = sc.WithName(s.table)
	}
	return sc, nil
}

// schemas returns the selected store's schema, or every store's.
func (s *storeFlags) schemas(required bool) ([]table.Schema, error) {
	names := storeNames
	if s.store != "" {
		names = []string{s.store}
	} else if required {
		return nil, usagef("-store is required (one of %s)", strings.Join(storeNames, ", "))
	} else if s.table != "" {
		return nil, usagef("-table needs -store")
	}
	var out []table.Schema
	for _, n := range names {
		sc, err := s.schemaOf(n)
		if err != nil {
			return nil, err
		}
		out = append(out, sc)
	}
	return out, nil
}

func tablesCommands() []*command {
	with := func(fn func(ctx context.Context, a *app, sf *storeFlags, args []string) error) func(*flag.FlagSet, *app) runner {
		return func(fs *flag.FlagSet, a *app) runner {
			var sf storeFlags
			sf.register(fs, false)
			return func(ctx context.Context, args []string) error { return fn(ctx, a, &sf, args) }
		}
	}
	return []*command{
		{
			name:    "tables ensure",
			summary: "create the store's table (or every store's) as its schema declares, or accept it as it is",
			help: `Creates each table with its keys, global secondary indexes and TTL, waits until
it is ACTIVE, and enables TTL. An existing table with the same keys is accepted.`,
			setup: with(tablesEnsure),
		},
		{
			name:    "tables describe",
			summary: "print each table's status, keys, indexes, TTL and size",
			setup:   with(tablesDescribe),
		},
		{
			name:    "tables check",
			summary: "compare each table with its schema; exit 5 when they differ, 3 when a table is missing",
			help: `Reports, per table, what differs from the schema the store declares: key
attributes and types, missing indexes and indexes with other keys or another
projection, the TTL attribute, and the provisioning the store's schema asks
for (billing mode and capacity, encryption, deletion protection, point-in-time
recovery). Changes nothing (table.Schema.Check).`,
			setup: with(tablesCheck),
		},
	}
}

type ensured struct {
	Store string `json:"store,omitempty"`
	Table string `json:"table"`
	Done  string `json:"result"`
}

func tablesEnsure(ctx context.Context, a *app, sf *storeFlags, args []string) error {
	schemas, c, err := a.openTables(ctx, sf, "ensure", args)
	if err != nil {
		return err
	}
	var out []ensured
	for _, sc := range schemas {
		if err := sc.EnsureTable(ctx, c.db); err != nil {
			return fmt.Errorf("ensure %s: %w", sc.Name, err)
		}
		out = append(out, ensured{Table: sc.Name, Done: "ready"})
	}
	return a.emit(out, func(w io.Writer) {
		for _, e := range out {
			fmt.Fprintf(w, "%s\t%s\n", e.Table, e.Done)
		}
	})
}

// openTables is the start of every tables command: no arguments, the
// selected stores' schemas, a connection.
func (a *app) openTables(ctx context.Context, sf *storeFlags, command string, args []string) ([]table.Schema, *conn, error) {
	if len(args) > 0 {
		return nil, nil, usagef("tables %s takes no arguments (got %q)", command, args)
	}
	schemas, err := sf.schemas(false)
	if err != nil {
		return nil, nil, err
	}
	c, err := a.connect(ctx)
	if err != nil {
		return nil, nil, err
	}
	return schemas, c, nil
}

// tableInfo is what describe prints.
type tableInfo struct {
	Table        string            `json:"table"`
	Status       string            `json:"status"`
	PartitionKey string            `json:"partitionKey"`
	SortKey      string            `json:"sortKey,omitempty"`
	Indexes      []string          `json:"indexes,omitempty"`
	TTL          string            `json:"ttl,omitempty"`
	Billing      string            `json:"billing,omitempty"`
	ItemCount    int64             `json:"itemCount"`
	SizeBytes    int64             `json:"sizeBytes"`
	Attributes   map[string]string `json:"attributeTypes,omitempty"`
}

func describe(ctx context.Context, db table.API, name string) (tableInfo, error) {
	out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		return tableInfo{}, table.WrapError("DescribeTable "+name, err)
	}
	d := out.Table
	info := tableInfo{
		Table: name, Status: string(d.TableStatus),
		ItemCount: aws.ToInt64(d.ItemCount), SizeBytes: aws.ToInt64(d.TableSizeBytes),
		Attributes: map[string]string{},
	}
	for _, ad := range d.AttributeDefinitions {
		info.Attributes[aws.ToString(ad.AttributeName)] = string(ad.AttributeType)
	}
	info.PartitionKey, info.SortKey = keyNames(d.KeySchema)
	for _, g := range d.GlobalSecondaryIndexes {
		pk, sk := keyNames(g.KeySchema)
		desc := aws.ToString(g.IndexName) + " (" + pk
		if sk != "" {
			desc += ", " + sk
		}
		if g.Projection != nil {
			desc += "; " + string(g.Projection.ProjectionType)
		}
		info.Indexes = append(info.Indexes, desc+")")
	}
	if d.BillingModeSummary != nil {
		info.Billing = string(d.BillingModeSummary.BillingMode)
	}
	ttl, err := db.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
	if err == nil && ttl.TimeToLiveDescription != nil && ttl.TimeToLiveDescription.TimeToLiveStatus == types.TimeToLiveStatusEnabled {
		info.TTL = aws.ToString(ttl.TimeToLiveDescription.AttributeName)
	}
	return info, nil
}

func keyNames(ks []types.KeySchemaElement) (pk, sk string) {
	for _, k := range ks {
		if k.KeyType == types.KeyTypeHash {
			pk = aws.ToString(k.AttributeName)
		} else {
			sk = aws.ToString(k.AttributeName)
		}
	}
	return pk, sk
}

func tablesDescribe(ctx context.Context, a *app, sf *storeFlags, args []string) error {
	schemas, c, err := a.openTables(ctx, sf, "describe", args)
	if err != nil {
		return err
	}
	var infos []tableInfo
	for _, sc := range schemas {
		info, err := describe(ctx, c.db, sc.Name)
		if err != nil {
			return err
		}
		infos = append(infos, info)
	}
	return a.emit(infos, func(w io.Writer) {
		for i, info := range infos {
			if i > 0 {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "table\t%s\nstatus\t%s\nkeys\t%s", info.Table, info.Status, info.PartitionKey)
			if info.SortKey != "" {
				fmt.Fprintf(w, ", %s", info.SortKey)
			}
			fmt.Fprintln(w)
			for _, idx := range info.Indexes {
				fmt.Fprintf(w, "index\t%s\n", idx)
			}
			ttl := info.TTL
			if ttl == "" {
				ttl = "off"
			}
			fmt.Fprintf(w, "ttl\t%s\nbilling\t%s\nitems\t%d (%d bytes, as DynamoDB last counted)\n", ttl, info.Billing, info.ItemCount, info.SizeBytes)
		}
	})
}

type checked struct {
	Table string   `json:"table"`
	Drift []string `json:"drift"`
}

func tablesCheck(ctx context.Context, a *app, sf *storeFlags, args []string) error {
	schemas, c, err := a.openTables(ctx, sf, "check", args)
	if err != nil {
		return err
	}
	var results []checked
	var all []string
	var missing error
	for _, sc := range schemas {
		err := sc.Check(ctx, c.db)
		var de *table.DriftError
		switch {
		case err == nil:
			results = append(results, checked{Table: sc.Name})
		case errors.Is(err, table.ErrTableNotFound):
			results = append(results, checked{Table: sc.Name, Drift: []string{"table does not exist"}})
			missing = err
		case errors.As(err, &de):
			r := checked{Table: sc.Name}
			for _, d := range de.Drifts {
				r.Drift = append(r.Drift, fmt.Sprintf("%s is %s, want %s", d.Setting, d.Got, d.Want))
			}
			results = append(results, r)
			for _, d := range r.Drift {
				all = append(all, sc.Name+": "+d)
			}
		default:
			return err
		}
	}
	if err := a.emit(results, func(w io.Writer) {
		for _, r := range results {
			if len(r.Drift) == 0 {
				fmt.Fprintf(w, "%s\tmatches its schema\n", r.Table)
			}
			for _, d := range r.Drift {
				fmt.Fprintf(w, "%s\t%s\n", r.Table, d)
			}
		}
	}); err != nil {
		return err
	}
	if missing != nil {
		return missing
	}
	if len(all) > 0 {
		return &driftError{diffs: all}
	}
	return nil
}

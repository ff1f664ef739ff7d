package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/jobs/analytics"
	"github.com/tablekit/tablekit/journey"
	"github.com/tablekit/tablekit/pipeline"
	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

// storeFlags select a store and its table: -store, -env, -table, and for
// the tables commands -stream; for tables ensure, -logs-bucket.
type storeFlags struct {
	store, env, table, stream string
	// logsBucket is journey's logs bucket, whose lifecycle rule tables
	// ensure applies with the journey table.
	logsBucket string
}

func (s *storeFlags) register(fs *flag.FlagSet, required bool) {
	help := "the store: " + strings.Join(storeNames, ", ") + "; or a change consumer's table: " + strings.Join(consumerTables, ", ")
	if !required {
		help += " (default: the four stores)"
	}
	fs.StringVar(&s.store, "store", "", help)
	fs.StringVar(&s.env, "env", "dev", "environment (names the jobs and analytics tables photoeditor-{env}-jobs, -analytics)")
	fs.StringVar(&s.table, "table", "", "table name, instead of the store's default")
}

// registerStream adds -stream, the stream view the table's change
// consumers need.
func (s *storeFlags) registerStream(fs *flag.FlagSet) {
	fs.StringVar(&s.stream, "stream", "", "the table's stream view its change consumers need: new-and-old-images, new-image, old-image or keys-only "+
		"(ensure turns the stream on, check reports it missing or different); analytics needs new-and-old-images on the jobs table")
}

// storeNames lists the stores in the order commands print them.
var storeNames = []string{"jobs", "tasks", "journey", "pipeline"}

// consumerTables are the tables of change consumers: the jobs analytics
// view (package jobs/analytics) and the stream consumers' lease table
// (package changes).
var consumerTables = []string{"analytics", "leases"}

// streamView reads -stream: the view in DynamoDB's spelling or in lower
// case with dashes.
func streamView(flagValue string) (types.StreamViewType, error) {
	v := types.StreamViewType(strings.ToUpper(strings.ReplaceAll(flagValue, "-", "_")))
	for _, known := range v.Values() {
		if v == known {
			return v, nil
		}
	}
	return "", usagef("-stream %q: want new-and-old-images, new-image, old-image or keys-only", flagValue)
}

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
	case "analytics":
		sc = analytics.Schema(analytics.TableNameForEnv(s.env))
	case "leases":
		sc = changes.LeaseSchema(changes.DefaultLeaseTable)
	default:
		return table.Schema{}, usagef("-store %q: want one of %s", store, strings.Join(append(storeNames[:len(storeNames):len(storeNames)], consumerTables...), ", "))
	}
	if s.table != "" {
		sc = sc.WithName(s.table)
	}
	if s.stream != "" {
		view, err := streamView(s.stream)
		if err != nil {
			return table.Schema{}, err
		}
		sc.Stream = view
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
	} else if s.stream != "" {
		return nil, usagef("-stream needs -store")
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
	with := func(fn func(ctx context.Context, a *app, sf *storeFlags, args []string) error, more ...func(*flag.FlagSet, *storeFlags)) func(*flag.FlagSet, *app) runner {
		return func(fs *flag.FlagSet, a *app) runner {
			var sf storeFlags
			sf.register(fs, false)
			sf.registerStream(fs)
			for _, m := range more {
				m(fs, &sf)
			}
			return func(ctx context.Context, args []string) error { return fn(ctx, a, &sf, args) }
		}
	}
	return []*command{
		{
			name:    "tables ensure",
			summary: "create the store's table (or every store's) as its schema declares, or accept it as it is",
			help: `Creates each table with its keys, global secondary indexes and TTL, waits until
it is ACTIVE, and enables TTL. An existing table with the same keys is accepted.

Change consumers have tables of their own: -store analytics creates the jobs
analytics view's table (photoeditor-{env}-analytics), -store leases the lease
and checkpoint table of changes.Consumer (tablekit-changes). They read the
source table's stream, which -stream turns on:

  tablekit tables ensure -store jobs -env prod -stream new-and-old-images
  tablekit tables ensure -store analytics -env prod
  tablekit tables ensure -store leases

With the journey table it also applies the journey logs bucket's lifecycle rule
(-logs-bucket; objects under journeys/ to Glacier after 90 days, the journey
design's archive of full logs), as journey.Store.Setup does, replacing the
bucket's lifecycle configuration; it needs s3:PutLifecycleConfiguration (the
admin policy). It says when it did not: with DynamoDB at -endpoint and no
-s3-endpoint, or an S3 endpoint without lifecycle rules (s3rver).`,
			setup: with(tablesEnsure, func(fs *flag.FlagSet, sf *storeFlags) {
				fs.StringVar(&sf.logsBucket, "logs-bucket", journey.DefaultLogsBucket, "the journey logs bucket, whose lifecycle rule ensure applies with the journey table")
			}),
		},
		{
			name:    "tables describe",
			summary: "print each table's status, keys, indexes, TTL, stream and size",
			setup:   with(tablesDescribe),
		},
		{
			name:    "tables check",
			summary: "compare each table with its schema; exit 5 when they differ, 3 when a table is missing",
			help: `Reports, per table, what differs from the schema the store declares: key
attributes and types, missing indexes and indexes with other keys or another
projection, the TTL attribute, and the provisioning the store's schema asks
for (billing mode and capacity, encryption, deletion protection, point-in-time
recovery), and with -stream the table's stream (off, or another view).
Changes nothing (table.Schema.Check).`,
			setup: with(tablesCheck),
		},
	}
}

type ensured struct {
	Store string `json:"store,omitempty"`
	Table string `json:"table,omitempty"`
	// Bucket is set on the row of a bucket's lifecycle rule (journey's
	// logs bucket).
	Bucket string `json:"bucket,omitempty"`
	Done   string `json:"result"`
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
	if sf.store == "" || sf.store == "journey" {
		row, err := journeyLifecycle(ctx, a, c, sf)
		if err != nil {
			return err
		}
		out = append(out, row)
	}
	return a.emit(out, func(w io.Writer) {
		for _, e := range out {
			fmt.Fprintf(w, "%s\t%s\n", cmp.Or(e.Table, "bucket "+e.Bucket), e.Done)
		}
	})
}

// journeyLifecycle applies the journey logs bucket's lifecycle rule
// (journey.Store.ApplyLifecycle), or says why it did not.
func journeyLifecycle(ctx context.Context, a *app, c *conn, sf *storeFlags) (ensured, error) {
	row := ensured{Bucket: sf.logsBucket}
	if c.fake == nil && a.global.endpoint != "" && a.global.s3Endpoint == "" {
		row.Done = "lifecycle not applied: DynamoDB is at -endpoint and no -s3-endpoint names the S3 beside it"
		return row, nil
	}
	logs, err := a.bucket(ctx, sf.logsBucket)
	if err != nil {
		return row, err
	}
	s, err := journey.NewStore(c.db, logs, journey.TableName(sf.table))
	if err != nil {
		return row, err
	}
	err = s.ApplyLifecycle(ctx)
	switch {
	case errors.Is(err, blobstore.ErrUnsupported):
		row.Done = "lifecycle not applied: the S3 endpoint implements no lifecycle rules"
	case err != nil:
		return row, fmt.Errorf("ensure the lifecycle of bucket %s: %w", sf.logsBucket, err)
	default:
		row.Done = fmt.Sprintf("lifecycle: journeys/ to GLACIER after %d days", journey.DefaultArchiveLogsAfterDays)
	}
	return row, nil
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
	Stream       string            `json:"stream,omitempty"` // the stream's view, when on
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
	for _, l := range d.LocalSecondaryIndexes {
		pk, sk := keyNames(l.KeySchema)
		desc := aws.ToString(l.IndexName) + " (local: " + pk + ", " + sk
		if l.Projection != nil {
			desc += "; " + string(l.Projection.ProjectionType)
		}
		info.Indexes = append(info.Indexes, desc+")")
	}
	if d.StreamSpecification != nil && aws.ToBool(d.StreamSpecification.StreamEnabled) {
		info.Stream = string(d.StreamSpecification.StreamViewType)
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
			stream := info.Stream
			if stream == "" {
				stream = "off"
			}
			fmt.Fprintf(w, "ttl\t%s\nstream\t%s\nbilling\t%s\nitems\t%d (%d bytes, as DynamoDB last counted)\n", ttl, stream, info.Billing, info.ItemCount, info.SizeBytes)
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

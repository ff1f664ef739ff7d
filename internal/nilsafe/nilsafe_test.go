// Package nilsafe holds one test over the module's public API: no exported
// method panics when its receiver or its arguments are nil or zero. A
// caller who wires a store wrong (a nil *Store, a zero Store built without
// NewStore, a nil context) gets an error back, as from database/sql, never
// a crash in a request handler.
package nilsafe

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/blobstore/s3blob"
	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/connect"
	"github.com/tablekit/tablekit/datamodel"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/iam"
	"github.com/tablekit/tablekit/iam/policies"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/jobs/analytics"
	"github.com/tablekit/tablekit/journey"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/observe"
	"github.com/tablekit/tablekit/pipeline"
	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

// receivers are the types whose methods a service calls: the stores, the
// handles they give out, and the tools around them. For each, the test
// calls every exported method on a nil pointer and on a pointer to the
// zero value, with every argument zero.
//
// Three kinds of receiver are called on the zero value only, and may panic
// when nil, as their models in the standard library do:
//   - blobstore's Memory and Dir, and s3blob's Store, embed their shared argument checks by
//     value (front), like a *bytes.Buffer its state; a nil one has none;
//   - dynamotest.DB's methods are the DynamoDB API on a pointer, as an SDK
//     *dynamodb.Client's are;
//   - dynamotest.Server is httptest.Server for DynamoDB, and panics on
//     misuse (Client before Start) as httptest does, where a test is the
//     only caller;
//   - table.List is a value, as time.Time is: its methods have value
//     receivers, so a nil *List has no List to call them on.
var receivers = []any{
	(*table.Table)(nil), (*table.WriteTx)(nil), (*table.GetTx)(nil), (*table.List[table.Item])(nil),
	(*blobstore.Memory)(nil), (*blobstore.Dir)(nil), (*s3blob.Store)(nil), (*blobstore.Offloader)(nil),
	(*changes.Consumer[map[string]any])(nil), (*connect.Conn)(nil),
	(*entity.Registry)(nil), (*entity.Entity[nilsafeEntity])(nil), (*entity.Update[nilsafeEntity])(nil),
	(*entity.Collection)(nil), (*entity.TxError)(nil), (*entity.TxRead[nilsafeEntity])(nil),
	(*jobs.Store)(nil), (*jobs.Worker)(nil), (*jobs.Attempt)(nil), (*jobs.JobError)(nil), (*analytics.View)(nil),
	(*journey.Store)(nil), (*journey.Journeys)(nil), (*journey.Jobs)(nil), (*journey.Stages)(nil),
	(*journey.Logs)(nil), (*journey.Reports)(nil), (*journey.Rules)(nil), (*journey.Backups)(nil),
	(*journey.Library)(nil), (*journey.StepLogger)(nil), (*journey.Complete)(nil),
	(*pipeline.Store)(nil), (*pipeline.Pipelines)(nil), (*pipeline.Executions)(nil), (*pipeline.Versions)(nil),
	(*pipeline.Tags)(nil), (*pipeline.Maintenance)(nil),
	(*tasks.Store)(nil), (*tasks.Maintenance)(nil), (*tasks.Worker)(nil), (*jobs.Maintenance)(nil),
	(*dynamotest.DB)(nil), (*dynamotest.Meter)(nil), (*dynamotest.Comparison)(nil), (*dynamotest.DifferenceError)(nil),
	(*dynamotest.Chaotic)(nil),
	(*keys.Template)(nil),
}

// nilsafeEntity is the type the entity package's generic calls are
// instantiated with.
type nilsafeEntity struct {
	ID string `dynamodbav:"id"`
}

// zeroOnly are the receivers called on the zero value only (see receivers).
var zeroOnly = map[reflect.Type]bool{
	reflect.TypeFor[*blobstore.Memory]():       true,
	reflect.TypeFor[*blobstore.Dir]():          true,
	reflect.TypeFor[*s3blob.Store]():           true,
	reflect.TypeFor[*dynamotest.DB]():          true,
	reflect.TypeFor[*table.List[table.Item]](): true,
}

func TestNoExportedMethodPanicsOnNilOrZeroInput(t *testing.T) {
	for _, r := range receivers {
		typ := reflect.TypeOf(r)
		for _, recv := range []struct {
			name string
			v    reflect.Value
		}{
			{"nil", reflect.Zero(typ)},
			{"zero", reflect.New(typ.Elem())},
		} {
			if recv.name == "nil" && zeroOnly[typ] {
				continue
			}
			for i := range typ.NumMethod() {
				m := typ.Method(i)
				name := fmt.Sprintf("%s (%s receiver)", strings.TrimPrefix(typ.String(), "*"), recv.name)
				name += "." + m.Name
				t.Run(name, func(t *testing.T) {
					assert.NotPanics(t, func() { call(recv.v.Method(i)) }, "%s with zero arguments", name)
				})
			}
		}
	}
}

// call calls f with zero arguments and drives what it returns: an
// iterator is ranged over, a function returned for later (a stop func) is
// called.
func call(f reflect.Value) {
	ft := f.Type()
	args := make([]reflect.Value, ft.NumIn())
	for i := range args {
		in := ft.In(i)
		if ft.IsVariadic() && i == ft.NumIn()-1 {
			args[i] = reflect.MakeSlice(in, 0, 0)
			continue
		}
		args[i] = zeroArg(in)
	}
	var out []reflect.Value
	if ft.IsVariadic() {
		out = f.CallSlice(args)
	} else {
		out = f.Call(args)
	}
	for _, o := range out {
		drive(o)
		readList(o)
		closeIfServer(o)
	}
}

// readList reads a returned table.List (of any type) as its caller would,
// with a context: its first page and All, so the store's page function runs
// on the nil or zero receiver that made the List.
func readList(v reflect.Value) {
	page, all := v.MethodByName("Page"), v.MethodByName("All")
	if v.Kind() != reflect.Struct || !page.IsValid() || !all.IsValid() ||
		page.Type().NumIn() != 2 || all.Type().NumIn() != 1 {
		return
	}
	ctx := reflect.ValueOf(context.Background())
	page.Call([]reflect.Value{ctx, reflect.ValueOf("")})
	drive(all.Call([]reflect.Value{ctx})[0])
}

// closeIfServer closes what a call started (dynamotest.NewServer listens),
// so the test leaves no server behind.
func closeIfServer(v reflect.Value) {
	if s, ok := v.Interface().(*dynamotest.Server); ok && s != nil {
		s.Close()
	}
}

// zeroArg is the zero value of t, except for the two arguments of
// ServeHTTP, which net/http never passes as nil: a recorder and a GET.
func zeroArg(t reflect.Type) reflect.Value {
	switch t {
	case reflect.TypeFor[http.ResponseWriter]():
		return reflect.ValueOf(httptest.NewRecorder())
	case reflect.TypeFor[*http.Request]():
		return reflect.ValueOf(httptest.NewRequest(http.MethodGet, "/", nil))
	}
	return reflect.Zero(t)
}

// drive consumes a returned iterator (iter.Seq or iter.Seq2: a func taking
// one yield func) so that its body runs, stopping after the first value.
func drive(v reflect.Value) {
	if v.Kind() != reflect.Func || v.IsNil() {
		return
	}
	ft := v.Type()
	if ft.NumIn() != 1 || ft.In(0).Kind() != reflect.Func || ft.NumOut() != 0 {
		return
	}
	yt := ft.In(0)
	if yt.NumOut() != 1 || yt.Out(0).Kind() != reflect.Bool {
		return
	}
	yield := reflect.MakeFunc(yt, func([]reflect.Value) []reflect.Value {
		return []reflect.Value{reflect.ValueOf(false)}
	})
	v.Call([]reflect.Value{yield})
}

// functions are the module's exported package-level functions, generic
// ones instantiated, except the Must* constructors, which panic on a bad
// pattern by design, as regexp.MustCompile does.
var functions = map[string]any{
	"table.New": table.New, "table.AutoScaled": table.AutoScaled, "table.Marshal": table.Marshal, "table.Unmarshal": table.Unmarshal,
	"table.ItemSize": table.ItemSize, "table.TypeOf": table.TypeOf, "table.WrapError": table.WrapError,
	"table.OperationFromContext": table.OperationFromContext, "table.Project": table.Project,
	"table.If": table.If, "table.ItemOnConditionFailure": table.ItemOnConditionFailure,
	"table.ReturnNew": table.ReturnNew, "table.ReturnOld": table.ReturnOld,
	"table.SortBeginsWith": table.SortBeginsWith, "table.SortBetween": table.SortBetween,
	"table.SortEquals": table.SortEquals, "table.SortLess": table.SortLess, "table.SortLessOrEqual": table.SortLessOrEqual,
	"table.SortGreater": table.SortGreater, "table.SortGreaterOrEqual": table.SortGreaterOrEqual,
	"table.BatchGet": table.BatchGet[table.Item], "table.QueryPage": table.QueryPage[table.Item],
	"table.QueryAll": table.QueryAll[table.Item], "table.ScanPage": table.ScanPage[table.Item], "table.QueryCount": table.QueryCount,
	"table.ScanAll": table.ScanAll[table.Item], "table.ParallelScan": table.ParallelScan,
	"table.Walk": table.Walk[table.Item], "table.NewList": table.NewList[table.Item], "table.FailedList": table.FailedList[table.Item],
	"table.Expired": table.Expired, "table.ItemExpired": table.ItemExpired, "table.TTL": table.TTL, "table.EnableStream": table.EnableStream, "table.RecoveryAndKMS": table.RecoveryAndKMS,
	"table.IfNotExistsOrExpired": table.IfNotExistsOrExpired, "table.ExpiredCondition": table.ExpiredCondition, "table.Alive": table.Alive, "table.ExpiredText": table.ExpiredText, "table.XRayTraceID": table.XRayTraceID, "table.Build": table.Build,

	"blobstore.Enforce": blobstore.Enforce, "blobstore.EscapeSegment": blobstore.EscapeSegment,
	"blobstore.UnescapeSegment": blobstore.UnescapeSegment, "blobstore.ValidatePrefix": blobstore.ValidatePrefix,
	"blobstore.NewDriverStore": blobstore.NewDriverStore,
	"blobstore.NewKeyTemplate": blobstore.NewKeyTemplate, "blobstore.NewDir": blobstore.NewDir,
	"blobstore.NewMemory": blobstore.NewMemory, "blobstore.NewOffloader": blobstore.NewOffloader,
	"blobstore.Open": blobstore.Open,
	"s3blob.New":     s3blob.New, "s3blob.Open": s3blob.Open, "s3blob.NewClient": s3blob.NewClient,
	"blobstore.GlacierAfter": blobstore.GlacierAfter, "blobstore.CheckLifecycle": blobstore.CheckLifecycle, "blobstore.ApplyLifecycle": blobstore.ApplyLifecycle,
	"blobstore.PointerOf": blobstore.PointerOf, "blobstore.Pointers": blobstore.Pointers,
	"blobstore.PutHeaders": blobstore.PutHeaders, "blobstore.ValidateKey": blobstore.ValidateKey,

	"connect.Open": connect.Open, "connect.CheckEndpoint": connect.CheckEndpoint,

	"changes.New": changes.New[map[string]any], "changes.DecodeItem": changes.DecodeItem,

	"entity.NewRegistry": entity.NewRegistry, "entity.Offline": entity.Offline, "entity.New": entity.New[nilsafeEntity],
	"entity.NewCollection": entity.NewCollection, "entity.Of": entity.Of[nilsafeEntity], "entity.Transact": entity.Transact,
	"entity.TransactGet": entity.TransactGet, "entity.GetAs": entity.GetAs[nilsafeEntity, nilsafeEntity], "entity.ListAs": entity.ListAs[nilsafeEntity, nilsafeEntity],
	"changes.EnableStream": changes.EnableStream, "changes.LeaseSchema": changes.LeaseSchema,
	"changes.CheckKeys": changes.CheckKeys, "changes.LeaseKey": changes.LeaseKey,

	"jobs.NewStore": jobs.NewStore, "jobs.Schema": jobs.Schema, "jobs.Provisioning": jobs.Provisioning, "jobs.Permanent": jobs.Permanent,
	"jobs.TableNameForEnv": jobs.TableNameForEnv, "jobs.Patterns": jobs.Patterns, "jobs.Entities": jobs.Entities, "jobs.WorkPatterns": jobs.WorkPatterns, "jobs.WorkTableName": jobs.WorkTableName, "jobs.WorkEntities": jobs.WorkEntities,
	"jobs.Statuses": jobs.Statuses, "jobs.JobFromChange": jobs.JobFromChange, "jobs.SeedProviders": jobs.SeedProviders, "jobs.DefaultTags": jobs.DefaultTags, "jobs.ProductionCapacity": jobs.ProductionCapacity, "jobs.ProductionProvisioning": jobs.ProductionProvisioning,
	"analytics.NewView": analytics.NewView, "analytics.Recount": analytics.Recount, "analytics.Schema": analytics.Schema,
	"analytics.TableNameForEnv": analytics.TableNameForEnv, "analytics.Patterns": analytics.Patterns, "analytics.Entities": analytics.Entities, "analytics.Provisioning": analytics.Provisioning,

	"journey.NewStore": journey.NewStore, "journey.At": journey.At, "journey.DecodeItem": journey.DecodeItem, "journey.Provisioning": journey.Provisioning,
	"journey.ProgressEvents": journey.ProgressEvents, "journey.Schema": journey.Schema,
	"journey.JobFromChange": journey.JobFromChange, "journey.JourneyFromChange": journey.JourneyFromChange,
	"journey.Patterns": journey.Patterns, "journey.Entities": journey.Entities, "journey.DefaultStages": journey.DefaultStages, "journey.PatternsWithRates": journey.PatternsWithRates,

	"pipeline.NewStore": pipeline.NewStore, "pipeline.Schema": pipeline.Schema,
	"pipeline.ExecutionInputKey": pipeline.ExecutionInputKey, "pipeline.ExecutionOutputKey": pipeline.ExecutionOutputKey,
	"pipeline.IngestKey": pipeline.IngestKey, "pipeline.Patterns": pipeline.Patterns, "pipeline.Entities": pipeline.Entities,
	"pipeline.ExecutionFromChange": pipeline.ExecutionFromChange, "pipeline.PipelineFromChange": pipeline.PipelineFromChange,

	"tasks.NewStore": tasks.NewStore, "tasks.Schema": tasks.Schema, "tasks.EventFromChange": tasks.EventFromChange,
	"tasks.Patterns": tasks.Patterns, "tasks.FreshKey": tasks.FreshKey, "tasks.Entities": tasks.Entities,
	"tasks.ProductionCapacity": tasks.ProductionCapacity, "tasks.ProductionProvisioning": tasks.ProductionProvisioning,

	"datamodel.EstimateSchema": datamodel.EstimateSchema, "datamodel.Measure": datamodel.Measure,
	"datamodel.PolicyFor": datamodel.PolicyFor, "datamodel.Render": datamodel.Render,
	"datamodel.RenderRequirements": datamodel.RenderRequirements, "datamodel.Checklist": datamodel.Checklist,
	"datamodel.CheckItems": datamodel.CheckItems,

	"iam.Admin": iam.Admin, "iam.Match": iam.Match, "iam.Parse": iam.Parse, "iam.ParseARN": iam.ParseARN,
	"iam.Runtime": iam.Runtime, "iam.Operator": iam.Operator, "iam.ReadOnly": iam.ReadOnly, "iam.StreamConsumer": iam.StreamConsumer,
	"policies.Jobs": policies.Jobs, "policies.Journey": policies.Journey,
	"policies.Pipeline": policies.Pipeline, "policies.Tasks": policies.Tasks, "policies.Analytics": policies.Analytics,

	"observe.Blobs": observe.Blobs, "observe.DynamoDB": observe.DynamoDB,
	"observe.TraceID": observe.TraceID, "observe.XRayTraceID": observe.XRayTraceID,

	"keys.FormatTime": keys.FormatTime, "keys.ParseTime": keys.ParseTime, "keys.Partition": keys.Partition,
	"keys.Sort": keys.Sort, "keys.ULIDs": keys.ULIDs,

	"dynamotest.New": dynamotest.New, "dynamotest.Open": dynamotest.Open, "dynamotest.Enforce": dynamotest.Enforce,
	"dynamotest.LimitPartitions": dynamotest.LimitPartitions, "dynamotest.NewClient": dynamotest.NewClient,
	"dynamotest.NewHandler": dynamotest.NewHandler, "dynamotest.NewStreamsClient": dynamotest.NewStreamsClient,
	"dynamotest.FailNth": dynamotest.FailNth, "dynamotest.Throttle": dynamotest.Throttle,
	"dynamotest.UnprocessedFraction": dynamotest.UnprocessedFraction,
	"dynamotest.NewServer":           dynamotest.NewServer, "dynamotest.NewUnstartedServer": dynamotest.NewUnstartedServer,
	"dynamotest.ServerTimeouts": dynamotest.ServerTimeouts, "dynamotest.NewMeter": dynamotest.NewMeter,
	"dynamotest.CheckCosts": dynamotest.CheckCosts[int], "dynamotest.BenchmarkCosts": dynamotest.BenchmarkCosts[int],
	"dynamotest.Compare": dynamotest.Compare, "dynamotest.LocalDeviations": dynamotest.LocalDeviations,
	"dynamotest.LocalDeviationWhy": dynamotest.LocalDeviationWhy, "dynamotest.EventualReads": dynamotest.EventualReads,
	"dynamotest.Chaos": dynamotest.Chaos, "dynamotest.ChaosSeed": dynamotest.ChaosSeed,
	"dynamotest.DefaultChaosRates": dynamotest.DefaultChaosRates,
}

func TestNoExportedFunctionPanicsOnZeroArguments(t *testing.T) {
	for name, f := range functions {
		t.Run(name, func(t *testing.T) {
			assert.NotPanics(t, func() { call(reflect.ValueOf(f)) }, "%s with zero arguments", name)
		})
	}
}

// packages are the directories whose exported functions the test calls.
var packages = []string{
	"table", "blobstore", "blobstore/s3blob", "changes", "connect", "entity", "jobs", "jobs/analytics", "journey", "pipeline", "tasks",
	"datamodel", "iam", "iam/policies", "observe", "keys", "dynamotest",
}

// TestEveryExportedFunctionIsCalled keeps functions complete: a new
// exported function must be added there (or be an option helper, which
// only returns a func, or a Must* constructor).
func TestEveryExportedFunctionIsCalled(t *testing.T) {
	for _, dir := range packages {
		fset := token.NewFileSet()
		matches, err := filepath.Glob(filepath.Join("..", "..", dir, "*.go"))
		require.NoError(t, err)
		for _, file := range matches {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
			require.NoError(t, err)
			for _, d := range f.Decls {
				fn, ok := d.(*ast.FuncDecl)
				if !ok || fn.Recv != nil || !fn.Name.IsExported() || strings.HasPrefix(fn.Name.Name, "Must") || returnsOnlyAFunc(fn) {
					continue
				}
				name := f.Name.Name + "." + fn.Name.Name
				assert.Contains(t, functions, name, "%s (%s) is not called by TestNoExportedFunctionPanicsOnZeroArguments", name, file)
			}
		}
	}
}

// returnsOnlyAFunc reports an option helper: one result, a func type.
func returnsOnlyAFunc(fn *ast.FuncDecl) bool {
	r := fn.Type.Results
	if r == nil || len(r.List) != 1 || len(r.List[0].Names) > 1 {
		return false
	}
	_, ok := r.List[0].Type.(*ast.FuncType)
	return ok
}

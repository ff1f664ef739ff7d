package journey

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/table"
)

// TestNoHandleMethodPanicsOnNilOrZeroInput calls every exported method of
// every handle, of StepLogger and of Complete on a nil pointer, on a
// pointer to the zero value and (for handles) on the handle of a nil
// Store, with every argument zero: each returns (an error where it has
// one) instead of panicking.
func TestNoHandleMethodPanicsOnNilOrZeroInput(t *testing.T) {
	var nilStore *Store
	receivers := map[string]reflect.Value{}
	for _, v := range []any{(*Journeys)(nil), (*Stages)(nil), (*Jobs)(nil), (*Rules)(nil), (*Library)(nil),
		(*Logs)(nil), (*Reports)(nil), (*Backups)(nil), (*StepLogger)(nil), (*Complete)(nil)} {
		typ := reflect.TypeOf(v)
		receivers["nil "+typ.String()] = reflect.Zero(typ)
		receivers["zero "+typ.String()] = reflect.New(typ.Elem())
	}
	for _, v := range []any{nilStore.Journeys(), nilStore.Stages(), nilStore.Jobs(), nilStore.Rules(), nilStore.Library(),
		nilStore.Logs(), nilStore.Reports(), nilStore.Backups()} {
		receivers["nil Store's "+reflect.TypeOf(v).String()] = reflect.ValueOf(v)
	}
	for name, recv := range receivers {
		typ := recv.Type()
		for i := range typ.NumMethod() {
			m := typ.Method(i)
			t.Run(fmt.Sprintf("%s.%s", name, m.Name), func(t *testing.T) {
				assert.NotPanics(t, func() { callWithZeroArgs(recv.Method(i), reflect.Value{}) })
			})
		}
	}
	// A store that works, a context, and every other argument zero: bad
	// input, never a panic.
	e := newEnv(t)
	ctx := reflect.ValueOf(context.Background())
	logger, err := e.store.Logs().Logger(JobRef{JourneyID: "JRN-T", StageID: "s", Order: 1, Execution: 1, StartedAt: t0, JobID: "JOB-1"}, "step")
	require.NoError(t, err)
	for _, v := range []any{e.store.Journeys(), e.store.Stages(), e.store.Jobs(), e.store.Rules(), e.store.Library(),
		e.store.Logs(), e.store.Reports(), e.store.Backups(), logger, &Complete{}} {
		typ := reflect.TypeOf(v)
		for i := range typ.NumMethod() {
			t.Run(fmt.Sprintf("store's %s.%s", typ, typ.Method(i).Name), func(t *testing.T) {
				assert.NotPanics(t, func() { callWithZeroArgs(reflect.ValueOf(v).Method(i), ctx) })
			})
		}
	}
	assert.NotPanics(t, func() { _, _ = ProgressEvents(changes.Change[table.Item]{}) }, "ProgressEvents of a zero change")
	assert.NotPanics(t, func() { _, _, _ = JobFromChange(changes.Change[table.Item]{}) }, "JobFromChange of a zero change")
	assert.NotPanics(t, func() { _, _, _ = JourneyFromChange(changes.Change[table.Item]{}) }, "JourneyFromChange of a zero change")
	assert.NotPanics(t, func() { _ = DecodeItem(nil, nil) }, "DecodeItem into nil")
}

// callWithZeroArgs calls f with zero arguments, but ctx (when valid) for a
// context, and ranges over a returned iterator, so that its body runs.
func callWithZeroArgs(f reflect.Value, ctx reflect.Value) {
	ft := f.Type()
	args := make([]reflect.Value, ft.NumIn())
	for i := range args {
		args[i] = reflect.Zero(ft.In(i))
		if ctx.IsValid() && ft.In(i) == reflect.TypeFor[context.Context]() {
			args[i] = ctx
		}
	}
	var out []reflect.Value
	if ft.IsVariadic() {
		out = f.CallSlice(args)
	} else {
		out = f.Call(args)
	}
	for _, o := range out {
		if o.Kind() != reflect.Func || o.IsNil() || o.Type().NumIn() != 1 || o.Type().In(0).Kind() != reflect.Func {
			continue
		}
		yt := o.Type().In(0)
		o.Call([]reflect.Value{reflect.MakeFunc(yt, func([]reflect.Value) []reflect.Value {
			return []reflect.Value{reflect.ValueOf(false)}
		})})
	}
}

// TestNilOptionsAreSkipped: a nil option function is skipped by every
// call that takes options, as NewStore skips one.
func TestNilOptionsAreSkipped(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	e.newJourney(t)
	job, err := e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "raw_analysis"})
	require.NoError(t, err)
	l, err := e.store.Logs().Logger(job.Ref(), "step", nil)
	require.NoError(t, err, "a nil logger option")
	l.Info("kept", nil)
	require.NoError(t, l.Close(ctx))
	_, err = e.store.Backups().Export(ctx, "JRN-T")
	require.NoError(t, err)
	_, err = e.store.Backups().Import(ctx, "JRN-T", nil, Overwrite())
	assert.NoError(t, err, "a nil import option")
	_, err = e.store.Journeys().Load(ctx, "JRN-T", nil, Consistent())
	assert.NoError(t, err, "a nil read option")
}

// TestWithReportsAndWithBackupsSetTheirStores: the option helpers put
// report files and backups in the stores given, not the logs store.
func TestWithReportsAndWithBackupsSetTheirStores(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	reports, backups := blobstore.NewMemory(), blobstore.NewMemory()
	s := mustStore(t, e.db, e.logs, Clock(e.db.Now), WithReports(reports), WithBackups(backups))
	e.newJourney(t)
	job, err := s.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "raw_analysis"})
	require.NoError(t, err)
	_, err = s.Reports().Write(ctx, job.Ref(), "step", Report{ReportType: ReportSummary, Title: "r"})
	require.NoError(t, err)
	_, err = s.Backups().Export(ctx, "JRN-T")
	require.NoError(t, err)
	assert.Len(t, objects(t, reports), 1, "report files in the WithReports store")
	assert.Equal(t, []string{"journeys/JRN-T/backup.json"}, objects(t, backups), "backups in the WithBackups store")
	assert.Empty(t, objects(t, e.logs), "nothing in the logs store")
}

// Package nilsafe holds one test over the module's public API: no exported
// method panics when its receiver or its arguments are nil or zero. A
// caller who wires a store wrong (a nil *Store, a zero Store built without
// NewStore, a nil context) gets an error back, as from database/sql, never
// a crash in a request handler.
package nilsafe

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/jobs/analytics"
	"github.com/tablekit/tablekit/journey"
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
//   - blobstore's Memory, Dir and S3 embed their shared argument checks by
//     value (front), like a *bytes.Buffer its state; a nil one has none;
//   - dynamotest.DB's methods are the DynamoDB API on a pointer, as an SDK
//     *dynamodb.Client's are;
//   - dynamotest.Server is httptest.Server for DynamoDB, and panics on
//     misuse (Client before Start) as httptest does, where a test is the
//     only caller.
var receivers = []any{
	(*table.Table)(nil), (*table.WriteTx)(nil), (*table.GetTx)(nil),
	(*blobstore.Memory)(nil), (*blobstore.Dir)(nil), (*blobstore.S3)(nil), (*blobstore.Offloader)(nil),
	(*changes.Consumer[map[string]any])(nil),
	(*jobs.Store)(nil), (*analytics.View)(nil),
	(*journey.Store)(nil),
	(*pipeline.Store)(nil),
	(*tasks.Store)(nil), (*tasks.Worker)(nil),
	(*dynamotest.DB)(nil),
}

// zeroOnly are the receivers called on the zero value only (see receivers).
var zeroOnly = map[reflect.Type]bool{
	reflect.TypeFor[*blobstore.Memory](): true,
	reflect.TypeFor[*blobstore.Dir]():    true,
	reflect.TypeFor[*blobstore.S3]():     true,
	reflect.TypeFor[*dynamotest.DB]():    true,
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

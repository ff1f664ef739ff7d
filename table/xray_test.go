package table_test

import (
	"context"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/tablekit/tablekit/table"
)

func TestXRayTraceIDIsTheSpansTraceIDInXRayForm(t *testing.T) {
	assert.Empty(t, table.XRayTraceID(context.Background()))
	assert.Empty(t, table.XRayTraceID(nil)) //nolint:staticcheck // nil is exactly what this checks
	ctx, span := sdktrace.NewTracerProvider().Tracer("test").Start(context.Background(), "x")
	defer span.End()
	id := span.SpanContext().TraceID().String()
	assert.Equal(t, "1-"+id[:8]+"-"+id[8:], table.XRayTraceID(ctx))
}

// TestNoStoreImportsTheInstrumentationPackage: the stores take tracing as
// options (TracerProvider) and trace ids from the span context
// (XRayTraceID), so importing a store never builds observe's wrappers.
func TestNoStoreImportsTheInstrumentationPackage(t *testing.T) {
	for _, pkg := range []string{"jobs", "tasks", "journey", "pipeline", "changes", "blobstore", "table", "keys"} {
		dir := filepath.Join("..", pkg)
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, e.Name()), nil, parser.ImportsOnly)
			require.NoError(t, err)
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				assert.NotEqualf(t, "github.com/tablekit/tablekit/observe", path, "%s/%s imports observe", pkg, e.Name())
			}
		}
	}
}

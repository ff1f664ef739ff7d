// Command datamodel writes the data-model document and the least-privilege
// IAM policy of each tablekit store under docs/:
//
//	docs/<store>/dynamodb_data_model.md
//	docs/<store>/iam-policy.json
//
// Everything is derived from the stores' declared schemas (package
// datamodel) plus the short prose kept in this command, one file per
// store. The output is deterministic, so CI regenerates it and fails on a
// difference: run `go run ./cmd/datamodel` from the repository root and
// commit docs/ after changing a schema.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/tablekit/tablekit/datamodel"
)

func main() {
	out := flag.String("out", "docs", "directory to write the documents under")
	flag.Parse()
	if err := write(context.Background(), os.Stdout, *out, models()); err != nil {
		fmt.Fprintln(os.Stderr, "datamodel:", err)
		os.Exit(1)
	}
}

// write renders every model into dir/<store>/.
func write(ctx context.Context, log io.Writer, dir string, ms []datamodel.Model) error {
	for _, m := range ms {
		doc, err := datamodel.Render(ctx, m)
		if err != nil {
			return err
		}
		policy, err := m.Policy()
		if err != nil {
			return err
		}
		d := filepath.Join(dir, m.Store)
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(d, "dynamodb_data_model.md"), doc, 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(d, "iam-policy.json"), policy.JSON(), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(log, "wrote %s/{dynamodb_data_model.md,iam-policy.json}\n", d)
	}
	return nil
}

// models are the four stores, in DESIGN.md's order.
func models() []datamodel.Model {
	return []datamodel.Model{journeyModel(), jobsModel(), tasksModel(), pipelineModel()}
}

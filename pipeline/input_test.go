package pipeline_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/pipeline"
	"github.com/tablekit/tablekit/table"
)

func TestBadInputFailsBeforeAnyRequest(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	if _, err := e.store.Create(ctx, pipeline.Input{ID: "p1", Name: "n"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.CreateExecution(ctx, pipeline.ExecutionInput{ID: "e1", PipelineID: "p1"}); err != nil {
		t.Fatal(err)
	}
	ok := pipeline.Input{Name: "n"}
	with := func(f func(*pipeline.Input)) pipeline.Input { in := ok; f(&in); return in }
	s := e.store
	long := strings.Repeat("x", 500)
	cases := map[string]func() error{
		"create id with delimiter": func() error { _, err := s.Create(ctx, with(func(in *pipeline.Input) { in.ID = "a:b" })); return err },
		"create long id":           func() error { _, err := s.Create(ctx, with(func(in *pipeline.Input) { in.ID = long })); return err },
		"create blank name":        func() error { _, err := s.Create(ctx, with(func(in *pipeline.Input) { in.Name = " " })); return err },
		"create empty tag key": func() error {
			_, err := s.Create(ctx, with(func(in *pipeline.Input) { in.Tags = []pipeline.Tag{{Value: "v"}} }))
			return err
		},
		"create tag key with #": func() error {
			_, err := s.Create(ctx, with(func(in *pipeline.Input) { in.Tags = []pipeline.Tag{{Key: "a#b", Value: "v"}} }))
			return err
		},
		"create tag value with :": func() error {
			_, err := s.Create(ctx, with(func(in *pipeline.Input) { in.Tags = []pipeline.Tag{{Key: "k", Value: "a:b"}} }))
			return err
		},
		"create empty tag level": func() error {
			_, err := s.Create(ctx, with(func(in *pipeline.Input) { in.Tags = []pipeline.Tag{{Key: "k", Value: "usa//x"}} }))
			return err
		},
		"create trailing slash": func() error {
			_, err := s.Create(ctx, with(func(in *pipeline.Input) { in.Tags = []pipeline.Tag{{Key: "k", Value: "usa/"}} }))
			return err
		},
		"create duplicate tag": func() error {
			_, err := s.Create(ctx, with(func(in *pipeline.Input) {
				in.Tags = []pipeline.Tag{{Key: "k", Value: "v"}, {Key: "k", Value: "v"}}
			}))
			return err
		},
		"create duplicate group": func() error {
			_, err := s.Create(ctx, with(func(in *pipeline.Input) { in.Groups = []string{"g", "g"} }))
			return err
		},
		"create group with delimiter": func() error {
			_, err := s.Create(ctx, with(func(in *pipeline.Input) { in.Groups = []string{"a:b"} }))
			return err
		},
		"create invalid UTF-8 name": func() error {
			_, err := s.Create(ctx, with(func(in *pipeline.Input) { in.Name = "\xff" }))
			return err
		},
		"create empty attribute name": func() error {
			_, err := s.Create(ctx, with(func(in *pipeline.Input) { in.Attributes = map[string]string{"": "x"} }))
			return err
		},
		"update empty id":  func() error { _, err := s.Update(ctx, "", 1, ok); return err },
		"update version 0": func() error { _, err := s.Update(ctx, "p1", 0, ok); return err },
		"update other id": func() error {
			_, err := s.Update(ctx, "p1", 1, with(func(in *pipeline.Input) { in.ID = "p2" }))
			return err
		},
		"update blank name":    func() error { _, err := s.Update(ctx, "p1", 1, pipeline.Input{}); return err },
		"get empty id":         func() error { _, err := s.Get(ctx, ""); return err },
		"get id with :":        func() error { _, err := s.Get(ctx, "P:x"); return err },
		"get version 0":        func() error { _, err := s.GetVersion(ctx, "p1", 0); return err },
		"get version of bad":   func() error { _, err := s.GetVersion(ctx, "a:b", 1); return err },
		"list negative limit":  func() error { _, err := s.List(ctx, -1, ""); return err },
		"list bad cursor":      func() error { _, err := s.List(ctx, 1, "garbage"); return err },
		"versions bad id":      func() error { _, err := s.Versions(ctx, "", 1, ""); return err },
		"versions bad limit":   func() error { _, err := s.Versions(ctx, "p1", -2, ""); return err },
		"versions bad cursor":  func() error { _, err := s.Versions(ctx, "p1", 1, "AAAA"); return err },
		"executions bad id":    func() error { _, err := s.Executions(ctx, "x:y", 1, ""); return err },
		"executions bad limit": func() error { _, err := s.Executions(ctx, "p1", -1, ""); return err },
		"execution bad id":     func() error { _, err := s.GetExecution(ctx, ""); return err },
		"create execution no pipeline": func() error {
			_, err := s.CreateExecution(ctx, pipeline.ExecutionInput{})
			return err
		},
		"create execution bad id": func() error {
			_, err := s.CreateExecution(ctx, pipeline.ExecutionInput{ID: "a:b", PipelineID: "p1"})
			return err
		},
		"create execution negative version": func() error {
			_, err := s.CreateExecution(ctx, pipeline.ExecutionInput{PipelineID: "p1", Version: -1})
			return err
		},
		"create execution foreign input": func() error {
			_, err := s.CreateExecution(ctx, pipeline.ExecutionInput{PipelineID: "p1", Version: 1, InputKey: "elsewhere.txt"})
			return err
		},
		"group empty id":        func() error { _, err := s.ListGroup(ctx, "", 1, ""); return err },
		"group bad limit":       func() error { _, err := s.ListGroup(ctx, "g", -1, ""); return err },
		"tags bad limit":        func() error { _, err := s.ListTags(ctx, -1, ""); return err },
		"tag values empty key":  func() error { _, err := s.ListTagValues(ctx, "", 1, ""); return err },
		"tag values key with :": func() error { _, err := s.ListTagValues(ctx, "a:b", 1, ""); return err },
		"by tags none":          func() error { _, err := s.ListByTags(ctx, nil, 1, ""); return err },
		"by tags bad tag": func() error {
			_, err := s.ListByTags(ctx, []pipeline.Tag{{Key: "k", Value: ""}}, 1, "")
			return err
		},
		"by tags bad limit": func() error {
			_, err := s.ListByTags(ctx, []pipeline.Tag{{Key: "k", Value: "v"}}, 5000, "")
			return err
		},
		"upload bad id":         func() error { _, err := s.PresignInputUpload(ctx, "", 1); return err },
		"upload bad version":    func() error { _, err := s.PresignInputUpload(ctx, "p1", -1); return err },
		"output bad id":         func() error { return s.PutOutput(ctx, "", strings.NewReader("x"), 1) },
		"output nil body":       func() error { return s.PutOutput(ctx, "e1", nil, 0) },
		"output negative size":  func() error { return s.PutOutput(ctx, "e1", strings.NewReader("x"), -1) },
		"download bad id":       func() error { _, err := s.PresignOutputDownload(ctx, "a:b"); return err },
		"all versions bad id":   func() error { return firstErr(s.AllVersions(ctx, "")) },
		"all executions bad id": func() error { return firstErrE(s.AllExecutions(ctx, "")) },
		"all group bad id":      func() error { return firstErr(s.AllGroup(ctx, "a:b")) },
		"all by tags none":      func() error { return firstErr(s.AllByTags(ctx, nil)) },
		"tags bad cursor":       func() error { _, err := s.ListTags(ctx, 0, "AQID"); return err },
		"tag values bad cursor": func() error { _, err := s.ListTagValues(ctx, "k", 0, "AQID"); return err },
		"group bad cursor":      func() error { _, err := s.ListGroup(ctx, "g", 0, "AQID"); return err },
		"executions bad cursor": func() error { _, err := s.Executions(ctx, "p1", 0, "AQID"); return err },
	}
	before := e.snapshot(t)
	e.db.ResetCalls()
	for name, call := range cases {
		err := call()
		var ie *table.InputError
		if !errors.Is(err, table.ErrInvalidInput) || !errors.As(err, &ie) || ie.Field == "" {
			t.Errorf("%s: %v, want a *table.InputError", name, err)
		}
		if n := e.calls(); n != 0 {
			t.Errorf("%s: sent %d requests", name, n)
			e.db.ResetCalls()
		}
	}
	if objs := countObjects(t, e.blobs); objs != 0 {
		t.Errorf("bad input stored %d objects", objs)
	}
	if after := e.snapshot(t); len(after) != len(before) {
		t.Fatal("bad input changed the table")
	}
}

func firstErr(seq func(func(*pipeline.Pipeline, error) bool)) error {
	for _, err := range seq {
		return err
	}
	return nil
}

func firstErrE(seq func(func(*pipeline.Execution, error) bool)) error {
	for _, err := range seq {
		return err
	}
	return nil
}

func countObjects(t testing.TB, b blobstore.Store) int {
	n := 0
	for _, err := range b.List(context.Background(), "") {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	return n
}

func TestBadOptionsFailEveryCall(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for name, opt := range map[string]func(*pipeline.Options){
		"presign expiry over 7 days": func(o *pipeline.Options) { o.PresignExpiry = 8 * 24 * 3600e9 },
		"negative concurrency":       func(o *pipeline.Options) { o.MaxConcurrency = -1 },
		"negative tag query limit":   func(o *pipeline.Options) { o.TagQueryLimit = -1 },
		"bad table name":             func(o *pipeline.Options) { o.TableName = "a" },
	} {
		s := pipeline.NewStore(e.db, e.blobs, opt)
		if _, err := s.Create(ctx, pipeline.Input{Name: "n"}); !errors.Is(err, table.ErrInvalidInput) {
			t.Errorf("%s: Create: %v", name, err)
		}
		if _, err := s.Get(ctx, "p1"); !errors.Is(err, table.ErrInvalidInput) {
			t.Errorf("%s: Get: %v", name, err)
		}
	}
	if _, err := pipeline.NewStore(nil, nil).Get(ctx, "p"); !errors.Is(err, table.ErrInvalidInput) {
		t.Errorf("nil db: %v", err)
	}
}

package pipeline_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/pipeline"
	"github.com/tablekit/tablekit/table"
)

func TestBadInputFailsBeforeAnyRequest(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	_, err := e.store.Create(ctx, pipeline.Input{ID: "p1", Name: "n"})
	require.NoError(t, err)
	_, err = e.store.Executions().Create(ctx, pipeline.ExecutionInput{ID: "e1", PipelineID: "p1"})
	require.NoError(t, err)
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
		"get version 0":        func() error { _, err := s.Versions().Get(ctx, "p1", 0); return err },
		"get version of bad":   func() error { _, err := s.Versions().Get(ctx, "a:b", 1); return err },
		"list negative limit":  func() error { _, err := s.Pipelines().List(pipeline.Limit(-1)).Page(ctx, ""); return err },
		"list bad cursor":      func() error { _, err := s.Pipelines().List(pipeline.Limit(1)).Page(ctx, "garbage"); return err },
		"versions bad id":      func() error { _, err := s.Versions().List("", pipeline.Limit(1)).Page(ctx, ""); return err },
		"versions bad limit":   func() error { _, err := s.Versions().List("p1", pipeline.Limit(-2)).Page(ctx, ""); return err },
		"versions bad cursor":  func() error { _, err := s.Versions().List("p1", pipeline.Limit(1)).Page(ctx, "AAAA"); return err },
		"executions bad id":    func() error { _, err := s.Executions().List("x:y", pipeline.Limit(1)).Page(ctx, ""); return err },
		"executions bad limit": func() error { _, err := s.Executions().List("p1", pipeline.Limit(-1)).Page(ctx, ""); return err },
		"execution bad id":     func() error { _, err := s.Executions().Get(ctx, ""); return err },
		"create execution no pipeline": func() error {
			_, err := s.Executions().Create(ctx, pipeline.ExecutionInput{})
			return err
		},
		"create execution bad id": func() error {
			_, err := s.Executions().Create(ctx, pipeline.ExecutionInput{ID: "a:b", PipelineID: "p1"})
			return err
		},
		"create execution negative version": func() error {
			_, err := s.Executions().Create(ctx, pipeline.ExecutionInput{PipelineID: "p1", Version: -1})
			return err
		},
		"create execution foreign input": func() error {
			_, err := s.Executions().Create(ctx, pipeline.ExecutionInput{PipelineID: "p1", Version: 1, InputKey: "elsewhere.txt"})
			return err
		},
		"group empty id":        func() error { _, err := s.Pipelines().InGroup("", pipeline.Limit(1)).Page(ctx, ""); return err },
		"group bad limit":       func() error { _, err := s.Pipelines().InGroup("g", pipeline.Limit(-1)).Page(ctx, ""); return err },
		"tags bad limit":        func() error { _, err := s.Tags().List(pipeline.Limit(-1)).Page(ctx, ""); return err },
		"tag values empty key":  func() error { _, err := s.Tags().Values("", pipeline.Limit(1)).Page(ctx, ""); return err },
		"tag values key with :": func() error { _, err := s.Tags().Values("a:b", pipeline.Limit(1)).Page(ctx, ""); return err },
		"by tags none":          func() error { _, err := s.Pipelines().ByTags(nil, pipeline.Limit(1)).Page(ctx, ""); return err },
		"by tags bad tag": func() error {
			_, err := s.Pipelines().ByTags([]pipeline.Tag{{Key: "k", Value: ""}}, pipeline.Limit(1)).Page(ctx, "")
			return err
		},
		"by tags bad limit": func() error {
			_, err := s.Pipelines().ByTags([]pipeline.Tag{{Key: "k", Value: "v"}}, pipeline.Limit(5000)).Page(ctx, "")
			return err
		},
		"upload bad id":         func() error { _, err := s.PresignInputUpload(ctx, "", 1); return err },
		"upload bad version":    func() error { _, err := s.PresignInputUpload(ctx, "p1", -1); return err },
		"output bad id":         func() error { return s.PutOutput(ctx, "", strings.NewReader("x"), 1) },
		"output nil body":       func() error { return s.PutOutput(ctx, "e1", nil, 0) },
		"output negative size":  func() error { return s.PutOutput(ctx, "e1", strings.NewReader("x"), -1) },
		"download bad id":       func() error { _, err := s.PresignOutputDownload(ctx, "a:b"); return err },
		"all versions bad id":   func() error { return firstErr(s.Versions().List("").All(ctx)) },
		"all executions bad id": func() error { return firstErrE(s.Executions().List("").All(ctx)) },
		"all group bad id":      func() error { return firstErr(s.Pipelines().InGroup("a:b").All(ctx)) },
		"all by tags none":      func() error { return firstErr(s.Pipelines().ByTags(nil).All(ctx)) },
		"tags bad cursor":       func() error { _, err := s.Tags().List().Page(ctx, "AQID"); return err },
		"tag values bad cursor": func() error { _, err := s.Tags().Values("k").Page(ctx, "AQID"); return err },
		"group bad cursor":      func() error { _, err := s.Pipelines().InGroup("g").Page(ctx, "AQID"); return err },
		"executions bad cursor": func() error { _, err := s.Executions().List("p1").Page(ctx, "AQID"); return err },
	}
	before := e.snapshot(t)
	e.db.ResetCalls()
	for name, call := range cases {
		err := call()
		var ie *table.InputError
		assert.ErrorIs(t, err, table.ErrInvalidInput, name)
		if assert.ErrorAs(t, err, &ie, name) {
			assert.NotEmpty(t, ie.Field, "%s: the error names the field", name)
		}
		assert.Zero(t, e.calls(), "%s: requests sent", name)
		e.db.ResetCalls()
	}
	assert.Zero(t, countObjects(t, e.blobs), "bad input stored objects")
	assert.Equal(t, before, e.snapshot(t), "bad input changed the table")
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
		require.NoError(t, err)
		n++
	}
	return n
}

func TestBadOptionsFailInNewStore(t *testing.T) {
	e := newEnv(t)
	for name, opt := range map[string]func(*pipeline.Options){
		"presign expiry over 7 days": func(o *pipeline.Options) { o.PresignExpiry = 8 * 24 * 3600e9 },
		"negative concurrency":       func(o *pipeline.Options) { o.MaxConcurrency = -1 },
		"negative tag query limit":   func(o *pipeline.Options) { o.TagQueryLimit = -1 },
		"bad table name":             pipeline.TableName("a"),
	} {
		s, err := pipeline.NewStore(e.db, e.blobs, opt)
		assert.ErrorIs(t, err, table.ErrInvalidInput, name)
		assert.Nil(t, s, name)
	}
	s, err := pipeline.NewStore(nil, nil)
	assert.ErrorIs(t, err, table.ErrInvalidInput, "nil db")
	assert.Nil(t, s)
	s, err = pipeline.NewStore(e.db, nil, nil)
	assert.NoError(t, err, "a nil option is skipped")
	assert.NotNil(t, s)
}

// A listing checks its arguments in the order they are written, when it is
// made: with a bad parent id and a bad limit, the id is the one reported,
// once from All, and nothing is read.
func TestAListingWithTwoBadArgumentsReportsTheFirstAndReadsNothing(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	before := e.db.Calls("Query")
	for name, l := range map[string]table.List[*pipeline.Execution]{
		"executions": e.store.Executions().List("", pipeline.Limit(-1)),
	} {
		var ie *table.InputError
		_, err := l.Page(ctx, "")
		require.ErrorAs(t, err, &ie, name)
		assert.Equal(t, "pipelineID", ie.Field, name)
		var errs []error
		for _, err := range l.All(ctx) {
			errs = append(errs, err)
		}
		require.Len(t, errs, 1, name)
		assert.ErrorAs(t, errs[0], &ie, name)
		assert.Equal(t, "pipelineID", ie.Field, name)
	}
	for name, l := range map[string]table.List[*pipeline.Pipeline]{
		"versions": e.store.Versions().List("a:b", pipeline.Limit(-1)),
		"group":    e.store.Pipelines().InGroup("", pipeline.Limit(-1)),
	} {
		var ie *table.InputError
		_, err := l.Page(ctx, "")
		require.ErrorAs(t, err, &ie, name)
		assert.Contains(t, []string{"id", "groupID"}, ie.Field, name)
	}
	_, err := e.store.Tags().Values("", pipeline.Limit(-1)).Page(ctx, "")
	var ie *table.InputError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "key", ie.Field)
	assert.Equal(t, before, e.db.Calls("Query"), "nothing read")
}

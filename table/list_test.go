package table_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/table"
)

// listOfPages is a List over pages (walk_test.go's three pages of two),
// recording the cursors asked for and the context each page got.
func listOfPages(asked *[]string, failAt string, seen *[]context.Context) table.List[int] {
	page := pages(asked, failAt)
	return table.NewList(func(ctx context.Context, cursor string) (table.Page[int], error) {
		if seen != nil {
			*seen = append(*seen, ctx)
		}
		return page(cursor)
	})
}

type ctxKey struct{}

func TestListPageReadsThePageAtTheCursorWithTheCallersContext(t *testing.T) {
	var asked []string
	var seen []context.Context
	l := listOfPages(&asked, "none", &seen)
	ctx := context.WithValue(context.Background(), ctxKey{}, "caller")

	first, err := l.Page(ctx, "")
	require.NoError(t, err)
	assert.Equal(t, table.Page[int]{Items: []int{1, 2}, Next: "p2"}, first)
	last, err := l.Page(ctx, "p3")
	require.NoError(t, err)
	assert.Equal(t, table.Page[int]{Items: []int{5}}, last, "the last page's Next is empty")

	assert.Equal(t, []string{"", "p3"}, asked)
	require.Len(t, seen, 2)
	for _, c := range seen {
		assert.Equal(t, "caller", c.Value(ctxKey{}), "the page function gets the caller's context")
	}
}

func TestListAllYieldsEveryItemOfEveryPageAndCanBeReadAgain(t *testing.T) {
	var asked []string
	l := listOfPages(&asked, "none", nil)
	for range 2 {
		var got []int
		for v, err := range l.All(context.Background()) {
			require.NoError(t, err)
			got = append(got, v)
		}
		assert.Equal(t, []int{1, 2, 3, 4, 5}, got)
	}
	assert.Equal(t, []string{"", "p2", "p3", "", "p2", "p3"}, asked, "each All starts from the first page")
}

func TestListAllStopsAtTheFirstErrorAndWhenTheCallerStops(t *testing.T) {
	var asked []string
	var got []int
	var errs []error
	for v, err := range listOfPages(&asked, "p2", nil).All(context.Background()) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		got = append(got, v)
	}
	assert.Equal(t, []int{1, 2}, got)
	require.Len(t, errs, 1)
	assert.EqualError(t, errs[0], "page p2 failed")

	asked = nil
	for v, err := range listOfPages(&asked, "none", nil).All(context.Background()) {
		require.NoError(t, err)
		if v == 1 {
			break
		}
	}
	assert.Equal(t, []string{""}, asked, "no page is read after the caller stops")
}

// A listing made with bad arguments reads nothing, whichever way it is
// read: Page returns the error, All yields it first and only.
func TestFailedListReturnsItsErrorAndReadsNothing(t *testing.T) {
	bad := &table.InputError{Field: "pipelineID", Value: `""`, Reason: "empty"}
	l := table.FailedList[int](bad)

	page, err := l.Page(context.Background(), "")
	assert.Same(t, bad, err)
	assert.Zero(t, page)
	var noCtx context.Context
	_, err = l.Page(noCtx, "p2")
	assert.Same(t, bad, err, "the listing's own error comes first")

	var errs []error
	for v, err := range l.All(context.Background()) {
		assert.Zero(t, v)
		errs = append(errs, err)
	}
	require.Len(t, errs, 1, "one yield, then the iteration ends")
	assert.Same(t, bad, errs[0])
}

func TestMisuseOfAListIsAnInputErrorAndReadsNothing(t *testing.T) {
	var asked []string
	var noCtx context.Context
	cases := map[string]func() error{
		"zero List": func() error { _, err := table.List[int]{}.Page(context.Background(), ""); return err },
		"zero List's All": func() error {
			for _, err := range (table.List[int]{}).All(context.Background()) {
				return err
			}
			return nil
		},
		"nil context":        func() error { _, err := listOfPages(&asked, "none", nil).Page(noCtx, ""); return err },
		"NewList(nil)":       func() error { _, err := table.NewList[int](nil).Page(context.Background(), ""); return err },
		"FailedList(nil)":    func() error { _, err := table.FailedList[int](nil).Page(context.Background(), ""); return err },
		"nil context to All": func() error { return firstErrOf(listOfPages(&asked, "none", nil).All(noCtx)) },
	}
	for name, call := range cases {
		err := call()
		var ie *table.InputError
		assert.ErrorAs(t, err, &ie, name)
		assert.ErrorIs(t, err, table.ErrInvalidInput, name)
	}
	assert.Empty(t, asked, "no page was read")
}

func firstErrOf(seq func(func(int, error) bool)) error {
	for _, err := range seq {
		return err
	}
	return errors.New("no yield")
}

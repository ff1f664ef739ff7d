package table_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/table"
)

// pages serves three pages of two, recording which cursors were asked for.
func pages(asked *[]string, failAt string) func(string) (table.Page[int], error) {
	book := map[string]table.Page[int]{
		"":   {Items: []int{1, 2}, Next: "p2"},
		"p2": {Items: []int{3, 4}, Next: "p3"},
		"p3": {Items: []int{5}},
	}
	return func(cursor string) (table.Page[int], error) {
		*asked = append(*asked, cursor)
		if cursor == failAt {
			return table.Page[int]{}, errors.New("page " + cursor + " failed")
		}
		return book[cursor], nil
	}
}

func TestWalkYieldsEveryItemInPageOrderUntilTheLastPage(t *testing.T) {
	var asked []string
	var got []int
	for v, err := range table.Walk(pages(&asked, "none")) {
		require.NoError(t, err)
		got = append(got, v)
	}
	assert.Equal(t, []int{1, 2, 3, 4, 5}, got)
	assert.Equal(t, []string{"", "p2", "p3"}, asked)
}

func TestWalkStopsAtTheFirstErrorAndYieldsItOnce(t *testing.T) {
	var asked []string
	var got []int
	var errs []error
	for v, err := range table.Walk(pages(&asked, "p2")) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		got = append(got, v)
	}
	assert.Equal(t, []int{1, 2}, got)
	require.Len(t, errs, 1)
	assert.EqualError(t, errs[0], "page p2 failed")
	assert.Equal(t, []string{"", "p2"}, asked, "no page after the failed one")
}

func TestWalkFetchesNoFurtherPageWhenTheCallerStops(t *testing.T) {
	var asked []string
	for v, err := range table.Walk(pages(&asked, "none")) {
		require.NoError(t, err)
		if v == 2 {
			break
		}
	}
	assert.Equal(t, []string{""}, asked)
}

func TestWalkOfANilPageFunctionYieldsAnInputErrorOnce(t *testing.T) {
	var errs []error
	for _, err := range table.Walk[int](nil) {
		errs = append(errs, err)
	}
	require.Len(t, errs, 1, "one error, then the iteration ends")
	var ie *table.InputError
	assert.ErrorAs(t, errs[0], &ie)
	assert.ErrorIs(t, errs[0], table.ErrInvalidInput)
}

package main

import (
	"context"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestJourneyDocStatesTheComputedCosts: journey's package doc says what
// its table costs a month, what the log summaries add and what is left
// without them; each figure is docs/costs.md's, computed from the store's
// declarations, as the doc rounds it.
func TestJourneyDocStatesTheComputedCosts(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, write(context.Background(), io.Discard, dir, models()))
	costs, err := os.ReadFile(filepath.Join(dir, "costs.md"))
	require.NoError(t, err)
	m := regexp.MustCompile(`\$([0-9.]+)/month for DynamoDB alone \(.*? of which log summaries \$([0-9.]+), storage [0-9.]+ GB \$[0-9.]+ of which log summaries \$([0-9.]+)\), S3 not included; without the log summaries' writes and storage \$([0-9.]+)`).FindSubmatch(costs)
	require.NotNil(t, m, "docs/costs.md states the journey table's cost")
	computed := make([]float64, 4)
	for i := range computed {
		computed[i], err = strconv.ParseFloat(string(m[i+1]), 64)
		require.NoError(t, err)
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "journey", "doc.go"))
	require.NoError(t, err)
	text := regexp.MustCompile(`\n//\s*`).ReplaceAll(doc, []byte(" ")) // the comment as one paragraph
	d := regexp.MustCompile(`costs about \$([0-9.]+) a month.*?\$([0-9]+) of it is the summaries.*?and \$([0-9.]+) their week of storage.*?the rest, about \$([0-9.]+), is the seed's figure`).FindSubmatch(text)
	require.NotNil(t, d, "journey/doc.go states the table's cost")
	for i, what := range []string{"the monthly cost", "the summaries' writes", "the summaries' storage", "the cost without summaries"} {
		stated, err := strconv.ParseFloat(string(d[i+1]), 64)
		require.NoError(t, err)
		round := 1.0
		if i == 2 {
			round = 10 // "$2.7"
		}
		assert.Equal(t, math.Round(computed[i]*round)/round, stated, "journey/doc.go: %s", what)
	}
}

package main

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExampleRunsTwiceInOneProcess runs the whole example twice: on the
// in-memory fake, or on DynamoDB Local when TABLEKIT_DYNAMODB_ENDPOINT is
// set. Each run keeps to its own tables, so the second is not confused by
// the first's stream or view.
func TestExampleRunsTwiceInOneProcess(t *testing.T) {
	for range 2 {
		var out bytes.Buffer
		require.NoError(t, run(nil, &out), out.String())
		assert.Contains(t, out.String(), "the view equals a recount of the jobs")
		assert.Equal(t, 4, strings.Count(out.String(), "QUEUED=1 COMPLETED=2 FAILED=1"), "two users, two days")
		// Each day makes 26 changes. Delivery is at least once: a consumer
		// stopped between its handler and its checkpoint leaves that batch
		// to its successor, which handles it again (the view counts it once:
		// the recount above). So each handles at least its day's changes.
		assert.GreaterOrEqual(t, handledBy(t, out.String(), "consumer-1"), 26)
		assert.GreaterOrEqual(t, handledBy(t, out.String(), "consumer-2"), 26)
	}
}

// handledBy reads "<owner> handled <n> changes" from the example's output.
func handledBy(t *testing.T, out, owner string) int {
	t.Helper()
	m := regexp.MustCompile(regexp.QuoteMeta(owner) + ` handled (\d+) changes`).FindStringSubmatch(out)
	require.NotNil(t, m, "no count for %s in:\n%s", owner, out)
	n, err := strconv.Atoi(m[1])
	require.NoError(t, err)
	return n
}

package main

import (
	"bytes"
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
		assert.Contains(t, out.String(), "consumer-1 handled 26 changes")
		assert.Contains(t, out.String(), "consumer-2 handled 26 changes")
	}
}

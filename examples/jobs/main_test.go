package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestExampleRuns runs the whole example, on the in-memory fake or on the
// emulators TABLEKIT_*_ENDPOINT name, twice in one process (go test
// -count=2 runs it four times): it fails when the program would exit
// non-zero, or when a run leaves state that breaks the next.
func TestExampleRuns(t *testing.T) {
	for range 2 {
		require.NoError(t, run(nil))
	}
}

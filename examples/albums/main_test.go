package main

import (
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestExampleRunsTwiceInOneProcess runs the whole example twice: on the
// in-memory fake and blob store, or on the emulators TABLEKIT_*_ENDPOINT
// name. It fails when the program would exit non-zero, and when a second
// run in the same process fails.
func TestExampleRunsTwiceInOneProcess(t *testing.T) {
	require.NoError(t, run(nil, io.Discard), "first run")
	require.NoError(t, run(nil, io.Discard), "second run")
}

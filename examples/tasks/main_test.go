package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestExampleRunsTwiceInOneProcess runs the whole example twice: on the
// in-memory fake, or on the DynamoDB TABLEKIT_DYNAMODB_ENDPOINT names. It
// fails when the program would exit non-zero, and when a second run in the
// same process fails (flags registered globally panic there).
func TestExampleRunsTwiceInOneProcess(t *testing.T) {
	require.NoError(t, run(nil), "first run")
	require.NoError(t, run(nil), "second run")
}

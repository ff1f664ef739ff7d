package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/internal/testenv"
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

// TestAWSWithoutARegionSaysToSetIt: -aws on a machine with no AWS
// configuration fails before any request, naming the variable to set.
func TestAWSWithoutARegionSaysToSetIt(t *testing.T) {
	testenv.NoAWSConfig(t)
	err := run([]string{"-aws"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "set AWS_REGION")
}

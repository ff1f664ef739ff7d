package main

import "testing"

// TestExampleRuns runs the whole example: on the in-memory fake and blob
// store, or on the emulators TABLEKIT_*_ENDPOINT name. It fails when the
// program would exit non-zero.
func TestExampleRuns(t *testing.T) {
	if err := run(); err != nil {
		t.Fatal(err)
	}
}

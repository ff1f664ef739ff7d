package main

import (
	"context"
	"testing"
)

// TestChaosRunEndsEveryJobExactlyOnce runs the example at a smaller scale,
// twice in one process (go test -count=2 runs it four times): on the
// in-memory fake, or on the emulators TABLEKIT_*_ENDPOINT name. It fails
// when the program would exit non-zero: a job lost, stuck or recorded
// twice, or a task history with a gap.
func TestChaosRunEndsEveryJobExactlyOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("the chaos run takes seconds")
	}
	for range 2 {
		if err := run(context.Background(), []string{"-jobs", "100", "-workers", "8", "-die", "0.1", "-lease", "500ms"}); err != nil {
			t.Fatal(err)
		}
	}
}

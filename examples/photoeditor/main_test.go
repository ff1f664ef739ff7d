package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/examples/internal/exampleenv"
	"github.com/tablekit/tablekit/internal/testenv"
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
		require.NoError(t, run(context.Background(), []string{"-jobs", "100", "-workers", "8", "-die", "0.1", "-lease", "500ms"}))
	}
}

// TestTwentyWorkersThousandJobsOnTheFakeEachEndOnce is issue 13's load on
// the in-memory fake: 20 handlers (5 tasks.Worker processes of 4) over
// 1,000 jobs, 10% provider failures, 5% of jobs killing their process
// mid-job, 2% handler panics and injected throttling. Every job ends
// COMPLETED or FAILED with exactly one terminal move, every task
// COMPLETED with a history numbered without a gap.
func TestTwentyWorkersThousandJobsOnTheFakeEachEndOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("the chaos run takes seconds")
	}
	t.Setenv(exampleenv.DynamoDBEndpointVar, "")
	t.Setenv(exampleenv.S3EndpointVar, "")
	require.NoError(t, run(context.Background(), []string{"-jobs", "1000", "-workers", "20", "-handlers", "4",
		"-fail", "0.1", "-die", "0.05"}))
}

// TestIntegrationTwentyWorkersChaosRunOnDynamoDBLocal is the same load on
// DynamoDB Local and s3rver, scaled down to 200 jobs: Local serves this
// run at 5 to 15 jobs a second on a loaded machine, so 1,000 would take
// minutes (go run ./examples/photoeditor -jobs 1000 -timeout 3m runs the
// full size there).
func TestIntegrationTwentyWorkersChaosRunOnDynamoDBLocal(t *testing.T) {
	t.Setenv(exampleenv.DynamoDBEndpointVar, testenv.DynamoDBEndpoint(t))
	t.Setenv(exampleenv.S3EndpointVar, testenv.S3Endpoint(t))
	require.NoError(t, run(context.Background(), []string{"-jobs", "200", "-workers", "20", "-handlers", "4",
		"-fail", "0.1", "-die", "0.05"}))
}

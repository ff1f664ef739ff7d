package readme_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/jobs"
)

// taste is README.md's "A taste" sample, verbatim between the markers.
func taste() error {
	// README sample begins
	db := dynamotest.New() // or conn.DB from connect.Open(ctx): both satisfy table.API
	ctx := context.Background()

	store, err := jobs.NewStore(db, blobstore.NewMemory()) // table photoeditor-dev-jobs; jobs.TableName(...) for another
	if err != nil {
		return err
	}
	// The table with its two GSIs, TTL on `ttl`, point-in-time recovery and KMS
	// encryption, as the jobs design (docs/systems/jobs.md) documents it.
	if err := store.EnsureTable(ctx); err != nil {
		return err
	}

	// An idempotency key makes a retried upload return the same job; the second
	// result, created, is then false.
	job, _, err := store.Create(ctx, jobs.CreateInput{
		UserID: "user-1", FileType: "image/jpeg", FileSize: 2048, Provider: "gemini",
		IdempotencyKey: "upload-7f3a",
	})
	if err != nil {
		return err
	}
	// A move is one conditional write on the expected status: of twenty workers
	// racing for this job, one wins and the others get a *jobs.TransitionError.
	started, err := store.StartProcessing(ctx, job.ID)
	if errors.Is(err, jobs.ErrInvalidTransition) {
		return nil // another worker took it
	}
	if err != nil {
		return err
	}
	// The winner holds a lease: it renews it (store.Heartbeat) and passes it to
	// every later move; store.Maintenance().Recover re-queues the jobs of workers
	// that died.
	// With jobs.Work, Create queues the job's task in the same transaction and
	// store.NewWorker runs the jobs under their tasks' leases: the next worker to
	// claim a dead worker's task takes its job over (docs/systems/jobs.md).
	if _, err := store.StartEditing(ctx, started.Lease(), nil); err != nil {
		return err
	}
	page, err := store.ByUser("user-1", jobs.Limit(25)).Page(ctx, "")
	if err != nil {
		return err
	}
	for _, j := range page.Items { // newest first; page.Next is the next page's cursor, "" at the end
		fmt.Println(j.UserID, j.Status)
	}
	return nil
	// README sample ends
}

func Example() {
	if err := taste(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// user-1 EDITING
}

// TestREADMESampleIsTheOneThatCompiles compares README.md's first Go block
// with taste's body, ignoring indentation.
func TestREADMESampleIsTheOneThatCompiles(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	block := regexp.MustCompile("(?s)```go\n(.*?)```").FindSubmatch(readme)
	require.NotNil(t, block, "README.md has no ```go block")
	src, err := os.ReadFile("readme_test.go")
	require.NoError(t, err)
	body := regexp.MustCompile(`(?s)// README sample begins\n(.*?)\s*// README sample ends`).FindSubmatch(src)
	require.NotNil(t, body)
	assert.Equal(t, normalize(string(body[1])), normalize(string(block[1])),
		"README.md's sample and taste() in internal/readme/readme_test.go differ: change both")
}

func normalize(s string) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		lines = append(lines, strings.TrimSpace(l))
	}
	return strings.Join(lines, "\n")
}

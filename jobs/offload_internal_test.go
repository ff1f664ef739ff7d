package jobs

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
)

// analysisOfSize returns an analysis whose attribute analysisResult is
// exactly n bytes as table.ItemSize counts it.
func analysisOfSize(t *testing.T, n int) *AnalysisResult {
	t.Helper()
	a := &AnalysisResult{Labels: []Label{{Name: "x", Confidence: 0.5}}, Description: "d"}
	av, err := attributevalue.Marshal(a)
	require.NoError(t, err)
	base := table.ItemSize(table.Item{attrAnalysisResult: av})
	a.Description = strings.Repeat("d", 1+n-base)
	av, _ = attributevalue.Marshal(a)
	require.Equal(t, n, table.ItemSize(table.Item{attrAnalysisResult: av}), "analysis size")
	return a
}

// The store promises to keep a job under the threshold without reading it
// first: every other attribute at its largest plus an analysis exactly at
// the inline budget must still fit, and one byte more must be offloaded.
//
// With Options.Renames the renamed attributes are stored twice; every
// renameable attribute renamed to a name of the longest length must still
// fit.
func TestJobAtMaximumSizesStaysUnderThreshold(t *testing.T) {
	t.Run("plain", func(t *testing.T) { jobAtMaximumSizesStaysUnderThreshold(t) })
	t.Run("every attribute renamed", func(t *testing.T) {
		var rs []Rename
		for name := range knownAttrs {
			if _, bad := notRenameable[name]; !bad {
				rs = append(rs, Rename{From: name, To: name + strings.Repeat("_", maxRenameLen-len(name))})
			}
		}
		jobAtMaximumSizesStaysUnderThreshold(t, func(o *Options) { o.Renames = rs })
	})
}

func jobAtMaximumSizesStaysUnderThreshold(t *testing.T, opts ...func(*Options)) {
	ctx := context.Background()
	db := dynamotest.New()
	blobs := blobstore.NewMemory()
	ids := []string{strings.Repeat("j", maxIDLen), strings.Repeat("k", maxIDLen)}
	longest := strings.Repeat("x", maxFieldLen) // a provider name at its largest
	store, err := NewStore(db, blobs, append([]func(*Options){Providers(longest), func(o *Options) {
		o.NewID = func(time.Time) string { id := ids[0]; ids = ids[1:]; return id }
	}}, opts...)...)
	require.NoError(t, err)
	require.NoError(t, store.EnsureTable(ctx))
	max := func(prefix string, n int) string { return prefix + strings.Repeat("x", n-len(prefix)) }
	job, _, err := store.Create(ctx, CreateInput{
		UserID: max("", maxUserIDLen), FileSize: 1 << 40, FileType: max("image/", maxFieldLen),
		OriginalFileName: max("", maxFieldLen), S3TempKey: max("", maxS3KeyLen), Provider: longest,
		CorrelationID: max("", maxFieldLen), TraceID: max("", maxFieldLen),
	})
	require.NoError(t, err)
	size := func(step string) {
		t.Helper()
		var item table.Item
		require.NoError(t, store.Table().Get(ctx, store.Table().Key(job.ID), &item, table.Consistent()))
		n := table.ItemSize(item)
		require.Falsef(t, n > DefaultOffloadThreshold, "after %s the item is %d bytes, over the %d threshold", step, n, DefaultOffloadThreshold)
	}
	bigError := JobError{Code: max("", maxCodeLen), Message: max("", maxMessageLen), Stack: max("", maxStackLen)}
	for range 2 { // the second round has error.retryCount set
		must(t)(store.StartProcessing(ctx, job.ID))
		must(t)(store.StartEditing(ctx, leaseOf(t, store, job.ID), analysisOfSize(t, store.budget)))
		size("StartEditing at the budget")
		must(t)(store.Fail(ctx, leaseOf(t, store, job.ID), bigError))
		size("Fail with the largest error")
		must(t)(store.Maintenance().Replay(ctx, job.ID))
	}
	must(t)(store.StartProcessing(ctx, job.ID))
	must(t)(store.StartEditing(ctx, leaseOf(t, store, job.ID), analysisOfSize(t, store.budget)))
	must(t)(store.Complete(ctx, leaseOf(t, store, job.ID), EditResult{S3Key: max("", maxS3KeyLen), Width: 1 << 30, Height: 1 << 30, Format: FormatJPEG, Size: 1 << 40}))
	size("Complete with the largest edit result")
	for _, err := range blobs.List(ctx, "") {
		require.Fail(t, "an analysis at the budget was offloaded", "%v", err)
	}

	// One byte over the budget goes to the blob store, under a key S3
	// accepts although the id is 2048 bytes long.
	other, _, err := store.Create(ctx, CreateInput{UserID: "u", FileType: "image/png", Provider: ProviderStub})
	require.NoError(t, err)
	must(t)(store.StartProcessing(ctx, other.ID))
	over := analysisOfSize(t, store.budget+1)
	must(t)(store.StartEditing(ctx, leaseOf(t, store, other.ID), over))
	objects := 0
	for info, err := range blobs.List(ctx, "") {
		require.NoError(t, err)
		require.Falsef(t, len(info.Key) > blobstore.MaxKeyLength, "object key of %d bytes", len(info.Key))
		objects++
	}
	require.Equal(t, 1, objects)
	got, err := store.Get(ctx, other.ID)
	require.NoError(t, err)
	require.Equal(t, over.Description, got.AnalysisResult.Description)
}

func must(t *testing.T) func(*Job, error) *Job {
	return func(j *Job, err error) *Job {
		t.Helper()
		require.NoError(t, err)
		return j
	}
}

func leaseOf(t testing.TB, store *Store, id string) Lease {
	t.Helper()
	j, err := store.Get(context.Background(), id, Consistent())
	require.NoError(t, err, "Get")
	return j.Lease()
}

// A renamed analysisResult is stored twice: each copy gets half the
// budget; a threshold that leaves too little beside the renames' copies
// is refused by NewStore.
func TestRenamesShareTheOffloadBudget(t *testing.T) {
	plain, err := attributeBudget(DefaultOffloadThreshold, nil)
	require.NoError(t, err)
	halved, err := attributeBudget(DefaultOffloadThreshold, renames{{From: attrAnalysisResult, To: "analysis"}})
	require.NoError(t, err)
	assert.Equal(t, (plain-len("analysis"))/2, halved)
	one, err := attributeBudget(DefaultOffloadThreshold, renames{{From: attrS3TempKey, To: "uploadKey"}})
	require.NoError(t, err)
	assert.Equal(t, plain-len("uploadKey")-maxS3KeyLen, one)
	_, err = NewStore(dynamotest.New(), nil, func(o *Options) { o.OffloadThreshold = minOffloadThreshold },
		RenameAttribute(attrAnalysisResult, "analysis"))
	assert.ErrorIs(t, err, table.ErrInvalidInput, "8 KB inline halved is under the minimum")
	for name := range knownAttrs {
		if _, bad := notRenameable[name]; !bad && name != attrAnalysisResult {
			assert.Contains(t, maxValueSize, name, "every renameable attribute has a bounded size")
		}
	}
}

package datamodel_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/datamodel"
	"github.com/tablekit/tablekit/jobs"
)

// runJobs drives a jobs store at its declared peaks multiplied by scale:
// every 100 ms, the tick's share of creates, polls (spread over the jobs,
// as clients poll their own), user and admin lists, and the moves of the
// jobs created (processing, a heartbeat, editing, completed).
func runJobs(t *testing.T, scale float64, seconds int) *sim {
	ctx := context.Background()
	s := newSim(t)
	st, err := jobs.NewStore(s.api, blobstore.NewMemory(), jobs.Clock(s.db.Now),
		func(o *jobs.Options) { o.Table = append(o.Table, noRetries) })
	require.NoError(t, err)
	require.NoError(t, st.EnsureTable(ctx))
	ps := jobs.Patterns()
	rate := func(name string) float64 { return scale * rateOf(t, ps, name) }
	pace := pacer{}
	var created, queued []string
	n, polls := 0, 0
	s.run(seconds, func() {
		for range pace.take("create", rate("Create job"), simTick) {
			n++
			s.call(func(ctx context.Context) error {
				j, _, err := st.Create(ctx, jobs.CreateInput{UserID: fmt.Sprint("user-", n%1000), FileSize: 2 << 20, FileType: "image/jpeg", Provider: "stub"})
				if err == nil {
					created, queued = append(created, j.ID), append(queued, j.ID)
				}
				return err
			})
		}
		for range pace.take("poll", rate("Get job by ID"), simTick) {
			if len(created) > 0 {
				polls++
				s.call(func(ctx context.Context) error { _, err := st.Get(ctx, created[polls%len(created)]); return err })
			}
		}
		for range pace.take("list", rate("List user jobs"), simTick) {
			s.call(func(ctx context.Context) error {
				_, err := st.ByUser(fmt.Sprint("user-", polls%1000)).Page(ctx, "")
				return err
			})
		}
		for range pace.take("admin", rate("List failed jobs"), simTick) {
			s.call(func(ctx context.Context) error {
				_, err := st.Maintenance().ByStatus(jobs.StatusFailed).Page(ctx, "")
				return err
			})
		}
		beats := pace.take("heartbeat", rate("Heartbeat job lease"), simTick)
		for i := range pace.take("moves", rate("Update job status"), simTick) {
			if len(queued) == 0 {
				break
			}
			id := queued[0]
			queued = queued[1:]
			var j *jobs.Job
			if s.call(func(ctx context.Context) (err error) { j, err = st.StartProcessing(ctx, id); return err }) {
				continue
			}
			lease := j.Lease()
			if i < beats && s.call(func(ctx context.Context) (err error) { lease, err = st.Heartbeat(ctx, lease); return err }) {
				continue
			}
			if s.call(func(ctx context.Context) (err error) { j, err = st.StartEditing(ctx, lease, nil); return err }) {
				continue
			}
			s.call(func(ctx context.Context) error {
				_, err := st.Complete(ctx, j.Lease(), jobs.EditResult{S3Key: "final/" + id, Width: 800, Height: 600, Format: "jpeg", Size: 1 << 20})
				return err
			})
		}
	})
	require.NotEmpty(t, created, "jobs were created")
	return s
}

// TestJobsAtSeedPeakDoNotThrottle: the jobs design's ~100k jobs a month, at
// their declared peak, load no key value near its limits; datamodel says
// so and the fake throttles nothing.
func TestJobsAtSeedPeakDoNotThrottle(t *testing.T) {
	est, err := datamodel.EstimateSchema(jobs.Schema(jobs.DefaultTableName), jobs.Patterns())
	require.NoError(t, err)
	require.Empty(t, hotSet(est))
	s := runJobs(t, 1, 10)
	assert.Zero(t, s.throttled)
	assert.Empty(t, throttledSet(est, s.l))
}

package analytics

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/table"
)

// Attributes of a day row besides its keys: one counter per status (named
// as the status), and the completed jobs' count and processing time.
const (
	attrUserID       = "userId"
	attrDay          = "day"
	attrTimed        = "timedCount"
	attrProcessingMs = "processingMs"
	attrSeq          = "seq"
)

// bucket is a day row's identity.
type bucket struct{ user, day string }

// tally is what a bucket counts.
type tally struct {
	byStatus     map[jobs.Status]int64
	timed        int64
	processingMs int64
}

func (t *tally) add(o tally, sign int64) {
	if t.byStatus == nil {
		t.byStatus = map[jobs.Status]int64{}
	}
	for s, n := range o.byStatus {
		t.byStatus[s] += sign * n
	}
	t.timed += sign * o.timed
	t.processingMs += sign * o.processingMs
}

func (t *tally) zero() bool {
	for _, n := range t.byStatus {
		if n != 0 {
			return false
		}
	}
	return t.timed == 0 && t.processingMs == 0
}

// contribution is what one job adds to the view.
func contribution(j *Job) (bucket, tally) {
	b := bucket{user: j.UserID, day: time.UnixMilli(j.CreatedAt).UTC().Format(time.DateOnly)}
	t := tally{byStatus: map[jobs.Status]int64{j.Status: 1}}
	if j.Status == jobs.StatusCompleted && j.ProcessingStartedAt > 0 && j.ProcessingCompletedAt >= j.ProcessingStartedAt {
		t.timed = 1
		t.processingMs = j.ProcessingCompletedAt - j.ProcessingStartedAt
	}
	return b, t
}

// Apply applies a batch of the jobs table's changes to the view: it is a
// changes.Handler. The changes are summed per user and day, and each sum
// is one write of the day's row: a batch of a hundred changes of ten
// users writes ten rows, and a change alone writes one. A row keeps, per
// stream shard, the sequence number of the newest change of that shard
// it holds (an attribute named for the shard), and a write adds only on
// the condition that the row holds an older one. The stream delivers at
// least once, and a batch delivered again (a consumer died before its
// checkpoint) comes from the same shard in the same order: the changes a
// row already holds are dropped, the rest added, so each change counts
// once, row by row, whatever was written before the consumer died.
// A change that alters nothing the view counts (a heartbeat) writes
// nothing. An error leaves the rest of the batch unapplied; the consumer
// delivers it again.
func (v *View) Apply(ctx context.Context, batch []changes.Change[Job]) (err error) {
	ctx, span := v.start(ctx, "analytics.Apply")
	defer span.End(&err)
	if err := v.check(); err != nil {
		return err
	}
	// The changes of each row and shard, oldest first. A consumer's
	// batch is one shard's; a caller may mix shards.
	type rowOfShard struct {
		row   bucket
		shard string
	}
	var order []rowOfShard
	runs := map[rowOfShard][]counted{}
	for _, ch := range batch {
		if ch.ByService {
			continue // a TTL expiry: the view keeps the job's history
		}
		for b, t := range deltas(ch) {
			k := rowOfShard{b, ch.ShardID}
			if _, seen := runs[k]; !seen {
				order = append(order, k)
			}
			runs[k] = append(runs[k], counted{seq: paddedSeq(ch.SequenceNumber), jobID: jobID(ch), tally: t})
		}
	}
	// Rows are independent: write a few at a time, so a batch of many
	// users' changes takes a few round trips, not one per row.
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		slots = make(chan struct{}, rowWriters)
	)
	for _, k := range order {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			if err := v.applyRow(ctx, k.row, k.shard, runs[k]); err != nil {
				mu.Lock()
				first = cmp.Or(first, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return first
}

// rowWriters is how many row writes one Apply sends at a time.
const rowWriters = 8

// counted is one change's contribution to one row.
type counted struct {
	seq   string // padded (paddedSeq)
	jobID string
	tally tally
}

// deltas is what ch moves in each row: -1 in the old image's status, +1
// in the new one's; rows whose counts it leaves as they were are left out.
func deltas(ch changes.Change[Job]) map[bucket]tally {
	out := map[bucket]tally{}
	for _, side := range []struct {
		j    *Job
		sign int64
	}{{ch.Old, -1}, {ch.New, 1}} {
		if side.j == nil {
			continue
		}
		b, t := contribution(side.j)
		d := out[b]
		d.add(t, side.sign)
		out[b] = d
	}
	for b, t := range out {
		if t.zero() {
			delete(out, b)
		}
	}
	return out
}

func jobID(ch changes.Change[Job]) string {
	if ch.New != nil {
		return ch.New.JobID
	}
	if ch.Old != nil {
		return ch.Old.JobID
	}
	return ""
}

// applyRow adds a run of one shard's changes to one row, in one write,
// conditional on the row's sequence number for the shard being older than
// the run's first. When it is not, the row already holds the changes up
// to it: those are dropped and the rest written.
func (v *View) applyRow(ctx context.Context, row bucket, shard string, run []counted) error {
	attr := shardAttr(shard)
	for len(run) > 0 {
		var sum tally
		for _, c := range run {
			sum.add(c.tally, 1)
		}
		if sum.zero() {
			return nil // created and deleted within the run: nothing to add
		}
		key, u, err := rowUpdate(row, sum)
		if err != nil {
			return fmt.Errorf("analytics: job %q: %w", run[0].jobID, err)
		}
		first, last := run[0].seq, run[len(run)-1].seq
		u = u.Set(expression.Name(attr), expression.Value(last))
		newer := expression.AttributeNotExists(expression.Name(attr)).
			Or(expression.Name(attr).LessThan(expression.Value(first)))
		err = v.t.Update(ctx, v.t.Key(key[0], key[1]), u, table.If(newer), table.ItemOnConditionFailure())
		if err == nil {
			return nil
		}
		held, ok := heldUpTo(err, attr)
		if !ok {
			return fmt.Errorf("analytics: apply changes %s to %s of shard %s: %w", first, last, shard, err)
		}
		for len(run) > 0 && run[0].seq <= held {
			v.log.Debug("analytics: change applied before; skipped", "operation", "apply", "key", run[0].jobID, "seq", run[0].seq)
			run = run[1:]
		}
	}
	return nil
}

// shardAttr names the attribute of a row holding the sequence number of
// the newest change of shard it holds: "s" and 48 bits of the shard id's
// SHA-256, short so that a row read by many shards stays small.
func shardAttr(shard string) string {
	sum := sha256.Sum256([]byte(shard))
	return "s" + hex.EncodeToString(sum[:6])
}

// heldUpTo reads a row's sequence number for a shard from the error of a
// write whose condition failed; ok is false for any other error.
func heldUpTo(err error, attr string) (string, bool) {
	var te *table.Error
	if !errors.Is(err, table.ErrConditionFailed) || !errors.As(err, &te) {
		return "", false
	}
	s, ok := te.Item[attr].(*types.AttributeValueMemberS)
	if !ok {
		return "", false
	}
	return s.Value, true
}

// rowUpdate is the key (pk, sk) and update of a day row adding t.
func rowUpdate(b bucket, t tally) ([2]string, expression.UpdateBuilder, error) {
	pk, err := userPK.Build(b.user)
	if err != nil {
		return [2]string{}, expression.UpdateBuilder{}, err
	}
	sk, err := daySK.Build(b.day)
	if err != nil {
		return [2]string{}, expression.UpdateBuilder{}, err
	}
	u := expression.Set(expression.Name(attrUserID), expression.Value(b.user)).
		Set(expression.Name(attrDay), expression.Value(b.day))
	for _, s := range jobs.Statuses() {
		if n := t.byStatus[s]; n != 0 {
			u = u.Add(expression.Name(string(s)), expression.Value(n))
		}
	}
	if t.timed != 0 || t.processingMs != 0 {
		u = u.Add(expression.Name(attrTimed), expression.Value(t.timed)).
			Add(expression.Name(attrProcessingMs), expression.Value(t.processingMs))
	}
	return [2]string{pk, sk}, u, nil
}

// paddedSeq pads a stream sequence number (a decimal string of 21 to 40
// digits) to 40, so sequence numbers compare as strings in numeric order
// (a number attribute holds only 38 digits).
func paddedSeq(seq string) string {
	if len(seq) < 40 {
		return strings.Repeat("0", 40-len(seq)) + seq
	}
	return seq
}

package analytics

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

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

// Apply applies a batch of the jobs table's changes to the view, in order:
// it is a changes.Handler. Each change is one transaction with the job's
// marker, conditional on the marker holding an older sequence number, so
// a change delivered again (the stream is at-least-once) is skipped and
// counts once. A change that alters nothing the view counts (a heartbeat)
// writes nothing. An error leaves the rest of the batch unapplied; the
// consumer delivers the batch again.
func (v *View) Apply(ctx context.Context, batch []changes.Change[Job]) (err error) {
	ctx, span := v.start(ctx, "analytics.Apply")
	defer span.End(&err)
	if err := v.check(); err != nil {
		return err
	}
	for _, ch := range batch {
		if err := v.applyOne(ctx, ch); err != nil {
			return err
		}
	}
	return nil
}

func (v *View) applyOne(ctx context.Context, ch changes.Change[Job]) error {
	if ch.ByService {
		return nil // a TTL expiry: the view keeps the job's history
	}
	deltas := map[bucket]*tally{}
	jobID := ""
	for _, side := range []struct {
		j    *Job
		sign int64
	}{{ch.Old, -1}, {ch.New, 1}} {
		if side.j == nil {
			continue
		}
		jobID = side.j.JobID
		b, t := contribution(side.j)
		if deltas[b] == nil {
			deltas[b] = &tally{}
		}
		deltas[b].add(t, side.sign)
	}
	tx := v.t.WriteTx()
	writes := 0
	for b, t := range deltas {
		if t.zero() {
			continue
		}
		pk, err := userPK.Build(b.user)
		if err != nil {
			return fmt.Errorf("analytics: job %q: %w", jobID, err)
		}
		sk, err := daySK.Build(b.day)
		if err != nil {
			return fmt.Errorf("analytics: job %q: %w", jobID, err)
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
		tx.Update(v.t.Key(pk, sk), u)
		writes++
	}
	if writes == 0 {
		return nil
	}
	marker, err := markerPK.Build(jobID)
	if err != nil {
		return fmt.Errorf("analytics: job %q: %w", jobID, err)
	}
	seq := paddedSeq(ch.SequenceNumber)
	newer := expression.AttributeNotExists(expression.Name("pk")).
		Or(expression.Name(attrSeq).LessThan(expression.Value(seq)))
	tx.Update(v.t.Key(marker, markerSK), expression.Set(expression.Name(attrSeq), expression.Value(seq)), table.If(newer))
	err = tx.Run(ctx)
	if errors.Is(err, table.ErrConditionFailed) {
		// Only the marker is conditional: this change was applied before.
		v.log.Debug("analytics: change applied before; skipped", "operation", "apply", "key", jobID, "seq", ch.SequenceNumber)
		return nil
	}
	if err != nil {
		return fmt.Errorf("analytics: apply change %s of job %q: %w", ch.SequenceNumber, jobID, err)
	}
	return nil
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

package main

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

// jobRow is the part of a stored job the view needs, decoded from the
// stream's images by attribute name as seed 001 stores them (times in Unix
// milliseconds).
type jobRow struct {
	JobID                 string      `dynamodbav:"jobId"`
	UserID                string      `dynamodbav:"userId"`
	Status                jobs.Status `dynamodbav:"status"`
	CreatedAt             int64       `dynamodbav:"createdAt"`
	ProcessingStartedAt   int64       `dynamodbav:"processingStartedAt"`
	ProcessingCompletedAt int64       `dynamodbav:"processingCompletedAt"`
}

// bucket is one row of the view: a user's jobs created on one UTC day.
type bucket struct {
	user, day string
}

// tally is what a bucket counts: jobs by status, and for completed jobs
// their number and total processing time.
type tally struct {
	byStatus     map[jobs.Status]int64
	completed    int64
	processingMs int64
}

func (t *tally) add(o tally, sign int64) {
	if t.byStatus == nil {
		t.byStatus = map[jobs.Status]int64{}
	}
	for s, n := range o.byStatus {
		t.byStatus[s] += sign * n
	}
	t.completed += sign * o.completed
	t.processingMs += sign * o.processingMs
}

func (t tally) zero() bool {
	for _, n := range t.byStatus {
		if n != 0 {
			return false
		}
	}
	return t.completed == 0 && t.processingMs == 0
}

// contribution is what one job adds to the view.
func contribution(j *jobRow) (bucket, tally) {
	b := bucket{user: j.UserID, day: time.UnixMilli(j.CreatedAt).UTC().Format(time.DateOnly)}
	t := tally{byStatus: map[jobs.Status]int64{j.Status: 1}}
	if j.Status == jobs.StatusCompleted && j.ProcessingStartedAt > 0 && j.ProcessingCompletedAt >= j.ProcessingStartedAt {
		t.completed = 1
		t.processingMs = j.ProcessingCompletedAt - j.ProcessingStartedAt
	}
	return b, t
}

// The view table's keys. User ids are the store's (any string); one with
// the delimiter is refused by the template rather than allowed to collide.
var (
	userKey    = keys.MustPartition("USER#{userId}")
	dayKey     = keys.MustSort("DAY#{day}")
	appliedKey = keys.MustPartition("JOB#{jobId}")
)

// viewSchema is the view table: per user and day one row of counters, and
// per job one marker holding the sequence number of the newest change
// applied.
func viewSchema(name string) table.Schema {
	return table.Schema{Name: name,
		PartitionKey: table.Attribute{Name: "pk", Type: types.ScalarAttributeTypeS},
		SortKey:      table.Attribute{Name: "sk", Type: types.ScalarAttributeTypeS}}
}

// view maintains the per-user, per-day job statistics in a DynamoDB table
// from the jobs table's change stream.
type view struct {
	db    table.API
	table string
}

// apply is the consumer's handler. Each change is applied in its own
// transaction with the job's marker, conditional on the marker holding an
// older sequence number: a change delivered again (at-least-once) is
// refused by the condition and skipped, so the counters count each change
// once. TTL deletions (the service's own) are not counted down: the view
// is the history of jobs created, not of jobs still kept.
func (v *view) apply(ctx context.Context, batch []changes.Change[jobRow]) error {
	for _, ch := range batch {
		if ch.ByService {
			continue
		}
		deltas := map[bucket]*tally{}
		for _, side := range []struct {
			j    *jobRow
			sign int64
		}{{ch.Old, -1}, {ch.New, 1}} {
			if side.j == nil {
				continue
			}
			b, t := contribution(side.j)
			if deltas[b] == nil {
				deltas[b] = &tally{}
			}
			deltas[b].add(t, side.sign)
		}
		var jobID string
		for _, j := range []*jobRow{ch.New, ch.Old} {
			if j != nil {
				jobID = j.JobID
				break
			}
		}
		if err := v.applyOne(ctx, jobID, ch.SequenceNumber, deltas); err != nil {
			return err
		}
	}
	return nil
}

func (v *view) applyOne(ctx context.Context, jobID, seq string, deltas map[bucket]*tally) error {
	marker, err := appliedKey.Build(jobID)
	if err != nil {
		return err
	}
	// Sequence numbers are decimal strings of 21 to 40 digits: padded to
	// 40 they compare as strings in numeric order (a number attribute
	// holds only 38 digits).
	if len(seq) < 40 {
		seq = strings.Repeat("0", 40-len(seq)) + seq
	}
	items := []types.TransactWriteItem{{Put: &types.Put{
		TableName: aws.String(v.table),
		Item: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: marker}, "sk": &types.AttributeValueMemberS{Value: "APPLIED"},
			"seq": &types.AttributeValueMemberS{Value: seq},
		},
		ConditionExpression:       aws.String("attribute_not_exists(pk) OR seq < :seq"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":seq": &types.AttributeValueMemberS{Value: seq}},
	}}}
	for b, t := range deltas {
		if t.zero() {
			continue // a heartbeat, a retried write: nothing the view counts
		}
		pk, err := userKey.Build(b.user)
		if err != nil {
			return err
		}
		sk, err := dayKey.Build(b.day)
		if err != nil {
			return err
		}
		update, names, values := "ADD", map[string]string{}, map[string]types.AttributeValue{}
		addTerm := func(attr string, n int64) {
			i := strconv.Itoa(len(names))
			if len(names) > 0 {
				update += ","
			}
			update += " #a" + i + " :v" + i
			names["#a"+i] = attr
			values[":v"+i] = &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
		}
		for _, s := range jobs.Statuses() {
			if n := t.byStatus[s]; n != 0 {
				addTerm(string(s), n)
			}
		}
		if t.completed != 0 {
			addTerm("completed", t.completed)
			addTerm("processingMs", t.processingMs)
		}
		items = append(items, types.TransactWriteItem{Update: &types.Update{
			TableName:                 aws.String(v.table),
			Key:                       map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}, "sk": &types.AttributeValueMemberS{Value: sk}},
			UpdateExpression:          aws.String(update),
			ExpressionAttributeNames:  names,
			ExpressionAttributeValues: values,
		}})
	}
	if len(items) == 1 {
		return nil
	}
	_, err = v.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	var canceled *types.TransactionCanceledException
	if errors.As(err, &canceled) && len(canceled.CancellationReasons) > 0 &&
		aws.ToString(canceled.CancellationReasons[0].Code) == "ConditionalCheckFailed" {
		return nil // applied before: a redelivery
	}
	return err
}

// row is one line of the view as read back.
type row struct {
	Day          string
	ByStatus     map[jobs.Status]int64
	Completed    int64
	ProcessingMs int64
}

// read returns the user's rows, oldest day first.
func (v *view) read(ctx context.Context, user string) ([]row, error) {
	pk, err := userKey.Build(user)
	if err != nil {
		return nil, err
	}
	out, err := v.db.Query(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(v.table),
		KeyConditionExpression:    aws.String("pk = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: pk}},
		ConsistentRead:            aws.Bool(true),
	})
	if err != nil {
		return nil, err
	}
	var rows []row
	for _, item := range out.Items {
		var raw map[string]any
		if err := attributevalue.UnmarshalMap(item, &raw); err != nil {
			return nil, err
		}
		parts, err := dayKey.Parse(raw["sk"].(string))
		if err != nil {
			return nil, err
		}
		r := row{Day: parts.String("day"), ByStatus: map[jobs.Status]int64{}}
		for _, s := range jobs.Statuses() {
			if n, ok := raw[string(s)].(float64); ok && n != 0 {
				r.ByStatus[s] = int64(n)
			}
		}
		if n, ok := raw["completed"].(float64); ok {
			r.Completed = int64(n)
		}
		if n, ok := raw["processingMs"].(float64); ok {
			r.ProcessingMs = int64(n)
		}
		if len(r.ByStatus) > 0 || r.Completed != 0 {
			rows = append(rows, r)
		}
	}
	return rows, nil
}

// recount computes the rows from the jobs themselves, as the view should
// hold them.
func recount(ctx context.Context, store *jobs.Store, user string) ([]row, error) {
	byDay := map[string]*tally{}
	for j, err := range store.ByUser(ctx, user) {
		if err != nil {
			return nil, err
		}
		jr := &jobRow{JobID: j.ID, UserID: j.UserID, Status: j.Status, CreatedAt: j.CreatedAt.UnixMilli()}
		if !j.ProcessingStartedAt.IsZero() {
			jr.ProcessingStartedAt = j.ProcessingStartedAt.UnixMilli()
		}
		if !j.ProcessingCompletedAt.IsZero() {
			jr.ProcessingCompletedAt = j.ProcessingCompletedAt.UnixMilli()
		}
		b, t := contribution(jr)
		if byDay[b.day] == nil {
			byDay[b.day] = &tally{}
		}
		byDay[b.day].add(t, 1)
	}
	var rows []row
	for day, t := range byDay {
		r := row{Day: day, ByStatus: map[jobs.Status]int64{}, Completed: t.completed, ProcessingMs: t.processingMs}
		for s, n := range t.byStatus {
			if n != 0 {
				r.ByStatus[s] = n
			}
		}
		rows = append(rows, r)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Day < rows[j].Day })
	return rows, nil
}

func (r row) String() string {
	s := r.Day
	for _, st := range jobs.Statuses() {
		if n := r.ByStatus[st]; n != 0 {
			s += fmt.Sprintf(" %s=%d", st, n)
		}
	}
	if r.Completed > 0 {
		s += fmt.Sprintf(" avgProcessing=%s", time.Duration(r.ProcessingMs/r.Completed)*time.Millisecond)
	}
	return s
}

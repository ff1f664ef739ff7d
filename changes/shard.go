package changes

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamstypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// shardRefresh is how often the shard list is read again while the
// consumer holds shards (it is read at once when it holds none or one
// ends): new shards appear when DynamoDB splits or rolls over a shard.
const shardRefresh = 10 * time.Second

// shardInfo is a shard as DescribeStream lists it.
type shardInfo struct {
	id, parent string
}

// heldShard is a shard this consumer holds a lease on.
type heldShard struct {
	id         string
	sk         string // the lease item's sort key
	iterator   *string
	checkpoint string // the last sequence number handled; "" none
	expires    time.Time
	// drained is the round (Consumer.round) in which a read of the open
	// shard last returned no records: it was read up to its newest record
	// then. 0 for never.
	drained uint64
	// fromStart: the shard's parent was read to its end, so without a
	// checkpoint the shard starts at its first record, whatever StartAt
	// says: its records follow the parent's, and starting it at LATEST
	// would skip those written before it was taken.
	fromStart bool
}

// batchHandler handles a batch and returns how many changes, from the
// first, are done: all of them unless it fails.
type batchHandler[T any] func(ctx context.Context, batch []Change[T]) (int, error)

func (c *Consumer[T]) step(ctx context.Context, h batchHandler[T]) (int, error) {
	c.round++
	now := c.opts.Clock()
	if err := c.refresh(ctx, now); err != nil {
		return 0, err
	}
	if err := c.acquire(ctx, now); err != nil {
		return 0, err
	}
	total := 0
	for _, sh := range c.shards {
		hs := c.held[sh.id]
		if hs == nil {
			continue
		}
		n, err := c.readShard(ctx, hs, h)
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// refresh reads the stream's shard list when it is stale.
func (c *Consumer[T]) refresh(ctx context.Context, now time.Time) error {
	if c.arn != "" && len(c.held) > 0 && now.Sub(c.refreshed) < shardRefresh && now.Sub(c.refreshed) >= 0 {
		return nil
	}
	if c.arn == "" {
		arn, err := latestStream(ctx, c.db, c.table)
		if err != nil {
			return err
		}
		c.arn = arn
	}
	var shards []shardInfo
	disabled := false
	in := &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(c.arn)}
	for {
		out, err := c.streams.DescribeStream(ctx, in)
		if err != nil {
			var nf *streamstypes.ResourceNotFoundException
			if errors.As(err, &nf) {
				c.arn = "" // the stream is gone; look for the table's new one next round
			}
			return fmt.Errorf("changes: describe stream %s: %w", aws.ToString(in.StreamArn), err)
		}
		for _, s := range out.StreamDescription.Shards {
			shards = append(shards, shardInfo{id: aws.ToString(s.ShardId), parent: aws.ToString(s.ParentShardId)})
		}
		disabled = out.StreamDescription.StreamStatus == streamstypes.StreamStatusDisabled
		if out.StreamDescription.LastEvaluatedShardId == nil {
			break
		}
		in.ExclusiveStartShardId = out.StreamDescription.LastEvaluatedShardId
	}
	c.shards, c.refreshed = shards, now
	if disabled && len(c.held) == 0 {
		done := true
		for _, s := range shards {
			done = done && c.finished[s.id]
		}
		if done {
			// Every shard of a disabled stream is read: follow the
			// table to its next stream (ErrNoStream when it has none).
			c.arn = ""
			return c.refresh(ctx, now)
		}
	}
	return nil
}

// label is the stream label, the last part of its ARN.
func (c *Consumer[T]) label() string {
	for i := len(c.arn) - 1; i >= 0; i-- {
		if c.arn[i] == '/' {
			return c.arn[i+1:]
		}
	}
	return c.arn
}

// acquire takes the lease of every shard nobody holds (or whose holder's
// lease has expired) whose parent is done.
func (c *Consumer[T]) acquire(ctx context.Context, now time.Time) error {
	listed := make(map[string]bool, len(c.shards))
	for _, s := range c.shards {
		listed[s.id] = true
	}
	for _, s := range c.shards {
		if c.held[s.id] != nil || c.finished[s.id] {
			continue
		}
		if s.parent != "" && !listed[s.parent] && !c.finished[s.parent] && c.opts.StartAt == Latest {
			// The parent has aged out of the stream: whether it was read
			// is only in the lease table.
			done, err := c.leaseFinished(ctx, s.parent)
			if err != nil {
				return err
			}
			if done {
				c.finished[s.parent] = true
			}
		}
		if s.parent != "" && listed[s.parent] && !c.finished[s.parent] {
			// The parent's changes come first. Another consumer may have
			// finished it: the lease table says so.
			done, err := c.leaseFinished(ctx, s.parent)
			if err != nil {
				return err
			}
			if !done {
				continue
			}
			c.finished[s.parent] = true
		}
		hs, err := c.takeLease(ctx, s.id, now)
		if err != nil {
			return err
		}
		if hs != nil {
			hs.fromStart = s.parent != "" && c.finished[s.parent]
			c.held[s.id] = hs
		}
	}
	return nil
}

// The lease item: pk the consumer group's LeaseKey (its source table and
// Name), sk the stream label and shard id (a label is a fixed-format time
// and shard ids hold no '#', so the pair maps to one key and back).
func (c *Consumer[T]) leaseKey(shardID string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: LeaseKey(c.table, c.opts.Name)},
		"sk": &types.AttributeValueMemberS{Value: c.label() + "#" + shardID},
	}
}

func ms(t time.Time) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(t.UnixMilli(), 10)}
}

func str(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

// leaseFinished reports whether the shard's lease item says it was read to
// its end.
func (c *Consumer[T]) leaseFinished(ctx context.Context, shardID string) (bool, error) {
	out, err := c.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(c.opts.LeaseTable), Key: c.leaseKey(shardID), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return false, fmt.Errorf("changes: read lease %s: %w", shardID, err)
	}
	f, _ := out.Item["finished"].(*types.AttributeValueMemberBOOL)
	return f != nil && f.Value, nil
}

// takeLease takes the shard's lease if it is free, expired, or already
// ours, and returns the held shard with its checkpoint; nil when another
// consumer holds it or it is finished.
func (c *Consumer[T]) takeLease(ctx context.Context, shardID string, now time.Time) (*heldShard, error) {
	expires := now.Add(c.opts.LeaseDuration)
	out, err := c.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                aws.String(c.opts.LeaseTable),
		Key:                      c.leaseKey(shardID),
		UpdateExpression:         aws.String("SET #owner = :me, leaseExpires = :exp, streamArn = :arn ADD takeovers :one"),
		ConditionExpression:      aws.String("(attribute_not_exists(pk) OR leaseExpires < :now OR #owner = :me) AND attribute_not_exists(finished)"),
		ExpressionAttributeNames: map[string]string{"#owner": "owner"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":me": str(c.opts.Owner), ":exp": ms(expires), ":now": ms(now), ":arn": str(c.arn),
			":one": &types.AttributeValueMemberN{Value: "1"},
		},
		ReturnValues:                        types.ReturnValueAllOld,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	var failed *types.ConditionalCheckFailedException
	if errors.As(err, &failed) {
		if f, ok := failed.Item["finished"].(*types.AttributeValueMemberBOOL); ok && f.Value {
			c.finished[shardID] = true
		}
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("changes: take lease %s: %w", shardID, err)
	}
	hs := &heldShard{id: shardID, sk: c.label() + "#" + shardID, expires: expires}
	if cp, ok := out.Attributes["checkpoint"].(*types.AttributeValueMemberS); ok {
		hs.checkpoint = cp.Value
	}
	if prev, ok := out.Attributes["owner"].(*types.AttributeValueMemberS); ok && prev.Value != c.opts.Owner {
		c.log("changes: took over an expired lease", "shard", shardID, "previousOwner", prev.Value, "checkpoint", hs.checkpoint)
	}
	return hs, nil
}

// writeLease renews the lease, and with seq != "" moves the checkpoint,
// with finished marks the shard done and gives the lease up. It returns
// false when the lease is no longer ours.
func (c *Consumer[T]) writeLease(ctx context.Context, hs *heldShard, seq string, finished bool) (bool, error) {
	now := c.opts.Clock()
	expires := now.Add(c.opts.LeaseDuration)
	update := "SET leaseExpires = :exp"
	values := map[string]types.AttributeValue{":me": str(c.opts.Owner), ":exp": ms(expires)}
	if seq != "" {
		update += ", checkpoint = :seq"
		values[":seq"] = str(seq)
	}
	if finished {
		update += ", finished = :true"
		values[":true"] = &types.AttributeValueMemberBOOL{Value: true}
		values[":exp"] = ms(time.Time{}.Add(time.Millisecond)) // free at once
	}
	_, err := c.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(c.opts.LeaseTable),
		Key:                       c.leaseKey(hs.id),
		UpdateExpression:          aws.String(update),
		ConditionExpression:       aws.String("#owner = :me"),
		ExpressionAttributeNames:  map[string]string{"#owner": "owner"},
		ExpressionAttributeValues: values,
	})
	var failed *types.ConditionalCheckFailedException
	if errors.As(err, &failed) {
		c.log("changes: lease lost to another consumer; dropping the shard", "shard", hs.id)
		delete(c.held, hs.id)
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("changes: write lease %s: %w", hs.id, err)
	}
	hs.expires = expires
	if seq != "" {
		hs.checkpoint = seq
	}
	return true, nil
}

// keep renews the lease when half of it has run out, and reports whether
// the shard is still ours: a consumer never works on a shard whose lease
// it cannot show.
func (c *Consumer[T]) keep(ctx context.Context, hs *heldShard) (bool, error) {
	now := c.opts.Clock()
	if !now.After(hs.expires.Add(-c.opts.LeaseDuration / 2)) {
		return true, nil
	}
	return c.writeLease(ctx, hs, "", false)
}

// release gives up every lease this consumer holds, keeping checkpoints.
func (c *Consumer[T]) release(ctx context.Context) error {
	var first error
	for id := range c.held {
		_, err := c.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName:                 aws.String(c.opts.LeaseTable),
			Key:                       c.leaseKey(id),
			UpdateExpression:          aws.String("SET leaseExpires = :zero"),
			ConditionExpression:       aws.String("#owner = :me"),
			ExpressionAttributeNames:  map[string]string{"#owner": "owner"},
			ExpressionAttributeValues: map[string]types.AttributeValue{":me": str(c.opts.Owner), ":zero": &types.AttributeValueMemberN{Value: "0"}},
		})
		var failed *types.ConditionalCheckFailedException
		if err != nil && !errors.As(err, &failed) && first == nil {
			first = fmt.Errorf("changes: release lease %s: %w", id, err)
		}
		delete(c.held, id)
	}
	return first
}

// iterator returns the shard's iterator, getting one from the checkpoint
// (or the start position) when it has none.
func (c *Consumer[T]) iterator(ctx context.Context, hs *heldShard) (*string, error) {
	if hs.iterator != nil {
		return hs.iterator, nil
	}
	in := &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(c.arn), ShardId: aws.String(hs.id), ShardIteratorType: streamstypes.ShardIteratorType(c.opts.StartAt)}
	if hs.fromStart {
		in.ShardIteratorType = streamstypes.ShardIteratorTypeTrimHorizon
	}
	if hs.checkpoint != "" {
		in.ShardIteratorType = streamstypes.ShardIteratorTypeAfterSequenceNumber
		in.SequenceNumber = aws.String(hs.checkpoint)
	}
	out, err := c.streams.GetShardIterator(ctx, in)
	var trimmed *streamstypes.TrimmedDataAccessException
	if errors.As(err, &trimmed) {
		// The records after the checkpoint have aged out of the stream:
		// they are lost. Start at the oldest record kept.
		c.log("changes: checkpoint older than the stream's retention; records were lost", "shard", hs.id, "checkpoint", hs.checkpoint)
		in.ShardIteratorType, in.SequenceNumber = streamstypes.ShardIteratorTypeTrimHorizon, nil
		out, err = c.streams.GetShardIterator(ctx, in)
	}
	if err != nil {
		return nil, fmt.Errorf("changes: shard iterator %s: %w", hs.id, err)
	}
	hs.iterator = out.ShardIterator
	return hs.iterator, nil
}

// readShard reads one batch from a held shard, handles and checkpoints it.
func (c *Consumer[T]) readShard(ctx context.Context, hs *heldShard, h batchHandler[T]) (int, error) {
	if ok, err := c.keep(ctx, hs); !ok || err != nil {
		return 0, err
	}
	it, err := c.iterator(ctx, hs)
	if err != nil {
		return 0, err
	}
	out, err := c.streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it, Limit: aws.Int32(int32(c.opts.BatchSize))})
	if err != nil {
		var expired *streamstypes.ExpiredIteratorException
		var trimmed *streamstypes.TrimmedDataAccessException
		if errors.As(err, &expired) || errors.As(err, &trimmed) {
			hs.iterator = nil // start again from the checkpoint next round
			return 0, nil
		}
		return 0, fmt.Errorf("changes: get records %s: %w", hs.id, err)
	}
	batch, err := c.decode(hs.id, out.Records)
	if err != nil {
		return 0, err
	}
	last := ""
	if n := len(out.Records); n > 0 {
		last = aws.ToString(out.Records[n-1].Dynamodb.SequenceNumber)
	}
	if len(batch) > 0 {
		done, err := c.handle(ctx, hs, batch, h)
		if err != nil {
			if done > 0 {
				// Keep what was handled; the rest comes again.
				if _, werr := c.writeLease(ctx, hs, batch[done-1].SequenceNumber, false); werr != nil {
					return done, errors.Join(err, werr)
				}
			}
			hs.iterator = nil
			return done, err
		}
	}
	if out.NextShardIterator == nil {
		// The shard is closed and read to its end: mark it finished so
		// its children can start, and give the lease up.
		if _, err := c.writeLease(ctx, hs, last, true); err != nil {
			return len(out.Records), err
		}
		delete(c.held, hs.id)
		c.finished[hs.id] = true
		c.refreshed = time.Time{}
		return len(out.Records), nil
	}
	if last != "" {
		if ok, err := c.writeLease(ctx, hs, last, false); !ok || err != nil {
			return len(out.Records), err
		}
	}
	if len(out.Records) == 0 {
		hs.drained = c.round
	}
	hs.iterator = out.NextShardIterator
	return len(out.Records), nil
}

// handle calls h on the batch, retrying a failure with backoff up to
// MaxAttempts calls, and renewing the lease between attempts. It returns how
// many changes are done.
func (c *Consumer[T]) handle(ctx context.Context, hs *heldShard, batch []Change[T], h batchHandler[T]) (int, error) {
	var err error
	for attempt := 0; attempt < c.opts.MaxAttempts; attempt++ {
		if attempt > 0 {
			c.log("changes: handler failed; retrying", "shard", hs.id, "attempt", attempt+1, "error", err)
			if serr := c.opts.Backoff.Sleep(ctx, attempt-1); serr != nil {
				return 0, serr
			}
			if ok, kerr := c.keep(ctx, hs); kerr != nil || !ok {
				return 0, errors.Join(err, kerr, errors.New("changes: lease lost while retrying"))
			}
		}
		var done int
		done, err = h(ctx, batch)
		if err == nil {
			return done, nil
		}
		if done > 0 || errors.Is(err, errStop) || ctx.Err() != nil {
			return done, err
		}
	}
	return 0, fmt.Errorf("%w: shard %s, %d attempts: %w", ErrHandler, hs.id, c.opts.MaxAttempts, err)
}

// decode turns records into changes, skipping those Select refuses.
func (c *Consumer[T]) decode(shardID string, recs []streamstypes.Record) ([]Change[T], error) {
	batch := make([]Change[T], 0, len(recs))
	for _, r := range recs {
		sr := r.Dynamodb
		if sr == nil {
			continue
		}
		keys, err := attributevalue.FromDynamoDBStreamsMap(sr.Keys)
		if err != nil {
			return nil, fmt.Errorf("%w: keys of %s: %w", ErrDecode, aws.ToString(sr.SequenceNumber), err)
		}
		if c.opts.Select != nil && !c.opts.Select(keys) {
			continue
		}
		ch := Change[T]{Event: Event(r.EventName), Keys: keys, SequenceNumber: aws.ToString(sr.SequenceNumber),
			ShardID: shardID, EventID: aws.ToString(r.EventID), At: aws.ToTime(sr.ApproximateCreationDateTime)}
		if id := r.UserIdentity; id != nil && aws.ToString(id.Type) == "Service" && aws.ToString(id.PrincipalId) == "dynamodb.amazonaws.com" {
			ch.ByService = true
		}
		if ch.Old, err = c.image(sr.OldImage); err != nil {
			return nil, fmt.Errorf("%w: old image of %s: %w", ErrDecode, ch.SequenceNumber, err)
		}
		if ch.New, err = c.image(sr.NewImage); err != nil {
			return nil, fmt.Errorf("%w: new image of %s: %w", ErrDecode, ch.SequenceNumber, err)
		}
		batch = append(batch, ch)
	}
	return batch, nil
}

func (c *Consumer[T]) image(img map[string]streamstypes.AttributeValue) (*T, error) {
	if img == nil {
		return nil, nil
	}
	item, err := attributevalue.FromDynamoDBStreamsMap(img)
	if err != nil {
		return nil, err
	}
	v := new(T)
	if err := c.decodeImage(item, v); err != nil {
		return nil, err
	}
	return v, nil
}

// decodeImage runs Options.Decode and turns its panic into an error: a decoder
// that cannot read an image (the SDK's UnmarshalMap panics on some target
// types) must stop the shard with ErrDecode, not crash the service.
func (c *Consumer[T]) decodeImage(item map[string]types.AttributeValue, v *T) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("decoding into %T panicked: %v", v, r)
		}
	}()
	return c.opts.Decode(item, v)
}

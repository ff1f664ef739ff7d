package table

import (
	"context"
	"fmt"
	"iter"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// Scan reads a whole table or index (or one segment of it). It reads, and
// pays for, every item; prefer a Query wherever a key can be named.
type Scan struct {
	Index      string
	Filter     *expression.ConditionBuilder
	Limit      int32 // page size for ScanPage, per-request limit for ScanAll
	Consistent bool
	Projection *expression.ProjectionBuilder
	// Segment and TotalSegments split the scan for parallel workers
	// (TotalSegments 0 means no split).
	Segment, TotalSegments int32
}

func (t *Table) planScan(s Scan) (*readPlan, error) {
	if s.Limit < 0 {
		return nil, inputErr("scan.Limit", fmt.Sprint(s.Limit), "must not be negative")
	}
	_, _, startKey, err := t.indexKeys("scan.Index", s.Index)
	if err != nil {
		return nil, err
	}
	if err := t.checkConsistent("scan.Consistent", s.Consistent, s.Index); err != nil {
		return nil, err
	}
	// DynamoDB allows 1 to 1,000,000 segments.
	if s.TotalSegments < 0 || s.TotalSegments > 1000000 || (s.TotalSegments == 0 && s.Segment != 0) ||
		(s.TotalSegments > 0 && (s.Segment < 0 || s.Segment >= s.TotalSegments)) {
		return nil, inputErr("scan.Segment", fmt.Sprintf("%d of %d", s.Segment, s.TotalSegments), "segment must be in [0, TotalSegments), TotalSegments in [1, 1000000]")
	}
	base := dynamodb.ScanInput{TableName: aws.String(t.Name())}
	if s.Filter != nil || s.Projection != nil {
		b := builders{filter: s.Filter}
		if s.Projection != nil {
			p, err := withKeys(*s.Projection, startKey)
			if err != nil {
				return nil, err
			}
			b.projection = &p
		}
		e, err := buildExpr("scan", b)
		if err != nil {
			return nil, err
		}
		base.FilterExpression = e.Filter()
		base.ProjectionExpression = e.Projection()
		base.ExpressionAttributeNames = e.Names()
		base.ExpressionAttributeValues = e.Values()
	}
	if s.Index != "" {
		base.IndexName = aws.String(s.Index)
	}
	if s.Consistent {
		base.ConsistentRead = aws.Bool(true)
	}
	if s.TotalSegments > 0 {
		base.Segment = aws.Int32(s.Segment)
		base.TotalSegments = aws.Int32(s.TotalSegments)
	}
	return &readPlan{
		op: "scan",
		cursor: cursorSpec{
			binding: fmt.Sprintf("scan\x00%s\x00%s\x00%d/%d", t.Name(), s.Index, s.Segment, s.TotalSegments),
			attrs:   startKey,
		},
		limit:  int(s.Limit),
		filter: s.Filter != nil,
		fetch: func(ctx context.Context, start Item, limit int32) ([]Item, Item, error) {
			in := base
			in.ExclusiveStartKey = start
			if limit > 0 {
				in.Limit = aws.Int32(limit)
			}
			out, err := t.db.Scan(ctx, &in)
			if err != nil {
				return nil, nil, wrapError("scan", t.Name(), "", err)
			}
			return out.Items, out.LastEvaluatedKey, nil
		},
	}, nil
}

// ScanPage reads one page of s after cursor, like QueryPage.
func ScanPage[T any](ctx context.Context, t *Table, s Scan, cursor string) (Page[T], error) {
	if err := t.ready(ctx); err != nil {
		return Page[T]{}, err
	}
	p, err := t.planScan(s)
	if err != nil {
		return Page[T]{}, err
	}
	return readPage[T](ctx, t, p, cursor)
}

// ScanAll returns an iterator over every item s reads.
func ScanAll[T any](ctx context.Context, t *Table, s Scan) iter.Seq2[T, error] {
	if err := t.ready(ctx); err != nil {
		return readAll[T](ctx, nil, err)
	}
	p, err := t.planScan(s)
	return readAll[T](ctx, p, err)
}

// ParallelScan scans the whole table in segments, one goroutine each, and
// calls fn for every item; fn runs concurrently for different segments. The
// first error (from DynamoDB or fn) cancels the other segments and is
// returned; ParallelScan returns only after every goroutine has stopped.
func ParallelScan(ctx context.Context, t *Table, segments int, fn func(ctx context.Context, segment int, item Item) error) error {
	if err := t.ready(ctx); err != nil {
		return err
	}
	if segments < 1 || segments > 1000000 {
		return inputErr("segments", fmt.Sprint(segments), "must be between 1 and 1000000")
	}
	if fn == nil {
		return inputErr("fn", "nil", "callback is nil")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		once     sync.Once
		firstErr error
	)
	for seg := range segments {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := Scan{Segment: int32(seg), TotalSegments: int32(segments)}
			for item, err := range ScanAll[Item](ctx, t, s) {
				if err == nil {
					err = fn(ctx, seg, item)
				}
				if err != nil {
					once.Do(func() { firstErr = err; cancel() })
					return
				}
			}
		}()
	}
	wg.Wait()
	return firstErr
}

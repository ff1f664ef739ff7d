package main

import (
	"context"
	"errors"
	"time"

	"github.com/tablekit/tablekit/table"
)

// throttleBackoff paces retries of throttled calls: bounded and jittered.
// Through the AWS SDK the client's own retryer does this; the in-memory
// fake in process has no retryer, so the service does it here, the one
// place every call goes through.
var throttleBackoff = table.Backoff{Initial: 5 * time.Millisecond, Max: 500 * time.Millisecond}

const throttleAttempts = 12

// retry calls fn until it is not throttled, at most throttleAttempts
// times. A throttled call wrote nothing, so a conditional write may be sent
// again as it was.
func retry[T any](ctx context.Context, fn func() (T, error)) (T, error) {
	var (
		v   T
		err error
	)
	for n := range throttleAttempts {
		if v, err = fn(); !errors.Is(err, table.ErrThrottled) {
			return v, err
		}
		if serr := throttleBackoff.Sleep(ctx, n); serr != nil {
			return v, err
		}
	}
	return v, err
}

// retryErr is retry for calls that return only an error.
func retryErr(ctx context.Context, fn func() error) error {
	_, err := retry(ctx, func() (struct{}, error) { return struct{}{}, fn() })
	return err
}

package table

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sdkErr wraps an error as the SDK returns it from an operation.
func sdkErr(op string, err error) error {
	return &smithy.OperationError{ServiceID: "DynamoDB", OperationName: op, Err: err}
}

func TestWrapErrorMapsEverySDKErrorToItsSentinel(t *testing.T) {
	msg := strPtr("message from DynamoDB")
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"conditional check", &types.ConditionalCheckFailedException{Message: msg}, ErrConditionFailed},
		{"resource not found", &types.ResourceNotFoundException{Message: msg}, ErrTableNotFound},
		{"table not found", &types.TableNotFoundException{Message: msg}, ErrTableNotFound},
		{"provisioned throughput", &types.ProvisionedThroughputExceededException{Message: msg}, ErrThrottled},
		{"throttling", &types.ThrottlingException{Message: msg}, ErrThrottled},
		{"request limit", &types.RequestLimitExceeded{Message: msg}, ErrThrottled},
		{"transaction conflict", &types.TransactionConflictException{Message: msg}, ErrTransactionConflict},
		{"transaction in progress", &types.TransactionInProgressException{Message: msg}, ErrTransactionConflict},
		{"item collection size", &types.ItemCollectionSizeLimitExceededException{Message: msg}, ErrCollectionTooLarge},
		{"table in use", &types.ResourceInUseException{Message: msg}, ErrAlreadyExists},
		{"validation", &smithy.GenericAPIError{Code: "ValidationException", Message: "One or more parameter values were invalid"}, ErrValidation},
		{"item too large", &smithy.GenericAPIError{Code: "ValidationException", Message: "Item size has exceeded the maximum allowed size"}, ErrItemTooLarge},
		{"update too large", &smithy.GenericAPIError{Code: "ValidationException", Message: "Item size to update has exceeded the maximum allowed size"}, ErrItemTooLarge},
		{"generic throttling code", &smithy.GenericAPIError{Code: "ThrottlingException"}, ErrThrottled},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, in := range []error{c.err, sdkErr("PutItem", c.err)} {
				err := WrapError("put", in)
				require.ErrorIs(t, err, c.want, "WrapError(%v)", in)
				var te *Error
				require.ErrorAs(t, err, &te, "WrapError(%v)", in)
				require.Same(t, c.want, te.Err, "WrapError(%v) = %#v, want *Error{Err: %v}", in, err, c.want)
				require.Same(t, in, te.Cause, "WrapError(%v) = %#v, want *Error{Cause: the SDK error}", in, err)
				// The SDK's own error type stays reachable.
				var api smithy.APIError
				require.ErrorAs(t, err, &api)
				assert.True(t, strings.HasPrefix(err.Error(), "table: put: "), "message %q does not start with the op", err)
			}
		})
	}
}

func TestWrapErrorKeepsConditionalCheckExceptionReachable(t *testing.T) {
	err := WrapError("put", sdkErr("PutItem", &types.ConditionalCheckFailedException{Message: strPtr("The conditional request failed")}))
	var ccf *types.ConditionalCheckFailedException
	require.ErrorAs(t, err, &ccf)
	require.NotErrorIs(t, err, ErrNotFound)
	require.NotErrorIs(t, err, ErrAlreadyExists)
}

func TestWrapErrorTurnsCanceledTransactionIntoTxError(t *testing.T) {
	tce := &types.TransactionCanceledException{
		Message: strPtr("Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed, TransactionConflict]"),
		CancellationReasons: []types.CancellationReason{
			{Code: strPtr("None")},
			{Code: strPtr("ConditionalCheckFailed"), Message: strPtr("The conditional request failed")},
			{Code: strPtr("TransactionConflict"), Message: strPtr("Transaction is ongoing for the item")},
		},
	}
	err := WrapError("transact write", sdkErr("TransactWriteItems", tce))
	var txe *TxError
	require.ErrorAs(t, err, &txe)
	require.Len(t, txe.Reasons, 2, "reasons = %+v, want actions 1 and 2", txe.Reasons)
	require.Equal(t, 1, txe.Reasons[0].Index, "reasons = %+v, want actions 1 and 2", txe.Reasons)
	require.Equal(t, 2, txe.Reasons[1].Index, "reasons = %+v, want actions 1 and 2", txe.Reasons)
	for _, want := range []error{ErrTransactionCanceled, ErrConditionFailed, ErrTransactionConflict} {
		assert.ErrorIs(t, err, want)
	}
	assert.NotErrorIs(t, err, ErrThrottled, "no throttling reason")
	var got *types.TransactionCanceledException
	if assert.ErrorAs(t, err, &got, "the SDK's TransactionCanceledException is not reachable") {
		assert.Same(t, tce, got, "the SDK's TransactionCanceledException is not reachable")
	}
	msg := err.Error()
	for _, want := range []string{"action 1: ConditionalCheckFailed", "action 2: TransactionConflict"} {
		assert.Contains(t, msg, want)
	}
}

func TestWrapErrorPassesThroughOwnErrorsNilAndContext(t *testing.T) {
	require.NoError(t, WrapError("get", nil))
	own := &Error{Op: "get", Err: ErrNotFound}
	require.Same(t, own, WrapError("put", own), "an *Error was wrapped again")
	in := inputErr("key", "", "empty")
	require.Error(t, WrapError("put", fmt.Errorf("context: %w", in)), "lost an *InputError")
	err := WrapError("query", sdkErr("Query", fmt.Errorf("request canceled: %w", context.Canceled)))
	require.ErrorIs(t, err, context.Canceled)
	var te *Error
	require.ErrorAs(t, err, &te)
	require.Nil(t, te.Err, "a canceled request maps to a sentinel, want none")
	unknown := errors.New("connection reset by peer")
	require.ErrorIs(t, WrapError("get", unknown), unknown)
}

func TestErrorMessageNamesOpTableKeyAndCause(t *testing.T) {
	e := &Error{Op: "put", Table: "Jobs", Key: `pk="JOB#1"`, Err: ErrAlreadyExists,
		Cause: &types.ConditionalCheckFailedException{Message: strPtr("The conditional request failed")}}
	want := `table: put Jobs (pk="JOB#1"): already exists: ConditionalCheckFailedException: The conditional request failed`
	require.EqualError(t, e, want)
	// A failed create is also a failed condition.
	require.ErrorIs(t, e, ErrConditionFailed, "a failed create must match ErrAlreadyExists and ErrConditionFailed")
	require.ErrorIs(t, e, ErrAlreadyExists, "a failed create must match ErrAlreadyExists and ErrConditionFailed")
}

func TestInputErrorIsInvalidInputAndItsSpecificSentinel(t *testing.T) {
	e := &InputError{Field: "item", Value: `pk="a"`, Reason: "too big", Err: ErrItemTooLarge}
	require.ErrorIs(t, e, ErrInvalidInput, "InputError must match ErrInvalidInput and its Err")
	require.ErrorIs(t, e, ErrItemTooLarge, "InputError must match ErrInvalidInput and its Err")
	require.EqualError(t, e, `table: invalid input: item pk="a": too big`)
}

func TestSentinelMessagesArePrefixed(t *testing.T) {
	for _, err := range []error{ErrNotFound, ErrConditionFailed, ErrAlreadyExists, ErrInvalidCursor, ErrItemTooLarge,
		ErrTransactionCanceled, ErrTransactionConflict, ErrThrottled, ErrValidation, ErrTableNotFound, ErrInvalidInput,
		ErrCollectionTooLarge, ErrSchemaMismatch} {
		assert.True(t, strings.HasPrefix(err.Error(), "table: "), "%q lacks the package prefix", err)
	}
}

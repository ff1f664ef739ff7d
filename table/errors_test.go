package table

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
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
				if !errors.Is(err, c.want) {
					t.Fatalf("WrapError(%v) = %v, want %v", in, err, c.want)
				}
				var te *Error
				if !errors.As(err, &te) || te.Err != c.want || te.Cause != in {
					t.Fatalf("WrapError(%v) = %#v, want *Error{Err: %v, Cause: the SDK error}", in, err, c.want)
				}
				// The SDK's own error type stays reachable.
				var api smithy.APIError
				if !errors.As(err, &api) {
					t.Fatalf("errors.As(%v, smithy.APIError) failed", err)
				}
				if !strings.HasPrefix(err.Error(), "table: put: ") {
					t.Errorf("message %q does not start with the op", err)
				}
			}
		})
	}
}

func TestWrapErrorKeepsConditionalCheckExceptionReachable(t *testing.T) {
	err := WrapError("put", sdkErr("PutItem", &types.ConditionalCheckFailedException{Message: strPtr("The conditional request failed")}))
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) {
		t.Fatalf("errors.As(%v, *ConditionalCheckFailedException) failed", err)
	}
	if errors.Is(err, ErrNotFound) || errors.Is(err, ErrAlreadyExists) {
		t.Fatalf("%v matches a sentinel it should not", err)
	}
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
	if !errors.As(err, &txe) {
		t.Fatalf("err = %T, want *TxError", err)
	}
	if len(txe.Reasons) != 2 || txe.Reasons[0].Index != 1 || txe.Reasons[1].Index != 2 {
		t.Fatalf("reasons = %+v, want actions 1 and 2", txe.Reasons)
	}
	for _, want := range []error{ErrTransactionCanceled, ErrConditionFailed, ErrTransactionConflict} {
		if !errors.Is(err, want) {
			t.Errorf("errors.Is(err, %v) = false", want)
		}
	}
	if errors.Is(err, ErrThrottled) {
		t.Error("errors.Is(err, ErrThrottled) = true with no throttling reason")
	}
	var got *types.TransactionCanceledException
	if !errors.As(err, &got) || got != tce {
		t.Error("the SDK's TransactionCanceledException is not reachable")
	}
	msg := err.Error()
	for _, want := range []string{"action 1: ConditionalCheckFailed", "action 2: TransactionConflict"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
}

func TestWrapErrorPassesThroughOwnErrorsNilAndContext(t *testing.T) {
	if WrapError("get", nil) != nil {
		t.Fatal("WrapError(nil) != nil")
	}
	own := &Error{Op: "get", Err: ErrNotFound}
	if WrapError("put", own) != own {
		t.Fatal("an *Error was wrapped again")
	}
	in := inputErr("key", "", "empty")
	if WrapError("put", fmt.Errorf("context: %w", in)) == nil {
		t.Fatal("lost an *InputError")
	}
	err := WrapError("query", sdkErr("Query", fmt.Errorf("request canceled: %w", context.Canceled)))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("%v does not wrap context.Canceled", err)
	}
	var te *Error
	if !errors.As(err, &te) || te.Err != nil {
		t.Fatalf("a canceled request maps to sentinel %v, want none", te.Err)
	}
	unknown := errors.New("connection reset by peer")
	if err := WrapError("get", unknown); !errors.Is(err, unknown) {
		t.Fatalf("%v does not wrap the unknown error", err)
	}
}

func TestErrorMessageNamesOpTableKeyAndCause(t *testing.T) {
	e := &Error{Op: "put", Table: "Jobs", Key: `pk="JOB#1"`, Err: ErrAlreadyExists,
		Cause: &types.ConditionalCheckFailedException{Message: strPtr("The conditional request failed")}}
	want := `table: put Jobs (pk="JOB#1"): already exists: ConditionalCheckFailedException: The conditional request failed`
	if e.Error() != want {
		t.Fatalf("message = %q\nwant      %q", e.Error(), want)
	}
	// A failed create is also a failed condition.
	if !errors.Is(e, ErrConditionFailed) || !errors.Is(e, ErrAlreadyExists) {
		t.Fatal("a failed create must match ErrAlreadyExists and ErrConditionFailed")
	}
}

func TestInputErrorIsInvalidInputAndItsSpecificSentinel(t *testing.T) {
	e := &InputError{Field: "item", Value: `pk="a"`, Reason: "too big", Err: ErrItemTooLarge}
	if !errors.Is(e, ErrInvalidInput) || !errors.Is(e, ErrItemTooLarge) {
		t.Fatal("InputError must match ErrInvalidInput and its Err")
	}
	if want := `table: invalid input: item pk="a": too big`; e.Error() != want {
		t.Fatalf("message = %q, want %q", e.Error(), want)
	}
}

func TestSentinelMessagesArePrefixed(t *testing.T) {
	for _, err := range []error{ErrNotFound, ErrConditionFailed, ErrAlreadyExists, ErrInvalidCursor, ErrItemTooLarge,
		ErrTransactionCanceled, ErrTransactionConflict, ErrThrottled, ErrValidation, ErrTableNotFound, ErrInvalidInput,
		ErrCollectionTooLarge, ErrSchemaMismatch} {
		if !strings.HasPrefix(err.Error(), "table: ") {
			t.Errorf("%q lacks the package prefix", err)
		}
	}
}

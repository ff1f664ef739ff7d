package table

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// Sentinel errors. Every error a table call returns wraps at most a few of
// these, so callers test with errors.Is and never parse messages; the SDK's
// own error stays reachable with errors.As.
var (
	// ErrNotFound: the item does not exist (Get, or a write with IfExists).
	ErrNotFound = errors.New("table: item not found")
	// ErrConditionFailed: a condition expression evaluated to false.
	ErrConditionFailed = errors.New("table: condition failed")
	// ErrAlreadyExists: a create (IfNotExists, WriteTx.Create, Schema.Create)
	// found the item or table already there.
	ErrAlreadyExists = errors.New("table: already exists")
	// ErrInvalidCursor: a cursor was altered, truncated, or belongs to another
	// query (table, index, partition, sort condition or direction).
	ErrInvalidCursor = errors.New("table: invalid cursor")
	// ErrItemTooLarge: an item is over DynamoDB's 400 KB limit (or the
	// table's lower Options.MaxItemSize).
	ErrItemTooLarge = errors.New("table: item too large")
	// ErrTransactionCanceled: DynamoDB canceled a transaction; the *TxError
	// says which action failed and why.
	ErrTransactionCanceled = errors.New("table: transaction canceled")
	// ErrTransactionConflict: another transaction was using the same item.
	ErrTransactionConflict = errors.New("table: transaction conflict")
	// ErrThrottled: DynamoDB throttled the request (throughput, request
	// rate or account limits) and tablekit's retries did not get through.
	ErrThrottled = errors.New("table: throttled")
	// ErrValidation: DynamoDB rejected the request as invalid.
	ErrValidation = errors.New("table: validation failed")
	// ErrTableNotFound: the table (or index) does not exist or is not active.
	ErrTableNotFound = errors.New("table: table not found")
	// ErrInvalidInput: bad input caught before any request (see *InputError).
	ErrInvalidInput = errors.New("table: invalid input")
	// ErrCollectionTooLarge: an item collection of a table with a local
	// secondary index reached DynamoDB's 10 GB limit.
	ErrCollectionTooLarge = errors.New("table: item collection too large")
	// ErrNoTable: the *Table is nil, or was not made by New with an API.
	ErrNoTable = errors.New("table: Table not made by New")
	// ErrSchemaMismatch: EnsureTable found a table whose keys or indexes
	// differ from the Schema.
	ErrSchemaMismatch = errors.New("table: existing table does not match schema")
)

// Error is the error of one DynamoDB call: which operation on which table and
// key, the sentinel it maps to (Err) and the SDK's error (Cause).
type Error struct {
	Op    string // "get", "put", "update", "delete", "query", "scan", "batch write", ...
	Table string
	Key   string // the item's key as "name=value" pairs, when the call had one
	// Item is the current item when a conditional write failed and the
	// caller asked for it with ItemOnConditionFailure.
	Item  Item
	Err   error // a sentinel such as ErrConditionFailed; nil when none fits
	Cause error // the SDK's error
	// Unprocessed holds, for a batch that stopped early (its context ended
	// or DynamoDB failed it), the keys of the items not yet written or
	// read, so nothing is lost without the caller knowing which.
	Unprocessed []Key
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("table: ")
	b.WriteString(e.Op)
	if e.Table != "" {
		fmt.Fprintf(&b, " %s", e.Table)
	}
	if e.Key != "" {
		fmt.Fprintf(&b, " (%s)", e.Key)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(strings.TrimPrefix(e.Err.Error(), "table: "))
	}
	if e.Cause != nil {
		b.WriteString(": ")
		b.WriteString(e.Cause.Error())
	}
	return b.String()
}

// Unwrap gives the sentinel and the SDK error, so both errors.Is(err,
// ErrConditionFailed) and errors.As(err, &ccf) work. A create that failed
// because the item exists (ErrAlreadyExists) or a write with IfExists that
// found nothing (ErrNotFound) is also ErrConditionFailed: a condition failed.
func (e *Error) Unwrap() []error {
	errs := make([]error, 0, 3)
	if e.Err != nil {
		errs = append(errs, e.Err)
		var ccf *types.ConditionalCheckFailedException
		if e.Err != ErrConditionFailed && errors.As(e.Cause, &ccf) {
			errs = append(errs, ErrConditionFailed)
		}
	}
	if e.Cause != nil {
		errs = append(errs, e.Cause)
	}
	return errs
}

// InputError reports bad input caught before any request was sent: a nil or
// empty key, a missing or mistyped key attribute, an item over the size
// limit, an unknown index. Nothing was read or written.
type InputError struct {
	Field  string // what was wrong: "key", "item.pk", "query.Index", ...
	Value  string // the offending value, as text
	Reason string
	// Err is a more specific sentinel (ErrItemTooLarge, ErrInvalidCursor),
	// when one applies; the error is ErrInvalidInput in any case.
	Err error
}

func (e *InputError) Error() string {
	var b strings.Builder
	b.WriteString("table: invalid input: ")
	b.WriteString(e.Field)
	if e.Value != "" {
		fmt.Fprintf(&b, " %s", e.Value)
	}
	if e.Reason != "" {
		b.WriteString(": ")
		b.WriteString(e.Reason)
	}
	return b.String()
}

func (e *InputError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrInvalidInput, e.Err}
	}
	return []error{ErrInvalidInput}
}

func inputErr(field, value, reason string) *InputError {
	return &InputError{Field: field, Value: value, Reason: reason}
}

// TxReason is why one action of a canceled transaction failed.
type TxReason struct {
	Index   int    // position of the action in the transaction
	Action  string // "Put", "Create", "Update", "Delete", "Check", "Get"
	Table   string // the table the action is on (transactions may span tables)
	Key     string // the action's key as "name=value" pairs
	Code    string // DynamoDB's cancellation code: "ConditionalCheckFailed", "TransactionConflict", ...
	Message string
	Item    Item // the current item, when the action asked for it
	// err is the sentinel this reason maps to for this action (a failed
	// Create is ErrAlreadyExists, not just ErrConditionFailed).
	err error
}

// Err is the sentinel the reason maps to for its action: ErrAlreadyExists
// for a Create whose item exists, ErrNotFound for a write with IfExists
// that found none (both are failed conditions too: Code says
// ConditionalCheckFailed), ErrConditionFailed, ErrTransactionConflict,
// ErrThrottled, ErrCollectionTooLarge or ErrValidation by Code; nil for a
// code none of them fits.
func (r TxReason) Err() error {
	if r.err != nil {
		return r.err
	}
	return reasonSentinel(r.Code)
}

// TxError is a canceled transaction: Reasons holds one entry per action that
// failed (actions DynamoDB reported as "None" are left out).
type TxError struct {
	Reasons []TxReason
	Cause   error
}

func (e *TxError) Error() string {
	var b strings.Builder
	b.WriteString("table: transaction canceled")
	for i, r := range e.Reasons {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "action %d", r.Index)
		if r.Action != "" {
			fmt.Fprintf(&b, " %s", r.Action)
		}
		if r.Key != "" {
			fmt.Fprintf(&b, " (%s)", r.Key)
		}
		fmt.Fprintf(&b, ": %s", r.Code)
		if r.Message != "" {
			fmt.Fprintf(&b, ": %s", r.Message)
		}
	}
	if len(e.Reasons) == 0 && e.Cause != nil {
		fmt.Fprintf(&b, ": %s", e.Cause.Error())
	}
	return b.String()
}

// Unwrap gives ErrTransactionCanceled, one sentinel per kind of reason, and
// the SDK error.
func (e *TxError) Unwrap() []error {
	errs := []error{ErrTransactionCanceled}
	seen := map[error]bool{ErrTransactionCanceled: true}
	add := func(err error) {
		if err != nil && !seen[err] {
			seen[err] = true
			errs = append(errs, err)
		}
	}
	for _, r := range e.Reasons {
		add(r.err)
		add(reasonSentinel(r.Code))
	}
	if e.Cause != nil {
		errs = append(errs, e.Cause)
	}
	return errs
}

// reasonSentinel maps a CancellationReason code
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html).
func reasonSentinel(code string) error {
	switch code {
	case "ConditionalCheckFailed":
		return ErrConditionFailed
	case "TransactionConflict":
		return ErrTransactionConflict
	case "ProvisionedThroughputExceeded", "ThrottlingError", "RequestLimitExceeded":
		return ErrThrottled
	case "ItemCollectionSizeLimitExceeded":
		return ErrCollectionTooLarge
	case "ValidationError":
		return ErrValidation
	}
	return nil
}

// retryable reports whether the transaction failed only for reasons a retry
// can cure: conflicts with other transactions and throttling.
func (e *TxError) retryable() bool {
	if len(e.Reasons) == 0 {
		return false
	}
	for _, r := range e.Reasons {
		switch reasonSentinel(r.Code) {
		case ErrTransactionConflict, ErrThrottled:
		default:
			return false
		}
	}
	return true
}

// WrapError maps an error from any API call to tablekit's errors: a
// *TxError for a canceled transaction, an *Error carrying the matching
// sentinel and the SDK error otherwise. Errors that are already tablekit's,
// and nil, pass through unchanged. Stores built on table use it for calls
// they make to the API directly.
func WrapError(op string, err error) error {
	return wrapError(op, "", "", err)
}

func wrapError(op, tableName, key string, err error) error {
	if err == nil {
		return nil
	}
	var (
		te *Error
		ie *InputError
		tx *TxError
	)
	if errors.As(err, &te) || errors.As(err, &ie) || errors.As(err, &tx) {
		return err
	}
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		return txErrorFrom(tce, err)
	}
	return &Error{Op: op, Table: tableName, Key: key, Err: sentinelFor(err), Cause: err}
}

func txErrorFrom(tce *types.TransactionCanceledException, cause error) *TxError {
	e := &TxError{Cause: cause}
	for i, r := range tce.CancellationReasons {
		code := deref(r.Code)
		if code == "" || code == "None" {
			continue
		}
		e.Reasons = append(e.Reasons, TxReason{Index: i, Code: code, Message: deref(r.Message), Item: r.Item})
	}
	return e
}

// sentinelFor picks the sentinel for an SDK error; nil when none fits (a
// network failure, say), in which case the SDK error alone is wrapped.
func sentinelFor(err error) error {
	var (
		ccf  *types.ConditionalCheckFailedException
		rnf  *types.ResourceNotFoundException
		tnf  *types.TableNotFoundException
		pte  *types.ProvisionedThroughputExceededException
		thr  *types.ThrottlingException
		rle  *types.RequestLimitExceeded
		tce  *types.TransactionConflictException
		tip  *types.TransactionInProgressException
		icl  *types.ItemCollectionSizeLimitExceededException
		riu  *types.ResourceInUseException
		tae  *types.TableAlreadyExistsException
		dup  *types.DuplicateItemException
		api  smithy.APIError
		none error
	)
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return none // the context's error is reachable through Cause
	case errors.As(err, &ccf):
		return ErrConditionFailed
	case errors.As(err, &rnf), errors.As(err, &tnf):
		return ErrTableNotFound
	case errors.As(err, &pte), errors.As(err, &thr), errors.As(err, &rle):
		return ErrThrottled
	case errors.As(err, &tce), errors.As(err, &tip):
		return ErrTransactionConflict
	case errors.As(err, &icl):
		return ErrCollectionTooLarge
	case errors.As(err, &riu), errors.As(err, &tae), errors.As(err, &dup):
		return ErrAlreadyExists
	case errors.As(err, &api):
		switch api.ErrorCode() {
		case "ValidationException":
			// DynamoDB says "Item size has exceeded the maximum allowed size"
			// (and "...to update" for UpdateItem) when an item passes 400 KB.
			if strings.Contains(api.ErrorMessage(), "has exceeded the maximum allowed size") {
				return ErrItemTooLarge
			}
			return ErrValidation
		case "ThrottlingException", "ProvisionedThroughputExceededException", "RequestLimitExceeded":
			return ErrThrottled
		case "ResourceNotFoundException":
			return ErrTableNotFound
		case "ConditionalCheckFailedException":
			return ErrConditionFailed
		case "TransactionConflictException":
			return ErrTransactionConflict
		}
	}
	return none
}

// isThrottle reports whether err is worth retrying after a backoff: DynamoDB
// asks clients to back off on throttling and on transaction conflicts.
func isThrottle(err error) bool {
	return errors.Is(err, ErrThrottled)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

package dynamotest

import (
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// The fake returns the same Go error types the SDK client does: modelled
// exceptions as their *types.X, and ValidationException (which the SDK does
// not model) as a *smithy.GenericAPIError with that code, exactly as the
// client decodes it from a real response.

func validationf(format string, args ...any) error {
	return &smithy.GenericAPIError{
		Code:    "ValidationException",
		Message: fmt.Sprintf(format, args...),
		Fault:   smithy.FaultClient,
	}
}

// invalidParam is DynamoDB's wording for most checks on request values.
func invalidParam(format string, args ...any) error {
	return validationf("One or more parameter values were invalid: "+format, args...)
}

// duplicateKeys is DynamoDB's refusal of a batch that names one item twice
// (BatchGetItem, BatchWriteItem, BatchExecuteStatement).
func duplicateKeys() error {
	return validationf("Provided list of item keys contains duplicates")
}

// constraint is the wording of DynamoDB's request-shape validation.
func constraint(value, field, rule string) error {
	return validationf("1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: %s", value, field, rule)
}

func tableNotFound(name string) error {
	return &types.ResourceNotFoundException{Message: aws.String("Requested resource not found: Table: " + name + " not found")}
}

func resourceNotFound() error {
	return &types.ResourceNotFoundException{Message: aws.String("Requested resource not found")}
}

func conditionFailed(item map[string]types.AttributeValue) error {
	return &types.ConditionalCheckFailedException{
		Message: aws.String("The conditional request failed"),
		Item:    item,
	}
}

// txCanceled builds DynamoDB's TransactionCanceledException: one reason per
// action, in request order, "None" for the actions that did not fail.
func txCanceled(reasons []types.CancellationReason) error {
	codes := make([]string, len(reasons))
	for i, r := range reasons {
		codes[i] = aws.ToString(r.Code)
	}
	return &types.TransactionCanceledException{
		Message:             aws.String("Transaction cancelled, please refer cancellation reasons for specific reasons [" + strings.Join(codes, ", ") + "]"),
		CancellationReasons: reasons,
	}
}

func throttled() error {
	return &types.ProvisionedThroughputExceededException{
		Message: aws.String("The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API."),
	}
}

func itemTooLarge() error {
	return validationf("Item size has exceeded the maximum allowed size")
}

// isResourceNotFound reports whether err is the fake's ResourceNotFound.
func isResourceNotFound(err error) bool {
	var rnf *types.ResourceNotFoundException
	return errors.As(err, &rnf)
}

package dynamotest

import (
	"errors"

	"github.com/aws/smithy-go"
)

// errorMessage is an API error's message without its code.
func errorMessage(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorMessage()
	}
	return err.Error()
}

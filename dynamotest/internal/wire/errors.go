package wire

import (
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// Namespaces of the "__type" DynamoDB writes. Clients keep only what follows
// '#', but the full form is what DynamoDB sends, and other SDKs may compare it.
const (
	dynamoDBNamespace = "com.amazonaws.dynamodb.v20120810#"
	validateNamespace = "com.amazon.coral.validate#"
	serviceNamespace  = "com.amazon.coral.service#"
)

// ErrorType returns the "__type" DynamoDB sends for an error code: the
// modelled exceptions in DynamoDB's namespace, ValidationException in Coral's
// validation namespace and the framework's own errors
// (SerializationException, UnknownOperationException) in its service one.
func ErrorType(code string) string {
	switch code {
	case "ValidationException":
		return validateNamespace + code
	case "SerializationException", "UnknownOperationException", "AccessDeniedException",
		"IncompleteSignatureException", "MissingAuthenticationTokenException":
		return serviceNamespace + code
	}
	return dynamoDBNamespace + code
}

var modelledPkgPath = reflect.TypeFor[types.ConditionalCheckFailedException]().PkgPath()

// AppendError appends the JSON body of an error response for err to dst:
// "__type", the message, and every other member of the exception (the Item of
// a ConditionalCheckFailedException, the CancellationReasons of a
// TransactionCanceledException, ...), so the client rebuilds the same Go
// value.
func AppendError(dst []byte, err smithy.APIError) []byte {
	code := err.ErrorCode()
	dst = append(dst, `{"__type":`...)
	dst = appendString(dst, ErrorType(code))
	dst = append(dst, ',')
	dst = append(dst, messageKey(code)...)
	dst = append(dst, ':')
	dst = appendString(dst, err.ErrorMessage())

	// Only DynamoDB's modelled exceptions have members beyond the message; a
	// smithy.GenericAPIError's Code and Fault are carried by "__type".
	rv := reflect.ValueOf(err)
	if rv.Kind() == reflect.Pointer && !rv.IsNil() && rv.Elem().Kind() == reflect.Struct &&
		rv.Elem().Type().PkgPath() == modelledPkgPath {
		rv = rv.Elem()
		e := encoder{buf: dst}
		for _, f := range codecFor(rv.Type()).fields {
			fv := rv.Field(f.index)
			if f.name == "Message" || f.omit(fv) {
				continue
			}
			e.buf = append(e.buf, ',')
			e.buf = append(e.buf, f.key...)
			f.codec.enc(&e, fv)
		}
		dst = e.buf
	}
	return append(dst, '}')
}

// messageKey is the member that carries an exception's message. DynamoDB's
// model spells it "message" for most exceptions and "Message" for a few
// (TransactionCanceledException); the member is written as the model
// spells it. Of the framework's own errors, SerializationException and
// AccessDeniedException spell it "Message" (dynalite's tests written
// against DynamoDB: assertSerialization, assertAccessDenied), the
// signature errors "message".
func messageKey(code string) string {
	switch code {
	case "SerializationException", "AccessDeniedException":
		return `"Message"`
	}
	if entry, ok := dynamodb.TypeRegistry.LookupEntry("com.amazonaws.dynamodb#" + code); ok {
		if entry.Schema.Member("Message") != nil {
			return `"Message"`
		}
	}
	return `"message"`
}

// Package wire is the JSON codec of DynamoDB's JSON 1.0 protocol, as the
// server side of dynamotest speaks it: it decodes request bodies into the
// SDK's *dynamodb.XInput structs and encodes *dynamodb.XOutput structs and
// exceptions back, so the handler hands the engine exactly the values an
// in-process caller would and the client rebuilds exactly the values the
// engine returned.
//
// The codec is driven by reflection over the SDK's own types, because the
// protocol's member names are the Go field names: a field named TableName
// travels as "TableName". The exceptions are written down here:
//
//   - a few members the model spells in lower camel case ("reason" and
//     "resource" of a ThrottlingReason, "throttlingReasons" of a
//     ThrottlingException, the "message" of most exceptions) travel as the
//     model spells them.
//
//   - types.AttributeValue is a union with one member set:
//     {"S": ".."}, {"N": ".."} (numbers travel as strings), {"B": base64},
//     {"BOOL": true}, {"NULL": true}, {"M": {..}}, {"L": [..]},
//     {"SS": [..]}, {"NS": [..]}, {"BS": [base64, ..]}.
//
//   - time.Time is epoch seconds as a JSON number with milliseconds
//     (1795321456.658), as DynamoDB writes CreationDateTime.
//
//   - []byte is standard base64; enums are their string values.
//
//   - nil pointers, nil slices, nil maps and empty enums are left out, as the
//     SDK leaves them out; unexported fields and the SDK's ResultMetadata and
//     ErrorCodeOverride never travel.
//
// The plan for each Go type (its fields, their names and their codecs) is
// built once and cached, so encoding and decoding a request costs a walk over
// the value and nothing else.
//
// Decoding is strict about JSON syntax and about JSON types (a string where a
// number belongs is a *DecodeError, which a server answers with
// SerializationException) and tolerant of members it does not know, so newer
// clients still work. An AttributeValue with no member or with two members
// is a *ValidationError carrying DynamoDB's own message. UnmarshalDeferred
// decodes it as attr.Invalid instead and says it did, for a server that
// reports the request's other faults first, as DynamoDB does (the fake's
// item operations: see refuseInvalid in package dynamotest).
package wire

package iam

import (
	"fmt"

	"github.com/aws/smithy-go"
)

// DefaultPrincipal is the caller an enforcing fake names in its denials
// when none is configured.
const DefaultPrincipal = "arn:aws:sts::000000000000:assumed-role/tablekit/service"

// AccessDeniedError is a request the policy refused, shaped like the
// services' own answers: DynamoDB's AccessDeniedException (HTTP 400, in
// the com.amazon.coral.service namespace on the wire) and S3's
// AccessDenied (HTTP 403). Its message is AWS's wording, naming the
// principal, the action, the resource and why.
type AccessDeniedError struct {
	Principal string
	Action    string
	Resource  string
	// Explicit says a Deny statement matched; otherwise nothing allowed
	// the request.
	Explicit bool
}

func (e *AccessDeniedError) Error() string {
	return e.ErrorCode() + ": " + e.ErrorMessage()
}

// ErrorCode is the service's error code: AccessDenied for S3 actions,
// AccessDeniedException for DynamoDB's (and other JSON services').
func (e *AccessDeniedError) ErrorCode() string {
	if service(e.Action) == "s3" {
		return "AccessDenied"
	}
	return "AccessDeniedException"
}

// ErrorMessage is AWS's wording. S3 quotes the resource; DynamoDB does not.
func (e *AccessDeniedError) ErrorMessage() string {
	resource := e.Resource
	if service(e.Action) == "s3" {
		resource = `"` + resource + `"`
	}
	why := "because no identity-based policy allows the " + e.Action + " action"
	if e.Explicit {
		why = "with an explicit deny in an identity-based policy"
	}
	return fmt.Sprintf("User: %s is not authorized to perform: %s on resource: %s %s", e.Principal, e.Action, resource, why)
}

// ErrorFault says the caller is at fault.
func (e *AccessDeniedError) ErrorFault() smithy.ErrorFault { return smithy.FaultClient }

var _ smithy.APIError = (*AccessDeniedError)(nil)

// Authorize evaluates every request in order and returns the
// *AccessDeniedError of the first the policy does not allow, or nil. An
// empty principal is DefaultPrincipal.
func (p Policy) Authorize(principal string, reqs ...Request) error {
	if principal == "" {
		principal = DefaultPrincipal
	}
	for _, r := range reqs {
		if d := p.Evaluate(r); d != Allowed {
			return &AccessDeniedError{Principal: principal, Action: r.Action, Resource: r.Resource, Explicit: d == ExplicitDeny}
		}
	}
	return nil
}

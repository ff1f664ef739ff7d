package main

import (
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/aws/smithy-go"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/connect"
	"github.com/tablekit/tablekit/table"
)

// isBadInput reports whether a store refused a value the operator typed
// (a status that is not one, a limit out of range, a cursor from another
// list): a usage error, exit 2, like a flag the flag package refuses.
func isBadInput(err error) bool {
	return errors.Is(err, table.ErrInvalidInput) || errors.Is(err, table.ErrInvalidCursor) ||
		errors.Is(err, blobstore.ErrInvalidInput) || errors.Is(err, blobstore.ErrInvalidKey)
}

// explain says err in the operator's terms: what to set when the region or
// the credentials are missing, which endpoint could not be reached, and
// an SDK failure as "<service> <operation>: <code>: <message>" rather than
// the SDK's request dump (status line, request id, attempt count).
func (a *app) explain(err error) string {
	switch {
	case errors.Is(err, connect.ErrNoRegion) && a.global.endpoint != "" && a.global.s3Endpoint == "":
		// DynamoDB was reachable at the endpoint; S3 is what went to AWS.
		return "no AWS region for S3: set -s3-endpoint (s3rver, MinIO), or AWS_REGION or -region for AWS S3"
	case errors.Is(err, connect.ErrNoRegion):
		return "no AWS region: set AWS_REGION or -region"
	case errors.Is(err, connect.ErrNoCredentials):
		return strings.TrimPrefix(err.Error(), "connect: ")
	}
	msg := err.Error()
	var op *smithy.OperationError
	if errors.As(err, &op) {
		msg = strings.Replace(msg, op.Error(), a.operationTerms(op), 1)
	}
	return msg
}

// operationTerms is one failed SDK operation in the operator's words.
func (a *app) operationTerms(op *smithy.OperationError) string {
	var dial *net.OpError
	if errors.As(op, &dial) && dial.Op == "dial" {
		reason := dial.Err.Error()
		var dns *net.DNSError
		if errors.As(dial, &dns) {
			reason = "no such host " + dns.Name
		}
		return fmt.Sprintf("cannot reach %s at %s (%s)", op.ServiceID, a.where(op.ServiceID), strings.TrimPrefix(reason, "connect: "))
	}
	var api smithy.APIError
	if errors.As(op, &api) {
		msg := fmt.Sprintf("%s %s: %s: %s", op.ServiceID, op.OperationName, api.ErrorCode(), api.ErrorMessage())
		if strings.HasPrefix(api.ErrorCode(), "AccessDenied") {
			// A service's runtime policy leaves maintenance out on purpose
			// (backfills, sweeps, imports, deletes): say which policy the
			// operator needs rather than only that one was refused.
			msg += " (commands that change or sweep a store's data need its operator policy, docs/<store>/iam-operator-policy.json)"
		}
		return msg
	}
	return fmt.Sprintf("%s %s: %v", op.ServiceID, op.OperationName, op.Err)
}

// where names the endpoint a service was reached at.
func (a *app) where(service string) string {
	endpoint := a.global.endpoint
	if strings.EqualFold(service, "S3") {
		endpoint = a.global.s3Endpoint
	}
	if endpoint != "" {
		return endpoint
	}
	region := a.global.region
	if a.conn != nil && a.conn.region != "" {
		region = a.conn.region
	}
	return "AWS region " + region
}

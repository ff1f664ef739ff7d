package dynamotest

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/smithy-go"
)

// authorization is a parsed Signature Version 4 Authorization header:
// AWS4-HMAC-SHA256 Credential=AKID/20060102/region/service/aws4_request,
// SignedHeaders=host;x-amz-date;..., Signature=hex.
type authorization struct {
	accessKey, date, region, service string
	signedHeaders                    []string
	signature                        string
}

const sigV4Algorithm = "AWS4-HMAC-SHA256"

// DynamoDB's answers to requests it cannot authenticate.
var errMissingAuth = &smithy.GenericAPIError{Code: "MissingAuthenticationTokenException",
	Message: "Request is missing Authentication Token"}

func incompleteSignature(why string) error {
	return &smithy.GenericAPIError{Code: "IncompleteSignatureException", Message: why}
}

func unrecognizedClient() error {
	return &smithy.GenericAPIError{Code: "UnrecognizedClientException", Message: "The security token included in the request is invalid."}
}

func invalidSignature(why string) error {
	return &smithy.GenericAPIError{Code: "InvalidSignatureException", Message: why}
}

// parseAuthorization parses a request's Authorization header; a missing or
// malformed one is DynamoDB's error for it.
func parseAuthorization(header string) (*authorization, error) {
	if header == "" {
		return nil, errMissingAuth
	}
	alg, rest, ok := strings.Cut(header, " ")
	if !ok || alg != sigV4Algorithm {
		return nil, incompleteSignature("Authorization header requires the " + sigV4Algorithm + " algorithm")
	}
	a := &authorization{}
	var credential, signed string
	for _, part := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "Credential":
			credential = v
		case "SignedHeaders":
			signed = v
		case "Signature":
			a.signature = v
		}
	}
	scope := strings.Split(credential, "/")
	if len(scope) != 5 || scope[0] == "" || scope[4] != "aws4_request" || signed == "" || a.signature == "" {
		return nil, incompleteSignature("Authorization header requires 'Credential' (AKID/date/region/service/aws4_request), " +
			"'SignedHeaders' and 'Signature' parameters. Authorization=" + header)
	}
	a.accessKey, a.date, a.region, a.service = scope[0], scope[1], scope[2], scope[3]
	a.signedHeaders = strings.Split(signed, ";")
	return a, nil
}

// verify checks a request's signature against the handler's keys by
// signing the same request again with the SDK's own signer: the same
// signed headers, body, scope and time must give the same signature.
func (h *protocolHandler) verify(r *http.Request, a *authorization, body []byte) error {
	secret, ok := h.opts.Keys[a.accessKey]
	if !ok {
		return unrecognizedClient()
	}
	at, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
	if err != nil || at.Format("20060102") != a.date {
		return incompleteSignature("Date must be in ISO-8601 'basic format' (X-Amz-Date), and match the credential scope's date")
	}
	if now := h.clock(); at.Before(now.Add(-signatureSkew)) || at.After(now.Add(signatureSkew)) {
		return invalidSignature("Signature expired: " + at.Format("20060102T150405Z") + " is now earlier or later than " +
			now.UTC().Format("20060102T150405Z") + " by more than 15 minutes.")
	}

	again, err := http.NewRequest(r.Method, "http://"+r.Host+r.URL.RequestURI(), nil)
	if err != nil {
		return invalidSignature("The request cannot be signed again: " + err.Error())
	}
	again.Host = r.Host
	for _, name := range a.signedHeaders {
		switch name {
		case "host":
		case "content-length":
			again.ContentLength = int64(len(body))
		default:
			again.Header[http.CanonicalHeaderKey(name)] = r.Header.Values(name)
		}
	}
	sum := sha256.Sum256(body)
	creds := aws.Credentials{AccessKeyID: a.accessKey, SecretAccessKey: secret, SessionToken: r.Header.Get("X-Amz-Security-Token")}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, again, hex.EncodeToString(sum[:]), a.service, a.region, at); err != nil {
		return invalidSignature("The request cannot be signed again: " + err.Error())
	}
	want, err := parseAuthorization(again.Header.Get("Authorization"))
	if err != nil || subtle.ConstantTimeCompare([]byte(want.signature), []byte(a.signature)) != 1 {
		return invalidSignature("The request signature we calculated does not match the signature you provided. " +
			"Check your AWS Secret Access Key and signing method. Consult the service documentation for details.")
	}
	return nil
}

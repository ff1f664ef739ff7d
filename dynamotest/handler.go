package dynamotest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base32"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/tablekit/tablekit/dynamotest/internal/wire"
	"github.com/tablekit/tablekit/table"
)

// targetPrefix is the X-Amz-Target prefix of every DynamoDB operation: the
// service's shape name and API version.
const targetPrefix = "DynamoDB_20120810."

// NewHandler returns an http.Handler that serves DynamoDB's JSON 1.0
// protocol over api, so an unmodified SDK client (any language's) whose
// endpoint is the handler's URL talks to api as it would to DynamoDB.
//
// The handler serves POST / with X-Amz-Target "DynamoDB_20120810.<Op>" for
// the sixteen operations of table.API, and for those beyond it that api
// has (UpdateTable, tagging, DescribeLimits, PartiQL, and the Streams API
// of a *DB); it only translates, and api does the
// work: a *DB, a real *dynamodb.Client (the handler is then a proxy), or a
// wrapper of either. Errors travel as DynamoDB sends them, a JSON body whose
// "__type" names the exception, so the client rebuilds the same Go error:
// a *types.ConditionalCheckFailedException with its Item, a
// *types.TransactionCanceledException with its CancellationReasons, a
// ValidationException as a smithy.APIError. An error that is not an API
// error answers InternalServerError with its text; a panic in api answers
// InternalServerError without details, and the panic and its stack go to
// HandlerOptions.Logger. Every response carries the X-Amz-Crc32 checksum
// the Go SDK verifies and an x-amzn-RequestId. GET / answers 200, as
// DynamoDB's health check does.
//
// A request body is limited (HandlerOptions.MaxBodyBytes), and so is the
// memory of all requests in flight together (MemoryBudget). By default
// requests are not authenticated and any credentials are accepted;
// RequireCredentials refuses requests that are not signed, and Keys
// verifies their Signature Version 4 signatures. Timeouts belong to the
// http.Server: Server and cmd/dynamotest set read, write and idle timeouts.
//
// A nil api (or a nil *DB) has nothing to serve: as http.Server serves
// DefaultServeMux for a nil Handler, the handler then serves a new, empty
// DB of its own, and says so once on HandlerOptions.Logger, rather than
// answering every request InternalServerError.
func NewHandler(api table.API, opts ...func(*HandlerOptions)) http.Handler {
	var o HandlerOptions
	for _, fn := range opts {
		fn(&o)
	}
	o.fill()
	if db, ok := api.(*DB); api == nil || (ok && db == nil) {
		o.Logger.Warn("dynamotest: NewHandler was given no API (nil); it serves a new, empty in-memory DB")
		api = New()
	}
	var id [20]byte
	_, _ = rand.Read(id[:]) // never fails; see crypto/rand.Read
	clock := time.Now
	if db, ok := api.(*DB); ok {
		clock = db.Now
	}
	return &protocolHandler{
		api:       api,
		ops:       wireOperations(api),
		requestID: base32.StdEncoding.EncodeToString(id[:]),
		opts:      o,
		budget:    &budget{limit: o.MemoryBudget},
		clock:     clock,
	}
}

type protocolHandler struct {
	api table.API
	ops map[string]wireOperation

	opts   HandlerOptions
	budget *budget
	clock  func() time.Time // for signature times: the DB's when api is one

	// Request IDs are unique per response: a random prefix per handler and
	// a sequence number.
	requestID string
	requests  atomic.Uint64

	buffers sync.Pool // *exchangeBuffers
}

// exchangeBuffers hold one request's body and its response, reused across
// requests so a steady load allocates neither.
type exchangeBuffers struct {
	in, out []byte
}

// wireOperation decodes a request body, calls the operation and appends the
// encoded output to out.
type wireOperation func(ctx context.Context, api table.API, body, out []byte) ([]byte, error)

func serve[In, Out any](call func(table.API, context.Context, *In, ...func(*dynamodb.Options)) (*Out, error)) wireOperation {
	return func(ctx context.Context, api table.API, body, out []byte) ([]byte, error) {
		in := new(In)
		if err := unmarshal(api, body, in); err != nil {
			return nil, err
		}
		res, err := call(api, ctx, in)
		if err != nil {
			return nil, err
		}
		return wire.Append(out, res), nil
	}
}

// unmarshal decodes a request for api. A request to a *DB may hold an
// AttributeValue that is not one (no member set, or several): DynamoDB
// reports the request's other faults before it, so the DB answers such a
// request itself (refuseInvalid) rather than failing it while decoding.
func unmarshal(api table.API, body []byte, in any) error {
	db, ok := api.(*DB)
	if !ok || !refusesInvalid(in) {
		return wire.Unmarshal(body, in)
	}
	invalid, err := wire.UnmarshalDeferred(body, in)
	if err != nil || !invalid {
		return err
	}
	return db.refuseInvalid(in)
}

// serveMethod is serve for an operation beyond table.API, a method of the
// handler's api found by a type assertion.
func serveMethod[In, Out any](call func(context.Context, *In, ...func(*dynamodb.Options)) (*Out, error)) wireOperation {
	return serve(func(_ table.API, ctx context.Context, in *In, opts ...func(*dynamodb.Options)) (*Out, error) {
		return call(ctx, in, opts...)
	})
}

// serveItems is serve for the reads that return whole items when the
// handler serves a *DB: the items stay in their stored encoding and their
// JSON is written from it (see store.AppendJSON), rather than decoded into
// maps only to be encoded again. A 25-item page of 1 KB items is most of
// what the server does for a Query.
func serveItems[In, Out any](read func(context.Context, *In) (*Out, []readItem, error)) wireOperation {
	return func(ctx context.Context, api table.API, body, out []byte) ([]byte, error) {
		in := new(In)
		if err := unmarshal(api, body, in); err != nil {
			return nil, err
		}
		res, items, err := read(ctx, in)
		if err != nil {
			return nil, err
		}
		if items == nil { // Select COUNT
			return wire.Append(out, res), nil
		}
		return appendOutput(out, res, "Items", func(b []byte) []byte {
			b = append(b, '[')
			for i, item := range items {
				if i > 0 {
					b = append(b, ',')
				}
				b = item.appendJSON(b)
			}
			return append(b, ']')
		}), nil
	}
}

// serveGetItem is serveItems for GetItem's single item.
func serveGetItem(db *DB) wireOperation {
	return func(ctx context.Context, _ table.API, body, out []byte) ([]byte, error) {
		in := new(dynamodb.GetItemInput)
		if err := unmarshal(db, body, in); err != nil {
			return nil, err
		}
		res, item, err := db.getItem(ctx, in)
		if err != nil {
			return nil, err
		}
		if !item.found() {
			return wire.Append(out, res), nil
		}
		return appendOutput(out, res, "Item", item.appendJSON), nil
	}
}

// appendOutput appends the JSON of res, an operation's output, with one
// more member, name, whose value member appends.
func appendOutput(dst []byte, res any, name string, member func([]byte) []byte) []byte {
	dst = append(dst, '{', '"')
	dst = append(dst, name...)
	dst = append(dst, '"', ':')
	dst = member(dst)
	rest := len(dst)
	dst = wire.Append(dst, res)
	if len(dst)-rest == len("{}") {
		return append(dst[:rest], '}') // res has no members of its own
	}
	dst[rest] = ',' // res's members follow in the same object
	return dst
}

func wireOperations(api table.API) map[string]wireOperation {
	ops := map[string]wireOperation{
		"CreateTable":        serve(table.API.CreateTable),
		"DeleteTable":        serve(table.API.DeleteTable),
		"DescribeTable":      serve(table.API.DescribeTable),
		"ListTables":         serve(table.API.ListTables),
		"UpdateTimeToLive":   serve(table.API.UpdateTimeToLive),
		"DescribeTimeToLive": serve(table.API.DescribeTimeToLive),
		"GetItem":            serve(table.API.GetItem),
		"PutItem":            serve(table.API.PutItem),
		"UpdateItem":         serve(table.API.UpdateItem),
		"DeleteItem":         serve(table.API.DeleteItem),
		"Query":              serve(table.API.Query),
		"Scan":               serve(table.API.Scan),
		"BatchGetItem":       serve(table.API.BatchGetItem),
		"BatchWriteItem":     serve(table.API.BatchWriteItem),
		"TransactGetItems":   serve(table.API.TransactGetItems),
		"TransactWriteItems": serve(table.API.TransactWriteItems),
	}
	// Operations beyond table.API, served when api has them (a *DB and a
	// *dynamodb.Client do).
	if x, ok := api.(interface {
		TagResource(context.Context, *dynamodb.TagResourceInput, ...func(*dynamodb.Options)) (*dynamodb.TagResourceOutput, error)
		UntagResource(context.Context, *dynamodb.UntagResourceInput, ...func(*dynamodb.Options)) (*dynamodb.UntagResourceOutput, error)
		ListTagsOfResource(context.Context, *dynamodb.ListTagsOfResourceInput, ...func(*dynamodb.Options)) (*dynamodb.ListTagsOfResourceOutput, error)
	}); ok {
		ops["TagResource"] = serveMethod(x.TagResource)
		ops["UntagResource"] = serveMethod(x.UntagResource)
		ops["ListTagsOfResource"] = serveMethod(x.ListTagsOfResource)
	}
	if x, ok := api.(interface {
		ExecuteStatement(context.Context, *dynamodb.ExecuteStatementInput, ...func(*dynamodb.Options)) (*dynamodb.ExecuteStatementOutput, error)
	}); ok {
		ops["ExecuteStatement"] = serveMethod(x.ExecuteStatement)
	}
	if x, ok := api.(interface {
		ExecuteTransaction(context.Context, *dynamodb.ExecuteTransactionInput, ...func(*dynamodb.Options)) (*dynamodb.ExecuteTransactionOutput, error)
		BatchExecuteStatement(context.Context, *dynamodb.BatchExecuteStatementInput, ...func(*dynamodb.Options)) (*dynamodb.BatchExecuteStatementOutput, error)
	}); ok {
		ops["ExecuteTransaction"] = serveMethod(x.ExecuteTransaction)
		ops["BatchExecuteStatement"] = serveMethod(x.BatchExecuteStatement)
	}
	if x, ok := api.(interface {
		DescribeLimits(context.Context, *dynamodb.DescribeLimitsInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeLimitsOutput, error)
	}); ok {
		ops["DescribeLimits"] = serveMethod(x.DescribeLimits)
	}
	if db, ok := api.(*DB); ok {
		ops["GetItem"] = serveGetItem(db)
		ops["Query"] = serveItems(db.query)
		ops["Scan"] = serveItems(db.scan)
	}
	for target, op := range streamOperations(api) {
		ops[target] = op
	}
	for target, op := range backupOperations(api) {
		ops[target] = op
	}
	return ops
}

func (h *protocolHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
	case http.MethodGet, http.MethodHead:
		if r.URL.Path == "/" {
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, "healthy: dynamodb.us-east-1.amazonaws.com ")
			return
		}
		http.NotFound(w, r)
		return
	default:
		w.Header().Set("Allow", "GET, HEAD, POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}

	bufs, _ := h.buffers.Get().(*exchangeBuffers)
	if bufs == nil {
		bufs = &exchangeBuffers{}
	}
	defer func() {
		// A rare huge exchange (a 16 MB batch) is not worth keeping.
		if cap(bufs.in) > 1<<20 || cap(bufs.out) > 1<<20 {
			return
		}
		h.buffers.Put(bufs)
	}()

	status := http.StatusOK
	body, err := h.exchange(r, bufs)
	if err != nil {
		status, body = errorResponse(err, bufs.out[:0])
	}
	bufs.out = body

	header := w.Header()
	header["Content-Type"] = []string{"application/x-amz-json-1.0"}
	header["Content-Length"] = []string{strconv.Itoa(len(body))}
	header["X-Amz-Crc32"] = []string{strconv.FormatUint(uint64(crc32.ChecksumIEEE(body)), 10)}
	header["x-amzn-RequestId"] = []string{h.nextRequestID()}
	w.WriteHeader(status)
	w.Write(body)
}

// exchange reads the request, runs its operation and returns the encoded
// output, in bufs.out's storage.
func (h *protocolHandler) exchange(r *http.Request, bufs *exchangeBuffers) (out []byte, err error) {
	var auth *authorization
	if h.opts.RequireCredentials {
		if auth, err = parseAuthorization(r.Header.Get("Authorization")); err != nil {
			return nil, err
		}
	}
	name, ok := strings.CutPrefix(r.Header.Get("X-Amz-Target"), targetPrefix)
	if !ok && strings.HasPrefix(r.Header.Get("X-Amz-Target"), streamsTargetPrefix) {
		name, ok = r.Header.Get("X-Amz-Target"), true // see streamOperations
	}
	op := h.ops[name]
	if !ok || op == nil {
		// DynamoDB's message, and which operation, since here it may be a
		// real one that the fake does not serve.
		return nil, &smithy.GenericAPIError{Code: "UnknownOperationException",
			Message: fmt.Sprintf("An unknown operation was requested. (dynamotest serves the operations of table.API, not %q)", r.Header.Get("X-Amz-Target"))}
	}
	var reserved int64
	defer func() { h.budget.release(reserved) }()
	body, err := h.readBody(r, bufs.in[:0], &reserved)
	bufs.in = body
	if err != nil {
		return nil, err
	}
	// A request holds more than its body while it runs (the input decoded
	// from it, what the operation builds from that): it reserves as much
	// again, so that what the requests in flight hold stays within the
	// budget. Counting bodies alone let their live heap reach about 1.3
	// times the budget (TestHandlerMemoryBudgetBoundsTheHeapOfRequestsInFlight).
	if !h.budget.reserve(int64(len(body))) {
		return nil, errOverBudget
	}
	reserved += int64(len(body))
	if h.opts.Keys != nil {
		if err := h.verify(r, auth, body); err != nil {
			return nil, err
		}
	}
	if len(body) == 0 {
		// The SDKs send {} for an operation without parameters; an empty
		// body from curl means the same.
		body = append(body, "{}"...)
	}

	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			// The stack is for the operator, not the client: it names the
			// fake's internals and can be large.
			h.opts.Logger.Error("dynamotest: operation panicked", "operation", name, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			err = &types.InternalServerError{Message: aws.String("dynamotest: internal error in " + name + "; the server's log has the details")}
		}
	}()
	return op(r.Context(), h.api, body, bufs.out[:0])
}

// errTooLarge answers a body beyond HandlerOptions.MaxBodyBytes (413).
type errTooLarge struct{ smithy.GenericAPIError }

func tooLarge(limit int64) error {
	return &errTooLarge{smithy.GenericAPIError{Code: "SerializationException",
		Message: fmt.Sprintf("Request body exceeds the server's limit of %d bytes", limit)}}
}

// readBody appends the request body to buf, reserving its bytes from the
// handler's memory budget before it holds them; *reserved counts what it
// took, for the caller to release once the request is answered.
func (h *protocolHandler) readBody(r *http.Request, buf []byte, reserved *int64) ([]byte, error) {
	limit := h.opts.MaxBodyBytes
	if r.ContentLength > limit {
		return buf, tooLarge(limit)
	}
	// reserve makes room for n bytes of body in all: the whole of a
	// declared length at once, otherwise as the buffer grows.
	reserve := func(n int64) error {
		if n <= *reserved {
			return nil
		}
		if !h.budget.reserve(n - *reserved) {
			return errOverBudget
		}
		*reserved = n
		return nil
	}
	if err := reserve(max(r.ContentLength, int64(cap(buf)))); err != nil {
		return buf, err
	}
	if n := r.ContentLength; n > 0 && int64(cap(buf)) < n {
		buf = make([]byte, 0, n)
	}
	for {
		if len(buf) == cap(buf) {
			grown := min(max(2*int64(cap(buf)), 512), limit+1)
			if err := reserve(grown); err != nil {
				return buf, err
			}
			buf = append(make([]byte, 0, grown), buf...)
		}
		n, err := r.Body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return buf, tooLarge(limit)
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, &smithy.GenericAPIError{Code: "SerializationException", Message: "reading request body: " + err.Error()}
		}
	}
}

// errorResponse returns the status and body of DynamoDB's answer to err.
func errorResponse(err error, buf []byte) (int, []byte) {
	var (
		decodeErr     *wire.DecodeError
		validationErr *wire.ValidationError
		apiErr        smithy.APIError
	)
	switch {
	case errors.As(err, &decodeErr):
		msg := decodeErr.Java // DynamoDB's words, when the decoder knows them
		if msg == "" {
			msg = decodeErr.Error()
		}
		apiErr = &smithy.GenericAPIError{Code: "SerializationException", Message: msg}
	case errors.As(err, &validationErr):
		apiErr = &smithy.GenericAPIError{Code: "ValidationException", Message: validationErr.Message}
	case errors.As(err, &apiErr):
	default:
		apiErr = &types.InternalServerError{Message: aws.String(err.Error())}
	}
	return errorStatus(apiErr), wire.AppendError(buf, apiErr)
}

// errorStatus is the HTTP status DynamoDB answers an error with: 500 for
// its own failures, 503 when it is unavailable, 400 for everything the
// caller can fix or retry, throttling included. The Go SDK decides what to
// retry from the error code, other SDKs partly from the status.
func errorStatus(err smithy.APIError) int {
	switch err.ErrorCode() {
	case "ServiceUnavailable":
		return http.StatusServiceUnavailable
	case "InternalServerError", "InternalFailure":
		return http.StatusInternalServerError
	case "SerializationException":
		if _, ok := err.(*errTooLarge); ok {
			return http.StatusRequestEntityTooLarge
		}
	}
	if err.ErrorFault() == smithy.FaultServer {
		return http.StatusInternalServerError
	}
	return http.StatusBadRequest
}

func (h *protocolHandler) nextRequestID() string {
	var b [64]byte
	id := append(b[:0], h.requestID...)
	id = strconv.AppendUint(id, h.requests.Add(1), 10)
	return string(id)
}

// NewClient returns an SDK client for a DynamoDB endpoint served by a
// handler from NewHandler (or cmd/dynamotest, or DynamoDB Local), set up as
// Server.Client sets up its clients: static credentials, region us-east-1,
// no retries, a connection pool of its own. optFns adjust the options as for
// dynamodb.New.
//
// Prefer it to a default client for local endpoints: it also works around a
// race in the SDK that makes calls to very fast servers fail now and then
// with "use of closed network connection" (see memoryBody).
func NewClient(endpoint string, optFns ...func(*dynamodb.Options)) *dynamodb.Client {
	return newClientWith(endpoint, newTransport(), optFns...)
}

// newClientWith returns an SDK client for the DynamoDB endpoint at url, set
// up for tests: static credentials, region us-east-1 and no retries, so that
// a fault injected into the fake reaches the caller exactly as it does in
// process (the table package retries throttling itself, with backoff) and a
// retry quota never runs dry in a test that throttles on purpose.
func newClientWith(url string, transport http.RoundTripper, optFns ...func(*dynamodb.Options)) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		BaseEndpoint: aws.String(url),
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("dynamotest", "dynamotest", ""),
		Retryer:      aws.NopRetryer{},
		HTTPClient:   &http.Client{Transport: memoryBody{transport}},
	}, optFns...)
}

// newTransport returns a transport for a local endpoint: never through a
// proxy, and enough idle connections for a test's goroutines to keep one
// each.
func newTransport() *http.Transport {
	return &http.Transport{
		Proxy:               nil,
		MaxIdleConns:        256,
		MaxIdleConnsPerHost: 256,
		IdleConnTimeout:     90 * time.Second,
	}
}

// memoryBody hands the transport a copy of the request body.
//
// The SDK closes its request body as soon as the response headers arrive.
// Against a server as fast as a local fake, that can happen while the
// transport's writer goroutine is still finishing the request; its last read
// then fails and the transport closes the connection under the response
// being read, and the call fails with "use of closed network connection"
// (aws-sdk-go-v2 issues 1825 and 2737). A body the SDK does not own cannot be
// closed under the transport. It also lets the transport send headers and
// body in one write.
type memoryBody struct {
	next http.RoundTripper
}

func (t memoryBody) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return t.next.RoundTrip(req)
	}
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	copied := new(http.Request)
	*copied = *req
	copied.Body = io.NopCloser(bytes.NewReader(body))
	copied.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	copied.ContentLength = int64(len(body))
	return t.next.RoundTrip(copied)
}

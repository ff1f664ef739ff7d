package dynamotest

import (
	"log/slog"
	"sync"
	"time"

	"github.com/aws/smithy-go"
)

// HandlerOptions configure a handler from NewHandler.
type HandlerOptions struct {
	// MaxBodyBytes bounds one request body; a larger one is answered 413
	// with a SerializationException and not read further. 0 (or less)
	// means 16 MB,
	// above DynamoDB's largest requests (a BatchWriteItem or
	// TransactWriteItems at its limits).
	MaxBodyBytes int64

	// MemoryBudget bounds the memory held at once by all the requests in
	// flight together, each request's body and the input decoded from it
	// (counted as much again as the body), so that many large concurrent
	// requests cannot exhaust the process's memory. A request that would
	// pass it is answered with a ThrottlingException, which SDKs retry
	// with backoff. 0 (or less) means 256 MB; it is raised to twice
	// MaxBodyBytes when smaller, so one request of the largest size always
	// fits.
	MemoryBudget int64

	// Logger receives each panic of the API with its stack (the client is
	// answered InternalServerError without it). nil means slog.Default():
	// a panic is a bug and must not vanish.
	Logger *slog.Logger

	// RequireCredentials refuses requests without an AWS Signature
	// Version 4 Authorization header (MissingAuthenticationTokenException),
	// as DynamoDB does. Any access key and signature are accepted unless
	// Keys is set.
	RequireCredentials bool

	// Keys, when not nil, maps access key IDs to their secret keys: a
	// request must be signed with one of them (implies
	// RequireCredentials). An unknown key is an
	// UnrecognizedClientException, a wrong signature an
	// InvalidSignatureException, a signing time more than 15 minutes from
	// the handler's clock an InvalidSignatureException too, as in
	// DynamoDB.
	Keys map[string]string
}

// Default limits of a handler.
const (
	defaultMaxBody      = 16 << 20
	defaultMemoryBudget = 256 << 20
)

// MaxBodyBytes sets HandlerOptions.MaxBodyBytes.
func MaxBodyBytes(n int64) func(*HandlerOptions) {
	return func(o *HandlerOptions) { o.MaxBodyBytes = n }
}

// MemoryBudget sets HandlerOptions.MemoryBudget.
func MemoryBudget(n int64) func(*HandlerOptions) {
	return func(o *HandlerOptions) { o.MemoryBudget = n }
}

// Logger sets HandlerOptions.Logger.
func Logger(l *slog.Logger) func(*HandlerOptions) {
	return func(o *HandlerOptions) { o.Logger = l }
}

// RequireCredentials sets HandlerOptions.RequireCredentials.
func RequireCredentials() func(*HandlerOptions) {
	return func(o *HandlerOptions) { o.RequireCredentials = true }
}

// Keys sets HandlerOptions.Keys: requests must be signed with one of these
// access key IDs and its secret key.
func Keys(keys map[string]string) func(*HandlerOptions) {
	return func(o *HandlerOptions) { o.Keys = keys }
}

// fill fills in the defaults: a limit of zero or less means the default.
func (o *HandlerOptions) fill() {
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = defaultMaxBody
	}
	if o.MemoryBudget <= 0 {
		o.MemoryBudget = defaultMemoryBudget
	}
	o.MemoryBudget = max(o.MemoryBudget, 2*o.MaxBodyBytes)
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Keys != nil {
		o.RequireCredentials = true
	}
}

// budget counts the bytes of request bodies held by the requests in
// flight. Requests reserve before they read and release when answered.
type budget struct {
	mu    sync.Mutex
	limit int64
	used  int64
	peak  int64
}

// reserve takes n bytes of the budget, or reports that it cannot.
func (b *budget) reserve(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > b.limit {
		return false
	}
	b.used += n
	b.peak = max(b.peak, b.used)
	return true
}

func (b *budget) release(n int64) {
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
}

// errOverBudget answers a request whose body does not fit the memory
// budget: a throttling error, so that SDKs retry it after a backoff.
var errOverBudget = &smithy.GenericAPIError{Code: "ThrottlingException",
	Message: "dynamotest: the request bodies in flight exceed the server's memory budget; retry later"}

// signatureSkew is how far a request's signing time may be from the
// handler's clock, as DynamoDB allows.
const signatureSkew = 15 * time.Minute

package dynamotest

import (
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// Server is an in-memory DynamoDB listening on a local address, for tests
// and tools that talk to DynamoDB over HTTP: an SDK client in any language,
// the AWS CLI, a service under test in another process.
//
// It is httptest.Server for DynamoDB: NewServer starts it on a free port of
// 127.0.0.1, URL is what goes in the client's endpoint, and Close stops it:
//
//	srv := dynamotest.NewServer()
//	defer srv.Close()
//	client := srv.Client() // or any client with BaseEndpoint = srv.URL
//
// DB is the fake behind the endpoint, so a test can set its clock, inject
// faults, read call counts and consumed capacity, or seed it in process while
// the code under test talks HTTP.
type Server struct {
	// URL is the base URL of the form http://127.0.0.1:port, with no
	// trailing slash. It is set when the server starts.
	URL string

	// DB is the in-memory DynamoDB the server serves.
	DB *DB

	// Listener and Config may be changed after NewUnstartedServer and
	// before Start, as with httptest.
	Listener net.Listener
	Config   *http.Server

	ts *httptest.Server

	mu        sync.Mutex
	transport *http.Transport // shared by the clients of Client
}

// NewServer starts and returns a Server over a new DB built with opts. The
// caller should call Close when finished, to shut it down.
func NewServer(opts ...func(*Options)) *Server {
	s := NewUnstartedServer(opts...)
	s.Start()
	return s
}

// NewUnstartedServer returns a Server over a new DB built with opts, but
// does not start it, so the caller can change its Listener or Config first.
// Start it with Start.
//
// Its Config has read, write and idle timeouts (see ServerTimeouts), so a
// client that trickles a body or holds idle connections cannot hold the
// server's resources indefinitely.
func NewUnstartedServer(opts ...func(*Options)) *Server {
	db := New(opts...)
	ts := httptest.NewUnstartedServer(NewHandler(db))
	ServerTimeouts(ts.Config)
	return &Server{DB: db, Listener: ts.Listener, Config: ts.Config, ts: ts}
}

// ServerTimeouts sets the timeouts a DynamoDB endpoint's http.Server needs,
// where they are not set already: 10 s to read a request's headers, 60 s
// to read the whole request (a 16 MB body over a slow link) and to write
// its answer, and 120 s for an idle keep-alive connection.
func ServerTimeouts(s *http.Server) {
	if s == nil {
		return
	}
	if s.ReadHeaderTimeout == 0 {
		s.ReadHeaderTimeout = 10 * time.Second
	}
	if s.ReadTimeout == 0 {
		s.ReadTimeout = 60 * time.Second
	}
	if s.WriteTimeout == 0 {
		s.WriteTimeout = 60 * time.Second
	}
	if s.IdleTimeout == 0 {
		s.IdleTimeout = 120 * time.Second
	}
}

// Start starts a server from NewUnstartedServer. It panics if the server
// has already started, as httptest's does.
func (s *Server) Start() {
	s.ts.Listener = s.Listener
	s.ts.Config = s.Config
	s.ts.Start()
	s.URL = s.ts.URL
}

// Close shuts the server down: it stops listening, closes idle connections
// and blocks until every request in flight has been answered. The DB stays
// usable in process.
func (s *Server) Close() {
	s.ts.Close()
	s.mu.Lock()
	if s.transport != nil {
		s.transport.CloseIdleConnections()
	}
	s.mu.Unlock()
}

// Client returns a DynamoDB client for the server: BaseEndpoint is URL,
// credentials are static, the region is us-east-1 and retries are off, so a
// fault injected with DB.Inject reaches the caller exactly as it does in
// process, where there is no SDK to retry it. optFns adjust the client's
// options as for dynamodb.New (a Retryer to test the SDK's own retries,
// say). Clients from one server share a connection pool. Client panics if
// the server has not started.
func (s *Server) Client(optFns ...func(*dynamodb.Options)) *dynamodb.Client {
	if s.URL == "" {
		// An empty BaseEndpoint would send the client to AWS itself.
		panic("dynamotest: Server.Client called before Start")
	}
	s.mu.Lock()
	if s.transport == nil {
		s.transport = newTransport()
	}
	tr := s.transport
	s.mu.Unlock()
	return newClientWith(s.URL, tr, optFns...)
}

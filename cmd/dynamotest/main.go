// Command dynamotest serves tablekit's in-memory DynamoDB over HTTP, so any
// DynamoDB client (an SDK in any language, the AWS CLI, NoSQL Workbench)
// can use it as a local endpoint:
//
//	go run ./cmd/dynamotest -addr 127.0.0.1:8000
//	aws dynamodb list-tables --endpoint-url http://127.0.0.1:8000
//
// Each run starts with an empty database, kept in memory only, unless
// -data names a directory: the database is then kept there and a restart
// finds every table, item, index, setting and stream record as it was. A
// write is on disk (synced) before it is answered, so not even SIGKILL or a
// power cut loses an acknowledged write; concurrent writers share one sync.
// One server at a time uses a directory (a second is refused while the
// first runs), and a directory holding anything but dynamotest data of
// this format version is refused and left untouched. See the dynamotest
// package documentation, "Persistence".
//
//	go run ./cmd/dynamotest -data ~/.local/share/dynamotest
//
// It listens
// on loopback by default, and refuses an address on another interface
// unless -allow-remote is given. By default requests are not authenticated
// and any credentials and any region work; -require-credentials refuses
// unsigned requests, and -keys-file verifies Signature Version 4
// signatures against the access keys it lists.
//
// -eventual 1s serves DynamoDB's consistency and no more: a write reaches
// global secondary index reads and reads without ConsistentRead only a
// second later (dynamotest.EventualConsistency), so a client that reads its
// own write through an index fails here as it would on AWS. Unset, the
// environment variable TABLEKIT_DYNAMOTEST_EVENTUAL gives the lag.
//
// -policy serves the database behind an IAM policy (a JSON document as IAM
// takes it; package iam's subset), as dynamotest.Enforce does: every
// request, PartiQL statements included, is authorized as AWS authorizes it
// and a refused one is answered AccessDeniedException. The policy's ARNs
// name the fake's region and account, us-east-1 and 000000000000
// (dynamotest.Env), whatever region the client uses: test a service's
// runtime policy, generated with iam.Runtime(dynamotest.Env, ...), from
// any language.
//
// A request body is limited (-max-body) and so is the memory of all
// requests in flight together (-memory-budget: beyond it requests are
// throttled, and SDKs retry them); requests that are read too slowly are
// cut off (-read-timeout), and idle connections closed (-idle-timeout). A
// panic answers InternalServerError and is logged with its stack on
// standard error.
//
// The command prints the endpoint's URL once it listens and shuts down
// gracefully on SIGINT or SIGTERM, answering the requests in flight first.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/iam"
)

// shutdownGrace bounds how long a shutdown waits for requests in flight.
const shutdownGrace = 5 * time.Second

// config is what the flags set.
type config struct {
	addr               string
	allowRemote        bool
	requireCredentials bool
	keysFile           string
	maxBody            int64
	memoryBudget       int64
	readTimeout        time.Duration
	idleTimeout        time.Duration
	policyFile         string
	eventual           time.Duration
	data               string
}

func defaultConfig() config {
	return config{addr: "127.0.0.1:8000", maxBody: 16 << 20, memoryBudget: 256 << 20,
		readTimeout: 60 * time.Second, idleTimeout: 120 * time.Second}
}

func main() {
	c := defaultConfig()
	flag.StringVar(&c.addr, "addr", c.addr, "`host:port` to listen on (port 0 picks a free one)")
	flag.BoolVar(&c.allowRemote, "allow-remote", false, "allow an -addr that is not a loopback address")
	flag.BoolVar(&c.requireCredentials, "require-credentials", false, "refuse requests without a Signature Version 4 Authorization header")
	flag.StringVar(&c.keysFile, "keys-file", "", "`file` of \"ACCESS_KEY_ID SECRET_ACCESS_KEY\" lines; requests must be signed with one of them")
	flag.Int64Var(&c.maxBody, "max-body", c.maxBody, "largest request body in `bytes`")
	flag.Int64Var(&c.memoryBudget, "memory-budget", c.memoryBudget, "`bytes` held at once by all requests in flight (each body, and as much again for its decoded input)")
	flag.DurationVar(&c.readTimeout, "read-timeout", c.readTimeout, "time to read a whole request, body included")
	flag.DurationVar(&c.idleTimeout, "idle-timeout", c.idleTimeout, "time an idle keep-alive connection is kept")
	flag.StringVar(&c.policyFile, "policy", "", "IAM policy `file` (JSON) every request is authorized against, with the fake's region and account in its ARNs")
	flag.StringVar(&c.data, "data", "", "`directory` to keep the database in across restarts (created if missing); empty: in memory only")
	flag.DurationVar(&c.eventual, "eventual", 0, "eventual mode: index reads and reads without ConsistentRead see a write only this `long` after it (0: at once)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: dynamotest [flags]\n\nServes a DynamoDB over HTTP: in memory, or kept in a directory with -data.\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, c, os.Stdout, slog.New(slog.NewTextHandler(os.Stderr, nil))); err != nil {
		fmt.Fprintln(os.Stderr, "dynamotest:", err)
		os.Exit(1)
	}
}

// run serves a fresh in-memory DynamoDB as c says until ctx is done,
// writing the endpoint's URL to out once it listens.
func run(ctx context.Context, c config, out io.Writer, logger *slog.Logger) (err error) {
	if err := checkLoopback(c.addr, c.allowRemote); err != nil {
		return err
	}
	opts := []func(*dynamotest.HandlerOptions){
		dynamotest.MaxBodyBytes(c.maxBody), dynamotest.MemoryBudget(c.memoryBudget), dynamotest.Logger(logger),
	}
	if c.requireCredentials {
		opts = append(opts, dynamotest.RequireCredentials())
	}
	if c.keysFile != "" {
		keys, err := readKeys(c.keysFile)
		if err != nil {
			return err
		}
		opts = append(opts, dynamotest.Keys(keys))
	}
	dbOpts := []func(*dynamotest.Options){dynamotest.EventualConsistency(c.eventual)}
	if c.data != "" {
		dbOpts = append(dbOpts, dynamotest.Persist(c.data))
	}
	db, err := dynamotest.Open(dbOpts...)
	if err != nil {
		return err
	}
	// Closing writes a snapshot, so the next start reads little log, and
	// releases the directory. Its failure is the command's (exit 1): the
	// acknowledged writes are in the log, but the operator must learn that
	// the directory could not be closed.
	defer func() {
		if cerr := db.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("closing %s: %w", c.data, cerr)
		}
	}()
	handler := dynamotest.NewHandler(db, opts...)
	if c.policyFile != "" {
		data, err := os.ReadFile(c.policyFile)
		if err != nil {
			return err
		}
		policy, err := iam.Parse(data)
		if err != nil {
			return fmt.Errorf("-policy %s: %w", c.policyFile, err)
		}
		enforced, err := dynamotest.Enforce(db, policy)
		if err != nil {
			return fmt.Errorf("-policy %s: %w", c.policyFile, err)
		}
		handler = enforced.Handler(opts...)
	}
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:     handler,
		ReadTimeout: c.readTimeout,
		IdleTimeout: c.idleTimeout,
		ErrorLog:    slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	dynamotest.ServerTimeouts(srv)
	kind := "an in-memory DynamoDB"
	if c.data != "" {
		kind = "a persistent DynamoDB"
	}
	fmt.Fprintf(out, "dynamotest: serving %s at http://%s\n", kind, ln.Addr())
	if c.data != "" {
		fmt.Fprintf(out, "dynamotest: data in %s\n", c.data)
	}

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}

	fmt.Fprintln(out, "dynamotest: shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// errRemote refuses to serve beyond loopback unless asked to.
var errRemote = errors.New("not a loopback address: an in-memory DynamoDB with no authentication by default " +
	"should not be reachable from other machines; pass -allow-remote (and consider -keys-file) to serve it anyway")

// checkLoopback refuses an address whose host is not loopback (an empty
// host or 0.0.0.0 listens on every interface) unless allowed.
func checkLoopback(addr string, allowed bool) error {
	if allowed {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("-addr %s: %w", addr, errRemote)
}

// readKeys reads "ACCESS_KEY_ID SECRET_ACCESS_KEY" lines; blank lines and
// lines starting with # are skipped.
func readKeys(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	keys := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 2 {
			return nil, fmt.Errorf("%s:%d: want \"ACCESS_KEY_ID SECRET_ACCESS_KEY\"", path, n)
		}
		keys[fields[0]] = fields[1]
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%s: no keys", path)
	}
	return keys, nil
}

// Command dynamotest serves tablekit's in-memory DynamoDB over HTTP, so any
// DynamoDB client (an SDK in any language, the AWS CLI, NoSQL Workbench)
// can use it as a local endpoint:
//
//	go run ./cmd/dynamotest -addr 127.0.0.1:8000
//	aws dynamodb list-tables --endpoint-url http://127.0.0.1:8000
//
// Each run starts with an empty database, kept in memory only. Requests are
// not authenticated: any credentials and any region work. The command prints
// the endpoint's URL once it listens and shuts down gracefully on SIGINT or
// SIGTERM, answering the requests in flight first.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/tablekit/tablekit/dynamotest"
)

// shutdownGrace bounds how long a shutdown waits for requests in flight.
const shutdownGrace = 5 * time.Second

func main() {
	addr := flag.String("addr", "127.0.0.1:8000", "`host:port` to listen on (port 0 picks a free one)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: dynamotest [-addr host:port]\n\nServes an in-memory DynamoDB over HTTP.\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *addr, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "dynamotest:", err)
		os.Exit(1)
	}
}

// run serves a fresh in-memory DynamoDB on addr until ctx is done, writing
// the endpoint's URL to out once it listens.
func run(ctx context.Context, addr string, out io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           dynamotest.NewHandler(dynamotest.New()),
		ReadHeaderTimeout: 30 * time.Second,
	}
	fmt.Fprintf(out, "dynamotest: serving an in-memory DynamoDB at http://%s\n", ln.Addr())

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

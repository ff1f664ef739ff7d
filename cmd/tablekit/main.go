// Command tablekit is the operator's tool for services built on tablekit:
// it creates and checks every store's tables, prints a partition the way the
// stores see it, and runs the maintenance calls an operator would otherwise
// write a throwaway program for (recover stuck jobs, replay failed ones,
// re-drive dead tasks, sweep orphaned blobs, export and import journeys,
// delete pipelines).
//
// Usage:
//
//	tablekit [global flags] <command> [<subcommand>] [flags] [args]
//
// Run `tablekit help` for the list of commands and `tablekit help <command>`
// (or `tablekit <command> -h`) for one command's flags.
//
// It connects through package connect, as the examples and services do: to
// AWS through the default configuration chain, to any endpoint with
// -endpoint (DynamoDB Local, `go run ./cmd/dynamotest`), or to an in-memory
// fake with -memory (a demo: nothing outlives the process). Files (journey
// logs, reports and backups, offloaded job results, pipeline files) are in
// S3 on AWS unless -s3-endpoint names another; a command that reads or
// writes no file runs without S3, so DynamoDB Local alone serves the
// commands that read only tables.
//
// Conventions every command follows: -output json prints camelCase keys,
// and a list {"items": [...], "next": "..."}; an empty list prints nothing
// on standard output and "no <things> found" on standard error; every
// command that changes data asks first on a terminal (or needs -yes) and
// takes -dry-run, which reports what would change and changes nothing;
// errors say what to do ("set AWS_REGION or -region", "cannot reach
// DynamoDB at ..."); a mistyped command gets the closest one's name.
// `tablekit version` prints the module version and build information.
//
// Exit codes, for scripts:
//
//	0  success
//	1  the operation failed (a DynamoDB or S3 error, a refused move)
//	2  usage error (unknown command, bad flag or argument, a flag value the
//	   store refuses: a status that is not one, a limit out of range, a
//	   cursor from another list)
//	3  not found (the job, task, journey, pipeline or table does not exist)
//	4  a destructive command was not confirmed (no -yes and no terminal to ask)
//	5  a check found drift (tables check: a table differs from its schema)
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

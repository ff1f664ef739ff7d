package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
)

// Exit codes; see the package documentation.
const (
	exitOK           = 0
	exitFailed       = 1
	exitUsage        = 2
	exitNotFound     = 3
	exitNotConfirmed = 4
	exitDrift        = 5
)

// command is one thing tablekit does.
type command struct {
	name    string // "tables ensure"
	args    string // the positional arguments, for the usage line
	summary string
	// help is the long description, shown by `tablekit help <command>`.
	help string
	// setup registers the command's own flags on fs and returns what runs
	// the command once they are parsed (flag values live in its closure).
	setup func(fs *flag.FlagSet, a *app) runner
	// destructive commands ask before they change anything, or need -yes,
	// and take -dry-run (a.dryRun): report what would change, change nothing.
	destructive bool
	// dryRunnable commands change data only when one of their flags asks
	// (jobs orphans -delete); they take -dry-run too, without being asked
	// to confirm as a whole.
	dryRunnable bool
}

// runner runs a command with its positional arguments.
type runner func(ctx context.Context, args []string) error

// app is one invocation: where it prints, how, and what it is connected to.
type app struct {
	in          io.Reader
	out, errOut io.Writer
	global      globalFlags
	conn        *conn // opened on first use
	// dryRun is -dry-run, which every destructive command takes: read and
	// report what the command would change, write nothing.
	dryRun bool
}

// globalFlags may be given before the command or among its flags.
type globalFlags struct {
	endpoint, s3Endpoint, region string
	memory                       bool
	output                       string
	yes                          bool
}

// register adds the global flags to fs with g's current values as their
// defaults, so a flag given before the command survives the command's own
// flag set.
func (g *globalFlags) register(fs *flag.FlagSet) {
	if g.output == "" {
		g.output = "text"
	}
	fs.StringVar(&g.endpoint, "endpoint", g.endpoint, "DynamoDB endpoint URL (DynamoDB Local, cmd/dynamotest); default: AWS")
	fs.StringVar(&g.s3Endpoint, "s3-endpoint", g.s3Endpoint, "S3 endpoint URL (s3rver, MinIO), path-style; default: AWS")
	fs.StringVar(&g.region, "region", g.region, "AWS region (default: from the AWS configuration chain, else us-east-1 with an endpoint)")
	fs.BoolVar(&g.memory, "memory", g.memory, "use an in-memory DynamoDB and blob store (a demo; nothing is kept)")
	fs.StringVar(&g.output, "output", g.output, "output format: text or json")
	fs.BoolVar(&g.yes, "yes", g.yes, "do not ask before destructive changes")
}

// usageError is a mistake in the command line: exit code 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// errNotConfirmed: a destructive command without -yes and without a yes.
var errNotConfirmed = errors.New("not confirmed: pass -yes to run without asking")

// driftError: tables check found differences.
type driftError struct{ diffs []string }

func (e *driftError) Error() string {
	return "drift: " + strings.Join(e.diffs, "; ")
}

// run is the whole program, testable in process.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{in: stdin, out: stdout, errOut: stderr}
	err := a.dispatch(ctx, args)
	if a.conn != nil {
		a.conn.close()
	}
	return a.exitCode(err)
}

func (a *app) exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	fmt.Fprintln(a.errOut, "tablekit:", a.explain(err))
	var ue *usageError
	var de *driftError
	switch {
	case errors.As(err, &ue), isBadInput(err):
		fmt.Fprintln(a.errOut, "run 'tablekit help' for usage")
		return exitUsage
	case errors.Is(err, errNotConfirmed):
		return exitNotConfirmed
	case errors.As(err, &de):
		return exitDrift
	case isNotFound(err):
		return exitNotFound
	}
	return exitFailed
}

func (a *app) dispatch(ctx context.Context, args []string) error {
	top := flag.NewFlagSet("tablekit", flag.ContinueOnError)
	top.SetOutput(io.Discard)
	a.global.register(top)
	if err := top.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			a.printHelp(nil)
			return nil
		}
		return usagef("%v", err)
	}
	args = top.Args()
	if len(args) == 0 {
		a.printHelp(nil)
		return usagef("no command given")
	}
	if args[0] == "help" {
		return a.printHelp(args[1:])
	}
	cmd, rest := lookup(args)
	if cmd == nil {
		return unknownCommand(args)
	}
	fs, run := a.flagSet(cmd)
	fs.SetOutput(a.errOut)
	fs.Usage = func() { a.commandHelp(cmd, fs) }
	positional, err := parseInterspersed(fs, rest)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return &usageError{err.Error()}
	}
	switch a.global.output {
	case "text", "json":
	default:
		return usagef("-output %q: want text or json", a.global.output)
	}
	if cmd.destructive {
		if err := a.confirm(cmd); err != nil {
			return err
		}
	}
	return run(ctx, positional)
}

// flagSet is cmd's flag set: the global flags, -dry-run where the command
// changes data, then the command's own.
func (a *app) flagSet(cmd *command) (*flag.FlagSet, runner) {
	fs := flag.NewFlagSet("tablekit "+cmd.name, flag.ContinueOnError)
	a.global.register(fs)
	if cmd.destructive || cmd.dryRunnable {
		fs.BoolVar(&a.dryRun, "dry-run", false, "report what would change, change nothing (needs no -yes)")
	}
	return fs, cmd.setup(fs, a)
}

// parseInterspersed parses flags wherever they stand among the arguments
// (`jobs get ID -output json` as well as `jobs get -output json ID`), as
// operators type them; "--" ends the flags.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// lookup finds the command named by the first one or two words.
func lookup(args []string) (*command, []string) {
	if len(args) >= 2 {
		if c := commandNamed(args[0] + " " + args[1]); c != nil {
			return c, args[2:]
		}
	}
	if c := commandNamed(args[0]); c != nil {
		return c, args[1:]
	}
	return nil, nil
}

func commandNamed(name string) *command {
	for _, c := range commands() {
		if c.name == name {
			return c
		}
	}
	return nil
}

// confirm asks on a terminal, or requires -yes. A dry run changes
// nothing, so it is not asked.
func (a *app) confirm(cmd *command) error {
	if a.global.yes || a.dryRun {
		return nil
	}
	f, ok := a.in.(*os.File)
	if !ok || !isTerminal(f) {
		return errNotConfirmed
	}
	fmt.Fprintf(a.errOut, "tablekit %s changes data. Continue? [y/N] ", cmd.name)
	var answer string
	if _, err := fmt.Fscanln(a.in, &answer); err != nil {
		return errNotConfirmed
	}
	if answer = strings.ToLower(strings.TrimSpace(answer)); answer != "y" && answer != "yes" {
		return errNotConfirmed
	}
	return nil
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// emit prints v as JSON with -output json, else calls text.
func (a *app) emit(v any, text func(w io.Writer)) error {
	if a.global.output == "json" {
		enc := json.NewEncoder(a.out)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	tw := tabwriter.NewWriter(a.out, 0, 4, 2, ' ', 0)
	text(tw)
	return tw.Flush()
}

// printHelp prints the command list, or one command's help.
func (a *app) printHelp(args []string) error {
	if len(args) > 0 {
		cmd, _ := lookup(args)
		if cmd == nil {
			return unknownCommand(args)
		}
		fs, _ := a.flagSet(cmd)
		a.commandHelp(cmd, fs)
		return nil
	}
	w := a.out
	fmt.Fprint(w, `tablekit is the operator's tool for services built on tablekit.

Usage:
  tablekit [global flags] <command> [flags] [args]

Commands:
`)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, c := range commands() {
		fmt.Fprintf(tw, "  %s %s\t%s\n", c.name, c.args, c.summary)
	}
	tw.Flush()
	fmt.Fprint(w, `
Global flags (before the command or among its flags):
`)
	fs := flag.NewFlagSet("tablekit", flag.ContinueOnError)
	fs.SetOutput(w)
	(&globalFlags{}).register(fs)
	fs.PrintDefaults()
	fmt.Fprint(w, `
Connecting: with no -endpoint and no -memory, tablekit uses the default AWS
configuration chain (environment, shared config and credentials files, SSO,
instance roles). With -endpoint it talks to that DynamoDB instead, and signs
with the chain's credentials or, where there are none, local placeholders.
Files (journey logs, reports and backups, offloaded job results, pipeline
files) are in S3 on AWS unless -s3-endpoint names another (s3rver, MinIO);
a command that reads or writes no file runs without S3.

Exit codes: 0 success, 1 failure, 2 usage error, 3 not found,
4 destructive command not confirmed, 5 drift found by 'tables check'.

Run 'tablekit help <command>' for a command's flags.
`)
	return nil
}

func (a *app) commandHelp(cmd *command, fs *flag.FlagSet) {
	w := a.out
	fmt.Fprintf(w, "Usage: tablekit %s [flags] %s\n\n%s\n", cmd.name, cmd.args, cmd.summary)
	if cmd.help != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(cmd.help))
	}
	if cmd.destructive {
		fmt.Fprint(w, "\nThis command changes data: it asks first on a terminal, and needs -yes otherwise;\n-dry-run reports what it would change and changes nothing.\n")
	}
	fmt.Fprint(w, "\nFlags:\n")
	fs.SetOutput(w)
	fs.PrintDefaults()
}

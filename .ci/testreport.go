//go:build ignore

// testreport reads `go test -json` from stdin and prints what a person needs
// from a CI log: every failure with its output, package results, and with -v
// one line per test (so the log shows a test ran rather than skipped), then a
// closing "N passed, N failed, N skipped" line.
//
//	go test -json ./... 2>&1 | go run .ci/testreport.go -label unit
//
// It exits 1 when a test or package failed, when a skipped test's reason
// matches -forbid-skip (a test that had to run against the real services
// but did not), or when no passing test matches a -require pattern.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"time"
)

type event struct {
	Time       time.Time
	Action     string
	Package    string
	ImportPath string
	Test       string
	Elapsed    float64
	Output     string
}

type requirements []*regexp.Regexp

func (r *requirements) String() string { return fmt.Sprint(*r) }
func (r *requirements) Set(s string) error {
	re, err := regexp.Compile(s)
	if err != nil {
		return err
	}
	*r = append(*r, re)
	return nil
}

func main() {
	label := flag.String("label", "tests", "word printed before the closing counts")
	verbose := flag.Bool("v", false, "print one line per passed or skipped test, with skip reasons")
	forbidSkip := flag.String("forbid-skip", "", "a skipped test whose output matches this regexp counts as failed")
	allowSkip := flag.String("allow-skip", "", "tests whose names match this regexp may skip even when their output matches -forbid-skip (tests of the skip itself)")
	countsFile := flag.String("counts", "", "append \"passed failed skipped\" to this file")
	var require requirements
	flag.Var(&require, "require", "at least one passing test's name must match this regexp (repeatable)")
	flag.Parse()

	var forbid *regexp.Regexp
	if *forbidSkip != "" {
		forbid = regexp.MustCompile(*forbidSkip)
	}

	type key struct{ pkg, test string }
	outputs := map[key]*strings.Builder{}
	buf := func(k key) *strings.Builder {
		b := outputs[k]
		if b == nil {
			b = &strings.Builder{}
			outputs[k] = b
		}
		return b
	}
	var passed, failed, skipped int
	var forbidden []string
	var failedPkgs []string
	matched := make([]int, len(require))

	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	for in.Scan() {
		line := in.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			// go's own messages (build failures, "no Go files") are not JSON.
			fmt.Println(string(line))
			continue
		}
		switch e.Action {
		case "build-output":
			fmt.Print(e.Output)
			continue
		case "build-fail":
			failedPkgs = append(failedPkgs, e.ImportPath+" (build)")
			continue
		}
		k := key{e.Package, e.Test}
		switch e.Action {
		case "output":
			buf(k).WriteString(e.Output)
		case "pass", "fail", "skip":
			out := ""
			if b := outputs[k]; b != nil {
				out = b.String()
				delete(outputs, k)
			}
			if e.Test == "" { // the package's result
				switch e.Action {
				case "fail":
					failedPkgs = append(failedPkgs, e.Package)
					fmt.Print(out)
				case "pass":
					fmt.Printf("ok  \t%s\t%.2fs\n", e.Package, e.Elapsed)
				case "skip":
					fmt.Printf("?   \t%s\t[no test files]\n", e.Package)
				}
				continue
			}
			switch e.Action {
			case "pass":
				passed++
				for i, re := range require {
					if re.MatchString(e.Test) {
						matched[i]++
					}
				}
				if *verbose {
					fmt.Printf("--- PASS: %s (%.2fs) [%s]\n", e.Test, e.Elapsed, e.Package)
				}
			case "skip":
				skipped++
				reason := skipReason(out)
				if forbid != nil && forbid.MatchString(out) && (*allowSkip == "" || !regexp.MustCompile(*allowSkip).MatchString(e.Test)) {
					forbidden = append(forbidden, fmt.Sprintf("%s [%s]: %s", e.Test, e.Package, reason))
				}
				if *verbose {
					fmt.Printf("--- SKIP: %s [%s]: %s\n", e.Test, e.Package, reason)
				}
			case "fail":
				failed++
				fmt.Print(out)
				if !strings.Contains(out, "--- FAIL") {
					fmt.Printf("--- FAIL: %s [%s]\n", e.Test, e.Package)
				}
			}
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "testreport: reading go test output:", err)
		failed++
	}
	// Output of tests that never finished (a panic or timeout kills the
	// binary) belongs in the log too.
	var leftovers []string
	for k, b := range outputs {
		if k.test != "" && strings.TrimSpace(b.String()) != "" {
			leftovers = append(leftovers, fmt.Sprintf("=== unfinished %s [%s]\n%s", k.test, k.pkg, b.String()))
		}
	}
	sort.Strings(leftovers)
	if len(failedPkgs) > 0 {
		for _, l := range leftovers {
			fmt.Print(l)
		}
	}

	status := 0
	if len(failedPkgs) > 0 {
		fmt.Printf("%s: failed packages: %s\n", *label, strings.Join(failedPkgs, ", "))
		status = 1
	}
	if failed > 0 {
		status = 1
	}
	if len(forbidden) > 0 {
		fmt.Printf("%s: %d test(s) skipped that must run against the real services:\n", *label, len(forbidden))
		for _, f := range forbidden {
			fmt.Println("  " + f)
		}
		failed += len(forbidden)
		skipped -= len(forbidden)
		status = 1
	}
	for i, re := range require {
		if matched[i] == 0 {
			fmt.Printf("%s: no passing test matches %q\n", *label, re)
			status = 1
		} else {
			fmt.Printf("%s: %d passing test(s) match %q\n", *label, matched[i], re)
		}
	}
	if *countsFile != "" {
		f, err := os.OpenFile(*countsFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintf(f, "%d %d %d\n", passed, failed, skipped)
			err = f.Close()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "testreport:", err)
			status = 1
		}
	}
	fmt.Printf("%s: %d passed, %d failed, %d skipped\n", *label, passed, failed, skipped)
	os.Exit(status)
}

// skipReason returns the skip message from a skipped test's output: the
// lines after "=== RUN" other than the "--- SKIP" line itself.
func skipReason(out string) string {
	var parts []string
	for _, l := range strings.Split(out, "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- SKIP") {
			continue
		}
		parts = append(parts, t)
	}
	return strings.Join(parts, " | ")
}

// Package readme holds the code sample of the repository's README.md as a
// compiled, tested function, so the first code a new user copies builds
// and runs: TestREADMESampleIsTheOneThatCompiles fails when README.md and
// the function differ, and Example runs it on the in-memory fake.
package readme

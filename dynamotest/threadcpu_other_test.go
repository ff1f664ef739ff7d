//go:build !linux

package dynamotest_test

import "time"

// threadCPU: this platform has no per-thread CPU clock in package syscall.
func threadCPU() (time.Duration, bool) { return 0, false }

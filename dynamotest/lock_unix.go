//go:build unix

package dynamotest

import (
	"errors"
	"os"
	"syscall"
)

// lockDir takes the data directory's lock: an exclusive flock on its LOCK
// file, which the kernel releases when the process ends, however it ends,
// so a killed server never leaves a stale lock behind. It returns
// errLockHeld when another open file holds it, in this process or another.
func lockDir(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return errLockHeld
	}
	return err
}

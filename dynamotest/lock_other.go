//go:build !unix

package dynamotest

import (
	"errors"
	"os"
)

// lockDir refuses: without flock there is no lock the system releases
// when a killed server ends, and a lock that outlives its server would
// refuse every later start.
func lockDir(*os.File) error {
	return errors.New("persistence needs flock, which this system does not have")
}

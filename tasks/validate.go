package tasks

import (
	"fmt"
	"strings"

	"github.com/tablekit/tablekit/keys"
)

// Ids and keys become key parts (TASK#<id>, IDEM#<key>, WORKER#<id>), so
// they follow the keys package's rules: not empty, valid UTF-8, no "#".
// The bound keeps every key well inside DynamoDB's limits.
const maxIDLength = 256

func checkPart(field, value string, t *keys.Template) error {
	if value == "" {
		return inputError(field, `""`, "must not be empty")
	}
	if len(value) > maxIDLength {
		return inputError(field, fmt.Sprintf("%.20q...", value), fmt.Sprintf("is %d bytes, more than %d", len(value), maxIDLength))
	}
	if _, err := t.Build(value); err != nil {
		reason := err.Error()
		if strings.Contains(value, t.Delimiter()) {
			reason = "must not contain " + t.Delimiter() + ", the key delimiter"
		}
		return inputError(field, fmt.Sprintf("%q", value), reason)
	}
	return nil
}

func checkTaskID(id string) error     { return checkPart("taskID", id, taskPK) }
func checkWorkerID(id string) error   { return checkPart("workerID", id, workerPK) }
func checkIdemKey(key string) error   { return checkPart("IdempotencyKey", key, idemPK) }
func checkReason(reason string) error { return checkText("reason", reason) }

// maxTextLength bounds the free text stored in events.
const maxTextLength = 4096

func checkText(field, s string) error {
	if len(s) > maxTextLength {
		return inputError(field, fmt.Sprintf("%.20q...", s), fmt.Sprintf("is %d bytes, more than %d", len(s), maxTextLength))
	}
	return nil
}

// checkLease checks a lease passed back by a worker.
func checkLease(l Lease) error {
	if err := checkTaskID(l.TaskID); err != nil {
		return err
	}
	if err := checkWorkerID(l.Worker); err != nil {
		return err
	}
	if l.Attempt < 1 {
		return inputError("Lease.Attempt", l.Attempt, "must be at least 1: a lease comes from Claim")
	}
	if l.AttemptBase < 0 || l.AttemptBase >= l.Attempt {
		return inputError("Lease.AttemptBase", l.AttemptBase, "must be at least 0 and below Attempt: a lease comes from Claim")
	}
	if l.MaxAttempts < 0 || l.MaxAttempts > MaxAttemptsLimit {
		return inputError("Lease.MaxAttempts", l.MaxAttempts, "must be between 0 and MaxAttemptsLimit: a lease comes from Claim")
	}
	if l.Seq < 2 || l.Seq > MaxEvents {
		return inputError("Lease.Seq", l.Seq, fmt.Sprintf("must be between 2 and %d: a lease comes from Claim", MaxEvents))
	}
	return nil
}

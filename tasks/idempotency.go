package tasks

import (
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"strings"

	"github.com/tablekit/tablekit/keys"
)

// The idempotency map, the seed's fifth row:
//
//	PK IDEM#client-uuid   SK TASK#t-123   (idempotency map)
//
// The seed checks it with "GetItem before SubmitTask" and guards it with
// attribute_not_exists. Both need the item's full key before the task
// exists, and attribute_not_exists guards nothing if the sort key holds a
// fresh random id: fifty concurrent submissions would write fifty distinct
// IDEM items and fifty tasks. So the id of a task submitted with a key is
// derived from the key (taskIDForKey), which keeps the seed's layout and
// makes the key's item, and the task's own items, the same for every
// submission of that key. Submit sends no transaction: the IDEM item's
// conditional put decides (its attribute_not_exists lets exactly one
// submission of the key through, and its refusal returns the item the
// first one wrote), and META's create, on the same condition, is the same
// item whichever submission writes it. SubmitTx puts both creates in the
// caller's transaction, where the same conditions cancel a second one.
var (
	idemPK = keys.MustPartition("IDEM#{key}")
	taskSK = keys.MustSort("TASK#{taskId}") // also the sort key of WORKER items
)

// idemItem is an IDEM item; its keys (IDEM#<key>, TASK#<taskId>) and type
// are its declaration's (entities), the key stored in the key alone.
type idemItem struct {
	Key         string `dynamodbav:"key"`
	TaskID      string `dynamodbav:"taskId"`
	PayloadHash string `dynamodbav:"payloadHash"`
	CreatedAt   string `dynamodbav:"createdAt"`
	// AvailableAt is when a delayed submission's task becomes claimable
	// (SubmitInput.AvailableAt); absent when at once.
	AvailableAt string `dynamodbav:"availableAt,omitempty"`
	TTL         int64  `dynamodbav:"ttl,omitempty"` // Retention after createdAt
}

var idEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// taskIDForKey is the id of the task an idempotency key creates: "k-"
// and 26 base32 digits of SHA-256 over the key (130 bits), so two keys
// practically never share a task.
func taskIDForKey(key string) string {
	sum := sha256.Sum256([]byte("tasks idempotency key\x00" + key))
	return "k-" + strings.ToLower(idEncoding.EncodeToString(sum[:17])[:26])
}

func payloadHash(payload []byte) string {
	sum := sha256.Sum256(payload)
	return hex.EncodeToString(sum[:])
}

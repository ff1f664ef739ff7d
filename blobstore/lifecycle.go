package blobstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"unicode/utf8"
)

// maxRuleID is S3's limit on a lifecycle rule's ID, in characters.
const maxRuleID = 255

// LifecycleRule moves or expires a bucket's objects under a prefix as they
// age, as S3 lifecycle configuration does. Rules are data: a store
// declares them beside its layout (journey's logs go to Glacier after 90
// days, as its design (docs/systems/journey.md) says) and applies them
// with ApplyLifecycle, from its deployment with the admin policy, or with
// its infrastructure tool from the same values.
type LifecycleRule struct {
	// ID names the rule in the bucket's configuration (at most 255
	// characters); it defaults to "tablekit-" plus the prefix.
	ID string
	// Prefix selects the objects; it follows ValidatePrefix, and "" means
	// the whole bucket.
	Prefix string
	// TransitionAfterDays moves objects to StorageClass this many days
	// after they were written; 0: no transition.
	TransitionAfterDays int32
	// StorageClass is the transition's target, one of
	// TransitionStorageClasses.
	StorageClass string
	// ExpireAfterDays deletes objects this many days after they were
	// written; 0: never. It must come after the transition.
	ExpireAfterDays int32
}

// TransitionStorageClasses are the storage classes S3 lifecycle rules move
// objects to (S3's TransitionStorageClass).
var TransitionStorageClasses = []string{"GLACIER", "STANDARD_IA", "ONEZONE_IA", "INTELLIGENT_TIERING", "DEEP_ARCHIVE", "GLACIER_IR"}

// GlacierAfter is the rule that moves objects under prefix to S3 Glacier
// Flexible Retrieval days after they were written (the journey design's
// "archival to Glacier after 90 days" for logs).
func GlacierAfter(prefix string, days int32) LifecycleRule {
	return LifecycleRule{Prefix: prefix, TransitionAfterDays: days, StorageClass: "GLACIER"}
}

// RuleID is the rule's ID in the bucket's configuration: ID, or
// "tablekit-" plus the prefix. A prefix too long for S3's 255 characters
// is cut on a character boundary and ends with "~" and 16 hex digits of
// its SHA-256, so two long prefixes that begin alike keep distinct IDs.
func (r LifecycleRule) RuleID() string {
	if r.ID != "" {
		return r.ID
	}
	id := "tablekit-" + r.Prefix
	if utf8.RuneCountInString(id) <= maxRuleID {
		return id
	}
	sum := sha256.Sum256([]byte(r.Prefix))
	tail := "~" + hex.EncodeToString(sum[:8])
	keep := maxRuleID - len(tail)
	for i := range id { // i is a character boundary
		if keep == 0 {
			return id[:i] + tail
		}
		keep--
	}
	return id // unreachable: id has more than maxRuleID characters
}

func (r LifecycleRule) validate() error {
	if err := ValidatePrefix(r.Prefix); err != nil {
		return err
	}
	if utf8.RuneCountInString(r.ID) > maxRuleID {
		return inputError("LifecycleRule.ID", r.ID, "at most 255 characters")
	}
	switch {
	case r.TransitionAfterDays < 0 || r.ExpireAfterDays < 0:
		return inputError("LifecycleRule", fmt.Sprintf("%+v", r), "days must not be negative")
	case r.TransitionAfterDays == 0 && r.ExpireAfterDays == 0:
		return inputError("LifecycleRule", fmt.Sprintf("%+v", r), "a rule needs a transition or an expiry")
	case r.TransitionAfterDays > 0 && r.ExpireAfterDays > 0 && r.ExpireAfterDays <= r.TransitionAfterDays:
		return inputError("LifecycleRule.ExpireAfterDays", r.ExpireAfterDays, "must come after the transition")
	}
	if r.TransitionAfterDays > 0 {
		if !slices.Contains(TransitionStorageClasses, r.StorageClass) {
			return inputError("LifecycleRule.StorageClass", r.StorageClass, "not an S3 transition storage class")
		}
	} else if r.StorageClass != "" {
		return inputError("LifecycleRule.StorageClass", r.StorageClass, "a storage class needs TransitionAfterDays")
	}
	return nil
}

// CheckLifecycle checks rules as every Lifecycler does before it sends or
// keeps anything: at least one rule (a configuration is replaced whole),
// each valid, no two with one ID. A bad rule is an *InputError.
func CheckLifecycle(rules []LifecycleRule) error {
	if len(rules) == 0 {
		return inputError("rules", "none", "ApplyLifecycle needs at least one rule (it replaces the bucket's configuration)")
	}
	ids := map[string]bool{}
	for _, r := range rules {
		if err := r.validate(); err != nil {
			return err
		}
		if ids[r.RuleID()] {
			return inputError("LifecycleRule.ID", r.RuleID(), "two rules share an ID")
		}
		ids[r.RuleID()] = true
	}
	return nil
}

// Lifecycler is a Store whose bucket takes lifecycle rules: s3blob's
// Store (S3's PutBucketLifecycleConfiguration) and Memory (which keeps
// them, for tests). Dir has no lifecycle.
type Lifecycler interface {
	// ApplyLifecycle sets the bucket's lifecycle configuration to rules,
	// replacing the whole configuration (S3 has no per-rule update), so
	// pass every rule the bucket should have. Rules are checked
	// (CheckLifecycle) before anything is sent.
	ApplyLifecycle(ctx context.Context, rules ...LifecycleRule) error
}

// ApplyLifecycle applies rules to store's bucket when it is a Lifecycler;
// for any other store (Dir, a wrapper that does not pass it on) it returns
// an error wrapping ErrUnsupported, after checking the rules: a rule a
// store cannot keep is never dropped without a word. On s3rver, which
// implements no lifecycle rules, s3blob's Store answers ErrUnsupported
// too.
func ApplyLifecycle(ctx context.Context, store Store, rules ...LifecycleRule) error {
	if err := CheckLifecycle(rules); err != nil {
		return err
	}
	if l, ok := store.(Lifecycler); ok {
		return l.ApplyLifecycle(ctx, rules...)
	}
	return fmt.Errorf("%w: a %T keeps no lifecycle rules", ErrUnsupported, store)
}

// ApplyLifecycle keeps rules as the store's lifecycle configuration,
// replacing what it kept: Memory does not age objects, but a test reads
// back what a deployment applied with Lifecycle.
func (m *Memory) ApplyLifecycle(ctx context.Context, rules ...LifecycleRule) error {
	if err := CheckLifecycle(rules); err != nil {
		return err
	}
	if m == nil {
		return inputError("store", "nil", "use NewMemory")
	}
	if err := m.ready(ctx); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.lifecycle = slices.Clone(rules)
	return nil
}

// Lifecycle returns the rules ApplyLifecycle last kept (nil before).
func (m *Memory) Lifecycle() []LifecycleRule {
	if m == nil {
		return nil
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	return slices.Clone(m.lifecycle)
}

var _ Lifecycler = (*Memory)(nil)

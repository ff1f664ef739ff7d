package s3blob

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/tablekit/tablekit/blobstore"
)

// LifecycleRule moves or expires a bucket's objects under a prefix as they
// age, as S3 lifecycle configuration does. Rules are data: a service
// declares them beside its stores (the journey design (docs/systems/journey.md): "optional archival to Glacier
// after 90 days" for logs) and applies them once with (*Store).ApplyLifecycle,
// from its deployment with the admin policy, or with its infrastructure
// tool from the same values.
type LifecycleRule struct {
	// ID names the rule in the bucket's configuration (at most 255
	// characters); it defaults to "tablekit-" plus the prefix.
	ID string
	// Prefix selects the objects; it follows blobstore.ValidatePrefix, and
	// "" means the whole bucket.
	Prefix string
	// TransitionAfterDays moves objects to StorageClass this many days
	// after they were written; 0: no transition.
	TransitionAfterDays int32
	// StorageClass is the transition's target: GLACIER, DEEP_ARCHIVE,
	// GLACIER_IR, STANDARD_IA, ONEZONE_IA or INTELLIGENT_TIERING.
	StorageClass string
	// ExpireAfterDays deletes objects this many days after they were
	// written; 0: never. It must come after the transition.
	ExpireAfterDays int32
}

// GlacierAfter is the journey design's rule for logs: objects under prefix move to
// S3 Glacier Flexible Retrieval days after they were written.
func GlacierAfter(prefix string, days int32) LifecycleRule {
	return LifecycleRule{Prefix: prefix, TransitionAfterDays: days, StorageClass: string(s3types.TransitionStorageClassGlacier)}
}

func (r LifecycleRule) validate() error {
	if err := blobstore.ValidatePrefix(r.Prefix); err != nil {
		return err
	}
	if len(r.ID) > 255 {
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
		known := false
		for _, c := range s3types.TransitionStorageClass("").Values() {
			known = known || string(c) == r.StorageClass
		}
		if !known {
			return inputError("LifecycleRule.StorageClass", r.StorageClass, "not an S3 transition storage class")
		}
	} else if r.StorageClass != "" {
		return inputError("LifecycleRule.StorageClass", r.StorageClass, "a storage class needs TransitionAfterDays")
	}
	return nil
}

func (r LifecycleRule) s3Rule() s3types.LifecycleRule {
	id := r.ID
	if id == "" {
		id = "tablekit-" + r.Prefix
		if len(id) > 255 {
			id = id[:255]
		}
	}
	out := s3types.LifecycleRule{
		ID:     aws.String(id),
		Status: s3types.ExpirationStatusEnabled,
		Filter: &s3types.LifecycleRuleFilter{Prefix: aws.String(r.Prefix)},
	}
	if r.TransitionAfterDays > 0 {
		out.Transitions = []s3types.Transition{{Days: aws.Int32(r.TransitionAfterDays), StorageClass: s3types.TransitionStorageClass(r.StorageClass)}}
	}
	if r.ExpireAfterDays > 0 {
		out.Expiration = &s3types.LifecycleExpiration{Days: aws.Int32(r.ExpireAfterDays)}
	}
	return out
}

// ApplyLifecycle sets the bucket's lifecycle configuration to rules,
// replacing the whole configuration (S3 has no per-rule update), so pass
// every rule the bucket should have. It needs s3:PutLifecycleConfiguration,
// which belongs in an admin policy, not a service's runtime policy. Rules
// are checked before anything is sent.
func (s *Store) ApplyLifecycle(ctx context.Context, rules ...LifecycleRule) error {
	if len(rules) == 0 {
		return inputError("rules", "none", "ApplyLifecycle needs at least one rule (it replaces the bucket's configuration)")
	}
	ids := map[string]bool{}
	var out []s3types.LifecycleRule
	for _, r := range rules {
		if err := r.validate(); err != nil {
			return err
		}
		sr := r.s3Rule()
		if ids[*sr.ID] {
			return inputError("LifecycleRule.ID", *sr.ID, "two rules share an ID")
		}
		ids[*sr.ID] = true
		out = append(out, sr)
	}
	switch {
	case s.d == nil:
		return inputError("store", "zero value", "use New")
	case ctx == nil:
		return inputError("ctx", "nil", "pass context.Background() or a request's context")
	case ctx.Err() != nil:
		return ctx.Err()
	}
	d := s.d
	_, err := d.client.PutBucketLifecycleConfiguration(ctx, &s3.PutBucketLifecycleConfigurationInput{
		Bucket:                 aws.String(d.bucket),
		LifecycleConfiguration: &s3types.BucketLifecycleConfiguration{Rules: out},
	}, d.clientOptions()...)
	if err != nil {
		return d.s3Error("put lifecycle", "", err)
	}
	return nil
}

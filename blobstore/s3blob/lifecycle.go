package s3blob

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/tablekit/tablekit/blobstore"
)

func s3Rule(r blobstore.LifecycleRule) s3types.LifecycleRule {
	out := s3types.LifecycleRule{
		ID:     aws.String(r.RuleID()),
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

// ApplyLifecycle sets the bucket's lifecycle configuration to rules
// (blobstore.Lifecycler), replacing the whole configuration (S3 has no
// per-rule update), so pass every rule the bucket should have. It needs
// s3:PutLifecycleConfiguration, which belongs in an admin policy, not a
// service's runtime policy. Rules are checked (blobstore.CheckLifecycle)
// before anything is sent. A server that answers 501 NotImplemented (s3rver
// does) is an error wrapping blobstore.ErrUnsupported. (gofakes3 takes the
// request for a CreateBucket: BucketAlreadyExists on an existing bucket.)
func (s *Store) ApplyLifecycle(ctx context.Context, rules ...blobstore.LifecycleRule) error {
	if err := blobstore.CheckLifecycle(rules); err != nil {
		return err
	}
	var out []s3types.LifecycleRule
	for _, r := range rules {
		out = append(out, s3Rule(r))
	}
	switch {
	case s == nil || s.d == nil:
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
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) && apiErr.ErrorCode() == "NotImplemented" {
		return fmt.Errorf("%w: bucket %q: the S3 endpoint does not implement lifecycle rules: %w", blobstore.ErrUnsupported, d.bucket, err)
	}
	if err != nil {
		return d.s3Error("put lifecycle", "", err)
	}
	return nil
}

var _ blobstore.Lifecycler = (*Store)(nil)

package blobstore

import (
	"context"
	"io"
	"iter"
	"time"

	"github.com/aws/smithy-go"

	"github.com/tablekit/tablekit/iam"
)

// EnforceOptions tune Enforce.
type EnforceOptions struct {
	// Principal names the caller in denials; default iam.DefaultPrincipal.
	Principal string
	// Partition of the ARNs; default "aws".
	Partition string
	// Observe, when set, is told every authorization decision, as
	// dynamotest.EnforceOptions.Observe is.
	Observe func(iam.Request, iam.Decision)
}

// Enforce returns store as if it were the S3 bucket named bucket under an
// IAM policy: every call is first authorized as S3 authorizes it, and one
// the policy does not allow fails with S3's AccessDenied (an
// *iam.AccessDeniedError, inside a *smithy.OperationError as the S3
// client returns it) having read or changed nothing:
//
//   - Put and PresignPut: s3:PutObject on arn:aws:s3:::bucket/key
//   - Get, Head and PresignGet: s3:GetObject on the object
//   - Delete: s3:DeleteObject on the object
//   - List(prefix): s3:ListBucket on arn:aws:s3:::bucket, with the
//     condition key s3:prefix set to prefix (absent for an empty prefix,
//     as in a ListObjectsV2 request without one)
//
// A presigned URL carries its signer's permissions, so signing one the
// policy would refuse fails here rather than when the URL is used. It lets
// tests run a store on the in-memory blob store under the policy a
// deployment will give it (iam.Runtime) and prove the policy is enough.
func Enforce(store Store, bucket string, policy iam.Policy, opts ...func(*EnforceOptions)) (Store, error) {
	if store == nil {
		return nil, inputError("store", "nil", "Enforce needs a store")
	}
	if bucket == "" {
		return nil, inputError("bucket", `""`, "Enforce needs the bucket name the policy's ARNs use")
	}
	if err := policy.Validate(); err != nil {
		return nil, err
	}
	o := EnforceOptions{Principal: iam.DefaultPrincipal, Partition: "aws"}
	for _, fn := range opts {
		if fn != nil {
			fn(&o)
		}
	}
	return &enforced{store: store, bucket: bucket, policy: policy, o: o, env: iam.Env{Partition: o.Partition}}, nil
}

type enforced struct {
	store  Store
	bucket string
	policy iam.Policy
	o      EnforceOptions
	env    iam.Env
}

// authorize checks one request of the S3 operation op.
func (e *enforced) authorize(op string, r iam.Request) error {
	d := e.policy.Evaluate(r)
	if e.o.Observe != nil {
		e.o.Observe(r, d)
	}
	if d == iam.Allowed {
		return nil
	}
	return &smithy.OperationError{ServiceID: "S3", OperationName: op,
		Err: &iam.AccessDeniedError{Principal: e.o.Principal, Action: r.Action, Resource: r.Resource, Explicit: d == iam.ExplicitDeny}}
}

func (e *enforced) object(action, key string) iam.Request {
	return iam.Request{Action: action, Resource: e.env.ObjectARN(e.bucket, key)}
}

func (e *enforced) Put(ctx context.Context, key string, body io.Reader, opts ...func(*PutOptions)) error {
	if err := e.authorize("PutObject", e.object(iam.S3PutObject, key)); err != nil {
		return err
	}
	return e.store.Put(ctx, key, body, opts...)
}

func (e *enforced) Get(ctx context.Context, key string, opts ...func(*GetOptions)) (io.ReadCloser, Info, error) {
	if err := e.authorize("GetObject", e.object(iam.S3GetObject, key)); err != nil {
		return nil, Info{}, err
	}
	return e.store.Get(ctx, key, opts...)
}

func (e *enforced) Head(ctx context.Context, key string) (Info, error) {
	if err := e.authorize("HeadObject", e.object(iam.S3GetObject, key)); err != nil {
		return Info{}, err
	}
	return e.store.Head(ctx, key)
}

func (e *enforced) Delete(ctx context.Context, key string) error {
	if err := e.authorize("DeleteObject", e.object(iam.S3DeleteObject, key)); err != nil {
		return err
	}
	return e.store.Delete(ctx, key)
}

// ApplyLifecycle is authorized as s3:PutLifecycleConfiguration on the
// bucket, then passed on to the enforced store (ErrUnsupported when it
// keeps no rules).
func (e *enforced) ApplyLifecycle(ctx context.Context, rules ...LifecycleRule) error {
	if err := CheckLifecycle(rules); err != nil {
		return err
	}
	r := iam.Request{Action: iam.S3PutLifecycleConfiguration, Resource: e.env.BucketARN(e.bucket)}
	if err := e.authorize("PutBucketLifecycleConfiguration", r); err != nil {
		return err
	}
	return ApplyLifecycle(ctx, e.store, rules...)
}

func (e *enforced) List(ctx context.Context, prefix string) iter.Seq2[Info, error] {
	r := iam.Request{Action: iam.S3ListBucket, Resource: e.env.BucketARN(e.bucket)}
	if prefix != "" {
		r.Context = map[string]string{iam.S3Prefix: prefix}
	}
	if err := e.authorize("ListObjectsV2", r); err != nil {
		return func(yield func(Info, error) bool) { yield(Info{}, err) }
	}
	return e.store.List(ctx, prefix)
}

func (e *enforced) PresignGet(ctx context.Context, key string, expires time.Duration) (string, error) {
	if err := e.authorize("GetObject", e.object(iam.S3GetObject, key)); err != nil {
		return "", err
	}
	return e.store.PresignGet(ctx, key, expires)
}

func (e *enforced) PresignPut(ctx context.Context, key string, expires time.Duration, opts ...func(*PutOptions)) (string, error) {
	if err := e.authorize("PutObject", e.object(iam.S3PutObject, key)); err != nil {
		return "", err
	}
	return e.store.PresignPut(ctx, key, expires, opts...)
}

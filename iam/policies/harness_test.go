package policies_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/iam"
)

// harness runs a store on the fake and memory blob stores, every request
// checked against the service's runtime policy, and records what was
// asked: the denials (which must be none for the store's own flows) and
// the requests allowed (every grant of the policy must be used by one).
type harness struct {
	t      *testing.T
	svc    iam.Service
	policy iam.Policy
	fake   *dynamotest.DB
	db     *dynamotest.Enforced
	blobs  map[string]blobstore.Store   // bucket -> enforced memory store
	raw    map[string]*blobstore.Memory // bucket -> the memory store behind it

	// keys are the SSE-KMS keys of the service's buckets (Objects.KMSKeyID),
	// by bucket: S3 asks KMS for them on the caller's behalf.
	keys map[string]string

	mu      sync.Mutex
	allowed []iam.Request
	denied  []string
}

func newHarness(t *testing.T, svc iam.Service) *harness {
	t.Helper()
	return newHarnessUnder(t, svc, iam.Runtime)
}

// newHarnessUnder is newHarness with the policy generate makes of svc
// (iam.Runtime, iam.Operator or iam.ReadOnly).
func newHarnessUnder(t *testing.T, svc iam.Service, generate func(iam.Env, iam.Service) (iam.Policy, error)) *harness {
	t.Helper()
	ctx := context.Background()
	policy, err := generate(dynamotest.Env, svc)
	require.NoError(t, err)
	h := &harness{t: t, svc: svc, policy: policy, fake: dynamotest.New(), blobs: map[string]blobstore.Store{}, raw: map[string]*blobstore.Memory{}}

	// Tables are made under the admin policy: it is enough for EnsureTable.
	admin, err := iam.Admin(dynamotest.Env, svc)
	require.NoError(t, err)
	adminDB, err := dynamotest.Enforce(h.fake, admin)
	require.NoError(t, err)
	for _, tb := range svc.Tables {
		require.NoError(t, tb.Schema.EnsureTable(ctx, adminDB), "EnsureTable %s under the admin policy", tb.Schema.Name)
	}
	require.Zero(t, adminDB.Denied())

	h.db, err = dynamotest.Enforce(h.fake, policy, func(o *dynamotest.EnforceOptions) { o.Observe = h.observe })
	require.NoError(t, err)
	h.keys = map[string]string{}
	for _, o := range svc.Objects {
		if o.KMSKeyID != "" {
			arn, err := dynamotest.Env.KeyARN(o.KMSKeyID)
			require.NoError(t, err)
			h.keys[o.Bucket] = arn
		}
	}
	for _, o := range svc.Objects {
		if _, ok := h.blobs[o.Bucket]; ok {
			continue
		}
		mem := blobstore.NewMemory()
		// Presigned URLs are signed, not served, in these tests.
		require.NoError(t, mem.EnablePresign("http://"+o.Bucket+".s3.test/"))
		h.raw[o.Bucket] = mem
		s, err := blobstore.Enforce(mem, o.Bucket, policy, func(eo *blobstore.EnforceOptions) { eo.Observe = h.observeS3 })
		require.NoError(t, err)
		h.blobs[o.Bucket] = s
	}
	return h
}

// observeS3 is observe for a blob store's requests, adding the KMS
// requests S3 makes with the caller's credentials for an object in an
// SSE-KMS bucket: kms:GenerateDataKey to encrypt a put, kms:Decrypt to
// read a get back, both through S3. A KMS denial fails the S3 request in
// AWS; here it is recorded as a denial, which checkNoDenials reports.
func (h *harness) observeS3(r iam.Request, d iam.Decision) {
	h.observe(r, d)
	if d != iam.Allowed {
		return
	}
	bucket, _, _ := strings.Cut(strings.TrimPrefix(r.Resource, "arn:aws:s3:::"), "/")
	key, ok := h.keys[bucket]
	if !ok {
		return
	}
	var action string
	switch r.Action {
	case iam.S3PutObject:
		action = iam.KMSGenerateDataKey
	case iam.S3GetObject:
		action = iam.KMSDecrypt
	default:
		return
	}
	kr := iam.Request{Action: action, Resource: key, Context: map[string]string{iam.KMSViaService: "s3." + dynamotest.Env.Region + ".amazonaws.com"}}
	h.observe(kr, h.policy.Evaluate(kr))
}

func (h *harness) observe(r iam.Request, d iam.Decision) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if d == iam.Allowed {
		h.allowed = append(h.allowed, r)
		return
	}
	h.denied = append(h.denied, fmt.Sprintf("%s on %s (%s)", r.Action, r.Resource, d))
}

// bucket is the enforced memory store standing for bucket.
func (h *harness) bucket(name string) blobstore.Store {
	s, ok := h.blobs[name]
	require.True(h.t, ok, "the service has no objects in bucket %s", name)
	return s
}

// checkNoDenials: the store's flows ran entirely within the policy.
func (h *harness) checkNoDenials() {
	h.t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	assert.Empty(h.t, h.denied, "requests the store made that its runtime policy does not allow")
}

// checkEveryGrantUsed: each action on each resource the policy allows was
// taken by some flow, so the policy grants nothing the store does not do.
// s3:AbortMultipartUpload counts as used where s3:PutObject is: it is the
// failure path of a multipart Put on S3, which the memory store never
// takes.
func (h *harness) checkEveryGrantUsed() {
	h.t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	var unused []string
	for _, st := range h.policy.Statement {
		for _, a := range st.Action {
			for _, res := range st.Resource {
				used := false
				want := a
				if a == iam.S3AbortMultipartUpload {
					want = iam.S3PutObject
				}
				// kms:Decrypt beside kms:GenerateDataKey is for completing
				// a multipart upload, which the memory store never makes.
				if a == iam.KMSDecrypt && slices.Contains(st.Action, iam.KMSGenerateDataKey) && slices.Contains(h.policy.Actions(), iam.S3PutObject) {
					want = iam.KMSGenerateDataKey
				}
				for _, r := range h.allowed {
					if strings.EqualFold(r.Action, want) && iam.Match(res, r.Resource) {
						used = true
						break
					}
				}
				if !used {
					unused = append(unused, a+" on "+res)
				}
			}
		}
	}
	sort.Strings(unused)
	assert.Empty(h.t, unused, "grants of the policy no flow used")
}

// checkDenied asserts err is an access denial, the calls' whatever action.
func (h *harness) checkDenied(what string, err error) {
	h.t.Helper()
	var ad *iam.AccessDeniedError
	assert.ErrorAs(h.t, err, &ad, "%s is outside the policy", what)
}

// reset forgets what was allowed and denied so far (after a setup the
// checks should not count).
func (h *harness) reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.allowed, h.denied = nil, nil
}

// deniedAs asserts err is the AccessDenied of action, as the service
// answers it (code, and the action in the message).
func deniedAs(t *testing.T, err error, code, action string) {
	t.Helper()
	var ad *iam.AccessDeniedError
	require.ErrorAs(t, err, &ad, "want %s for %s", code, action)
	var api smithy.APIError
	require.True(t, errors.As(err, &api))
	assert.Equal(t, code, api.ErrorCode())
	assert.Equal(t, action, ad.Action)
	assert.Contains(t, api.ErrorMessage(), "is not authorized to perform: "+action+" on resource: ")
}

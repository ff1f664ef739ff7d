package iam_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/access"
	"github.com/tablekit/tablekit/iam"
	"github.com/tablekit/tablekit/table"
)

func TestEvaluateExplicitDenyWinsOverAnyAllow(t *testing.T) {
	p := iam.Policy{Version: iam.Version, Statement: []iam.Statement{
		{Effect: iam.Allow, Action: iam.Strings{"DynamoDB:*"}, Resource: iam.Strings{"arn:aws:dynamodb:eu-west-1:1:table/t?sks", "arn:aws:dynamodb:eu-west-1:1:table/t?sks/index/*"}},
		{Effect: iam.Deny, Action: iam.Strings{"dynamodb:DeleteItem"}, Resource: iam.Strings{"*"}},
	}}
	cases := []struct {
		action, resource string
		want             iam.Decision
	}{
		{"dynamodb:GetItem", "arn:aws:dynamodb:eu-west-1:1:table/tasks", iam.Allowed},
		{"dynamodb:getitem", "arn:aws:dynamodb:eu-west-1:1:table/tasks", iam.Allowed}, // actions fold case
		{"dynamodb:Query", "arn:aws:dynamodb:eu-west-1:1:table/tasks/index/GSI1", iam.Allowed},
		{"dynamodb:DeleteItem", "arn:aws:dynamodb:eu-west-1:1:table/tasks", iam.ExplicitDeny},
		{"dynamodb:GetItem", "arn:aws:dynamodb:eu-west-1:1:table/Tasks", iam.ImplicitDeny}, // resources do not
		{"dynamodb:GetItem", "arn:aws:dynamodb:eu-west-1:2:table/tasks", iam.ImplicitDeny},
		{"s3:GetObject", "arn:aws:dynamodb:eu-west-1:1:table/tasks", iam.ImplicitDeny},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, p.Evaluate(iam.Request{Action: c.action, Resource: c.resource}), "%s on %s", c.action, c.resource)
	}
	err := p.Authorize("", iam.Request{Action: "dynamodb:DeleteItem", Resource: "arn:aws:dynamodb:eu-west-1:1:table/tasks"})
	var ad *iam.AccessDeniedError
	require.True(t, errors.As(err, &ad))
	assert.Equal(t, "AccessDeniedException", ad.ErrorCode())
	assert.Equal(t, "User: "+iam.DefaultPrincipal+" is not authorized to perform: dynamodb:DeleteItem on resource: arn:aws:dynamodb:eu-west-1:1:table/tasks with an explicit deny in an identity-based policy", ad.ErrorMessage())
}

func TestEvaluateListBucketNeedsAPrefixUnderTheCondition(t *testing.T) {
	p, err := iam.Runtime(iam.Env{Region: "eu-west-1", Account: "123456789012"}, iam.Service{Objects: []iam.Objects{
		{Bucket: "b", Prefix: "journeys/", Actions: []string{iam.S3ListBucket, iam.S3GetObject}}}})
	require.NoError(t, err)
	list := func(prefix *string) iam.Decision {
		r := iam.Request{Action: iam.S3ListBucket, Resource: "arn:aws:s3:::b"}
		if prefix != nil {
			r.Context = map[string]string{iam.S3Prefix: *prefix}
		}
		return p.Evaluate(r)
	}
	s := func(v string) *string { return &v }
	assert.Equal(t, iam.Allowed, list(s("journeys/")))
	assert.Equal(t, iam.Allowed, list(s("journeys/JRN-1/stages/")))
	assert.Equal(t, iam.ImplicitDeny, list(s("other/")))
	assert.Equal(t, iam.ImplicitDeny, list(s("")))
	assert.Equal(t, iam.ImplicitDeny, list(nil), "a listing of the whole bucket has no s3:prefix")
	assert.True(t, p.Allows(iam.Request{Action: iam.S3GetObject, Resource: "arn:aws:s3:::b/journeys/JRN-1/backup.json"}))
	assert.False(t, p.Allows(iam.Request{Action: iam.S3GetObject, Resource: "arn:aws:s3:::b/journeysX"}))
	assert.False(t, p.Allows(iam.Request{Action: iam.S3PutObject, Resource: "arn:aws:s3:::b/journeys/x"}))

	ad := &iam.AccessDeniedError{Principal: "arn:aws:iam::1:user/u", Action: iam.S3PutObject, Resource: "arn:aws:s3:::b/x"}
	assert.Equal(t, "AccessDenied", ad.ErrorCode())
	assert.Equal(t, `User: arn:aws:iam::1:user/u is not authorized to perform: s3:PutObject on resource: "arn:aws:s3:::b/x" because no identity-based policy allows the s3:PutObject action`, ad.ErrorMessage())
}

func TestNegatedConditionsHoldWhenTheKeyIsAbsent(t *testing.T) {
	p := iam.Policy{Version: iam.Version, Statement: []iam.Statement{{Effect: iam.Allow, Action: iam.Strings{"s3:ListBucket"}, Resource: iam.Strings{"*"},
		Condition: iam.Condition{iam.StringNotLike: {"S3:Prefix": {"secret/*"}}}}}}
	assert.True(t, p.Allows(iam.Request{Action: "s3:ListBucket", Resource: "arn:aws:s3:::b"}))
	assert.True(t, p.Allows(iam.Request{Action: "s3:ListBucket", Resource: "arn:aws:s3:::b", Context: map[string]string{"s3:prefix": "public/"}}))
	assert.False(t, p.Allows(iam.Request{Action: "s3:ListBucket", Resource: "arn:aws:s3:::b", Context: map[string]string{"s3:prefix": "secret/x"}}))
}

func TestParseRefusesWhatItCannotEvaluate(t *testing.T) {
	for name, doc := range map[string]string{
		"operator":   `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*","Condition":{"IpAddress":{"aws:SourceIp":"1.2.3.4"}}}]}`,
		"not action": `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","NotAction":"dynamodb:DeleteTable","Resource":"*"}]}`,
		"effect":     `{"Version":"2012-10-17","Statement":[{"Effect":"allow","Action":"dynamodb:*","Resource":"*"}]}`,
		"version":    `{"Version":"2008-10-17","Statement":[]}`,
		"no action":  `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Resource":"*"}]}`,
		"not json":   `{"Version":`,
	} {
		_, err := iam.Parse([]byte(doc))
		assert.ErrorIs(t, err, iam.ErrInvalidPolicy, name)
	}
	p, err := iam.Runtime(iam.Placeholders, iam.Service{Objects: []iam.Objects{{Bucket: "b", Prefix: "p/", Actions: []string{iam.S3ListBucket}}}})
	require.NoError(t, err)
	q, err := iam.Parse(p.JSON())
	require.NoError(t, err)
	assert.Equal(t, p, q, "a generated policy round-trips")
}

func TestEnvRefusesWildcardsButAcceptsParameters(t *testing.T) {
	for _, e := range []iam.Env{{Region: "*", Account: "1"}, {Region: "eu-west-1", Account: "*"}, {Region: "eu-west-?", Account: "1"}, {Region: "eu-west-1"}, {Region: "${AWS::*}", Account: "1"}} {
		assert.ErrorIs(t, e.Check(), iam.ErrInvalidEnv, "%+v", e)
		_, err := iam.Admin(e, iam.Service{Tables: []iam.Table{{Schema: table.Schema{Name: "t"}}}})
		assert.ErrorIs(t, err, iam.ErrInvalidEnv)
	}
	assert.NoError(t, iam.Placeholders.Check())
	_, err := iam.Admin(iam.Placeholders, iam.Service{Tables: []iam.Table{{Schema: table.Schema{Name: "photoeditor-*-jobs"}}}})
	assert.ErrorIs(t, err, iam.ErrInvalidService, "an admin policy over every environment")
}

func TestBoolConditionMatchesTrueOrFalseOnly(t *testing.T) {
	p := iam.Policy{Version: iam.Version, Statement: []iam.Statement{
		{Effect: iam.Allow, Action: iam.Strings{"dynamodb:PartiQLSelect"}, Resource: iam.Strings{"*"}},
		{Effect: iam.Deny, Action: iam.Strings{"dynamodb:PartiQLSelect"}, Resource: iam.Strings{"*"},
			Condition: iam.Condition{iam.Bool: {"dynamodb:FullTableScan": {"true"}}}},
	}}
	req := func(v *string) iam.Request {
		r := iam.Request{Action: "dynamodb:PartiQLSelect", Resource: "arn:aws:dynamodb:eu-west-1:1:table/t"}
		if v != nil {
			r.Context = map[string]string{"dynamodb:FullTableScan": *v}
		}
		return r
	}
	s := func(v string) *string { return &v }
	assert.Equal(t, iam.ExplicitDeny, p.Evaluate(req(s("true"))))
	assert.Equal(t, iam.ExplicitDeny, p.Evaluate(req(s("TRUE"))), "Bool folds case")
	assert.Equal(t, iam.Allowed, p.Evaluate(req(s("false"))))
	assert.Equal(t, iam.Allowed, p.Evaluate(req(nil)), "a request without the key does not match")
	assert.Equal(t, iam.Allowed, p.Evaluate(req(s("yes"))), "only true and false are booleans")
	q, err := iam.Parse(p.JSON())
	require.NoError(t, err)
	assert.Equal(t, p, q)
}

func TestRuntimeRefusesAWriteTransactionWithoutItsItems(t *testing.T) {
	s := table.Schema{Name: "t", PartitionKey: table.Attribute{Name: "PK", Type: "S"}}
	_, err := iam.Runtime(iam.Placeholders, iam.Service{Tables: []iam.Table{{Schema: s,
		Patterns: []access.Pattern{{Name: "Move", Operation: access.TransactWriteItems, ItemSize: 100, ItemsPerRequest: 2}}}}})
	assert.ErrorIs(t, err, iam.ErrInvalidService, "undeclared contents would grant DeleteItem to a store that only puts")
	p, err := iam.Runtime(iam.Placeholders, iam.Service{Tables: []iam.Table{{Schema: s,
		Patterns: []access.Pattern{{Name: "Move", Operation: access.TransactWriteItems, Items: []access.Item{{Operation: access.PutItem}, {Operation: access.ConditionCheck}}}}}}})
	require.NoError(t, err)
	assert.Equal(t, []string{"dynamodb:ConditionCheckItem", "dynamodb:PutItem"}, p.Actions())
}

func TestRuntimeLetsAFailedMultipartPutAbortItsParts(t *testing.T) {
	p, err := iam.Runtime(iam.Placeholders, iam.Service{Objects: []iam.Objects{
		{Bucket: "w", Prefix: "out/", Actions: []string{iam.S3PutObject}},
		{Bucket: "r", Prefix: "in/", Actions: []string{iam.S3GetObject}}}})
	require.NoError(t, err)
	assert.True(t, p.Allows(iam.Request{Action: iam.S3AbortMultipartUpload, Resource: "arn:aws:s3:::w/out/big.bin"}))
	assert.False(t, p.Allows(iam.Request{Action: iam.S3AbortMultipartUpload, Resource: "arn:aws:s3:::w/other/big.bin"}))
	assert.False(t, p.Allows(iam.Request{Action: iam.S3AbortMultipartUpload, Resource: "arn:aws:s3:::r/in/big.bin"}), "a store that only reads uploads nothing")
}

// TestForAllValuesStringEqualsHoldsForEveryValueAndForNone: the lease
// statement's condition matches the group's own partition, refuses
// another, and (as IAM's empty set does) holds for a request without the
// key, which is why it is granted only with item actions that carry it.
func TestForAllValuesStringEqualsHoldsForEveryValueAndForNone(t *testing.T) {
	p := iam.Policy{Version: iam.Version, Statement: []iam.Statement{{Effect: iam.Allow, Action: iam.Strings{"dynamodb:GetItem"},
		Resource:  iam.Strings{"arn:aws:dynamodb:eu-west-1:1:table/leases"},
		Condition: iam.Condition{iam.ForAllValuesStringEquals: {iam.LeadingKeys: {"jobs/default"}}}}}}
	require.NoError(t, p.Validate())
	r := iam.Request{Action: "dynamodb:GetItem", Resource: "arn:aws:dynamodb:eu-west-1:1:table/leases"}
	r.Context = map[string]string{iam.LeadingKeys: "jobs/default"}
	assert.True(t, p.Allows(r))
	r.Context = map[string]string{iam.LeadingKeys: "jobs/analytics"}
	assert.False(t, p.Allows(r))
	r.Context = nil
	assert.True(t, p.Allows(r), "no value: every one of none matches")
	parsed, err := iam.Parse(p.JSON())
	require.NoError(t, err)
	assert.Equal(t, p.Statement[0].Condition, parsed.Statement[0].Condition)
}

// TestEvaluateDenyWinsWhereverItStands: IAM's evaluation has no statement
// order: an explicit Deny wins over every Allow, before it or after it, so
// a policy decides the same whatever order its statements are listed in.
func TestEvaluateDenyWinsWhereverItStands(t *testing.T) {
	const table = "arn:aws:dynamodb:eu-west-1:1:table/tasks"
	deny := iam.Statement{Effect: iam.Deny, Action: iam.Strings{"dynamodb:DeleteItem"}, Resource: iam.Strings{"*"}}
	allowAll := iam.Statement{Effect: iam.Allow, Action: iam.Strings{"dynamodb:*"}, Resource: iam.Strings{table}}
	allowDelete := iam.Statement{Effect: iam.Allow, Action: iam.Strings{"dynamodb:DeleteItem"}, Resource: iam.Strings{table}}
	orders := [][]iam.Statement{
		{deny, allowAll, allowDelete},
		{allowAll, deny, allowDelete},
		{allowAll, allowDelete, deny},
		{deny, allowDelete},
		{allowDelete, deny},
	}
	for i, st := range orders {
		p := iam.Policy{Version: iam.Version, Statement: st}
		assert.Equal(t, iam.ExplicitDeny, p.Evaluate(iam.Request{Action: "dynamodb:DeleteItem", Resource: table}), "order %d", i)
		assert.Equal(t, iam.ImplicitDeny, p.Evaluate(iam.Request{Action: "dynamodb:GetItem", Resource: table + "x"}), "order %d: nothing matches", i)
	}
	p := iam.Policy{Version: iam.Version, Statement: []iam.Statement{deny, allowAll}}
	assert.Equal(t, iam.Allowed, p.Evaluate(iam.Request{Action: "dynamodb:GetItem", Resource: table}), "the Deny names DeleteItem only")
}

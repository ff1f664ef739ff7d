package datamodel

import (
	"github.com/tablekit/tablekit/access"
	"github.com/tablekit/tablekit/iam"
	"github.com/tablekit/tablekit/table"
)

// Policy is an IAM policy (package iam, where policies are generated and
// evaluated); datamodel renders the one of each model's table.
type Policy = iam.Policy

// Statement is one statement of a Policy.
type Statement = iam.Statement

// PolicyVersion is the IAM policy language version every policy uses.
const PolicyVersion = iam.Version

// PolicyOptions tune PolicyFor.
type PolicyOptions struct {
	// TableName is the table in the ARNs. Default: the schema's name. It
	// names one table: a wildcard is refused (iam.ErrInvalidService).
	TableName string
	// Env gives the region and account of the ARNs. Default
	// iam.Placeholders; a wildcard is refused (iam.ErrInvalidEnv).
	Env iam.Env
}

// PolicyFor is iam.Runtime for the table s alone, by the access patterns
// ps: the item actions its patterns use on the table, and Query or Scan
// only on the indexes its patterns read, each by name. Table creation is
// iam.Admin's; the S3 statements of a store's blobs are in its
// iam/policies description (cmd/datamodel writes all three under docs/).
func PolicyFor(s table.Schema, ps []access.Pattern, opts ...func(*PolicyOptions)) (Policy, error) {
	o := PolicyOptions{Env: iam.Placeholders}
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	if o.TableName != "" {
		s = s.WithName(o.TableName)
	}
	if err := check(s, ps, Options{}); err != nil {
		return Policy{}, err
	}
	for _, ap := range ps {
		if err := validatePattern(s, ap); err != nil {
			return Policy{}, err
		}
	}
	return iam.Runtime(o.Env, iam.Service{Tables: []iam.Table{{Schema: s, Patterns: ps}}})
}

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
	// Objects are the S3 objects the store uses; their statements follow
	// the table's (iam.Runtime).
	Objects []iam.Objects
	// OtherTables are other stores' tables the store calls
	// (Model.OtherTables): each granted what its patterns use, after the
	// table's statements.
	OtherTables []OtherTable
}

// PolicyFor is iam.Runtime for the table s, by the access patterns ps,
// and the objects of PolicyOptions.Objects (and its OtherTables): the item actions its patterns
// use on the table, Query or Scan only on the indexes its patterns read,
// each by name, and the S3 statements of its objects. Table creation is
// iam.Admin's (cmd/datamodel writes the runtime, admin and stream-consumer
// policies of each store under docs/).
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
	tables := []iam.Table{{Schema: s, Patterns: ps}}
	for _, other := range o.OtherTables {
		if err := check(other.Schema, other.Patterns, Options{}); err != nil {
			return Policy{}, err
		}
		tables = append(tables, iam.Table{Schema: other.Schema, Patterns: other.Patterns})
	}
	for _, t := range tables {
		for _, ap := range t.Patterns {
			if err := validatePattern(t.Schema, ap); err != nil {
				return Policy{}, err
			}
		}
	}
	return iam.Runtime(o.Env, iam.Service{Tables: tables, Objects: o.Objects})
}

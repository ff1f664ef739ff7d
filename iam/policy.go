package iam

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Version is the policy language version every policy uses.
const Version = "2012-10-17"

// Effects of a statement.
const (
	Allow = "Allow"
	Deny  = "Deny"
)

// Policy is an AWS IAM identity-based policy: the subset of the policy
// language tablekit's services need (Effect, Action, Resource and
// Condition with string operators).
type Policy struct {
	Version   string      `json:"Version"`
	Statement []Statement `json:"Statement"`
}

// Statement is one statement of a Policy.
type Statement struct {
	Sid      string  `json:"Sid,omitempty"`
	Effect   string  `json:"Effect"` // Allow or Deny
	Action   Strings `json:"Action"`
	Resource Strings `json:"Resource"`
	// Condition maps an operator (StringLike, ...) to condition keys and
	// the values any of which matches: {"StringLike": {"s3:prefix": [...]}}.
	Condition Condition `json:"Condition,omitempty"`
}

// Condition is a statement's Condition block: operator, then key, then
// values. Every key of every operator must match (AND); a key matches when
// any of its values does (OR).
type Condition map[string]map[string]Strings

// Strings is a policy element that is one string or a list of them.
type Strings []string

// UnmarshalJSON accepts "x" and ["x", "y"].
func (l *Strings) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*l = Strings{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return err
	}
	*l = many
	return nil
}

// The condition operators Evaluate implements. IAM has more (numeric,
// date, IP, ...Ignorecase, ...IfExists); a policy using one is refused by
// Parse rather than evaluated loosely.
const (
	StringEquals    = "StringEquals"
	StringNotEquals = "StringNotEquals"
	StringLike      = "StringLike"
	StringNotLike   = "StringNotLike"
	// Bool matches "true" or "false", case-insensitively (DynamoDB's
	// dynamodb:FullTableScan on PartiQL SELECTs).
	Bool = "Bool"
	// ForAllValuesStringEquals holds when every value the request has for
	// the key is one of the condition's: DynamoDB's fine-grained access
	// control on dynamodb:LeadingKeys, a multivalued key. As in IAM it
	// holds when the request has no value at all, so grant it only with
	// actions whose requests always carry the key (GetItem, UpdateItem, ...
	// carry their item's partition key).
	ForAllValuesStringEquals = "ForAllValues:StringEquals"
)

// ErrInvalidPolicy is what Parse and Validate wrap for a document they
// cannot evaluate faithfully.
var ErrInvalidPolicy = errors.New("iam: invalid or unsupported policy")

// Parse reads a policy document. Elements Evaluate does not implement
// (NotAction, NotResource, Principal, an unknown condition operator) are
// refused rather than ignored, so a policy is never enforced more loosely
// than written.
func Parse(data []byte) (Policy, error) {
	var raw struct {
		Version   string
		Statement []map[string]json.RawMessage
	}
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&raw); err != nil {
		return Policy{}, fmt.Errorf("%w: %w", ErrInvalidPolicy, err)
	}
	p := Policy{Version: raw.Version}
	for i, st := range raw.Statement {
		var s Statement
		for k, v := range st {
			var err error
			switch k {
			case "Sid":
				err = json.Unmarshal(v, &s.Sid)
			case "Effect":
				err = json.Unmarshal(v, &s.Effect)
			case "Action":
				err = json.Unmarshal(v, &s.Action)
			case "Resource":
				err = json.Unmarshal(v, &s.Resource)
			case "Condition":
				err = json.Unmarshal(v, &s.Condition)
			default:
				err = fmt.Errorf("element %s is not supported", k)
			}
			if err != nil {
				return Policy{}, fmt.Errorf("%w: Statement[%d]: %w", ErrInvalidPolicy, i, err)
			}
		}
		p.Statement = append(p.Statement, s)
	}
	if err := p.Validate(); err != nil {
		return Policy{}, err
	}
	return p, nil
}

// Validate checks what Parse checks of a policy built in code: the
// version, each statement's Effect, a non-empty Action and Resource, and
// condition operators Evaluate implements.
func (p Policy) Validate() error {
	if p.Version != Version {
		return fmt.Errorf("%w: Version %q, want %q", ErrInvalidPolicy, p.Version, Version)
	}
	for i, s := range p.Statement {
		if s.Effect != Allow && s.Effect != Deny {
			return fmt.Errorf("%w: Statement[%d]: Effect %q, want Allow or Deny", ErrInvalidPolicy, i, s.Effect)
		}
		if len(s.Action) == 0 || len(s.Resource) == 0 {
			return fmt.Errorf("%w: Statement[%d]: needs Action and Resource", ErrInvalidPolicy, i)
		}
		for op, keys := range s.Condition {
			switch op {
			case StringEquals, StringNotEquals, StringLike, StringNotLike, Bool, ForAllValuesStringEquals:
			default:
				return fmt.Errorf("%w: Statement[%d]: condition operator %s is not supported", ErrInvalidPolicy, i, op)
			}
			if len(keys) == 0 {
				return fmt.Errorf("%w: Statement[%d]: condition %s has no keys", ErrInvalidPolicy, i, op)
			}
		}
	}
	return nil
}

// JSON renders the policy indented, with a final newline. Keys of a
// Condition come out sorted (encoding/json sorts map keys), so the output
// is deterministic.
func (p Policy) JSON() []byte {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		panic(err) // a Policy is strings only
	}
	return append(b, '\n')
}

// Actions lists every action the policy's Allow statements name, sorted
// and without repeats.
func (p Policy) Actions() []string {
	set := map[string]bool{}
	for _, s := range p.Statement {
		if s.Effect == Allow {
			for _, a := range s.Action {
				set[a] = true
			}
		}
	}
	return sortedSet(set)
}

// Resources lists every resource of the policy's statements, sorted and
// without repeats.
func (p Policy) Resources() []string {
	set := map[string]bool{}
	for _, s := range p.Statement {
		for _, r := range s.Resource {
			set[r] = true
		}
	}
	return sortedSet(set)
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// service is the part of an action before the colon: "dynamodb", "s3".
func service(action string) string {
	s, _, _ := strings.Cut(action, ":")
	return strings.ToLower(s)
}

package iam

import (
	"slices"
	"strings"
)

// Request is one authorization question: may the caller perform Action on
// Resource, given the request's condition keys?
type Request struct {
	// Action is the IAM action, "dynamodb:Query" or "s3:GetObject".
	Action string
	// Resource is the ARN the action is on.
	Resource string
	// Context holds the request's condition keys and values, such as
	// "s3:prefix" for a ListBucket with a prefix. A key that is absent is
	// not in the request (a ListBucket without prefix has no s3:prefix).
	Context map[string]string
}

// Decision is the outcome of Evaluate.
type Decision int

// The three outcomes of IAM's evaluation logic.
const (
	// ImplicitDeny: no statement allows the request.
	ImplicitDeny Decision = iota
	// Allowed: some Allow statement matches and no Deny does.
	Allowed
	// ExplicitDeny: a Deny statement matches; it wins over any Allow.
	ExplicitDeny
)

func (d Decision) String() string {
	switch d {
	case Allowed:
		return "Allowed"
	case ExplicitDeny:
		return "ExplicitDeny"
	}
	return "ImplicitDeny"
}

// Evaluate decides r as IAM decides an identity-based policy: a matching
// Deny statement wins; otherwise a matching Allow allows; otherwise the
// request is implicitly denied. A statement matches when one of its
// actions matches r.Action (case-insensitively, with * and ? wildcards),
// one of its resources matches r.Resource (case-sensitively, with
// wildcards), and its Condition holds.
func (p Policy) Evaluate(r Request) Decision {
	d := ImplicitDeny
	for i := range p.Statement {
		s := &p.Statement[i]
		if !s.matches(r) {
			continue
		}
		if s.Effect == Deny {
			return ExplicitDeny
		}
		if s.Effect == Allow {
			d = Allowed
		}
	}
	return d
}

// Allows reports whether Evaluate allows r.
func (p Policy) Allows(r Request) bool { return p.Evaluate(r) == Allowed }

func (s *Statement) matches(r Request) bool {
	return anyMatch(s.Action, r.Action, true) && anyMatch(s.Resource, r.Resource, false) && s.Condition.holds(r.Context)
}

func anyMatch(patterns []string, v string, fold bool) bool {
	for _, p := range patterns {
		if fold {
			if Match(strings.ToLower(p), strings.ToLower(v)) {
				return true
			}
		} else if Match(p, v) {
			return true
		}
	}
	return false
}

// holds evaluates a Condition block against a request's keys. Condition
// key names are case-insensitive, values case-sensitive (as IAM's). A
// positive operator on a key the request lacks fails; a negated one
// (StringNotEquals, StringNotLike) holds, as in IAM, and so does
// ForAllValues:StringEquals (every one of no values matches).
func (c Condition) holds(ctx map[string]string) bool {
	for op, keys := range c {
		for key, want := range keys {
			v, ok := lookup(ctx, key)
			var hit bool
			switch op {
			case StringEquals, StringNotEquals:
				hit = ok && contains(want, v)
			case StringLike, StringNotLike:
				hit = ok && anyMatch(want, v, false)
			case ForAllValuesStringEquals:
				// The request's values are one here (a request is one
				// item); none holds, as IAM's empty set does.
				hit = !ok || contains(want, v)
			case Bool:
				hit = ok && (strings.EqualFold(v, "true") || strings.EqualFold(v, "false")) && slices.ContainsFunc(want, func(w string) bool { return strings.EqualFold(w, v) })
			default:
				return false // Validate refuses these; never allow on one
			}
			if op == StringNotEquals || op == StringNotLike {
				hit = !hit
			}
			if !hit {
				return false
			}
		}
	}
	return true
}

func lookup(ctx map[string]string, key string) (string, bool) {
	if v, ok := ctx[key]; ok {
		return v, true
	}
	for k, v := range ctx {
		if strings.EqualFold(k, key) {
			return v, true
		}
	}
	return "", false
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// Match reports whether s matches pattern with IAM's wildcards: * matches
// any run of characters (slashes included, so "jobs/*" covers every key
// under jobs/), ? any one character.
func Match(pattern, s string) bool {
	px, sx := 0, 0
	star, mark := -1, 0
	for sx < len(s) {
		switch {
		case px < len(pattern) && (pattern[px] == '?' || pattern[px] == s[sx]) && pattern[px] != '*':
			px++
			sx++
		case px < len(pattern) && pattern[px] == '*':
			star, mark = px, sx
			px++
		case star >= 0:
			px = star + 1
			mark++
			sx = mark
		default:
			return false
		}
	}
	for px < len(pattern) && pattern[px] == '*' {
		px++
	}
	return px == len(pattern)
}

package datamodel

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/tablekit/tablekit/access"
	"github.com/tablekit/tablekit/table"
)

// PolicyVersion is the IAM policy language version every policy uses.
const PolicyVersion = "2012-10-17"

// Statement IDs of the policies PolicyFor writes.
const (
	SidItems   = "Items"   // reads and writes of items on the table
	SidIndexes = "Indexes" // queries and scans of GSIs
	SidSetup   = "Setup"   // creating the table and turning TTL on
)

// Policy is an AWS IAM identity policy: the subset of the policy language
// that DynamoDB access needs (Effect, Action, Resource; wildcards * and ?).
type Policy struct {
	Version   string      `json:"Version"`
	Statement []Statement `json:"Statement"`
}

// Statement is one statement of a Policy.
type Statement struct {
	Sid      string       `json:"Sid,omitempty"`
	Effect   string       `json:"Effect"` // "Allow" or "Deny"
	Action   StringOrList `json:"Action"`
	Resource StringOrList `json:"Resource"`
}

// StringOrList is an IAM policy field that is one string or a list of them.
type StringOrList []string

// UnmarshalJSON accepts "x" and ["x", "y"].
func (l *StringOrList) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*l = StringOrList{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return err
	}
	*l = many
	return nil
}

// ErrInvalidPolicy is the error ParsePolicy wraps for a document it cannot
// enforce faithfully.
var ErrInvalidPolicy = errors.New("datamodel: invalid or unsupported policy")

// ParsePolicy reads a policy document. Elements this package cannot
// enforce (Condition, NotAction, NotResource, Principal) are refused rather
// than ignored, so a policy is never enforced more loosely than written.
func ParsePolicy(data []byte) (Policy, error) {
	var raw struct {
		Version   string
		Statement []map[string]json.RawMessage
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		return Policy{}, fmt.Errorf("%w: %w", ErrInvalidPolicy, err)
	}
	p := Policy{Version: raw.Version}
	if p.Version != PolicyVersion {
		return Policy{}, fmt.Errorf("%w: Version %q, want %q", ErrInvalidPolicy, p.Version, PolicyVersion)
	}
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
			default:
				err = fmt.Errorf("element %s is not supported", k)
			}
			if err != nil {
				return Policy{}, fmt.Errorf("%w: Statement[%d]: %w", ErrInvalidPolicy, i, err)
			}
		}
		if s.Effect != "Allow" && s.Effect != "Deny" {
			return Policy{}, fmt.Errorf("%w: Statement[%d]: Effect %q", ErrInvalidPolicy, i, s.Effect)
		}
		if len(s.Action) == 0 || len(s.Resource) == 0 {
			return Policy{}, fmt.Errorf("%w: Statement[%d]: needs Action and Resource", ErrInvalidPolicy, i)
		}
		p.Statement = append(p.Statement, s)
	}
	return p, nil
}

// JSON renders the policy indented, with a final newline.
func (p Policy) JSON() []byte {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		panic(err) // a Policy is strings only
	}
	return append(b, '\n')
}

// PolicyOptions tune PolicyFor.
type PolicyOptions struct {
	// TableName is the table name in the ARNs; it may hold wildcards to
	// cover several environments ("photoeditor-*-jobs"). Default: the
	// schema's name.
	TableName string
	// Region and Account fill the ARNs; default "*".
	Region, Account string
	// NoSetup leaves out the Setup statement, for a service whose tables
	// are created by infrastructure code rather than EnsureTable.
	NoSetup bool
}

// TableARN is the ARN of a table; IndexARN of one of its indexes.
func TableARN(region, account, tableName string) string {
	return fmt.Sprintf("arn:aws:dynamodb:%s:%s:table/%s", region, account, tableName)
}

// IndexARN is the ARN of index on tableName.
func IndexARN(region, account, tableName, index string) string {
	return TableARN(region, account, tableName) + "/index/" + index
}

// actionsOf lists the IAM actions one access pattern's requests need.
// Transactions are authorized per action inside them (PutItem, UpdateItem,
// DeleteItem, ConditionCheckItem, GetItem): there is no TransactWriteItems
// action in IAM.
func actionsOf(ap access.Pattern) []string {
	switch ap.Operation {
	case access.TransactGetItems:
		return []string{"dynamodb:GetItem"}
	case access.TransactWriteItems:
		if len(ap.Items) == 0 {
			// Undeclared contents: every action a write transaction may hold.
			return []string{"dynamodb:ConditionCheckItem", "dynamodb:DeleteItem", "dynamodb:PutItem", "dynamodb:UpdateItem"}
		}
		var out []string
		for _, it := range ap.Items {
			op := itemOp(ap, it)
			if op == access.ConditionCheck {
				out = append(out, "dynamodb:ConditionCheckItem")
			} else {
				out = append(out, "dynamodb:"+string(op))
			}
		}
		return out
	}
	return []string{"dynamodb:" + string(ap.Operation)}
}

// PolicyFor is the least-privilege IAM policy for a service using the table
// s by the access patterns ps: the item actions its patterns use on the
// table, Query or Scan only on the indexes its patterns read, and, in a
// separate Setup statement, what Schema.EnsureTable calls (DescribeTable,
// CreateTable, and the TTL pair when the schema has a TTL attribute), so
// a deployment whose tables are made elsewhere can drop that statement.
func PolicyFor(s table.Schema, ps []access.Pattern, opts ...func(*PolicyOptions)) (Policy, error) {
	o := PolicyOptions{Region: "*", Account: "*"}
	for _, f := range opts {
		f(&o)
	}
	if o.TableName == "" {
		o.TableName = s.Name
	}
	if err := check(s, ps, Options{}); err != nil {
		return Policy{}, err
	}
	tableActions := map[string]bool{}
	indexActions := map[string]map[string]bool{}
	for _, ap := range ps {
		if err := validatePattern(s, ap); err != nil {
			return Policy{}, err
		}
		for _, a := range actionsOf(ap) {
			if ap.Index != "" {
				if indexActions[ap.Index] == nil {
					indexActions[ap.Index] = map[string]bool{}
				}
				indexActions[ap.Index][a] = true
			} else {
				tableActions[a] = true
			}
		}
	}
	p := Policy{Version: PolicyVersion}
	tableARN := TableARN(o.Region, o.Account, o.TableName)
	if len(tableActions) > 0 {
		p.Statement = append(p.Statement, Statement{Sid: SidItems, Effect: "Allow", Action: sortedSet(tableActions), Resource: StringOrList{tableARN}})
	}
	// One statement per distinct action set, so an index only queried is
	// never also scannable.
	bySet := map[string][]string{}
	sets := map[string][]string{}
	for ix, acts := range indexActions {
		list := sortedSet(acts)
		k := strings.Join(list, ",")
		sets[k] = list
		bySet[k] = append(bySet[k], IndexARN(o.Region, o.Account, o.TableName, ix))
	}
	keys := make([]string, 0, len(bySet))
	for k := range bySet {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		sid := SidIndexes
		if i > 0 {
			sid = fmt.Sprintf("%s%d", SidIndexes, i+1)
		}
		res := bySet[k]
		sort.Strings(res)
		p.Statement = append(p.Statement, Statement{Sid: sid, Effect: "Allow", Action: sets[k], Resource: res})
	}
	if !o.NoSetup {
		setup := []string{"dynamodb:CreateTable", "dynamodb:DescribeTable"}
		if s.TTLAttribute != "" {
			setup = append(setup, "dynamodb:DescribeTimeToLive", "dynamodb:UpdateTimeToLive")
		}
		p.Statement = append(p.Statement, Statement{Sid: SidSetup, Effect: "Allow", Action: setup, Resource: StringOrList{tableARN}})
	}
	return p, nil
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

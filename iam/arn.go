package iam

import (
	"fmt"
	"strings"
)

// Env is where a policy's resources live: the partition, region and
// account every DynamoDB ARN names. A service generating the policy of
// its own deployment fills it with real values (Env{Region: "eu-west-1",
// Account: "123456789012"}); the documents under docs/ use Placeholders.
// Wildcards are refused (see Check): a policy must name one region and
// one account.
type Env struct {
	// Partition is "aws" unless set ("aws-cn", "aws-us-gov").
	Partition string
	Region    string
	Account   string
}

// The placeholders of Placeholders: CloudFormation's pseudo parameters,
// so a document from docs/ pasted into a template's Fn::Sub resolves to
// the stack's region and account; any other tool substitutes them as text.
const (
	RegionPlaceholder  = "${AWS::Region}"
	AccountPlaceholder = "${AWS::AccountId}"
)

// Placeholders is the Env of the generated documents under docs/.
var Placeholders = Env{Partition: "aws", Region: RegionPlaceholder, Account: AccountPlaceholder}

// ErrInvalidEnv: an Env without a region or account, or with a wildcard
// in one.
var ErrInvalidEnv = fmt.Errorf("iam: invalid Env")

// Check refuses an empty region or account, and any * or ? in the
// partition, region or account (a parameter such as ${AWS::Region}, to be
// substituted, is accepted): a policy bound to "any region, any
// account" lets a service touch every copy of its table everywhere.
func (e Env) Check() error {
	for _, f := range []struct{ name, v string }{{"Partition", e.partition()}, {"Region", e.Region}, {"Account", e.Account}} {
		if f.v == "" {
			return fmt.Errorf("%w: %s is empty", ErrInvalidEnv, f.name)
		}
		if isParam(f.v) {
			continue // a documented parameter, substituted before use
		}
		if strings.ContainsAny(f.v, "*?:$") {
			return fmt.Errorf("%w: %s %q has a wildcard or colon; name one %s", ErrInvalidEnv, f.name, f.v, strings.ToLower(f.name))
		}
	}
	return nil
}

// isParam reports whether v is one parameter, ${Name} or ${AWS::Name},
// without wildcards.
func isParam(v string) bool {
	inner, ok := strings.CutPrefix(v, "${")
	if !ok {
		return false
	}
	inner, ok = strings.CutSuffix(inner, "}")
	return ok && inner != "" && !strings.ContainsAny(inner, "*?${}")
}

func (e Env) partition() string {
	if e.Partition == "" {
		return "aws"
	}
	return e.Partition
}

// TableARN is the ARN of table name.
func (e Env) TableARN(name string) string {
	return fmt.Sprintf("arn:%s:dynamodb:%s:%s:table/%s", e.partition(), e.Region, e.Account, name)
}

// IndexARN is the ARN of index on table name.
func (e Env) IndexARN(name, index string) string {
	return e.TableARN(name) + "/index/" + index
}

// StreamARN is the ARN of table name's stream with label (the stream's
// creation time, as DynamoDB names it); label "*" covers every stream the
// table has had and will have, which a consumer following the table across
// stream re-enablement needs.
func (e Env) StreamARN(name, label string) string {
	return e.TableARN(name) + "/stream/" + label
}

// BucketARN is the ARN of an S3 bucket. S3 ARNs name neither region nor
// account: bucket names are global.
func (e Env) BucketARN(bucket string) string {
	return fmt.Sprintf("arn:%s:s3:::%s", e.partition(), bucket)
}

// ObjectARN is the ARN of key (or a key pattern) in bucket.
func (e Env) ObjectARN(bucket, key string) string {
	return e.BucketARN(bucket) + "/" + key
}

// KeyARN is the ARN of the KMS key id names: a key id
// ("1234abcd-12ab-34cd-56ef-1234567890ab") is a key in env's region and
// account; a key ARN is taken as it is. An alias ("alias/x" or an alias
// ARN) is refused: IAM authorizes a key's use on the key's ARN, and the
// key an alias points to can change.
func (e Env) KeyARN(id string) (string, error) {
	switch {
	case id == "", strings.ContainsAny(id, "*?"):
		return "", fmt.Errorf("iam: KMS key %q: name one key", id)
	case strings.HasPrefix(id, "alias/"), strings.Contains(id, ":alias/"):
		return "", fmt.Errorf("iam: KMS key %q is an alias: name the key by its id or ARN", id)
	case strings.HasPrefix(id, "arn:"):
		a, err := ParseARN(id)
		if err != nil || a.Service != "kms" || !strings.HasPrefix(a.Resource, "key/") || len(a.Resource) == len("key/") {
			return "", fmt.Errorf("iam: %q is not a KMS key ARN", id)
		}
		return id, nil
	case strings.ContainsAny(id, ":/"):
		return "", fmt.Errorf("iam: KMS key %q is neither a key id nor a key ARN", id)
	}
	return fmt.Sprintf("arn:%s:kms:%s:%s:key/%s", e.partition(), e.Region, e.Account, id), nil
}

// ARN is an Amazon Resource Name split into its fields.
type ARN struct {
	Partition, Service, Region, Account, Resource string
}

// ParseARN splits arn:partition:service:region:account:resource. The
// resource keeps its own colons and slashes.
func ParseARN(s string) (ARN, error) {
	parts := strings.SplitN(s, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" {
		return ARN{}, fmt.Errorf("iam: %q is not an ARN", s)
	}
	return ARN{Partition: parts[1], Service: parts[2], Region: parts[3], Account: parts[4], Resource: parts[5]}, nil
}

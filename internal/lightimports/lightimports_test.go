package lightimports

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const module = "github.com/tablekit/tablekit/"

// light are the packages a service imports to store its records, the fake
// it tests them with, and what it adds around them: the jobs analytics
// view, instrumentation, its IAM policies and the data-model tooling.
var light = []string{
	"table", "keys", "access", "blobstore", "entity", "jobs", "tasks", "journey", "pipeline", "changes", "dynamotest",
	"jobs/analytics", "observe", "iam", "iam/policies", "datamodel",
}

// heavy are what only a program that reaches S3 or loads an AWS
// configuration needs: the S3 client and its upload manager, and the
// configuration loader with the credential providers it brings (STS, SSO,
// the instance metadata client).
var heavy = []string{
	"github.com/aws/aws-sdk-go-v2/service/s3",
	"github.com/aws/aws-sdk-go-v2/feature/s3/manager",
	"github.com/aws/aws-sdk-go-v2/config",
	"github.com/aws/aws-sdk-go-v2/service/sts",
	"github.com/aws/aws-sdk-go-v2/service/sso",
	"github.com/aws/aws-sdk-go-v2/feature/ec2/imds",
}

// deps returns each package's non-standard dependencies, as `go list
// -deps` reports them for a build of the package (tests excluded).
func deps(t *testing.T, pkgs ...string) map[string][]string {
	t.Helper()
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	args := []string{"list", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`}
	for _, p := range pkgs {
		args = append(args, module+p)
	}
	out, err := exec.Command(goTool, args...).Output()
	require.NoError(t, err, "go list")
	all := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		var nonStandard []string
		for _, d := range fields[1:] {
			// Standard library paths have no dot in their first element.
			if first, _, _ := strings.Cut(d, "/"); strings.Contains(first, ".") {
				nonStandard = append(nonStandard, d)
			}
		}
		all[strings.TrimPrefix(fields[0], module)] = nonStandard
	}
	return all
}

func TestStoresAndTheFakeBuildNoS3ClientOrConfigLoader(t *testing.T) {
	got := deps(t, light...)
	require.Len(t, got, len(light))
	for _, pkg := range light {
		d := got[pkg]
		for _, h := range heavy {
			assert.NotContains(t, d, h, "%s imports %s (directly or through a dependency): "+
				"S3 belongs in blobstore/s3blob, configuration loading in connect", pkg, h)
		}
		t.Logf("%s: %d non-standard packages", pkg, len(d))
	}
}

// The drivers do hold them: the test above would pass vacuously if the
// names in heavy were wrong.
func TestTheDriverPackagesHoldWhatTheStoresLeaveOut(t *testing.T) {
	got := deps(t, "blobstore/s3blob", "connect")
	assert.Subset(t, got["blobstore/s3blob"], heavy)
	assert.Contains(t, got["connect"], "github.com/aws/aws-sdk-go-v2/config")
	assert.NotContains(t, got["connect"], "github.com/aws/aws-sdk-go-v2/service/s3", "connecting to DynamoDB builds no S3 client")
}

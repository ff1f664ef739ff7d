package conformance_test

import (
	"github.com/stretchr/testify/assert"
	"regexp"
	"testing"

	"github.com/tablekit/tablekit/dynamotest/conformance"
)

// caseName is "group/what-it-pins-down": words joined by hyphens (type names such as SS keep their case).
var caseName = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*/[a-zA-Z0-9]+(-[a-zA-Z0-9]+)*$`)

func TestCasesAreManyNamedAndRunnable(t *testing.T) {
	cases := conformance.Cases()
	assert.Falsef(t, len(cases) < 300, "%d cases; the suite promises at least 300", len(cases))
	seen := map[string]bool{}
	groups := map[string]int{}
	for _, c := range cases {
		assert.Falsef(t, !caseName.MatchString(c.Name), "case name %q is not group/hyphenated-words", c.Name)
		assert.Falsef(t, seen[c.Name], "two cases are named %q", c.Name)
		seen[c.Name] = true
		assert.NotNilf(t, c.Run, "case %q has no Run", c.Name)
		for backend, reason := range c.Skip {
			assert.Falsef(t, reason == "", "case %q skips %s without a reason", c.Name, backend)
		}
		groups[regexp.MustCompile(`/.*`).ReplaceAllString(c.Name, "")]++
	}
	t.Logf("%d cases in %d groups: %v", len(cases), len(groups), groups)
}

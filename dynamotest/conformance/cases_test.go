package conformance_test

import (
	"regexp"
	"testing"

	"github.com/tablekit/tablekit/dynamotest/conformance"
)

// caseName is "group/what-it-pins-down": words joined by hyphens (type names such as SS keep their case).
var caseName = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*/[a-zA-Z0-9]+(-[a-zA-Z0-9]+)*$`)

func TestCasesAreManyNamedAndRunnable(t *testing.T) {
	cases := conformance.Cases()
	if len(cases) < 300 {
		t.Errorf("%d cases; the suite promises at least 300", len(cases))
	}
	seen := map[string]bool{}
	groups := map[string]int{}
	for _, c := range cases {
		if !caseName.MatchString(c.Name) {
			t.Errorf("case name %q is not group/hyphenated-words", c.Name)
		}
		if seen[c.Name] {
			t.Errorf("two cases are named %q", c.Name)
		}
		seen[c.Name] = true
		if c.Run == nil {
			t.Errorf("case %q has no Run", c.Name)
		}
		for backend, reason := range c.Skip {
			if reason == "" {
				t.Errorf("case %q skips %s without a reason", c.Name, backend)
			}
		}
		groups[regexp.MustCompile(`/.*`).ReplaceAllString(c.Name, "")]++
	}
	t.Logf("%d cases in %d groups: %v", len(cases), len(groups), groups)
}

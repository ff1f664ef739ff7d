package expr

import (
	"bufio"
	"encoding/json"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"os"
	"strings"
	"testing"
)

// probeCase is one line of testdata/ddblocal_cases.jsonl: an expression,
// its placeholders and item in DynamoDB JSON, and the outcome DynamoDB
// Local gave (testdata/replay_ddblocal.py re-checks them).
type probeCase struct {
	Kind   string `json:"kind"` // condition, update, projection or key
	Expr   string `json:"expr"`
	Values string `json:"values"`
	Names  string `json:"names"`
	Item   string `json:"item"`
	Want   string `json:"want"`
}

// outcome evaluates a case the way the table tests do and renders the
// result in the same notation as Want.
func outcome(t *testing.T, c probeCase) string {
	t.Helper()
	env := NewEnv(names(t, c.Names), item(t, c.Values))
	switch c.Kind {
	case "condition":
		if c.Item == "" {
			c.Item = condItem
		}
		cond, err := env.Condition(c.Expr)
		if err == nil {
			err = env.CheckUnused()
		}
		if err != nil {
			return errMessage(t, err)
		}
		if ok, _ := cond.Eval(item(t, c.Item)); ok {
			return "true"
		}
		return "false"
	case "update":
		u, err := env.Update(c.Expr)
		if err == nil {
			err = env.CheckUnused()
		}
		if err != nil {
			return errMessage(t, err)
		}
		out, err := u.Apply(item(t, c.Item))
		if err != nil {
			return errMessage(t, err)
		}
		return show(out)
	case "projection":
		if c.Item == "" {
			c.Item = projItem
		}
		pr, err := env.Projection(c.Expr)
		if err == nil {
			err = env.CheckUnused()
		}
		if err != nil {
			return errMessage(t, err)
		}
		return show(pr.Apply(item(t, c.Item)))
	case "key":
		kc, err := env.KeyCondition(c.Expr, "p", "c")
		if err == nil {
			err = env.CheckUnused()
		}
		if err != nil {
			// DynamoDB names the missing element (dynalite's AWS-written
			// query tests); DynamoDB Local, whose answers these are, does
			// not. The fake follows DynamoDB: the name is cut to compare.
			msg := errMessage(t, err)
			if strings.HasPrefix(msg, msgMissedKey+": ") {
				msg = msgMissedKey
			}
			return msg
		}
		if kc.HashOp != EQ {
			// The engine's answer, once the value's type passed the schema.
			return msgKeyNotSupported
		}
		return describeKey(kc)
	}
	require.FailNow(t, "unknown kind "+c.Kind)
	return ""
}

func readProbeCases(t *testing.T, path string) []probeCase {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var cases []probeCase
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var c probeCase
		err := json.Unmarshal(sc.Bytes(), &c)
		require.NoErrorf(t, err, "%s", path)
		cases = append(cases, c)
	}
	return cases
}

// sameOutcome compares outcomes, items as items (map order aside).
func sameOutcome(t *testing.T, got, want string) bool {
	if got == want {
		return true
	}
	if len(got) > 0 && got[0] == '{' && len(want) > 0 && want[0] == '{' {
		return sameItem(item(t, got), item(t, want))
	}
	return false
}

func TestCasesConfirmedByDynamoDBLocal(t *testing.T) {
	cases := readProbeCases(t, "testdata/ddblocal_cases.jsonl")
	require.Falsef(t, len(cases) < 300, "only %d cases in testdata/ddblocal_cases.jsonl", len(cases))
	for _, c := range cases {
		got := outcome(t, c)
		assert.Falsef(t, !sameOutcome(t, got, c.Want), "%s %q\n got: %s\nwant: %s", c.Kind, c.Expr, got, c.Want)
	}
}

// TestProbe evaluates the cases in the file named by EXPR_PROBE_IN (Want
// ignored) and writes them with the fake's outcomes to EXPR_DUMP_CASES,
// for testdata/replay_ddblocal.py to compare with DynamoDB Local. It is
// how new cases are found; without the variables it does nothing.
func TestProbe(t *testing.T) {
	in := os.Getenv("EXPR_PROBE_IN")
	if in == "" {
		t.Skip("EXPR_PROBE_IN not set: nothing to probe")
	}
	cases := readProbeCases(t, in)
	for i := range cases {
		switch {
		case cases[i].Item != "":
		case cases[i].Kind == "condition":
			cases[i].Item = condItem
		case cases[i].Kind == "projection":
			cases[i].Item = projItem
		}
		cases[i].Want = outcome(t, cases[i])
	}
	dumpCases(t, "probe", cases)
}

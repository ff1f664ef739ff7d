package expr

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest/internal/attr"
)

// item decodes DynamoDB JSON ({"a": {"N": "1"}}), the notation DynamoDB's
// own documentation and the AWS CLI use, so that test tables read like
// the requests they stand for.
func item(t testing.TB, s string) map[string]types.AttributeValue {
	t.Helper()
	if s == "" {
		return nil
	}
	var raw map[string]json.RawMessage
	err := json.Unmarshal([]byte(s), &raw)
	require.NoErrorf(t, err, "bad item JSON %s", s)
	out := make(map[string]types.AttributeValue, len(raw))
	for k, v := range raw {
		out[k] = av(t, v)
	}
	return out
}

func av(t testing.TB, raw json.RawMessage) types.AttributeValue {
	t.Helper()
	var m map[string]json.RawMessage
	err := json.Unmarshal(raw, &m)
	require.Falsef(t, err != nil || len(m) != 1, "bad attribute value %s", raw)
	for typ, v := range m {
		var err error
		switch typ {
		case "S":
			var s string
			err = json.Unmarshal(v, &s)
			return &types.AttributeValueMemberS{Value: s}
		case "N":
			var s string
			err = json.Unmarshal(v, &s)
			return &types.AttributeValueMemberN{Value: s}
		case "B":
			var s string
			if err = json.Unmarshal(v, &s); err == nil {
				b, _ := base64.StdEncoding.DecodeString(s)
				return &types.AttributeValueMemberB{Value: b}
			}
		case "BOOL":
			var b bool
			err = json.Unmarshal(v, &b)
			return &types.AttributeValueMemberBOOL{Value: b}
		case "NULL":
			var b bool
			err = json.Unmarshal(v, &b)
			return &types.AttributeValueMemberNULL{Value: b}
		case "SS", "NS":
			var ss []string
			err = json.Unmarshal(v, &ss)
			if typ == "SS" {
				return &types.AttributeValueMemberSS{Value: ss}
			}
			return &types.AttributeValueMemberNS{Value: ss}
		case "BS":
			var ss []string
			err = json.Unmarshal(v, &ss)
			bs := make([][]byte, len(ss))
			for i, s := range ss {
				bs[i], _ = base64.StdEncoding.DecodeString(s)
			}
			return &types.AttributeValueMemberBS{Value: bs}
		case "L":
			var l []json.RawMessage
			err = json.Unmarshal(v, &l)
			out := make([]types.AttributeValue, len(l))
			for i, e := range l {
				out[i] = av(t, e)
			}
			return &types.AttributeValueMemberL{Value: out}
		case "M":
			var mm map[string]json.RawMessage
			err = json.Unmarshal(v, &mm)
			out := make(map[string]types.AttributeValue, len(mm))
			for k, e := range mm {
				out[k] = av(t, e)
			}
			return &types.AttributeValueMemberM{Value: out}
		}
		require.NoErrorf(t, err, "bad %s value %s", typ, v)
		require.FailNow(t, "unknown type "+typ)
	}
	return nil
}

// show renders an item as DynamoDB JSON for failure messages.
func show(m map[string]types.AttributeValue) string {
	if m == nil {
		return "nil"
	}
	b, _ := json.Marshal(toJSON(&types.AttributeValueMemberM{Value: m}).(map[string]any)["M"])
	return string(b)
}

func toJSON(v types.AttributeValue) any {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return map[string]any{"S": v.Value}
	case *types.AttributeValueMemberN:
		return map[string]any{"N": v.Value}
	case *types.AttributeValueMemberB:
		return map[string]any{"B": base64.StdEncoding.EncodeToString(v.Value)}
	case *types.AttributeValueMemberBOOL:
		return map[string]any{"BOOL": v.Value}
	case *types.AttributeValueMemberNULL:
		return map[string]any{"NULL": v.Value}
	case *types.AttributeValueMemberSS:
		return map[string]any{"SS": v.Value}
	case *types.AttributeValueMemberNS:
		return map[string]any{"NS": v.Value}
	case *types.AttributeValueMemberBS:
		out := make([]string, len(v.Value))
		for i, b := range v.Value {
			out[i] = base64.StdEncoding.EncodeToString(b)
		}
		return map[string]any{"BS": out}
	case *types.AttributeValueMemberL:
		out := make([]any, len(v.Value))
		for i, e := range v.Value {
			out[i] = toJSON(e)
		}
		return map[string]any{"L": out}
	case *types.AttributeValueMemberM:
		out := make(map[string]any, len(v.Value))
		for k, e := range v.Value {
			out[k] = toJSON(e)
		}
		return map[string]any{"M": out}
	}
	return fmt.Sprintf("%T", v)
}

func sameItem(a, b map[string]types.AttributeValue) bool {
	if (a == nil) != (b == nil) {
		return false
	}
	return attr.Equal(&types.AttributeValueMemberM{Value: a}, &types.AttributeValueMemberM{Value: b})
}

// names decodes {"#a": "x"} into ExpressionAttributeNames; "" gives nil.
func names(t testing.TB, s string) map[string]string {
	t.Helper()
	if s == "" {
		return nil
	}
	var m map[string]string
	err := json.Unmarshal([]byte(s), &m)
	require.NoErrorf(t, err, "bad names JSON %s", s)
	return m
}

// errMessage returns err's message, failing unless err is an *Error.
func errMessage(t testing.TB, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	e, ok := err.(*Error)
	require.Truef(t, ok, "error %v is %T, not *expr.Error", err, err)
	return e.Message
}

// dumpCases appends test cases as JSON lines to the file named by
// EXPR_DUMP_CASES, so that a script can replay them against DynamoDB
// Local and confirm every expected outcome and message.
func dumpCases(t testing.TB, kind string, cases any) {
	path := os.Getenv("EXPR_DUMP_CASES")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	require.NoError(t, err)
	defer f.Close()
	v := reflect.ValueOf(cases)
	for i := 0; i < v.Len(); i++ {
		c := v.Index(i)
		row := map[string]any{"test": t.Name()}
		for j := 0; j < c.NumField(); j++ {
			row[strings.ToLower(c.Type().Field(j).Name)] = c.Field(j).String()
		}
		if _, ok := row["kind"]; !ok {
			row["kind"] = kind
		}
		b, _ := json.Marshal(row)
		f.Write(append(b, '\n'))
	}
}

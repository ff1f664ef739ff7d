package journey

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

// The seed's attribute names: every item has PK, SK and EntityType, most
// have GSI1PK and GSI1SK, all have CreatedAt and all but log and report
// entries UpdatedAt; the entity itself is the map Data.
const (
	attrPK         = "PK"
	attrSK         = "SK"
	attrEntityType = "EntityType"
	attrGSI1PK     = "GSI1PK"
	attrGSI1SK     = "GSI1SK"
	attrCreatedAt  = "CreatedAt"
	attrUpdatedAt  = "UpdatedAt"
	attrData       = "Data"
	// attrTTL is the table's TTL attribute (not in the seed), on log
	// summaries only.
	attrTTL = "ttl"
)

// EntityType values, as the seed writes them.
const (
	EntityJourney = "Journey"
	EntityStage   = "StageDefinition"
	EntityRule    = "SecondBrainRule"
	EntityJob     = "JobExecution"
	EntityLog     = "LogEntry"
	EntityReport  = "JobReport"
)

// Time is a timestamp stored the seed's way: UTC with six fractional
// digits ("2025-11-01T20:30:00.000000Z", keys.TimeLayout), in DynamoDB and
// in JSON. The zero Time is stored as null, as the seed stores an unset
// errorMessage.
type Time struct{ time.Time }

// At returns t as a Time, truncated to the microsecond as it is stored.
func At(t time.Time) Time {
	if t.IsZero() {
		return Time{}
	}
	return Time{t.UTC().Truncate(time.Microsecond)}
}

// String formats t with keys.TimeLayout ("" for the zero Time).
func (t Time) String() string {
	if t.IsZero() {
		return ""
	}
	return keys.FormatTime(t.Time)
}

// MarshalDynamoDBAttributeValue stores t as S in keys.TimeLayout, or NULL.
func (t Time) MarshalDynamoDBAttributeValue() (types.AttributeValue, error) {
	if t.IsZero() {
		return &types.AttributeValueMemberNULL{Value: true}, nil
	}
	return &types.AttributeValueMemberS{Value: keys.FormatTime(t.Time)}, nil
}

// UnmarshalDynamoDBAttributeValue reads S (keys.TimeLayout, or any RFC 3339
// time, which items written by other tools may hold) or NULL.
func (t *Time) UnmarshalDynamoDBAttributeValue(av types.AttributeValue) error {
	switch v := av.(type) {
	case *types.AttributeValueMemberNULL:
		*t = Time{}
		return nil
	case *types.AttributeValueMemberS:
		return t.parse(v.Value)
	}
	return fmt.Errorf("journey: a time must be a string or null, got %T", av)
}

// MarshalJSON writes t as a JSON string in keys.TimeLayout, or null.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return json.Marshal(keys.FormatTime(t.Time))
}

// UnmarshalJSON reads a JSON string or null.
func (t *Time) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*t = Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("journey: a time must be a JSON string or null: %w", err)
	}
	return t.parse(s)
}

func (t *Time) parse(s string) error {
	if s == "" {
		*t = Time{}
		return nil
	}
	if v, err := keys.ParseTime(s); err == nil {
		*t = Time{v}
		return nil
	}
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return fmt.Errorf("journey: time %q is not in the layout %s", s, keys.TimeLayout)
	}
	*t = At(v)
	return nil
}

// maxIDLength bounds every id a caller passes; the longest key built from
// ids (a log entry's sort key) then stays far below DynamoDB's 1024 bytes.
const maxIDLength = 128

// checkID reports whether id can be part of keys, object keys and update
// paths: 1 to 128 letters, digits, '_' and '-'. The seed's ids
// (JRN-ABC123456789, raw_analysis, rule-raw_analysis-field_mapping-a1b2c3d4)
// all are; '#' would split a key, '.' and '[' a document path, '/' an
// object key.
func checkID(field, id string) error {
	if id == "" {
		return inputError(field, `""`, "must not be empty")
	}
	if len(id) > maxIDLength {
		return inputError(field, id[:32]+"...", fmt.Sprintf("is %d bytes, more than %d", len(id), maxIDLength))
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return inputError(field, fmt.Sprintf("%q", id), "may hold only letters, digits, '_' and '-'")
		}
	}
	return nil
}

// itemToJSON converts a DynamoDB item to plain JSON values (the seed's
// notation): numbers stay exact as json.Number. Sets and binary values,
// which no journey item holds, are refused rather than changed.
func itemToJSON(item table.Item) (map[string]any, error) {
	out := make(map[string]any, len(item))
	for k, v := range item {
		j, err := avToJSON(v)
		if err != nil {
			return nil, fmt.Errorf("attribute %q: %w", k, err)
		}
		out[k] = j
	}
	return out, nil
}

func avToJSON(v types.AttributeValue) (any, error) {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return v.Value, nil
	case *types.AttributeValueMemberN:
		return json.Number(v.Value), nil
	case *types.AttributeValueMemberBOOL:
		return v.Value, nil
	case *types.AttributeValueMemberNULL:
		return nil, nil
	case *types.AttributeValueMemberM:
		return itemToJSON(v.Value)
	case *types.AttributeValueMemberL:
		out := make([]any, len(v.Value))
		for i, e := range v.Value {
			j, err := avToJSON(e)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			out[i] = j
		}
		return out, nil
	}
	return nil, fmt.Errorf("type %T has no plain JSON form", v)
}

// jsonToItem is itemToJSON's inverse, for values decoded with UseNumber.
func jsonToItem(m map[string]any) (table.Item, error) {
	out := make(table.Item, len(m))
	for k, v := range m {
		av, err := jsonToAV(v)
		if err != nil {
			return nil, fmt.Errorf("attribute %q: %w", k, err)
		}
		out[k] = av
	}
	return out, nil
}

func jsonToAV(v any) (types.AttributeValue, error) {
	switch v := v.(type) {
	case nil:
		return &types.AttributeValueMemberNULL{Value: true}, nil
	case string:
		return &types.AttributeValueMemberS{Value: v}, nil
	case bool:
		return &types.AttributeValueMemberBOOL{Value: v}, nil
	case json.Number:
		if _, ok := new(big.Float).SetString(v.String()); !ok {
			return nil, fmt.Errorf("%q is not a number", v)
		}
		return &types.AttributeValueMemberN{Value: v.String()}, nil
	case float64:
		return &types.AttributeValueMemberN{Value: json.Number(fmt.Sprint(v)).String()}, nil
	case map[string]any:
		m, err := jsonToItem(v)
		if err != nil {
			return nil, err
		}
		return &types.AttributeValueMemberM{Value: m}, nil
	case []any:
		out := make([]types.AttributeValue, len(v))
		for i, e := range v {
			av, err := jsonToAV(e)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			out[i] = av
		}
		return &types.AttributeValueMemberL{Value: out}, nil
	}
	return nil, fmt.Errorf("unsupported JSON value %T", v)
}

// decodeJSON decodes data keeping numbers exact.
func decodeJSON(data []byte, out any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(out); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("trailing data after the JSON value")
	}
	return nil
}

// sortedKeys returns m's keys in order, for deterministic output.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// stringAttr returns the S attribute name of item, or "".
func stringAttr(item table.Item, name string) string {
	if s, ok := item[name].(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

// hasPrefix reports whether the item's sort key starts with prefix.
func hasPrefix(item table.Item, prefix string) bool {
	return strings.HasPrefix(stringAttr(item, attrSK), prefix)
}

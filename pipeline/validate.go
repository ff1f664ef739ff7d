package pipeline

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tablekit/tablekit/blobstore"
)

// maxIDLength keeps every key built from an id well inside DynamoDB's
// limits (1024 bytes for a sort key) and S3's (1024 bytes for an object key,
// which holds the id twice).
const maxIDLength = 200

// maxTagLength bounds a tag key or value; a tag item's keys hold both.
const maxTagLength = 400

// validateID checks a pipeline, execution or group id: it becomes a key
// part, so it must not be empty or hold the ':' delimiter.
func validateID(field, id string) error {
	switch {
	case id == "":
		return inputError(field, `""`, "must not be empty")
	case !utf8.ValidString(id):
		return inputError(field, fmt.Sprintf("%q", id), "must be valid UTF-8")
	case strings.Contains(id, ":"):
		return inputError(field, id, "must not contain ':', the key delimiter")
	case len(id) > maxIDLength:
		return inputError(field, id[:32]+"...", fmt.Sprintf("longer than %d bytes", maxIDLength))
	}
	return nil
}

// validateFileID checks the id of a new pipeline or execution, which also
// names folders of the object keys: escaped (blobstore.EscapeSegment), it
// must fit maxIDLength too, so every key built from it stays within S3's
// and the file systems' limits. Plain ids escape to themselves.
func validateFileID(field, id string) error {
	if err := validateID(field, id); err != nil {
		return err
	}
	if n := len(blobstore.EscapeSegment(id)); n > maxIDLength {
		return inputError(field, id[:min(len(id), 32)]+"...", fmt.Sprintf("escapes to %d bytes in object keys, more than %d", n, maxIDLength))
	}
	return nil
}

// validateTag checks a tag: its key becomes pk T:<key>[#<parent>] and its
// value's levels T:<level>:P:<id>, so neither may hold ':', the key may not
// hold '#' (it separates the key from the parent path), and a hierarchical
// value has no empty level ("a//b", "/a", "a/").
func validateTag(field string, t Tag) error {
	if err := validateTagKey(field+".Key", t.Key); err != nil {
		return err
	}
	return validateTagValue(field+".Value", t.Value)
}

func validateTagKey(field, k string) error {
	switch {
	case k == "":
		return inputError(field, `""`, "must not be empty")
	case !utf8.ValidString(k):
		return inputError(field, fmt.Sprintf("%q", k), "must be valid UTF-8")
	case strings.ContainsAny(k, ":#"):
		return inputError(field, k, "must not contain ':' (key delimiter) or '#' (separates the parent path)")
	case len(k) > maxTagLength:
		return inputError(field, k[:32]+"...", fmt.Sprintf("longer than %d bytes", maxTagLength))
	}
	return nil
}

func validateTagValue(field, v string) error {
	switch {
	case v == "":
		return inputError(field, `""`, "must not be empty")
	case !utf8.ValidString(v):
		return inputError(field, fmt.Sprintf("%q", v), "must be valid UTF-8")
	case strings.Contains(v, ":"):
		return inputError(field, v, "must not contain ':', the key delimiter")
	case len(v) > maxTagLength:
		return inputError(field, v[:32]+"...", fmt.Sprintf("longer than %d bytes", maxTagLength))
	}
	for _, level := range strings.Split(v, "/") {
		if level == "" {
			return inputError(field, v, "a hierarchical value has no empty level ('a//b', '/a' and 'a/' are refused)")
		}
	}
	return nil
}

// validateInput checks everything Create and Update write.
func validateInput(in Input) error {
	if err := validateFileID("in.ID", in.ID); err != nil {
		return err
	}
	if strings.TrimSpace(in.Name) == "" {
		return inputError("in.Name", fmt.Sprintf("%q", in.Name), "must not be blank")
	}
	if !utf8.ValidString(in.Name) || !utf8.ValidString(string(in.State)) || !utf8.ValidString(in.By) {
		return inputError("in", in.Name, "name, state and by must be valid UTF-8")
	}
	seen := map[Tag]int{}
	for i, t := range in.Tags {
		field := fmt.Sprintf("in.Tags[%d]", i)
		if err := validateTag(field, t); err != nil {
			return err
		}
		if j, dup := seen[t]; dup {
			return inputError(field, t.Key+"="+t.Value, fmt.Sprintf("same tag as in.Tags[%d]", j))
		}
		seen[t] = i
	}
	groups := map[string]int{}
	for i, g := range in.Groups {
		field := fmt.Sprintf("in.Groups[%d]", i)
		if err := validateID(field, g); err != nil {
			return err
		}
		if j, dup := groups[g]; dup {
			return inputError(field, g, fmt.Sprintf("same group as in.Groups[%d]", j))
		}
		groups[g] = i
	}
	for k := range in.Attributes {
		if k == "" {
			return inputError("in.Attributes", `""`, "attribute names must not be empty")
		}
	}
	return nil
}

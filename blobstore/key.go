package blobstore

import (
	"strings"
	"unicode/utf8"
)

// MaxKeyLength is S3's limit on an object key, in bytes of UTF-8. Every
// store applies it so a key that works on Memory or Dir also works on S3.
const MaxKeyLength = 1024

// maxSegment is the longest a key segment may be (MaxSegmentLength):
// NAME_MAX, the usual limit on a file name, so the key can be a path on
// Dir.
const maxSegment = 255

// reservedSegment is the first segment no key may have: Dir keeps its
// sidecars and temporary files under it.
const reservedSegment = ".blobstore"

// ValidateKey reports whether key is a valid object key. There is one rule
// for every Store, applied in front of the backends before any I/O, so a
// key one store accepts every store accepts (the only thing left to a
// backend is Dir's refusal to hold both "a" and "a/b", which is about what
// is stored, not about the key). A key is:
//
//   - non-empty valid UTF-8 of at most MaxKeyLength bytes (S3's limits);
//   - free of control characters (bytes below 0x20, and 0x7F): S3 lists
//     keys in XML 1.0, which cannot carry most of them, and NUL ends a path
//     on every file system;
//   - free of backslashes (a path separator on Windows);
//   - a relative path: no leading '/', no trailing '/', no empty segment
//     ("//"), no "." or ".." segment, no segment longer than MaxSegmentLength,
//     and not under the reserved first segment ".blobstore".
//
// So "../escape", "/etc/passwd" and "a\x00b" are refused everywhere, not
// only where they would be paths. A bad key is a *KeyError wrapping
// ErrInvalidKey.
func ValidateKey(key string) error {
	if err := keyText(key); err != nil {
		return err
	}
	if strings.HasSuffix(key, "/") {
		return keyError(key, "ends with '/', which names a directory, not an object")
	}
	for seg := range strings.SplitSeq(key, "/") {
		if err := segmentRules(key, seg); err != nil {
			return err
		}
	}
	return reserved(key)
}

// ValidatePrefix applies ValidateKey's rules to a List prefix: the empty
// prefix (everything) is allowed, and the last segment may be partial or
// empty (a prefix may end with '/').
func ValidatePrefix(prefix string) error {
	if prefix == "" {
		return nil
	}
	if err := keyText(prefix); err != nil {
		return err
	}
	segs := strings.Split(prefix, "/")
	for _, seg := range segs[:len(segs)-1] {
		if err := segmentRules(prefix, seg); err != nil {
			return err
		}
	}
	return reserved(prefix)
}

// keyText checks what a key and a prefix share: length, encoding and the
// characters no key may hold.
func keyText(key string) error {
	switch {
	case key == "":
		return keyError(key, "empty")
	case !utf8.ValidString(key):
		return keyError(truncate(key), "not valid UTF-8")
	case len(key) > MaxKeyLength:
		return keyError(truncate(key), "%d bytes, more than the %d S3 allows", len(key), MaxKeyLength)
	case strings.HasPrefix(key, "/"):
		return keyError(key, "absolute path: keys are relative to the store")
	case strings.ContainsRune(key, '\\'):
		return keyError(key, "contains a backslash, a path separator on Windows")
	}
	for i := 0; i < len(key); i++ {
		if c := key[i]; c < 0x20 || c == 0x7f {
			return keyError(key, "contains control character %#02x at byte %d", c, i)
		}
	}
	return nil
}

func segmentRules(key, seg string) error {
	switch {
	case seg == "":
		return keyError(key, "empty path segment ('//')")
	case seg == "." || seg == "..":
		return keyError(key, "path segment %q would leave or alias a directory", seg)
	case len(seg) > maxSegment:
		return keyError(truncate(key), "path segment of %d bytes, more than %d", len(seg), maxSegment)
	}
	return nil
}

func reserved(key string) error {
	if key == reservedSegment || strings.HasPrefix(key, reservedSegment+"/") {
		return keyError(key, "%q is reserved for the stores' own files", reservedSegment)
	}
	return nil
}

// truncate keeps error messages readable when a key is kilobytes long.
func truncate(s string) string {
	if len(s) <= 64 {
		return s
	}
	return s[:64] + "..."
}

package blobstore

import (
	"unicode/utf8"
)

// MaxKeyLength is S3's limit on an object key, in bytes of UTF-8. Every
// store applies it so a key that works on Memory or Dir also works on S3.
const MaxKeyLength = 1024

// ValidateKey reports whether key is usable on every Store: non-empty,
// valid UTF-8 and at most MaxKeyLength bytes (S3's rules). Dir applies
// further rules of its own (see NewDir) because a key becomes a path there.
func ValidateKey(key string) error {
	switch {
	case key == "":
		return keyError(key, "empty")
	case !utf8.ValidString(key):
		return keyError(key, "not valid UTF-8")
	case len(key) > MaxKeyLength:
		return keyError(truncate(key), "%d bytes, more than the %d S3 allows", len(key), MaxKeyLength)
	}
	return nil
}

// validatePrefix applies ValidateKey's rules to a List prefix, where the
// empty string (everything) is allowed.
func validatePrefix(prefix string) error {
	if prefix == "" {
		return nil
	}
	return ValidateKey(prefix)
}

// truncate keeps error messages readable when a key is kilobytes long.
func truncate(s string) string {
	if len(s) <= 64 {
		return s
	}
	return s[:64] + "..."
}

package wire

import (
	"slices"
	"testing"
)

// special must find a byte needing attention wherever it sits in the eight,
// whatever its neighbours are.
func TestSpecialFindsEveryByteThatNeedsEscaping(t *testing.T) {
	for _, fill := range []byte{'a', 0x7f, 0x80, 0xff, ' ', '!', '#', '[', ']'} {
		for pos := range 8 {
			for c := range 256 {
				b := []byte{fill, fill, fill, fill, fill, fill, fill, fill}
				b[pos] = byte(c)
				want := false
				for _, x := range b {
					if x == '"' || x == '\\' || x < 0x20 {
						want = true
					}
				}
				if got := special(load8b(b)); got != want {
					t.Fatalf("special(%q) = %v, want %v", b, got, want)
				}
				if got := attention(load8b(b)) != 0; got != (want || slices.ContainsFunc(b, func(c byte) bool { return c >= 0x80 })) {
					t.Fatalf("attention(%q) = %v", b, got)
				}
				if load8(string(b)) != load8b(b) {
					t.Fatalf("load8 and load8b disagree on %q", b)
				}
			}
		}
	}
}

func TestPlainPrefixStopsAtTheFirstWordNeedingAttention(t *testing.T) {
	for n := range 80 {
		for bad := -1; bad < n; bad++ {
			b := make([]byte, n)
			for i := range b {
				b[i] = 'a'
			}
			if bad >= 0 {
				b[bad] = '"'
			}
			got := plainPrefix(string(b))
			want := n / 8 * 8
			if bad >= 0 {
				want = bad / 8 * 8
			}
			if got != want {
				t.Fatalf("plainPrefix of %d bytes with a quote at %d = %d, want %d", n, bad, got, want)
			}
		}
	}
}

package wire

import (
	"encoding/json"
	"github.com/stretchr/testify/require"
	"slices"
	"strings"
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
				got := special(load8b(b))
				require.EqualValuesf(t, want, got, "special(%q) = %v, want %v", b, got, want)
				unprintable := slices.ContainsFunc(b, func(c byte) bool { return c < 0x20 || c >= 0x80 })
				got = printablePrefix(string(b)) == 0
				require.EqualValuesf(t, unprintable, got, "printablePrefix(%q) = %d, want %v", b, printablePrefix(string(b)), unprintable)
				require.EqualValuesf(t, load8b(b), load8(string(b)), "load8 and load8b disagree on %q", b)
			}
		}
	}
}

func TestPrintablePrefixStopsAtTheFirstWordWithAnUnprintableByte(t *testing.T) {
	for n := range 80 {
		for bad := -1; bad < n; bad++ {
			for _, c := range []byte{0x00, 0x1f, 0x80, 0xff} {
				b := []byte(strings.Repeat("a", n))
				if bad >= 0 {
					b[bad] = c
				}
				want := n / 8 * 8
				if bad >= 0 {
					want = bad / 8 * 8
				}
				got := printablePrefix(string(b))
				require.EqualValuesf(t, want, got, "printablePrefix of %d bytes with %#x at %d = %d, want %d", n, c, bad, got, want)
			}
		}
	}
}

func TestAppendStringEscapesWhereverTheByteIs(t *testing.T) {
	for n := range 70 {
		for pos := range n {
			for _, c := range []byte{'"', '\\', '\n', 0x01, 0x7f, 0xff} {
				b := []byte(strings.Repeat("a", n))
				b[pos] = c
				got := appendString(nil, string(b))
				want, _ := json.Marshal(strings.ToValidUTF8(string(b), "\ufffd"))
				var back string
				err := json.Unmarshal(got, &back)
				require.Falsef(t, err != nil || back != strings.ToValidUTF8(string(b), "\ufffd"), "appendString(%q) = %s, which reads back as %q (%v); encoding/json writes %s", b, got, back, err, want)
			}
		}
	}
}

// Verbatim is a promise about AppendString: true exactly when the string is
// written unchanged between quotes.
func TestVerbatimIsExactlyWhenAppendStringCopies(t *testing.T) {
	check := func(s string) {
		t.Helper()
		copied := string(AppendString(nil, s)) == `"`+s+`"`
		got := Verbatim(s)
		require.EqualValuesf(t, copied, got, "Verbatim(%q) = %v, but AppendString writes %s", s, got, AppendString(nil, s))
	}
	for n := range 20 {
		for pos := range n {
			for _, c := range []byte{'"', '\\', '\n', 0x00, 0x1f, ' ', 0x7f, 0x80, 0xc3, 0xff, 'z', '<', '&'} {
				b := []byte(strings.Repeat("a", n))
				b[pos] = c
				check(string(b))
			}
		}
	}
	for _, s := range []string{"", "héllo wörld, naïve café", "日本語のテキスト", "emoji 🙂 in a longer sentence", "\u2028", "a\xe6\x97", strings.Repeat("é", 40) + "\x80"} {
		check(s)
	}
}

func FuzzVerbatim(f *testing.F) {
	f.Add("plain text")
	f.Add("quote \" in the middle")
	f.Add("\xff\xfe")
	f.Fuzz(func(t *testing.T, s string) {
		copied := string(AppendString(nil, s)) == `"`+s+`"`
		require.EqualValuesf(t, copied, Verbatim(s), "Verbatim(%q) = %v, but AppendString writes %s", s, Verbatim(s), AppendString(nil, s))
	})
}

package wire

import "testing"

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
				if load8(string(b)) != load8b(b) {
					t.Fatalf("load8 and load8b disagree on %q", b)
				}
			}
		}
	}
}

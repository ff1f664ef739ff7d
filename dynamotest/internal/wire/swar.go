package wire

import "encoding/binary"

// Strings are most of a body's bytes (a 1 KB attribute is one string), so
// the encoder and decoder step over the bytes that need no attention eight
// at a time: everything but '"', '\\', control characters and non-ASCII.

const (
	lowBits  = 0x0101010101010101
	highBits = 0x8080808080808080
)

// special reports whether any byte of x is '"', '\\' or below 0x20. Each
// term is the classic "has a zero byte" test, exact about whether there is
// one; a byte with its high bit set never counts, as &^x clears it.
func special(x uint64) bool {
	q := x ^ (lowBits * '"')
	b := x ^ (lowBits * '\\')
	return ((q-lowBits)&^q|(b-lowBits)&^b|(x-lowBits*0x20)&^x)&highBits != 0
}

// printablePrefix returns how many leading bytes of s, in whole words, are
// neither control characters nor non-ASCII: (x - 0x20 in each byte) borrows
// into a byte's high bit exactly when some byte is below 0x20, and x's own
// high bits mark the non-ASCII bytes. Four words are tested at once, which
// lets the processor overlap their work.
func printablePrefix(s string) int {
	const spaces = lowBits * 0x20
	i := 0
	for ; i+32 <= len(s); i += 32 {
		// One bounds check for the block: the compiler then knows each
		// load is inside it, and merges its bytes into one 8-byte load.
		w := s[i : i+32]
		a, b, c, d := load8(w[0:8]), load8(w[8:16]), load8(w[16:24]), load8(w[24:32])
		if ((a-spaces)|a|(b-spaces)|b|(c-spaces)|c|(d-spaces)|d)&highBits != 0 {
			break
		}
	}
	for ; i+8 <= len(s); i += 8 {
		if x := load8(s[i:]); ((x-spaces)|x)&highBits != 0 {
			break
		}
	}
	return i
}

func load8(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func load8b(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }

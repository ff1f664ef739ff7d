package keys

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestOverlapsTellsWhetherTwoTemplatesCanBuildOneKey(t *testing.T) {
	colon := WithDelimiter(":")
	cases := []struct {
		a, b    *Template
		overlap bool
	}{
		{MustSort("ALBUM"), MustSort("ALBUM"), true},
		{MustSort("ALBUM"), MustSort("PHOTO#{photoId}"), false},
		{MustSort("PHOTO#{photoId}"), MustSort("SHARE#{userId}"), false},
		{MustSort("ALBUM#{albumId}"), MustSort("ALBUM#META"), true}, // the album "META"
		{MustSort("{name}"), MustSort("PHOTO#{photoId}"), false},    // one segment against two
		{MustSort("V#{n:03d}"), MustSort("V#current"), false},       // "current" is no 3-digit number
		{MustSort("V#{n:03d}"), MustSort("V#007"), true},
		{MustSort("V#{n:03d}"), MustSort("V#{m:04d}"), false}, // widths differ
		{MustSort("V#{n:03d}"), MustSort("V#{s}"), true},      // the string "007"
		{MustSort("T#{at:time}"), MustSort("T#{n:05d}"), false},
		{MustSort("T#{at:time}"), MustSort("T#2025-11-01T20:30:00.000000Z"), true},
		{MustSort("T#{at:time}"), MustSort("T#{s}"), true},
		{MustSort("PV:current", colon), MustSort("PV:{v:010d}", colon), false},
		{MustSort("PE:{id}", colon), MustSort("G:{id}", colon), false},
		// ':' occurs inside times: segments cannot be counted, so only the
		// leading literals decide.
		{MustSort("E:{at:time}", colon), MustSort("E:{a}:{b}:{c}", colon), true},
		{MustSort("E:{at:time}", colon), MustSort("F:{a}", colon), false},
		// Different delimiters: leading literals decide.
		{MustSort("A#{x}"), MustSort("A:{y}", colon), false},
		{MustSort("A#{x}"), MustSort("{y}", colon), true},
	}
	for _, c := range cases {
		assert.Equal(t, c.overlap, c.a.Overlaps(c.b), "%s and %s", c.a, c.b)
		assert.Equal(t, c.overlap, c.b.Overlaps(c.a), "%s and %s (swapped)", c.b, c.a)
	}
	assert.False(t, (*Template)(nil).Overlaps(MustSort("A")), "a nil template builds no key")
}

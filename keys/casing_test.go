package keys

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A cased placeholder writes its value in one case, so the keys of
// "Ann@Example.com" and "ann@example.com" are one key: a Get with the
// caller's spelling finds what a Put with another spelling wrote.
func TestACasedPartIsWrittenInItsCase(t *testing.T) {
	user := MustSort("USER#{email:lower}#{team:upper}#{name}")
	k, err := user.Build("Ann@Example.COM", "Ops", "Ann")
	require.NoError(t, err)
	assert.Equal(t, "USER#ann@example.com#OPS#Ann", k, "only the cased parts change")
	again, err := user.Build("ann@example.com", "OPS", "Ann")
	require.NoError(t, err)
	assert.Equal(t, k, again)

	p, err := user.Prefix("ANN@example.com")
	require.NoError(t, err)
	assert.Equal(t, "USER#ann@example.com#", p, "Prefix cases as Build does")

	parts, err := user.Parse(k)
	require.NoError(t, err)
	assert.Equal(t, "ann@example.com", parts.String("email"), "Parse gives what is stored")
	assert.True(t, user.Match(k))
	for _, other := range []string{"USER#Ann@example.com#OPS#Ann", "USER#ann@example.com#Ops#Ann"} {
		_, err := user.Parse(other)
		require.ErrorIs(t, err, ErrMismatch, "%s: Build never writes it", other)
		assert.ErrorContains(t, err, "case")
		assert.False(t, user.Match(other))
	}
}

func TestACasedPartIsCheckedAsItIsWritten(t *testing.T) {
	lower := MustSort("E#{email:lower}")
	_, err := lower.Build("")
	require.ErrorIs(t, err, ErrEmpty)
	_, err = lower.Build("A#B")
	require.ErrorIs(t, err, ErrDelimiter)
	_, err = lower.Build("bad\xff")
	require.ErrorIs(t, err, ErrInvalidUTF8, "refused as given, not as ToLower would mend it")
	_, err = lower.Build(7)
	require.ErrorIs(t, err, ErrType, "casing is for strings")
	// Ⱥ (2 bytes) lower-cases to ⱥ (3 bytes): the length checked is the written one.
	long := make([]byte, 0, MaxSortKeyLength)
	for len(long)+2 <= MaxSortKeyLength-2 {
		long = append(long, "Ⱥ"...)
	}
	_, err = lower.Build(string(long))
	require.ErrorIs(t, err, ErrTooLong, "1022 bytes given, 1533 written")

	_, err = Sort("E#{email:Lower}")
	require.ErrorIs(t, err, ErrPattern)
	assert.ErrorContains(t, err, "lower, upper")
	_, err = Sort("E#{n:lower03d}")
	require.ErrorIs(t, err, ErrPattern)
}

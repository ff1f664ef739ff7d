package store

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest/internal/attr"
)

func n(s string) types.AttributeValue { return &types.AttributeValueMemberN{Value: s} }
func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func b(v string) types.AttributeValue { return &types.AttributeValueMemberB{Value: []byte(v)} }

func randomNumber(r *rand.Rand) string {
	var sb strings.Builder
	if r.IntN(2) == 0 {
		sb.WriteByte('-')
	}
	for i := r.IntN(6) + 1; i > 0; i-- {
		sb.WriteByte(byte('0' + r.IntN(10)))
	}
	if r.IntN(2) == 0 {
		sb.WriteByte('.')
		for i := r.IntN(6) + 1; i > 0; i-- {
			sb.WriteByte(byte('0' + r.IntN(10)))
		}
	}
	if r.IntN(3) == 0 {
		fmt.Fprintf(&sb, "E%d", r.IntN(80)-40)
	}
	return sb.String()
}

func randomBytes(r *rand.Rand) string {
	alphabet := []byte{0x00, 0x01, 0x02, 'a', 'b', 0xfe, 0xff}
	var sb strings.Builder
	for i := r.IntN(5); i > 0; i-- {
		sb.WriteByte(alphabet[r.IntN(len(alphabet))])
	}
	return sb.String()
}

// The encodings must order values exactly as attr.Compare does, alone and
// as the first of several key values.
func TestKeyOrderMatchesDynamoDBOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	check := func(gen func() types.AttributeValue) {
		t.Helper()
		vals := make([]types.AttributeValue, 150)
		for i := range vals {
			vals[i] = gen()
		}
		for i := 0; i < len(vals); i++ {
			for j := 0; j < len(vals); j++ {
				want, ok := attr.Compare(vals[i], vals[j])
				require.Truef(t, ok, "cannot compare %v %v", vals[i], vals[j])
				ki, kj := Key(vals[i], nil, nil), Key(vals[j], nil, nil)
				got := strings.Compare(ki, kj)
				require.EqualValuesf(t, want, got, "%s vs %s: key order %d, value order %d", show(vals[i]), show(vals[j]), got, want)
				// Followed by other values, the first value still decides.
				ti, tj := Key(vals[i], s("zzz"), nil), Key(vals[j], s(""), nil)
				require.Falsef(t, want != 0 && strings.Compare(ti, tj) != want, "%s vs %s as tuple heads: order broken", show(vals[i]), show(vals[j]))
				// Before and After bracket every position starting with the value.
				require.Falsef(t, want == 0 && !(Before(vals[i]) < tj && tj < After(vals[i]) && Before(vals[i]) < kj && kj < After(vals[i])), "%s: Before/After do not bracket", show(vals[i]))
				require.Falsef(t, want < 0 && !(After(vals[i]) < Before(vals[j])), "%s < %s but After/Before overlap", show(vals[i]), show(vals[j]))
			}
		}
	}
	check(func() types.AttributeValue { return n(randomNumber(r)) })
	check(func() types.AttributeValue { return s(randomBytes(r)) })
	check(func() types.AttributeValue { return b(randomBytes(r)) })
}

func show(v types.AttributeValue) string {
	switch v := v.(type) {
	case *types.AttributeValueMemberN:
		return "N:" + v.Value
	case *types.AttributeValueMemberS:
		return fmt.Sprintf("S:%q", v.Value)
	case *types.AttributeValueMemberB:
		return fmt.Sprintf("B:%q", v.Value)
	}
	return "?"
}

func TestEqualNumbersShareAKey(t *testing.T) {
	for _, pair := range [][2]string{{"1", "1.0"}, {"1.5", "15e-1"}, {"-0", "0"}, {"100", "1E2"}, {"0.001", "1e-3"}} {
		assert.EqualValuesf(t, Key(n(pair[1]), nil, nil), Key(n(pair[0]), nil, nil), "%s and %s have different keys", pair[0], pair[1])
	}
}

func TestPartitionWalksInOrderAndSwitchesStorage(t *testing.T) {
	c := New()
	pk := s("p")
	var want []string
	for i := 0; i < 200; i++ {
		v := fmt.Sprintf("%03d", (i*37)%200)
		want = append(want, v)
		e := &Entry{Sort: s(v), Key: Key(s(v), nil, nil)}
		old := c.Put(pk, "p", e)
		require.Nilf(t, old, "%s replaced an entry", v)
	}
	sort.Strings(want)
	var got []string
	c.Partition("p").Ascend("", func(e *Entry) bool {
		got = append(got, e.Sort.(*types.AttributeValueMemberS).Value)
		return true
	})
	require.EqualValuesf(t, strings.Join(want, ","), strings.Join(got, ","), "ascending order wrong")
	// Deleting down to one entry and back keeps lookups working.
	for _, v := range want[1:] {
		require.NotNilf(t, c.Delete("p", Key(s(v), nil, nil)), "delete %s found nothing", v)
	}
	require.Falsef(t, c.Len() != 1 || c.Get("p", Key(s(want[0]), nil, nil)) == nil, "last entry lost")
	c.Delete("p", Key(s(want[0]), nil, nil))
	require.False(t, c.Partition("p") != nil || c.Partitions() != 0, "empty partition kept")
}

func TestSegmentsCoverTheHashSpace(t *testing.T) {
	for _, total := range []int{1, 2, 3, 7, 1000} {
		for seg := 0; seg < total; seg++ {
			start := SegmentStart(seg, total)
			assert.EqualValuesf(t, seg, Segment(start, total), "total %d: start of segment %d is in segment %d", total, seg, Segment(start, total))
			assert.Falsef(t, seg > 0 && Segment(start-1, total) != seg-1, "total %d: hash before segment %d is in segment %d", total, seg, Segment(start-1, total))
		}
	}
}

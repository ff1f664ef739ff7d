package expr

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pairwiseClash is what checkPaths computes, the quadratic way: every
// pair in order, the first that overlaps, else the first that conflicts.
func pairwiseClash(paths []path) string {
	for _, overlap := range []bool{true, false} {
		for i := range paths {
			for j := i + 1; j < len(paths); j++ {
				if msg := clash(paths[i], paths[j], overlap); msg != "" {
					return msg
				}
			}
		}
	}
	return ""
}

func TestCheckPathsReportsThePairThePairwiseScanFinds(t *testing.T) {
	// Paths over two names and two indexes, up to three steps, clash
	// often; the trie must pick the very pair the pairwise scan picks.
	r := rand.New(rand.NewPCG(1, 2))
	elem := func() pathElem {
		if r.IntN(2) == 0 {
			return pathElem{name: string(rune('a' + r.IntN(2)))}
		}
		return pathElem{index: r.IntN(2), isIndex: true}
	}
	clashes := 0
	for range 20000 {
		paths := make([]path, 1+r.IntN(6))
		for i := range paths {
			pa := path{{name: string(rune('a' + r.IntN(3)))}}
			for range r.IntN(3) {
				pa = append(pa, elem())
			}
			paths[i] = pa
		}
		want := pairwiseClash(paths)
		p := &parser{kind: kindProjection}
		p.checkPaths(paths)
		got := ""
		if p.pending[phasePaths] != nil {
			got = strings.TrimPrefix(p.pending[phasePaths].Message, "Invalid ProjectionExpression: ")
			clashes++
		}
		require.Equalf(t, want, got, "paths %v", paths)
	}
	assert.Greater(t, clashes, 5000, "the random paths should clash often")
}

// The key-condition cache keys each template by the request's every
// placeholder; a request with thousands of them is parsed, not cached, or
// 1,024 requests with 2 MB of names each would pin 2 GB.
func TestKeyConditionsWithManyPlaceholdersAreNotCached(t *testing.T) {
	names := map[string]string{"#k": "pk"}
	for i := range 1000 {
		names["#unused"+strconv.Itoa(i)] = strings.Repeat("x", 100)
	}
	e := NewEnv(names, map[string]types.AttributeValue{":k": &types.AttributeValueMemberS{Value: "a"}})
	_, err := e.KeyCondition("#k = :k", "pk", "")
	require.NoError(t, err)
	keyConds.m.Range(func(key, _ any) bool {
		assert.NotContains(t, key.(string), "#unused", "a key condition with 1,001 names was cached")
		return true
	})
	// The small ones still are.
	e = NewEnv(map[string]string{"#k": "pk"}, map[string]types.AttributeValue{":k": &types.AttributeValueMemberS{Value: "a"}})
	_, err = e.KeyCondition("#k = :k", "pk", "")
	require.NoError(t, err)
	assert.NotNil(t, keyConds.get(keyConds.key(e, "#k = :k", "pk", "")))
}

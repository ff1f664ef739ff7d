package table

import (
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nm and v are expression.Name and expression.Value, for brevity.
var (
	nm = expression.Name
	v  = expression.Value
)

// builderCases make builders of many shapes, each from two values that
// differ, so that a builder made with a twice over is built from the
// cache with b's values in it.
var builderCases = map[string]func(a, b any) expression.Builder{
	"condition comparisons": func(a, b any) expression.Builder {
		c := nm("a").Equal(v(a)).And(nm("b").NotEqual(v(b)), nm("c").LessThan(v(a))).
			Or(nm("d").LessThanEqual(v(b)), nm("e").GreaterThan(v(a)), nm("f").GreaterThanEqual(v(b)))
		return expression.NewBuilder().WithCondition(c)
	},
	"condition functions": func(a, b any) expression.Builder {
		c := expression.AttributeExists(nm("pk")).And(
			expression.AttributeNotExists(nm("x.y[2]")),
			expression.AttributeType(nm("t"), expression.String),
			nm("s").BeginsWith(fmt.Sprint(a)),
			nm("l").Contains(fmt.Sprint(b)),
			nm("z").Size().GreaterThan(v(a)),
			nm("r").Between(v(a), v(b)),
			nm("i").In(v(a), v(b), v(a)),
			expression.Not(nm("q").Equal(v(b))),
		)
		return expression.NewBuilder().WithCondition(c)
	},
	"update actions": func(a, b any) expression.Builder {
		u := expression.Set(nm("a"), v(a)).
			Set(nm("b.c[1]"), nm("b.c[1]").Plus(v(b))).
			Set(nm("d"), nm("d").Minus(v(a))).
			Set(nm("e"), expression.ListAppend(nm("e"), v([]any{b}))).
			Set(nm("f"), expression.IfNotExists(nm("f"), v(a))).
			Remove(nm("g")).Remove(nm("h.i")).
			Add(nm("j"), v(b)).
			Delete(nm("k"), v([]string{fmt.Sprint(a)}))
		return expression.NewBuilder().WithUpdate(u).WithCondition(nm("a").NotEqual(v(b)))
	},
	"query": func(a, b any) expression.Builder {
		kc := expression.Key("pk").Equal(v(a)).And(expression.Key("sk").Between(v(a), v(b)))
		return expression.NewBuilder().WithKeyCondition(kc).
			WithFilter(nm("status").Equal(v(b))).
			WithProjection(expression.NamesList(nm("pk"), nm("sk"), nm("status")))
	},
	"key begins with": func(a, b any) expression.Builder {
		kc := expression.Key("pk").Equal(v(a)).And(expression.Key("sk").BeginsWith(fmt.Sprint(b)))
		return expression.NewBuilder().WithKeyCondition(kc)
	},
	"projection alone": func(a, b any) expression.Builder {
		return expression.NewBuilder().WithProjection(expression.NamesList(nm("a"), nm("b.c"), nm("d[0]")))
	},
	"attribute values given as such": func(a, b any) expression.Builder {
		u := expression.Set(nm("a"), v(&types.AttributeValueMemberS{Value: fmt.Sprint(a)})).
			Set(nm("b"), v(types.AttributeValueMemberN{Value: "7"})).
			Set(nm("c"), v(types.AttributeValueMemberS{Value: fmt.Sprint(b)}))
		return expression.NewBuilder().WithUpdate(u)
	},
}

// valuePairs are pairs of different values of the types marshalValue
// treats on its own and some it leaves to attributevalue.
var valuePairs = [][2]any{
	{"x", "y"},
	{1, 2},
	{int64(-5), int64(1 << 40)},
	{true, false},
	{time.Date(2025, 1, 2, 3, 4, 5, 600, time.UTC), time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))},
	{2.5, 3.25},
	{uint8(1), uint8(9)},
	{[]byte("a"), []byte("b")},
	{map[string]int{"a": 1}, map[string]int{"b": 2}},
}

// requireSameAsSDK asserts that Build renders b exactly as b.Build().
func requireSameAsSDK(t *testing.T, b expression.Builder) {
	t.Helper()
	want, err := b.Build()
	require.NoError(t, err)
	got, err := Build(b)
	require.NoError(t, err)
	assert.Equal(t, want.Condition(), got.Condition(), "condition")
	assert.Equal(t, want.Filter(), got.Filter(), "filter")
	assert.Equal(t, want.KeyCondition(), got.KeyCondition(), "key condition")
	assert.Equal(t, want.Projection(), got.Projection(), "projection")
	assert.Equal(t, want.Update(), got.Update(), "update")
	assert.Equal(t, want.Names(), got.Names(), "names")
	assert.Equal(t, want.Values(), got.Values(), "values")
}

func TestBuildRendersEveryShapeAsTheExpressionPackageFromItsCache(t *testing.T) {
	for name, mk := range builderCases {
		for _, vals := range valuePairs {
			t.Run(fmt.Sprintf("%s/%T", name, vals[0]), func(t *testing.T) {
				requireSameAsSDK(t, mk(vals[0], vals[1])) // learns the shape
				_, cached := shapeOf(t, mk(vals[0], vals[1]))
				assert.True(t, cached, "the shape is cached after one build")
				requireSameAsSDK(t, mk(vals[1], vals[0])) // other values, from the cache
				requireSameAsSDK(t, mk(vals[0], vals[0])) // equal values, from the cache
			})
		}
	}
}

// shapeOf is the cache key of b, and whether the cache holds its shape.
func shapeOf(t *testing.T, b expression.Builder) (string, bool) {
	t.Helper()
	p, ok := partsOf(b)
	require.True(t, ok)
	w := walkers.Get().(*walker)
	defer w.release()
	require.True(t, w.parts(p), "the builder is readable")
	return string(w.key), shapes.get(w.key) != nil
}

func TestBuildFillsEachValueInItsPlace(t *testing.T) {
	mk := func(a, b string) expression.Builder {
		// A shape of its own: no other test builds it.
		return expression.NewBuilder().WithUpdate(expression.Set(nm("fill-a"), v(a)).Set(nm("fill-b"), v(b)))
	}
	requireSameAsSDK(t, mk("same", "same"))
	_, cached := shapeOf(t, mk("same", "same"))
	require.True(t, cached)
	got, err := Build(mk("two", "one"))
	require.NoError(t, err)
	assert.Equal(t, map[string]types.AttributeValue{
		":0": &types.AttributeValueMemberS{Value: "two"}, ":1": &types.AttributeValueMemberS{Value: "one"},
	}, got.Values())
}

func TestBuildDoesNotCacheWhatItCannotRead(t *testing.T) {
	withOptions := expression.ValueWithOptions(time.Unix(5, 0), func(o *expression.ValueBuilderOptions) {
		o.EncoderOptions = append(o.EncoderOptions, func(eo *attributevalue.EncoderOptions) {
			eo.EncodeTime = func(t time.Time) (types.AttributeValue, error) {
				return &types.AttributeValueMemberN{Value: fmt.Sprint(t.Unix())}, nil
			}
		})
	})
	for name, b := range map[string]expression.Builder{
		"a value with encoder options": expression.NewBuilder().WithUpdate(expression.Set(nm("opts"), withOptions)),
		"an operand of the caller's":   expression.NewBuilder().WithCondition(nm("own").Equal(ownOperand{})),
	} {
		t.Run(name, func(t *testing.T) {
			requireSameAsSDK(t, b)
			requireSameAsSDK(t, b)
			p, ok := partsOf(b)
			require.True(t, ok)
			w := walkers.Get().(*walker)
			defer w.release()
			assert.False(t, w.parts(p), "not read, so never cached")
		})
	}
}

// unmarshalable is a value attributevalue cannot marshal.
type unmarshalable struct{}

func (unmarshalable) MarshalDynamoDBAttributeValue() (types.AttributeValue, error) {
	return nil, fmt.Errorf("no")
}

// ownOperand is an operand type the expression package does not define.
type ownOperand struct{}

func (ownOperand) BuildOperand() (expression.Operand, error) { return nm("other").BuildOperand() }

func TestBuildReportsTheExpressionPackagesErrors(t *testing.T) {
	for name, b := range map[string]expression.Builder{
		"unset builder":   {},
		"empty condition": expression.NewBuilder().WithCondition(expression.ConditionBuilder{}),
		"empty update":    expression.NewBuilder().WithUpdate(expression.UpdateBuilder{}),
		"unmarshalable":   expression.NewBuilder().WithUpdate(expression.Set(nm("ch"), v(unmarshalable{}))),
	} {
		t.Run(name, func(t *testing.T) {
			_, want := b.Build()
			require.Error(t, want)
			_, err := Build(b)
			assert.EqualError(t, err, want.Error())
		})
	}
	// A shape cached from good values reports a value that does not
	// marshal as the expression package does.
	good := expression.NewBuilder().WithUpdate(expression.Set(nm("later-bad"), v(1)))
	requireSameAsSDK(t, good)
	bad := expression.NewBuilder().WithUpdate(expression.Set(nm("later-bad"), v(unmarshalable{})))
	_, want := bad.Build()
	_, err := Build(bad)
	assert.EqualError(t, err, want.Error())
}

func TestBuildIsSafeForConcurrentUse(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				a, b := fmt.Sprint("g", g, "i", i), i
				u := expression.Set(nm("concurrent"), v(a)).Add(nm("count"), v(b))
				e, err := Build(expression.NewBuilder().WithUpdate(u))
				if assert.NoError(t, err) {
					// ADD renders before SET.
					assert.Equal(t, &types.AttributeValueMemberN{Value: fmt.Sprint(b)}, e.Values()[":0"])
					assert.Equal(t, &types.AttributeValueMemberS{Value: a}, e.Values()[":1"])
				}
			}
		})
	}
	wg.Wait()
}

func TestBuildReadsTheExpressionPackagesLayout(t *testing.T) {
	// If a release of the expression package lays its builders out
	// otherwise, Build still works but never caches: this test says so.
	for _, l := range layouts {
		assert.True(t, sameLayout(l.ours, l.theirs), "%s no longer matches %s", l.ours, l.theirs)
	}
	assert.True(t, readable)
	assert.False(t, sameLayout(reflect.TypeFor[nameParts](), reflect.TypeFor[keyParts]()))
}

func TestMarshalAttrIsAttributevalueMarshal(t *testing.T) {
	for _, x := range []any{"", "x", 0, -1, 1 << 62, int64(-1 << 63), true, false,
		time.Time{}, time.Date(2025, 1, 2, 3, 4, 5, 123456789, time.FixedZone("x", -7200))} {
		want, err := attributevalue.Marshal(x)
		require.NoError(t, err)
		got, err := marshalAttr(x)
		require.NoError(t, err)
		assert.Equal(t, want, got, "%T %v", x, x)
	}
}

func TestBuildCachesAtMostMaxCachedShapes(t *testing.T) {
	c := &shapeCache{m: map[string]*shape{}}
	for i := range MaxCachedShapes + 10 {
		c.put([]byte(fmt.Sprint(i)), &shape{})
	}
	assert.Len(t, c.m, MaxCachedShapes)
}

// BenchmarkBuild compares b.Build() with Build on a cached shape, the
// builder made anew for each (as a store does per call).
func BenchmarkBuild(b *testing.B) {
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	mk := func() expression.Builder {
		u := expression.Set(nm("status"), v("running")).Set(nm("updatedAt"), v(at)).Add(nm("attempts"), v(1))
		return expression.NewBuilder().WithUpdate(u).WithCondition(expression.AttributeExists(nm("pk")))
	}
	b.Run("expression.Builder.Build", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := mk().Build(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("table.Build", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Build(mk()); err != nil {
				b.Fatal(err)
			}
		}
	})
}

package table

import (
	"context"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestUpdateRejectsBadInputBeforeSending(t *testing.T) {
	c := newCalls(nil)
	tbl := New(c, thingsSchema)
	ctx := context.Background()
	set := expression.Set(expression.Name("name"), expression.Value("x"))
	for name, key := range badKeys(tbl) {
		t.Run(name, func(t *testing.T) { mustInputError(t, tbl.Update(ctx, key, set)) })
	}
	var a, b thing
	mustInputError(t, tbl.Update(ctx, tbl.Key("a", "b"), expression.UpdateBuilder{}))
	mustInputError(t, tbl.Update(ctx, tbl.Key("a", "b"), set, ReturnOld(&a), ReturnNew(&b)))
	mustInputError(t, tbl.Update(ctx, tbl.Key("a", "b"), set, IfExists(), IfNotExists()))
	mustInputError(t, tbl.Update(ctx, tbl.Key("a", "b"), set, ReturnNew(b)))
	mustInputError(t, tbl.Update(ctx, tbl.Key("a", "b"), set, If(expression.ConditionBuilder{})))
	for _, u := range []expression.UpdateBuilder{
		expression.Set(expression.Name("pk"), expression.Value("other")),
		expression.Set(expression.Name("name"), expression.Value("x")).Set(expression.Name("sk"), expression.Value("other")),
		expression.Set(expression.Name("name"), expression.Value("x")).Remove(expression.Name("sk")),
		expression.Add(expression.Name("pk"), expression.Value(1)),
		expression.Set(expression.Name("name"), expression.Value("x")).Set(expression.Name("sk.nested"), expression.Value(1)),
	} {
		mustInputError(t, tbl.Update(ctx, tbl.Key("a", "b"), u))
		mustInputError(t, tbl.WriteTx().Update(tbl.Key("a", "b"), u).Run(ctx))
	}
	assert.Zero(t, c.total(), "calls sent for bad input")
}

func TestUpdateTargetsAreTheWrittenTopLevelNames(t *testing.T) {
	u := expression.Set(expression.Name("a.b[2]"), expression.ListAppend(expression.Name("pk"), expression.Value([]int{1}))).
		Set(expression.Name("c"), expression.Name("sk").Plus(expression.Value(1))).
		Remove(expression.Name("e")).Remove(expression.Name("f.g")).
		Add(expression.Name("h"), expression.Value(1)).
		Delete(expression.Name("i"), expression.Value([]string{"x"})).
		Set(expression.Name("gsi1pk"), expression.IfNotExists(expression.Name("j"), expression.Value(0)))
	e, err := expression.NewBuilder().WithUpdate(u).Build()
	require.NoError(t, err)
	got := updateTargets(*e.Update(), e.Names())
	slices.Sort(got)
	require.Equal(t, []string{"a", "c", "e", "f", "gsi1pk", "h", "i"}, got, "targets (reading pk or sk on the right is fine)")
	tbl := New(nil, thingsSchema)
	require.NoError(t, tbl.checkUpdateTargets("update", got), "an update that only reads key attributes")
}

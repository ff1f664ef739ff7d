package table

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// txDouble answers TransactWriteItems with the queued errors, then success,
// recording each request.
type txDouble struct {
	API
	errs     []error
	requests []*dynamodb.TransactWriteItemsInput
	onCall   func(n int)
}

func (d *txDouble) TransactWriteItems(_ context.Context, in *dynamodb.TransactWriteItemsInput, _ ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	d.requests = append(d.requests, in)
	if d.onCall != nil {
		d.onCall(len(d.requests))
	}
	if len(d.errs) > 0 {
		err := d.errs[0]
		d.errs = d.errs[1:]
		return nil, err
	}
	return &dynamodb.TransactWriteItemsOutput{}, nil
}

func canceled(codes ...string) error {
	var reasons []types.CancellationReason
	for _, c := range codes {
		reasons = append(reasons, types.CancellationReason{Code: strPtr(c), Message: strPtr(c + " message")})
	}
	return &types.TransactionCanceledException{
		Message:             strPtr("Transaction cancelled, please refer cancellation reasons for specific reasons " + fmt.Sprint(codes)),
		CancellationReasons: reasons,
	}
}

func twoActions(tbl *Table) *WriteTx {
	return tbl.WriteTx().
		Put(thing{PK: "a", SK: "1"}).
		Update(tbl.Key("a", "2"), expression.Add(expression.Name("count"), expression.Value(1)))
}

func TestWriteTxRetriesConflictsUnderOneToken(t *testing.T) {
	db := &txDouble{errs: []error{
		canceled("None", "TransactionConflict"),
		&types.TransactionConflictException{Message: strPtr("conflict")},
		canceled("ThrottlingError", "None"),
		&types.ProvisionedThroughputExceededException{Message: strPtr("hot")},
		&types.TransactionInProgressException{Message: strPtr("still running")},
	}}
	tbl := New(db, thingsSchema, fastBackoff)
	require.NoError(t, twoActions(tbl).Run(context.Background()))
	require.Len(t, db.requests, 6, "want 6 requests (5 retried failures, then success)")
	token := *db.requests[0].ClientRequestToken
	require.NotEmpty(t, token, "token %q is not a valid ClientRequestToken", token)
	require.LessOrEqual(t, len(token), 36, "token %q is not a valid ClientRequestToken", token)
	for i, r := range db.requests {
		require.Equal(t, token, *r.ClientRequestToken, "request %d used another token: a retry could apply twice", i)
	}
}

func TestWriteTxUsesCallersToken(t *testing.T) {
	db := &txDouble{}
	tbl := New(db, thingsSchema)
	require.NoError(t, twoActions(tbl).Token("request-42").Run(context.Background()))
	require.Equal(t, "request-42", *db.requests[0].ClientRequestToken)
}

func TestWriteTxDoesNotRetryFailedConditions(t *testing.T) {
	db := &txDouble{errs: []error{canceled("None", "ConditionalCheckFailed")}}
	tbl := New(db, thingsSchema, fastBackoff)
	err := twoActions(tbl).Run(context.Background())
	require.ErrorIs(t, err, ErrConditionFailed)
	require.Len(t, db.requests, 1)
}

func TestWriteTxGivesUpAfterTxAttempts(t *testing.T) {
	var errs []error
	for range 10 {
		errs = append(errs, canceled("TransactionConflict", "None"))
	}
	db := &txDouble{errs: errs}
	tbl := New(db, thingsSchema, fastBackoff, func(o *Options) { o.TxAttempts = 3 })
	err := twoActions(tbl).Run(context.Background())
	require.ErrorIs(t, err, ErrTransactionConflict)
	require.ErrorIs(t, err, ErrTransactionCanceled)
	require.Len(t, db.requests, 3)
}

func TestWriteTxStopsRetryingWhenContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var errs []error
	for range 10 {
		errs = append(errs, canceled("TransactionConflict", "None"))
	}
	db := &txDouble{errs: errs, onCall: func(n int) {
		if n == 2 {
			cancel()
		}
	}}
	err := twoActions(New(db, thingsSchema)).Run(ctx)
	require.ErrorIs(t, err, context.Canceled)
	require.Len(t, db.requests, 2)
}

func TestTxErrorNamesEachFailedActionAndWhy(t *testing.T) {
	db := &txDouble{errs: []error{canceled("None", "ConditionalCheckFailed", "ConditionalCheckFailed", "None")}}
	tbl := New(db, thingsSchema)
	err := tbl.WriteTx().
		Put(thing{PK: "a", SK: "0"}).
		Create(thing{PK: "a", SK: "1"}).
		Check(tbl.Key("a", "2"), expression.Name("count").GreaterThan(expression.Value(0))).
		Delete(tbl.Key("a", "3"), IfExists()).
		Run(context.Background())
	var txe *TxError
	require.ErrorAs(t, err, &txe)
	want := []TxReason{
		{Index: 1, Action: "Create", Key: `pk="a", sk="1"`, Code: "ConditionalCheckFailed"},
		{Index: 2, Action: "Check", Key: `pk="a", sk="2"`, Code: "ConditionalCheckFailed"},
	}
	require.Len(t, txe.Reasons, len(want), "reasons = %+v", txe.Reasons)
	for i, w := range want {
		r := txe.Reasons[i]
		assert.Equal(t, w.Index, r.Index, "reason %d = %+v, want %+v", i, r, w)
		assert.Equal(t, w.Action, r.Action, "reason %d = %+v, want %+v", i, r, w)
		assert.Equal(t, w.Key, r.Key, "reason %d = %+v, want %+v", i, r, w)
		assert.Equal(t, w.Code, r.Code, "reason %d = %+v, want %+v", i, r, w)
	}
	for _, s := range []error{ErrTransactionCanceled, ErrAlreadyExists, ErrConditionFailed} {
		assert.ErrorIs(t, err, s)
	}
	assert.NotErrorIs(t, err, ErrNotFound, "the Delete did not fail, yet the error matches ErrNotFound")
	msg := err.Error()
	for _, part := range []string{`action 1 Create (pk="a", sk="1"): ConditionalCheckFailed`, `action 2 Check (pk="a", sk="2"): ConditionalCheckFailed`} {
		assert.Contains(t, msg, part)
	}
	var tce *types.TransactionCanceledException
	assert.ErrorAs(t, err, &tce, "SDK error not reachable")
}

func TestWriteTxRejectsBadInputBeforeSending(t *testing.T) {
	var old thing
	calls := newCalls(nil)
	tbl := New(calls, thingsSchema)
	tooMany := tbl.WriteTx()
	for i := range 101 {
		tooMany.Put(thing{PK: "a", SK: fmt.Sprint(i)})
	}
	bigTx := tbl.WriteTx()
	for i := range 11 {
		bigTx.Put(thing{PK: "a", SK: fmt.Sprint(i), Name: strings.Repeat("x", 390*1024)})
	}
	cases := map[string]*WriteTx{
		"no actions":         tbl.WriteTx(),
		"101 actions":        tooMany,
		"over 4 MB":          bigTx,
		"same item twice":    tbl.WriteTx().Put(thing{PK: "a", SK: "1"}).Delete(tbl.Key("a", "1")),
		"check and update":   tbl.WriteTx().Check(tbl.Key("a", "1"), expression.AttributeExists(expression.Name("pk"))).Update(tbl.Key("a", "1"), expression.Set(expression.Name("n"), expression.Value(1))),
		"bad put":            tbl.WriteTx().Put(thing{PK: "a"}),
		"bad create":         tbl.WriteTx().Create(nil),
		"bad update key":     tbl.WriteTx().Update(tbl.Key("a"), expression.Set(expression.Name("n"), expression.Value(1))),
		"empty update":       tbl.WriteTx().Update(tbl.Key("a", "b"), expression.UpdateBuilder{}),
		"bad delete key":     tbl.WriteTx().Delete(nil),
		"bad check key":      tbl.WriteTx().Check(Key{}, expression.AttributeExists(expression.Name("pk"))),
		"empty condition":    tbl.WriteTx().Check(tbl.Key("a", "b"), expression.ConditionBuilder{}),
		"return old":         tbl.WriteTx().Delete(tbl.Key("a", "b"), ReturnOld(&old)),
		"empty token":        tbl.WriteTx().Put(thing{PK: "a", SK: "b"}).Token(""),
		"token over 36":      tbl.WriteTx().Put(thing{PK: "a", SK: "b"}).Token(strings.Repeat("t", 37)),
		"both existence":     tbl.WriteTx().Put(thing{PK: "a", SK: "b"}, IfExists(), IfNotExists()),
		"error before valid": tbl.WriteTx().Put(nil).Put(thing{PK: "a", SK: "b"}),
	}
	for name, tx := range cases {
		t.Run(name, func(t *testing.T) {
			mustInputError(t, tx.Run(context.Background()))
			assert.Zero(t, calls.total(), "calls sent for bad input")
		})
	}
	assert.ErrorContains(t, tooMany.Run(context.Background()), "100 actions", "the message does not give the limit")
}

// getTxDouble answers TransactGetItems from a memDB.
type getTxDouble struct {
	*memDB
	errs []error
	n    int
}

func (d *getTxDouble) TransactGetItems(ctx context.Context, in *dynamodb.TransactGetItemsInput, _ ...func(*dynamodb.Options)) (*dynamodb.TransactGetItemsOutput, error) {
	d.n++
	if len(d.errs) > 0 {
		err := d.errs[0]
		d.errs = d.errs[1:]
		return nil, err
	}
	out := &dynamodb.TransactGetItemsOutput{}
	for _, g := range in.TransactItems {
		got, _ := d.GetItem(ctx, &dynamodb.GetItemInput{Key: g.Get.Key})
		out.Responses = append(out.Responses, types.ItemResponse{Item: got.Item})
	}
	return out, nil
}

func TestGetTxFillsFoundItemsAndNamesMissingOne(t *testing.T) {
	db := &getTxDouble{memDB: newMemDB(), errs: []error{canceled("TransactionConflict", "None", "None")}}
	tbl := New(db, thingsSchema, fastBackoff)
	ctx := context.Background()
	for _, sk := range []string{"1", "3"} {
		require.NoError(t, tbl.Put(ctx, thing{PK: "a", SK: sk, Name: "n" + sk}))
	}
	var one, two, three thing
	err := tbl.GetTx().Get(tbl.Key("a", "1"), &one).Get(tbl.Key("a", "2"), &two).Get(tbl.Key("a", "3"), &three).Run(ctx)
	require.ErrorIs(t, err, ErrNotFound)
	require.ErrorContains(t, err, `sk="2"`)
	require.Equal(t, "n1", one.Name, "one = %+v", one)
	require.Equal(t, "n3", three.Name, "three = %+v", three)
	require.Equal(t, thing{}, two, "two = %+v", two)
	require.Equal(t, 2, db.n, "TransactGetItems calls, want 2 (one conflict retried)")
}

func TestGetTxRejectsBadInputBeforeSending(t *testing.T) {
	var v thing
	tbl := New(nil, thingsSchema)
	tooMany := tbl.GetTx()
	for i := range 101 {
		tooMany.Get(tbl.Key("a", fmt.Sprint(i)), &v)
	}
	cases := map[string]*GetTx{
		"no reads":        tbl.GetTx(),
		"101 reads":       tooMany,
		"bad key":         tbl.GetTx().Get(tbl.Key("a"), &v),
		"nil out":         tbl.GetTx().Get(tbl.Key("a", "b"), nil),
		"non-pointer out": tbl.GetTx().Get(tbl.Key("a", "b"), v),
		"same key twice":  tbl.GetTx().Get(tbl.Key("a", "b"), &v).Get(tbl.Key("a", "b"), &v),
	}
	for name, g := range cases {
		t.Run(name, func(t *testing.T) {
			calls := newCalls(nil)
			g.t = New(calls, thingsSchema)
			mustInputError(t, g.Run(context.Background()))
			require.Zero(t, calls.total(), "calls sent for bad input")
		})
	}
}

package table

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
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
	if err := twoActions(tbl).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(db.requests) != 6 {
		t.Fatalf("%d requests, want 6 (5 retried failures, then success)", len(db.requests))
	}
	token := *db.requests[0].ClientRequestToken
	if token == "" || len(token) > 36 {
		t.Fatalf("token %q is not a valid ClientRequestToken", token)
	}
	for i, r := range db.requests {
		if *r.ClientRequestToken != token {
			t.Fatalf("request %d used token %q, want %q: a retry could apply twice", i, *r.ClientRequestToken, token)
		}
	}
}

func TestWriteTxUsesCallersToken(t *testing.T) {
	db := &txDouble{}
	tbl := New(db, thingsSchema)
	if err := twoActions(tbl).Token("request-42").Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := *db.requests[0].ClientRequestToken; got != "request-42" {
		t.Fatalf("token = %q", got)
	}
}

func TestWriteTxDoesNotRetryFailedConditions(t *testing.T) {
	db := &txDouble{errs: []error{canceled("None", "ConditionalCheckFailed")}}
	tbl := New(db, thingsSchema, fastBackoff)
	err := twoActions(tbl).Run(context.Background())
	if !errors.Is(err, ErrConditionFailed) || len(db.requests) != 1 {
		t.Fatalf("err = %v after %d requests, want ErrConditionFailed after 1", err, len(db.requests))
	}
}

func TestWriteTxGivesUpAfterTxAttempts(t *testing.T) {
	var errs []error
	for range 10 {
		errs = append(errs, canceled("TransactionConflict", "None"))
	}
	db := &txDouble{errs: errs}
	tbl := New(db, thingsSchema, fastBackoff, func(o *Options) { o.TxAttempts = 3 })
	err := twoActions(tbl).Run(context.Background())
	if !errors.Is(err, ErrTransactionConflict) || !errors.Is(err, ErrTransactionCanceled) {
		t.Fatalf("err = %v, want a conflict", err)
	}
	if len(db.requests) != 3 {
		t.Fatalf("%d requests, want 3", len(db.requests))
	}
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
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if len(db.requests) != 2 {
		t.Fatalf("%d requests, want 2", len(db.requests))
	}
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
	if !errors.As(err, &txe) {
		t.Fatalf("err = %v (%T), want *TxError", err, err)
	}
	want := []TxReason{
		{Index: 1, Action: "Create", Key: `pk="a", sk="1"`, Code: "ConditionalCheckFailed"},
		{Index: 2, Action: "Check", Key: `pk="a", sk="2"`, Code: "ConditionalCheckFailed"},
	}
	if len(txe.Reasons) != len(want) {
		t.Fatalf("reasons = %+v", txe.Reasons)
	}
	for i, w := range want {
		r := txe.Reasons[i]
		if r.Index != w.Index || r.Action != w.Action || r.Key != w.Key || r.Code != w.Code {
			t.Errorf("reason %d = %+v, want %+v", i, r, w)
		}
	}
	for _, s := range []error{ErrTransactionCanceled, ErrAlreadyExists, ErrConditionFailed} {
		if !errors.Is(err, s) {
			t.Errorf("errors.Is(err, %v) = false", s)
		}
	}
	if errors.Is(err, ErrNotFound) {
		t.Error("the Delete did not fail, yet the error matches ErrNotFound")
	}
	msg := err.Error()
	for _, part := range []string{`action 1 Create (pk="a", sk="1"): ConditionalCheckFailed`, `action 2 Check (pk="a", sk="2"): ConditionalCheckFailed`} {
		if !strings.Contains(msg, part) {
			t.Errorf("message %q lacks %q", msg, part)
		}
	}
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		t.Error("SDK error not reachable")
	}
}

func TestWriteTxRejectsBadInputBeforeSending(t *testing.T) {
	var old thing
	tbl := New(nil, thingsSchema)
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
			calls := newCalls(nil)
			tx.t = New(calls, thingsSchema)
			mustInputError(t, tx.Run(context.Background()))
			if calls.total() != 0 {
				t.Fatalf("%d calls sent for bad input", calls.total())
			}
		})
	}
	if err := tooMany.Run(context.Background()); !strings.Contains(err.Error(), "100 actions") {
		t.Errorf("message %q does not give the limit", err)
	}
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
		if err := tbl.Put(ctx, thing{PK: "a", SK: sk, Name: "n" + sk}); err != nil {
			t.Fatal(err)
		}
	}
	var one, two, three thing
	err := tbl.GetTx().Get(tbl.Key("a", "1"), &one).Get(tbl.Key("a", "2"), &two).Get(tbl.Key("a", "3"), &three).Run(ctx)
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), `sk="2"`) {
		t.Fatalf("err = %v, want ErrNotFound naming sk=\"2\"", err)
	}
	if one.Name != "n1" || three.Name != "n3" || two != (thing{}) {
		t.Fatalf("one = %+v, two = %+v, three = %+v", one, two, three)
	}
	if db.n != 2 {
		t.Fatalf("%d TransactGetItems calls, want 2 (one conflict retried)", db.n)
	}
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
			if calls.total() != 0 {
				t.Fatalf("%d calls sent for bad input", calls.total())
			}
		})
	}
}

package conformance

import (
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func txSeed() []Item {
	return Items(
		I("pk", "a", "sk", "1", "n", 1, "s", "x"),
		I("pk", "b", "sk", "1", "n", 2),
		I("pk", "c", "sk", "1", "n", 3),
	)
}

func txCases() []Case {
	v := Vals
	seed := txSeed()
	ka, kb, kc := I("pk", "a", "sk", "1"), I("pk", "b", "sk", "1"), I("pk", "c", "sk", "1")
	newItem := I("pk", "d", "sk", "1", "n", 4)
	tx := func(actions ...types.TransactWriteItem) dynamodb.TransactWriteItemsInput {
		return dynamodb.TransactWriteItemsInput{TransactItems: actions}
	}
	withToken := func(in dynamodb.TransactWriteItemsInput, token string) dynamodb.TransactWriteItemsInput {
		in.ClientRequestToken = aws.String(token)
		return in
	}
	ccfOld := func(a types.TransactWriteItem) types.TransactWriteItem {
		switch {
		case a.Put != nil:
			a.Put.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
		case a.Update != nil:
			a.Update.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
		case a.Delete != nil:
			a.Delete.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
		case a.ConditionCheck != nil:
			a.ConditionCheck.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
		}
		return a
	}
	many := func(n int) []types.TransactWriteItem {
		out := make([]types.TransactWriteItem, n)
		for i := range n {
			out[i] = TxPut(I("pk", fmt.Sprintf("t%03d", i), "sk", "1"), "", nil)
		}
		return out
	}
	manyItems := func(n int) []Item {
		out := make([]Item, n)
		for i := range n {
			out[i] = I("pk", fmt.Sprintf("t%03d", i), "sk", "1")
		}
		return out
	}
	return []Case{
		TxWriteCase("txwrite/all-actions-apply", PKSK, seed, tx(
			TxPut(newItem, "attribute_not_exists(pk)", nil),
			TxUpdate(ka, "SET n = n + :one", "", v(":one", 1)),
			TxDelete(kb, "", nil),
			TxCheck(kc, "n = :three", v(":three", 3)),
		), Want{After: Items(I("pk", "a", "sk", "1", "n", 2, "s", "x"), seed[2], newItem)}),
		TxWriteCase("txwrite/check-fails-nothing-applies", PKSK, seed, tx(
			TxPut(newItem, "", nil),
			TxUpdate(ka, "SET n = n + :one", "", v(":one", 1)),
			TxCheck(kc, "n = :four", v(":four", 4)),
		), Want{Err: "TransactionCanceledException", Reasons: []string{"None", "None", "ConditionalCheckFailed"}}),
		TxWriteCase("txwrite/put-condition-fails", PKSK, seed, tx(
			TxPut(I("pk", "a", "sk", "1", "n", 9), "attribute_not_exists(pk)", nil),
			TxDelete(kb, "", nil),
		), Want{Err: "TransactionCanceledException", Reasons: []string{"ConditionalCheckFailed", "None"}}),
		TxWriteCase("txwrite/update-condition-fails", PKSK, seed, tx(
			TxDelete(kb, "", nil),
			TxUpdate(ka, "SET n = :n", "n = :old", v(":n", 5, ":old", 7)),
		), Want{Err: "TransactionCanceledException", Reasons: []string{"None", "ConditionalCheckFailed"}}),
		TxWriteCase("txwrite/delete-condition-fails", PKSK, seed, tx(
			TxDelete(I("pk", "z", "sk", "1"), "attribute_exists(pk)", nil),
		), Want{Err: "TransactionCanceledException", Reasons: []string{"ConditionalCheckFailed"}}),
		TxWriteCase("txwrite/every-failed-condition-is-reported", PKSK, seed, tx(
			TxCheck(ka, "n = :x", v(":x", 0)),
			TxCheck(kb, "n = :y", v(":y", 2)),
			TxCheck(kc, "n = :x", v(":x", 0)),
		), Want{Err: "TransactionCanceledException", Reasons: []string{"ConditionalCheckFailed", "None", "ConditionalCheckFailed"}}),
		// Asked for its consumed capacity, a cancelled transaction still
		// answers only the cancellation: DynamoDB returns no
		// ConsumedCapacity with it (paritysuite/dynamodb-conformance PR 67,
		// characterised against DynamoDB). What it bills, its prepare
		// phase, shows in the fake's Consumed and Meter, not in answers
		// (dynamotest's recordPrepared).
		{Name: "txwrite/cancelled-with-capacity-asked-answers-the-cancellation-alone", Seed: seed, Run: func(c *C) {
			for _, mode := range []types.ReturnConsumedCapacity{types.ReturnConsumedCapacityTotal, types.ReturnConsumedCapacityIndexes} {
				out, err := c.API.TransactWriteItems(c.Ctx, &dynamodb.TransactWriteItemsInput{ReturnConsumedCapacity: mode,
					TransactItems: c.FillTx([]types.TransactWriteItem{
						TxPut(I("pk", "a", "sk", "1", "n", 9), "attribute_not_exists(pk)", nil),
						TxPut(newItem, "", nil),
					})})
				if out != nil {
					c.Errorf("%s: a cancelled transaction answered an output %+v", mode, out)
				}
				c.ExpectReasons(err, "ConditionalCheckFailed", "None")
			}
			c.ExpectUnchanged()
		}},
		{Name: "txwrite/reason-carries-old-item-when-asked", Seed: seed, Run: func(c *C) {
			_, err := c.API.TransactWriteItems(c.Ctx, &dynamodb.TransactWriteItemsInput{TransactItems: c.FillTx([]types.TransactWriteItem{
				TxPut(newItem, "", nil),
				ccfOld(TxUpdate(ka, "SET n = :n", "n = :old", v(":n", 5, ":old", 7))),
				TxCheck(kb, "n = :x", v(":x", 0)),
			})})
			reasons := c.ExpectReasons(err, "None", "ConditionalCheckFailed", "ConditionalCheckFailed")
			if len(reasons) == 3 {
				c.ExpectItem("reason 0 item", reasons[0].Item, nil)
				c.ExpectItem("reason 1 item (asked for ALL_OLD)", reasons[1].Item, seed[0])
				c.ExpectItem("reason 2 item (not asked)", reasons[2].Item, nil)
				if msg := aws.ToString(reasons[1].Message); !strings.Contains(msg, "conditional request failed") {
					c.Errorf("reason 1 message %q; want DynamoDB's \"The conditional request failed\"", msg)
				}
			}
			c.ExpectUnchanged()
		}},
		{Name: "txwrite/error-message-lists-reasons", Seed: seed, Run: func(c *C) {
			_, err := c.API.TransactWriteItems(c.Ctx, &dynamodb.TransactWriteItemsInput{TransactItems: c.FillTx([]types.TransactWriteItem{
				TxCheck(ka, "n = :x", v(":x", 0)), TxCheck(kb, "n = :y", v(":y", 2)),
			})})
			c.ExpectErr(err, "TransactionCanceledException", "Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed, None]")
		}},
		TxWriteCase("txwrite/update-creates-missing-item", PKSK, seed, tx(TxUpdate(I("pk", "z", "sk", "1"), "SET n = :n", "", v(":n", 1))),
			Want{After: append(txSeed(), I("pk", "z", "sk", "1", "n", 1))}),
		TxWriteCase("txwrite/hundred-actions", PKSK, nil, tx(many(100)...), Want{After: manyItems(100)}),
		TxWriteCase("txwrite/two-tables-one-key-each", PKSK, seed, tx(TxUpdate(ka, "SET n = :n", "", v(":n", 0))),
			Want{After: Items(I("pk", "a", "sk", "1", "n", 0, "s", "x"), seed[1], seed[2])}),
		TxWriteCase("txwrite-error/more-than-100-actions", PKSK, nil, tx(many(101)...), Want{Err: "ValidationException"}),
		TxWriteCase("txwrite-error/two-actions-on-one-item", PKSK, seed, tx(
			TxUpdate(ka, "SET n = :n", "", v(":n", 5)),
			TxCheck(ka, "attribute_exists(pk)", nil),
		), Want{Err: "ValidationException", Msg: "multiple operations on one item"}),
		TxWriteCase("txwrite-error/put-and-delete-one-item", PKSK, seed, tx(TxPut(newItem, "", nil), TxDelete(I("pk", "d", "sk", "1"), "", nil)),
			Want{Err: "ValidationException", Msg: "multiple operations on one item"}),
		TxWriteCase("txwrite-error/empty", PKSK, seed, tx(), Want{Err: "ValidationException"}),
		TxWriteCase("txwrite-error/invalid-update-expression", PKSK, seed, tx(TxPut(newItem, "", nil), TxUpdate(ka, "SET n = = :n", "", v(":n", 1))),
			Want{Err: "ValidationException"}),
		TxWriteCase("txwrite-error/unused-value", PKSK, seed, tx(TxCheck(ka, "n = :n", v(":n", 1, ":x", 2))), Want{Err: "ValidationException"}),
		{Name: "txwrite/key-attribute-update-cancels-with-validation-reason", Seed: seed, Run: func(c *C) {
			// DynamoDB Local reports one reason here, not one per action, so
			// only the ValidationError reason itself is pinned down.
			_, err := c.API.TransactWriteItems(c.Ctx, &dynamodb.TransactWriteItemsInput{TransactItems: c.FillTx([]types.TransactWriteItem{
				TxCheck(kb, "attribute_exists(pk)", nil), TxUpdate(ka, "SET sk = :s", "", v(":s", "2")),
			})})
			c.ExpectErr(err, "TransactionCanceledException")
			codes, _ := CancellationCodes(err)
			if !strings.Contains(strings.Join(codes, ","), "ValidationError") {
				c.Errorf("cancellation reasons %v; want a ValidationError", codes)
			}
			c.ExpectUnchanged()
		}},
		TxWriteCase("txwrite-error/item-missing-key", PKSK, seed, tx(TxPut(I("pk", "q"), "", nil)), Want{Err: "ValidationException"}),
		TxWriteCase("txwrite-error/item-too-large", PKSK, seed, tx(TxPut(newItem, "", nil), TxPut(I("pk", "big", "sk", "1", "d", strings.Repeat("x", 400*1024)), "", nil)),
			Want{Err: "ValidationException"}),
		TxWriteCase("txwrite-error/action-with-no-operation", PKSK, seed, tx(types.TransactWriteItem{}), Want{Err: "ValidationException"}),
		{Name: "txwrite-error/missing-table", NoTable: true, Run: func(c *C) {
			_, err := c.API.TransactWriteItems(c.Ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: aws.String(c.UniqueTableName("missing")), Item: I("pk", "a")}},
			}})
			c.ExpectErr(err, "ResourceNotFoundException")
		}},
		{Name: "txwrite/same-key-in-two-tables-is-two-items", Seed: seed, Run: func(c *C) {
			other := c.CreateTable(PKSK)
			_, err := c.API.TransactWriteItems(c.Ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: c.TableName(), Item: I("pk", "a", "sk", "1", "n", 10)}},
				{Put: &types.Put{TableName: aws.String(other), Item: I("pk", "a", "sk", "1", "n", 20)}},
			}})
			c.OK(err)
			c.ExpectTable(Items(I("pk", "a", "sk", "1", "n", 10), seed[1], seed[2]))
			c.ExpectSameItems(other, c.AllOf(other), Items(I("pk", "a", "sk", "1", "n", 20)))
		}},

		// ClientRequestToken makes a retried transaction apply once.
		{Name: "txwrite/token-retry-applies-once", Seed: seed, Run: func(c *C) {
			in := withToken(tx(TxUpdate(ka, "ADD n :one", "", v(":one", 1))), c.Token())
			for range 3 {
				in := in
				in.TransactItems = c.FillTx(in.TransactItems)
				_, err := c.API.TransactWriteItems(c.Ctx, &in)
				c.OK(err)
			}
			c.ExpectTable(Items(I("pk", "a", "sk", "1", "n", 2, "s", "x"), seed[1], seed[2]))
		}},
		{Name: "txwrite/token-reuse-with-other-request-is-rejected", Seed: seed, Run: func(c *C) {
			token := c.Token()
			first := withToken(tx(TxUpdate(ka, "ADD n :one", "", v(":one", 1))), token)
			first.TransactItems = c.FillTx(first.TransactItems)
			_, err := c.API.TransactWriteItems(c.Ctx, &first)
			c.OK(err)
			second := withToken(tx(TxUpdate(kb, "ADD n :one", "", v(":one", 1))), token)
			second.TransactItems = c.FillTx(second.TransactItems)
			_, err = c.API.TransactWriteItems(c.Ctx, &second)
			c.ExpectErr(err, "IdempotentParameterMismatchException")
			c.ExpectTable(Items(I("pk", "a", "sk", "1", "n", 2, "s", "x"), seed[1], seed[2]))
		}},
		{Name: "txwrite/different-tokens-apply-twice", Seed: seed, Run: func(c *C) {
			for range 2 {
				in := withToken(tx(TxUpdate(ka, "ADD n :one", "", v(":one", 1))), c.Token())
				in.TransactItems = c.FillTx(in.TransactItems)
				_, err := c.API.TransactWriteItems(c.Ctx, &in)
				c.OK(err)
			}
			c.ExpectTable(Items(I("pk", "a", "sk", "1", "n", 3, "s", "x"), seed[1], seed[2]))
		}},
		TxWriteCase("txwrite-error/token-too-long", PKSK, seed, withToken(tx(TxPut(newItem, "", nil)), strings.Repeat("t", 37)), Want{Err: "ValidationException"}),

		// TransactGetItems.
		TxGetCase("txget/in-request-order", PKSK, seed, []types.TransactGetItem{TxGet(kc), TxGet(ka), TxGet(kb)}, Want{Items: Items(seed[2], seed[0], seed[1])}),
		TxGetCase("txget/missing-item-is-empty-response", PKSK, seed, []types.TransactGetItem{TxGet(ka), TxGet(I("pk", "z", "sk", "1"))}, Want{Items: Items(seed[0], Item{})}),
		TxGetCase("txget/projection", PKSK, seed, []types.TransactGetItem{{Get: &types.Get{Key: ka, ProjectionExpression: aws.String("s")}}}, Want{Items: Items(I("s", "x"))}),
		TxGetCase("txget-error/two-gets-one-item", PKSK, seed, []types.TransactGetItem{TxGet(ka), TxGet(ka)}, Want{Err: "ValidationException"}),
		TxGetCase("txget-error/more-than-100", PKSK, nil, func() []types.TransactGetItem {
			var gets []types.TransactGetItem
			for i := range 101 {
				gets = append(gets, TxGet(I("pk", fmt.Sprintf("t%03d", i), "sk", "1")))
			}
			return gets
		}(), Want{Err: "ValidationException"}),
		TxGetCase("txget-error/key-not-matching-schema", PKSK, seed, []types.TransactGetItem{TxGet(I("pk", "a"))}, Want{Err: "TransactionCanceledException"}),
		TxGetCase("txget-error/empty", PKSK, seed, []types.TransactGetItem{}, Want{Err: "ValidationException"}),
		{Name: "txget/sees-committed-transaction", Seed: seed, Run: func(c *C) {
			_, err := c.API.TransactWriteItems(c.Ctx, &dynamodb.TransactWriteItemsInput{TransactItems: c.FillTx([]types.TransactWriteItem{
				TxUpdate(ka, "SET n = :n", "", v(":n", 100)), TxUpdate(kb, "SET n = :n", "", v(":n", 200)),
			})})
			c.OK(err)
			out, err := c.API.TransactGetItems(c.Ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
				{Get: &types.Get{TableName: c.TableName(), Key: ka, ProjectionExpression: aws.String("n")}},
				{Get: &types.Get{TableName: c.TableName(), Key: kb, ProjectionExpression: aws.String("n")}},
			}})
			c.OK(err)
			c.ExpectItems("responses", []Item{out.Responses[0].Item, out.Responses[1].Item}, Items(I("n", 100), I("n", 200)))
		}},
		{Name: "txget-error/missing-table", NoTable: true, Run: func(c *C) {
			_, err := c.API.TransactGetItems(c.Ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
				{Get: &types.Get{TableName: aws.String(c.UniqueTableName("missing")), Key: I("pk", "a")}},
			}})
			c.ExpectErr(err, "ResourceNotFoundException")
		}},
	}
}

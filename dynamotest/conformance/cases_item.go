package conformance

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func existing() Item { return I("pk", "a", "sk", "1", "n", 1, "s", "old", "gone", "x") }

func putCases() []Case {
	v := Vals
	old := existing()
	fresh := I("pk", "a", "sk", "1", "n", 2)
	other := I("pk", "b", "sk", "1", "n", 1)
	put := func(item Item) dynamodb.PutItemInput { return dynamodb.PutItemInput{Item: item} }
	cond := func(item Item, expr string, vals map[string]types.AttributeValue) dynamodb.PutItemInput {
		return dynamodb.PutItemInput{Item: item, ConditionExpression: aws.String(expr), ExpressionAttributeValues: vals}
	}
	seed := Items(existing())
	return []Case{
		PutCase("put/new-item", PKSK, seed, put(other), Want{After: Items(old, other)}),
		PutCase("put/replaces-whole-item", PKSK, seed, put(fresh), Want{After: Items(fresh)}),
		PutCase("put/return-all-old-on-replace", PKSK, seed, dynamodb.PutItemInput{Item: fresh, ReturnValues: types.ReturnValueAllOld},
			Want{Attrs: old, After: Items(fresh)}),
		PutCase("put/return-all-old-on-new-item-is-empty", PKSK, seed, dynamodb.PutItemInput{Item: other, ReturnValues: types.ReturnValueAllOld},
			Want{After: Items(old, other)}),
		PutCase("put/return-none", PKSK, seed, dynamodb.PutItemInput{Item: fresh, ReturnValues: types.ReturnValueNone}, Want{After: Items(fresh)}),
		PutCase("put-error/return-all-new-not-allowed", PKSK, seed, dynamodb.PutItemInput{Item: fresh, ReturnValues: types.ReturnValueAllNew},
			Want{Err: "ValidationException"}),
		PutCase("put-error/return-updated-old-not-allowed", PKSK, seed, dynamodb.PutItemInput{Item: fresh, ReturnValues: types.ReturnValueUpdatedOld},
			Want{Err: "ValidationException"}),
		PutCase("put/create-if-absent-on-new-key", PKSK, seed, cond(other, "attribute_not_exists(pk)", nil), Want{After: Items(old, other)}),
		PutCase("put/create-if-absent-on-existing-key-fails", PKSK, seed, cond(fresh, "attribute_not_exists(pk)", nil),
			Want{Err: "ConditionalCheckFailedException"}),
		PutCase("put/condition-fails-returns-old-item-when-asked", PKSK, seed, dynamodb.PutItemInput{
			Item: fresh, ConditionExpression: aws.String("n = :n"), ExpressionAttributeValues: v(":n", 5),
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		}, Want{Err: "ConditionalCheckFailedException", CCFItem: old}),
		PutCase("put/condition-fails-without-item-by-default", PKSK, seed, cond(fresh, "n = :n", v(":n", 5)),
			Want{Err: "ConditionalCheckFailedException"}),
		PutCase("put/condition-fails-on-missing-item-carries-no-item", PKSK, seed, dynamodb.PutItemInput{
			Item: other, ConditionExpression: aws.String("attribute_exists(pk)"),
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		}, Want{Err: "ConditionalCheckFailedException"}),
		PutCase("put/condition-on-missing-item-sees-no-attributes", PKSK, seed, cond(other, "attribute_not_exists(n) AND NOT n = :n", v(":n", 1)),
			Want{After: Items(old, other)}),
		PutCase("put/condition-passes", PKSK, seed, cond(fresh, "n = :n AND s = :s", v(":n", 1, ":s", "old")), Want{After: Items(fresh)}),
		PutCase("put/empty-string-non-key-attribute", PKSK, nil, put(I("pk", "a", "sk", "1", "e", "")), Want{After: Items(I("pk", "a", "sk", "1", "e", ""))}),
		PutCase("put/empty-binary-non-key-attribute", PKSK, nil, put(I("pk", "a", "sk", "1", "e", B())), Want{After: Items(I("pk", "a", "sk", "1", "e", B()))}),
		PutCase("put/empty-list-and-map", PKSK, nil, put(I("pk", "a", "sk", "1", "l", L(), "m", M())), Want{After: Items(I("pk", "a", "sk", "1", "l", L(), "m", M()))}),
		PutCase("put/every-type-round-trips", PKSK, nil, put(rich()), Want{After: Items(rich())}),
		PutCase("put/unicode-attribute-names", PKSK, nil, put(I("pk", "a", "sk", "1", "naïve", "ü", "日本", 1)), Want{After: Items(I("pk", "a", "sk", "1", "naïve", "ü", "日本", 1))}),
		PutCase("put/dotted-and-bracketed-names-are-plain-names", PKSK, nil, put(I("pk", "a", "sk", "1", "a.b", 1, "c[0]", 2)),
			Want{After: Items(I("pk", "a", "sk", "1", "a.b", 1, "c[0]", 2))}),
		PutCase("put/number-key-canonical-one-item", NumPK, Items(I("pk", N("1"), "v", "first")), put(I("pk", N("1.0"), "v", "second")),
			Want{After: Items(I("pk", N("1"), "v", "second"))}),
		PutCase("put/keys-with-dots-are-distinct", PK, Items(I("pk", "a.b", "v", 1)), put(I("pk", "a", "v", 2)),
			Want{After: Items(I("pk", "a.b", "v", 1), I("pk", "a", "v", 2))}),
		PutCase("put/partition-key-2048-bytes", PK, nil, put(I("pk", strings.Repeat("k", 2048))), Want{After: Items(I("pk", strings.Repeat("k", 2048)))}),
		PutCase("put/sort-key-1024-bytes", PKSK, nil, put(I("pk", "a", "sk", strings.Repeat("k", 1024))), Want{After: Items(I("pk", "a", "sk", strings.Repeat("k", 1024)))}),

		PutCase("put-error/partition-key-over-2048-bytes", PK, nil, put(I("pk", strings.Repeat("k", 2049))), Want{Err: "ValidationException"}),
		PutCase("put-error/sort-key-over-1024-bytes", PKSK, nil, put(I("pk", "a", "sk", strings.Repeat("k", 1025))), Want{Err: "ValidationException"}),
		PutCase("put-error/missing-sort-key", PKSK, seed, put(I("pk", "a", "n", 1)), Want{Err: "ValidationException"}),
		PutCase("put-error/missing-partition-key", PKSK, seed, put(I("sk", "1", "n", 1)), Want{Err: "ValidationException"}),
		PutCase("put-error/key-wrong-type", PKSK, seed, put(I("pk", "a", "sk", 1)), Want{Err: "ValidationException", Msg: "Type mismatch"}),
		PutCase("put-error/empty-string-key", PKSK, seed, put(I("pk", "", "sk", "1")), Want{Err: "ValidationException", Msg: "empty string"}),
		PutCase("put-error/empty-string-sort-key", PKSK, seed, put(I("pk", "a", "sk", "")), Want{Err: "ValidationException", Msg: "empty string"}),
		PutCase("put-error/empty-binary-key", PKBin, nil, put(I("pk", B(), "sk", B(1))), Want{Err: "ValidationException"}),
		PutCase("put-error/empty-string-set", PKSK, seed, put(I("pk", "b", "sk", "1", "s", SS())), Want{Err: "ValidationException"}),
		PutCase("put-error/empty-number-set", PKSK, seed, put(I("pk", "b", "sk", "1", "s", NS())), Want{Err: "ValidationException"}),
		PutCase("put-error/duplicate-string-set-members", PKSK, seed, put(I("pk", "b", "sk", "1", "s", SS("x", "x"))), Want{Err: "ValidationException", Msg: "duplicates"}),
		PutCase("put-error/duplicate-number-set-members-numerically", PKSK, seed, put(I("pk", "b", "sk", "1", "s", NS("1", "1.0"))), Want{Err: "ValidationException"}),
		PutCase("put-error/duplicate-binary-set-members", PKSK, seed, put(I("pk", "b", "sk", "1", "s", BS("x", "x"))), Want{Err: "ValidationException"}),
		PutCase("put-error/null-false", PKSK, seed, put(I("pk", "b", "sk", "1", "z", &types.AttributeValueMemberNULL{Value: false})), Want{Err: "ValidationException"}),
		PutCase("put-error/not-a-number", PKSK, seed, put(I("pk", "b", "sk", "1", "x", N("abc"))), Want{Err: "ValidationException"}),
		PutCase("put-error/empty-number", PKSK, seed, put(I("pk", "b", "sk", "1", "x", N(""))), Want{Err: "ValidationException"}),
		PutCase("put-error/condition-syntax", PKSK, seed, cond(fresh, "n = = :n", v(":n", 1)), Want{Err: "ValidationException", Msg: "Invalid ConditionExpression"}),
		PutCase("put-error/condition-unused-value", PKSK, seed, cond(fresh, "n = :n", v(":n", 1, ":x", 2)), Want{Err: "ValidationException", Msg: "unused"}),
		PutCase("put-error/condition-reserved-word", PKSK, seed, cond(fresh, "attribute_exists(name)", nil), Want{Err: "ValidationException", Msg: "reserved keyword"}),
		PutCase("put-error/values-without-expression", PKSK, seed, dynamodb.PutItemInput{Item: fresh, ExpressionAttributeValues: v(":n", 1)}, Want{Err: "ValidationException"}),
		PutCase("put-error/empty-attribute-name", PKSK, seed, put(I("pk", "b", "sk", "1", "", "x")), Want{Err: "ValidationException"}),
		{Name: "put-error/missing-table", NoTable: true, Run: func(c *C) {
			_, err := c.API.PutItem(c.Ctx, &dynamodb.PutItemInput{TableName: aws.String(c.UniqueTableName("missing")), Item: I("pk", "a")})
			c.ExpectErr(err, "ResourceNotFoundException")
		}},
	}
}

func getCases() []Case {
	r := rich()
	get := func(key Item, proj string, names map[string]string) dynamodb.GetItemInput {
		in := dynamodb.GetItemInput{Key: key, ExpressionAttributeNames: names}
		if proj != "" {
			in.ProjectionExpression = aws.String(proj)
		}
		return in
	}
	k := I("pk", "p", "sk", "s")
	seed := Items(rich())
	return []Case{
		GetCase("get/existing", PKSK, seed, get(k, "", nil), Want{Items: Items(r)}),
		GetCase("get/missing-is-no-item", PKSK, seed, get(I("pk", "p", "sk", "nope"), "", nil), Want{}),
		GetCase("get/consistent", PKSK, seed, dynamodb.GetItemInput{Key: k, ConsistentRead: aws.Bool(true)}, Want{Items: Items(r)}),
		GetCase("get/projection-top-level", PKSK, seed, get(k, "str, num", nil), Want{Items: Items(I("str", "hello", "num", N("42")))}),
		GetCase("get/projection-nested-map", PKSK, seed, get(k, "mp.nest.deep", nil), Want{Items: Items(I("mp", M("nest", M("deep", "d"))))}),
		GetCase("get/projection-list-elements-compact", PKSK, seed, get(k, "lst[0], lst[2]", nil), Want{Items: Items(I("lst", L(S("a"), M("k", "v"))))}),
		GetCase("get/projection-list-element-field", PKSK, seed, get(k, "lst[2].k", nil), Want{Items: Items(I("lst", L(M("k", "v"))))}),
		GetCase("get/projection-two-fields-of-one-map", PKSK, seed, get(k, "mp.n, mp.nest", nil), Want{Items: Items(I("mp", M("n", N("5"), "nest", M("deep", "d"))))}),
		GetCase("get/projection-missing-attribute", PKSK, seed, get(k, "nope", nil), Want{Items: Items(Item{})}),
		GetCase("get/projection-mixed-present-and-missing", PKSK, seed, get(k, "nope, str, mp.nope", nil), Want{Items: Items(I("str", "hello"))}),
		GetCase("get/projection-names", PKSK, seed, get(k, "#s, #d", Names("#s", "status", "#d", "dotted.top")), Want{Items: Items(I("status", "active", "dotted.top", "t"))}),
		GetCase("get/projection-nested-dotted-key", PKSK, seed, get(k, "mp.#d", Names("#d", "dotted.name")), Want{Items: Items(I("mp", M("dotted.name", "v")))}),
		GetCase("get/projection-index-on-non-list", PKSK, seed, get(k, "str[0]", nil), Want{Items: Items(Item{})}),
		GetCase("get-error/projection-reserved-word", PKSK, seed, get(k, "status", nil), Want{Err: "ValidationException", Msg: "reserved keyword"}),
		GetCase("get-error/projection-overlapping-paths", PKSK, seed, get(k, "mp, mp.n", nil), Want{Err: "ValidationException", Msg: "overlap"}),
		GetCase("get-error/projection-same-path-twice", PKSK, seed, get(k, "str, str", nil), Want{Err: "ValidationException"}),
		GetCase("get-error/projection-unused-name", PKSK, seed, get(k, "str", Names("#x", "x")), Want{Err: "ValidationException", Msg: "unused"}),
		GetCase("get-error/projection-undefined-name", PKSK, seed, get(k, "#x", nil), Want{Err: "ValidationException"}),
		GetCase("get-error/projection-syntax", PKSK, seed, get(k, "str,", nil), Want{Err: "ValidationException", Msg: "Invalid ProjectionExpression"}),
		GetCase("get-error/key-missing-sort-key", PKSK, seed, get(I("pk", "p"), "", nil), Want{Err: "ValidationException"}),
		GetCase("get-error/key-extra-attribute", PKSK, seed, get(I("pk", "p", "sk", "s", "x", "y"), "", nil), Want{Err: "ValidationException"}),
		GetCase("get-error/key-wrong-type", PKSK, seed, get(I("pk", "p", "sk", 1), "", nil), Want{Err: "ValidationException"}),
		GetCase("get-error/key-empty-string", PKSK, seed, get(I("pk", "", "sk", "s"), "", nil), Want{Err: "ValidationException"}),
		{Name: "get-error/missing-table", NoTable: true, Run: func(c *C) {
			_, err := c.API.GetItem(c.Ctx, &dynamodb.GetItemInput{TableName: aws.String(c.UniqueTableName("missing")), Key: I("pk", "a")})
			c.ExpectErr(err, "ResourceNotFoundException")
		}},
	}
}

func deleteCases() []Case {
	v := Vals
	old := existing()
	k := I("pk", "a", "sk", "1")
	seed := Items(existing(), I("pk", "b", "sk", "1"))
	rest := Items(I("pk", "b", "sk", "1"))
	del := func(key Item) dynamodb.DeleteItemInput { return dynamodb.DeleteItemInput{Key: key} }
	return []Case{
		DeleteCase("delete/existing", PKSK, seed, del(k), Want{After: rest}),
		DeleteCase("delete/missing-is-not-an-error", PKSK, seed, del(I("pk", "z", "sk", "1")), Want{After: Items(old, rest[0])}),
		DeleteCase("delete/return-all-old", PKSK, seed, dynamodb.DeleteItemInput{Key: k, ReturnValues: types.ReturnValueAllOld}, Want{Attrs: old, After: rest}),
		DeleteCase("delete/return-all-old-of-missing-is-empty", PKSK, seed, dynamodb.DeleteItemInput{Key: I("pk", "z", "sk", "1"), ReturnValues: types.ReturnValueAllOld},
			Want{After: Items(old, rest[0])}),
		DeleteCase("delete/condition-passes", PKSK, seed, dynamodb.DeleteItemInput{Key: k, ConditionExpression: aws.String("n = :n"), ExpressionAttributeValues: v(":n", 1)},
			Want{After: rest}),
		DeleteCase("delete/condition-fails", PKSK, seed, dynamodb.DeleteItemInput{Key: k, ConditionExpression: aws.String("n = :n"), ExpressionAttributeValues: v(":n", 2)},
			Want{Err: "ConditionalCheckFailedException"}),
		DeleteCase("delete/condition-fails-returns-old-item-when-asked", PKSK, seed, dynamodb.DeleteItemInput{
			Key: k, ConditionExpression: aws.String("n = :n"), ExpressionAttributeValues: v(":n", 2),
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		}, Want{Err: "ConditionalCheckFailedException", CCFItem: old}),
		DeleteCase("delete/if-exists-on-missing-fails", PKSK, seed, dynamodb.DeleteItemInput{Key: I("pk", "z", "sk", "1"), ConditionExpression: aws.String("attribute_exists(pk)")},
			Want{Err: "ConditionalCheckFailedException"}),
		DeleteCase("delete-error/return-all-new-not-allowed", PKSK, seed, dynamodb.DeleteItemInput{Key: k, ReturnValues: types.ReturnValueAllNew}, Want{Err: "ValidationException"}),
		DeleteCase("delete-error/key-missing-sort-key", PKSK, seed, del(I("pk", "a")), Want{Err: "ValidationException"}),
		DeleteCase("delete-error/key-wrong-type", PKSK, seed, del(I("pk", "a", "sk", 1)), Want{Err: "ValidationException"}),
		DeleteCase("delete-error/condition-undefined-value", PKSK, seed, dynamodb.DeleteItemInput{Key: k, ConditionExpression: aws.String("n = :n")}, Want{Err: "ValidationException"}),
		{Name: "delete-error/missing-table", NoTable: true, Run: func(c *C) {
			_, err := c.API.DeleteItem(c.Ctx, &dynamodb.DeleteItemInput{TableName: aws.String(c.UniqueTableName("missing")), Key: I("pk", "a")})
			c.ExpectErr(err, "ResourceNotFoundException")
		}},
	}
}

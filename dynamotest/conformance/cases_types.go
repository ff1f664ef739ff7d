package conformance

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// nested returns a value with depth levels of maps around a string.
func nested(depth int) types.AttributeValue {
	v := S("leaf")
	for range depth {
		v = M("x", v)
	}
	return v
}

func allBytes() []byte {
	b := make([]byte, 256)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}

func typeCases() []Case {
	v := Vals
	// stored puts one number in attribute n and reads back how DynamoDB returns it.
	stored := func(name, in, out string) Case {
		return PutCase("number/"+name, PK, nil, dynamodb.PutItemInput{Item: I("pk", "a", "n", N(in))}, Want{After: Items(I("pk", "a", "n", N(out)))})
	}
	rejected := func(name, in string) Case {
		return PutCase("number-error/"+name, PK, nil, dynamodb.PutItemInput{Item: I("pk", "a", "n", N(in))}, Want{Err: "ValidationException"})
	}
	add := func(name, start, delta, out string) Case {
		return UpdateCase("number/"+name, PK, Items(I("pk", "a", "n", N(start))), dynamodb.UpdateItemInput{
			Key: I("pk", "a"), UpdateExpression: aws.String("SET n = n + :d"), ExpressionAttributeValues: v(":d", N(delta)),
		}, Want{After: Items(I("pk", "a", "n", N(out)))})
	}
	return []Case{
		stored("integer", "42", "42"),
		stored("negative", "-17", "-17"),
		stored("leading-zeros-dropped", "007", "7"),
		stored("trailing-fraction-zeros-dropped", "1.500", "1.5"),
		stored("zero-point-zero", "0.0", "0"),
		stored("negative-zero", "-0", "0"),
		stored("exponent-expanded", "1E+3", "1000"),
		stored("small-exponent-expanded", "1.5e-3", "0.0015"),
		stored("thirty-eight-digits", "12345678901234567890123456789012345678", "12345678901234567890123456789012345678"),
		stored("trailing-integer-zeros-are-not-significant", "1234567890123456789012345678901234567800", "1234567890123456789012345678901234567800"),
		stored("largest", "9.9999999999999999999999999999999999999E+125", "999999999999999999999999999999999999990000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"),
		stored("smallest-positive", "1E-130", "0."+strings.Repeat("0", 129)+"1"),
		stored("most-negative", "-9.9999999999999999999999999999999999999E+125", "-999999999999999999999999999999999999990000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"),
		rejected("thirty-nine-digits", "123456789012345678901234567890123456789"),
		rejected("overflow", "1E+126"),
		rejected("underflow", "1E-131"),
		rejected("negative-overflow", "-1E+126"),
		rejected("letters", "12a"),
		rejected("nan", "NaN"),
		rejected("infinity", "Infinity"),
		rejected("hex", "0x10"),
		rejected("two-points", "1.2.3"),
		rejected("space", " 1"),
		add("decimal-sum-exact", "0.1", "0.2", "0.3"),
		{Name: "number/sum-to-zero-equals-zero", Schema: PK, Seed: Items(I("pk", "a", "n", N("5.5"))), Run: func(c *C) {
			_, err := c.API.UpdateItem(c.Ctx, &dynamodb.UpdateItemInput{TableName: c.TableName(), Key: I("pk", "a"),
				UpdateExpression: aws.String("ADD n :d"), ExpressionAttributeValues: v(":d", N("-5.5"))})
			c.OK(err)
			_, err = c.API.DeleteItem(c.Ctx, &dynamodb.DeleteItemInput{TableName: c.TableName(), Key: I("pk", "a"),
				ConditionExpression: aws.String("n = :z"), ExpressionAttributeValues: v(":z", 0)})
			c.OK(err)
		}},
		add("sum-keeps-38-digits", "12345678901234567890123456789012345678", "1", "12345678901234567890123456789012345679"),
		UpdateCase("number-error/large-plus-small-needs-101-digits", PK, Items(I("pk", "a", "n", N("1"+strings.Repeat("0", 100)))), dynamodb.UpdateItemInput{
			Key: I("pk", "a"), UpdateExpression: aws.String("SET n = n + :d"), ExpressionAttributeValues: v(":d", N("1")),
		}, Want{Err: "ValidationException", Msg: "38 digits"}),
		UpdateCase("number-error/sum-needs-39-digits", PK, Items(I("pk", "a", "n", N("12345678901234567890123456789012345678"))), dynamodb.UpdateItemInput{
			Key: I("pk", "a"), UpdateExpression: aws.String("SET n = n + :d"), ExpressionAttributeValues: v(":d", N("0.1")),
		}, Want{Err: "ValidationException"}),
		UpdateCase("number-error/sum-overflows", PK, Items(I("pk", "a", "n", N("99999999999999999999999999999999999999"+strings.Repeat("0", 88)))), dynamodb.UpdateItemInput{
			Key: I("pk", "a"), UpdateExpression: aws.String("ADD n :d"), ExpressionAttributeValues: v(":d", N("9.9999999999999999999999999999999999999E+125")),
		}, Want{Err: "ValidationException"}),
		PutCase("number/set-members-canonical", PK, nil, dynamodb.PutItemInput{Item: I("pk", "a", "ns", NS("1.0", "02", "3e1"))}, Want{After: Items(I("pk", "a", "ns", NS("1", "2", "30")))}),
		filterCase("number-in-exponent-form-equals-plain", "num = :v", nil, v(":v", N("4.2E1")), true),

		// Other types.
		PutCase("types/binary-every-byte", PK, nil, dynamodb.PutItemInput{Item: I("pk", "a", "b", B(allBytes()...))}, Want{After: Items(I("pk", "a", "b", B(allBytes()...)))}),
		PutCase("types/string-with-nul-and-emoji", PK, nil, dynamodb.PutItemInput{Item: I("pk", "a\x00b", "s", "x\x00y\U0001F600")}, Want{After: Items(I("pk", "a\x00b", "s", "x\x00y\U0001F600"))}),
		PutCase("types/binary-set", PK, nil, dynamodb.PutItemInput{Item: I("pk", "a", "bs", BS("\x00", "\xff", "ab"))}, Want{After: Items(I("pk", "a", "bs", BS("\x00", "\xff", "ab")))}),
		PutCase("types/list-of-every-type", PK, nil, dynamodb.PutItemInput{Item: I("pk", "a", "l", L(S("s"), N("1"), Bs("b"), Bool(false), Null(), SS("x"), NS("2"), BS("y"), L(), M()))},
			Want{After: Items(I("pk", "a", "l", L(S("s"), N("1"), Bs("b"), Bool(false), Null(), SS("x"), NS("2"), BS("y"), L(), M())))}),
		PutCase("types/nesting-32-levels", PK, nil, dynamodb.PutItemInput{Item: I("pk", "a", "m", nested(31))}, Want{After: Items(I("pk", "a", "m", nested(31)))}),
		PutCase("types-error/nesting-over-32-levels", PK, nil, dynamodb.PutItemInput{Item: I("pk", "a", "m", nested(33))}, Want{Err: "ValidationException"}),
		PutCase("types/long-list", PK, nil, dynamodb.PutItemInput{Item: I("pk", "a", "l", L(longList(1000)...))}, Want{After: Items(I("pk", "a", "l", L(longList(1000)...)))}),
		PutCase("types/map-key-with-symbols", PK, nil, dynamodb.PutItemInput{Item: I("pk", "a", "m", M("a.b", 1, "[0]", 2, "#x", 3, ":y", 4))},
			Want{After: Items(I("pk", "a", "m", M("a.b", 1, "[0]", 2, "#x", 3, ":y", 4)))}),
		PutCase("types/string-set-with-empty-string", PK, nil, dynamodb.PutItemInput{Item: I("pk", "a", "ss", SS("", "x"))}, Want{After: Items(I("pk", "a", "ss", SS("", "x")))}),
		PutCase("types-error/nested-empty-set", PK, nil, dynamodb.PutItemInput{Item: I("pk", "a", "m", M("s", SS()))}, Want{Err: "ValidationException"}),
		PutCase("types-error/number-set-bad-member", PK, nil, dynamodb.PutItemInput{Item: I("pk", "a", "ns", NS("1", "x"))}, Want{Err: "ValidationException"}),
		skipOn(PutCase("types-error/attribute-name-over-64kb", PK, nil, dynamodb.PutItemInput{Item: I("pk", "a", strings.Repeat("n", 65536), 1)}, Want{Err: "ValidationException"}),
			DynamoDBLocal, "DynamoDB Local fails with a 500 InternalFailure on an attribute name of 64 KB; DynamoDB rejects it as a ValidationException (names must be under 64 KB)"),
		GetCase("types/key-with-nul-byte-is-exact", PK, Items(I("pk", "a\x00b"), I("pk", "a")), dynamodb.GetItemInput{Key: I("pk", "a\x00b")}, Want{Items: Items(I("pk", "a\x00b"))}),
		GetCase("types/binary-key-exact", PKBin, binaries(), dynamodb.GetItemInput{Key: I("pk", B(1), "sk", B(0, 0))}, Want{Items: Items(I("pk", B(1), "sk", B(0, 0)))}),
	}
}

func longList(n int) []types.AttributeValue {
	out := make([]types.AttributeValue, n)
	for i := range out {
		out[i] = Ni(i)
	}
	return out
}

package dynamotest

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"maps"
	"sort"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest/internal/store"
	"github.com/tablekit/tablekit/table"
)

// ExecuteStatement runs one PartiQL statement: SELECT (a Query when the
// WHERE clause fixes the partition key with "=" in its top-level AND,
// otherwise a Scan; each call reads one page of at most Limit items or
// 1 MB and returns a NextToken while more remain, as DynamoDB does),
// INSERT (refused with DuplicateItemException when the item exists),
// UPDATE and DELETE (the WHERE clause's top-level AND must fix the whole
// key with "=", whatever else it holds under OR or NOT; an item the rest
// of the clause does not match is a ConditionalCheckFailedException, and
// so is a missing item for UPDATE, while a DELETE of one succeeds and
// changes nothing).
// Statements run through the expression API's requests, so they share its
// validation, conditions, errors and capacity; they are counted as those
// requests too.
//
// Supported: SET path = value (with + and -, list_append, set_add and
// set_delete) and REMOVE path in UPDATE; RETURNING ALL|MODIFIED OLD|NEW *
// on UPDATE and RETURNING ALL OLD * on DELETE (the item comes back in
// Items); comparisons, BETWEEN, IN [...], IS [NOT] MISSING, IS [NOT]
// NULL, AND, OR, NOT and the functions begins_with, contains,
// attribute_exists, attribute_not_exists, attribute_type and size in
// WHERE; ? parameters, 'strings', numbers, TRUE/FALSE/NULL, [lists],
// {'maps'} (keys in single quotes, each once) and <<sets>> as values.
// EXISTS(SELECT ...) is a condition check, and only ExecuteTransaction
// takes it.
func (db *DB) ExecuteStatement(ctx context.Context, in *dynamodb.ExecuteStatementInput, _ ...func(*dynamodb.Options)) (res *dynamodb.ExecuteStatementOutput, err error) {
	defer acknowledged(db, &res, &err)
	in = orEmpty(in)
	if err := contextErr(ctx); err != nil {
		return nil, err
	}
	var v violations
	v.statement("statement", in.Statement)
	if err := v.err(); err != nil {
		return nil, err
	}
	st, err := parseStatement(aws.ToString(in.Statement), in.Parameters)
	if err != nil {
		return nil, err
	}
	if st.verb != "SELECT" && (in.Limit != nil || in.NextToken != nil) {
		return nil, validationf("Limit and NextToken are only supported for SELECT statements")
	}
	if st.verb == "EXISTS" {
		return nil, errExistsOutsideTransaction()
	}
	return db.runStatement(ctx, st, in)
}

// statement is a parsed PartiQL statement, translated.
type statement struct {
	verb         string // SELECT, INSERT, UPDATE, DELETE
	table, index string
	projection   *string // SELECT: nil for *
	// projectionNames are the placeholders of the projection's names: the
	// parser's first ones, as the projection comes before the WHERE clause.
	projectionNames map[string]string
	where           *string
	update          *string
	item            map[string]types.AttributeValue // INSERT
	// returning is the RETURNING clause of an UPDATE or DELETE as the
	// expression API's ReturnValues; "" without one.
	returning types.ReturnValue
	// orderBy is a SELECT's ORDER BY clause, in order: key attributes of
	// the table (or the index read), each ascending or not.
	orderBy []orderKey
	p       *pqParser
}

// orderKey is one key of an ORDER BY clause.
type orderKey struct {
	name string
	desc bool
}

// errExistsOutsideTransaction: EXISTS is a condition check, which only a
// transaction has.
func errExistsOutsideTransaction() error {
	return validationf("EXISTS() can only be used in a transaction")
}

// maxStatementLength is the API reference's length constraint on a
// PartiQL statement: ExecuteStatement's Statement, and each statement of
// BatchExecuteStatement and ExecuteTransaction, up to 8,192. DynamoDB
// Local counts it in bytes, as the fake does.
const maxStatementLength = 8192

// statement records a statement longer than DynamoDB takes. It is checked
// before the statement is parsed, so no statement costs the parser more
// than its 8 KB, however large the request body.
func (v *violations) statement(field string, s *string) {
	if s != nil && len(*s) > maxStatementLength {
		v.add(quoted(*s), field, "Member must have length less than or equal to "+strconv.Itoa(maxStatementLength))
	}
}

func parseStatement(s string, params []types.AttributeValue) (*statement, error) {
	toks, err := pqLex(s)
	if err != nil {
		return nil, err
	}
	p := &pqParser{toks: toks, params: params}
	st := &statement{p: p}
	verb := p.take()
	st.verb = strings.ToUpper(verb.text)
	switch {
	case verb.kind != pqIdent:
		return nil, pqSyntax("a statement starts with SELECT, INSERT, UPDATE or DELETE")
	case st.verb == "SELECT":
		if !p.punct("*") {
			var paths []string
			for {
				e, _, err := p.path()
				if err != nil {
					return nil, err
				}
				paths = append(paths, e)
				if !p.punct(",") {
					break
				}
			}
			proj := strings.Join(paths, ", ")
			st.projection = &proj
			st.projectionNames = maps.Clone(p.names)
		}
		if err := p.expect("FROM"); err != nil {
			return nil, err
		}
		if st.table, st.index, err = p.tableName(); err != nil {
			return nil, err
		}
	case st.verb == "INSERT":
		if err := p.expect("INTO"); err != nil {
			return nil, err
		}
		if st.table, _, err = p.tableName(); err != nil {
			return nil, err
		}
		if err := p.expect("VALUE"); err != nil {
			return nil, err
		}
		v, err := p.literal()
		if err != nil {
			return nil, err
		}
		m, ok := v.(*types.AttributeValueMemberM)
		if !ok {
			return nil, pqSyntax("INSERT takes a tuple {'attribute': value, ...}")
		}
		st.item = m.Value
	case st.verb == "UPDATE":
		if st.table, _, err = p.tableName(); err != nil {
			return nil, err
		}
		var sets, removes, adds, deletes []string
		for {
			switch {
			case p.keyword("SET"):
				for {
					path, _, err := p.path()
					if err != nil {
						return nil, err
					}
					if err := p.expect("="); err != nil {
						return nil, err
					}
					if fn, ok := p.setFunction(); ok {
						clause, err := p.setFunctionCall(fn, path)
						if err != nil {
							return nil, err
						}
						switch fn {
						case "set_add":
							adds = append(adds, clause)
						case "set_delete":
							deletes = append(deletes, clause)
						default:
							sets = append(sets, path+" = "+clause)
						}
						if !p.punct(",") {
							break
						}
						continue
					}
					v, err := p.operand()
					if err != nil {
						return nil, err
					}
					for _, op := range []string{"+", "-"} {
						if p.peek().kind == pqPunct && p.peek().text == op {
							p.pos++
							w, err := p.operand()
							if err != nil {
								return nil, err
							}
							v += " " + op + " " + w
						}
					}
					sets = append(sets, path+" = "+v)
					if !p.punct(",") {
						break
					}
				}
				continue
			case p.keyword("REMOVE"):
				for {
					path, _, err := p.path()
					if err != nil {
						return nil, err
					}
					removes = append(removes, path)
					if !p.punct(",") {
						break
					}
				}
				continue
			}
			break
		}
		if len(sets) == 0 && len(removes) == 0 && len(adds) == 0 && len(deletes) == 0 {
			return nil, pqSyntax("UPDATE needs SET or REMOVE")
		}
		var clauses []string
		for _, c := range []struct {
			verb  string
			parts []string
		}{{"SET", sets}, {"REMOVE", removes}, {"ADD", adds}, {"DELETE", deletes}} {
			if len(c.parts) > 0 {
				clauses = append(clauses, c.verb+" "+strings.Join(c.parts, ", "))
			}
		}
		u := strings.Join(clauses, " ")
		st.update = &u
	case st.verb == "DELETE":
		if err := p.expect("FROM"); err != nil {
			return nil, err
		}
		if st.table, _, err = p.tableName(); err != nil {
			return nil, err
		}
	case st.verb == "EXISTS":
		// EXISTS(SELECT * FROM table WHERE ...): its WHERE clause is read
		// here, inside the parentheses.
		if err := p.expect("("); err != nil {
			return nil, err
		}
		if !p.keyword("SELECT") || !p.punct("*") || !p.keyword("FROM") {
			return nil, pqSyntax("EXISTS takes a SELECT * FROM table WHERE ... statement")
		}
		if st.table, st.index, err = p.tableName(); err != nil {
			return nil, err
		}
		if st.index != "" {
			return nil, validationf("EXISTS() must contain a single item read with additional condition")
		}
		if err := p.expect("WHERE"); err != nil {
			return nil, err
		}
		w, err := p.where()
		if err != nil {
			return nil, err
		}
		st.where = &w
		if err := p.expect(")"); err != nil {
			return nil, err
		}
	default:
		return nil, pqSyntax("a statement starts with SELECT, INSERT, UPDATE or DELETE")
	}
	if st.verb != "INSERT" && st.verb != "EXISTS" && p.keyword("WHERE") {
		w, err := p.where()
		if err != nil {
			return nil, err
		}
		st.where = &w
	}
	if st.verb == "SELECT" && p.keyword("ORDER") {
		if st.orderBy, err = p.orderBy(); err != nil {
			return nil, err
		}
	}
	if p.keyword("RETURNING") {
		if st.returning, err = p.returning(st.verb); err != nil {
			return nil, err
		}
	}
	if t := p.peek(); t.kind != pqEOF {
		return nil, pqSyntax("unexpected '" + t.text + "' at the end of the statement")
	}
	if p.next != len(params) {
		return nil, validationf("Number of parameters in request and statement don't match.")
	}
	return st, nil
}

// key returns the statement's key for UPDATE and DELETE: the WHERE
// clause's equalities on every key attribute of t.
func (st *statement) key(t *dbTable) (map[string]types.AttributeValue, error) {
	key := map[string]types.AttributeValue{}
	for _, k := range []string{t.pk.name, t.sk.name} {
		if k == "" {
			continue
		}
		v, ok := st.p.eqs[k]
		if !ok {
			return nil, validationf("Where clause does not contain a mandatory equality on all key attributes")
		}
		key[k] = v
	}
	return key, nil
}

// write is a write statement as the transaction action it stands for.
func (st *statement) write(t *dbTable) (types.TransactWriteItem, error) {
	p := st.p
	name := aws.String(st.table)
	if st.verb == "INSERT" {
		cond := "attribute_not_exists(" + p.name(t.pk.name) + ")"
		return types.TransactWriteItem{Put: &types.Put{TableName: name, Item: st.item, ConditionExpression: &cond,
			ExpressionAttributeNames: p.names, ExpressionAttributeValues: p.values}}, nil
	}
	key, err := st.key(t)
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	cond := "attribute_exists(" + p.name(t.pk.name) + ")"
	if st.where != nil {
		cond += " AND (" + *st.where + ")"
	}
	if st.verb == "DELETE" {
		// A DELETE of a missing item succeeds and changes nothing, as on
		// DynamoDB Local; the rest of the WHERE clause is a condition on
		// an item that exists.
		cond = "attribute_not_exists(" + p.name(t.pk.name) + ")"
		if st.where != nil {
			cond += " OR (" + *st.where + ")"
		}
	}
	if st.verb == "EXISTS" {
		// The reference: "The SELECT statement must specify a full primary
		// key and one other condition."
		if p.terms <= len(key) {
			return types.TransactWriteItem{}, validationf("EXISTS() must contain a single item read with additional condition")
		}
		return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: name, Key: key,
			ConditionExpression: &cond, ExpressionAttributeNames: p.names, ExpressionAttributeValues: p.values}}, nil
	}
	if st.verb == "UPDATE" {
		return types.TransactWriteItem{Update: &types.Update{TableName: name, Key: key, UpdateExpression: st.update,
			ConditionExpression: &cond, ExpressionAttributeNames: p.names, ExpressionAttributeValues: p.values}}, nil
	}
	return types.TransactWriteItem{Delete: &types.Delete{TableName: name, Key: key,
		ConditionExpression: &cond, ExpressionAttributeNames: p.names, ExpressionAttributeValues: p.values}}, nil
}

// duplicate is the error of an INSERT whose key exists.
func duplicate() error {
	return &types.DuplicateItemException{Message: aws.String("Duplicate primary key exists in table")}
}

func (db *DB) runStatement(ctx context.Context, st *statement, in *dynamodb.ExecuteStatementInput) (*dynamodb.ExecuteStatementOutput, error) {
	t := db.table(st.table)
	if t == nil {
		return nil, &types.ResourceNotFoundException{Message: aws.String("Requested resource not found")}
	}
	if st.verb == "SELECT" {
		return db.selectStatement(ctx, t, st, in)
	}
	w, err := st.write(t)
	if err != nil {
		return nil, err
	}
	var consumed *types.ConsumedCapacity
	var returned map[string]types.AttributeValue
	switch {
	case w.Put != nil:
		res, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: w.Put.TableName, Item: w.Put.Item, ConditionExpression: w.Put.ConditionExpression,
			ExpressionAttributeNames: w.Put.ExpressionAttributeNames, ExpressionAttributeValues: w.Put.ExpressionAttributeValues,
			ReturnConsumedCapacity: in.ReturnConsumedCapacity})
		var ccf *types.ConditionalCheckFailedException
		if errors.As(err, &ccf) {
			return nil, duplicate()
		}
		if err != nil {
			return nil, err
		}
		consumed = res.ConsumedCapacity
	case w.Update != nil:
		u := w.Update
		res, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: u.TableName, Key: u.Key, UpdateExpression: u.UpdateExpression,
			ConditionExpression: u.ConditionExpression, ExpressionAttributeNames: u.ExpressionAttributeNames, ExpressionAttributeValues: u.ExpressionAttributeValues,
			ReturnConsumedCapacity: in.ReturnConsumedCapacity, ReturnValuesOnConditionCheckFailure: in.ReturnValuesOnConditionCheckFailure,
			ReturnValues: st.returning})
		if err != nil {
			return nil, err
		}
		consumed, returned = res.ConsumedCapacity, res.Attributes
	default:
		d := w.Delete
		res, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: d.TableName, Key: d.Key,
			ConditionExpression: d.ConditionExpression, ExpressionAttributeNames: d.ExpressionAttributeNames, ExpressionAttributeValues: d.ExpressionAttributeValues,
			ReturnConsumedCapacity: in.ReturnConsumedCapacity, ReturnValuesOnConditionCheckFailure: in.ReturnValuesOnConditionCheckFailure,
			ReturnValues: st.returning})
		if err != nil {
			return nil, err
		}
		consumed, returned = res.ConsumedCapacity, res.Attributes
	}
	out := &dynamodb.ExecuteStatementOutput{ConsumedCapacity: consumed}
	if st.returning != "" {
		out.Items = []map[string]types.AttributeValue{}
		if len(returned) > 0 {
			out.Items = append(out.Items, returned)
		}
	}
	return out, nil
}

// selectStatement runs a SELECT: one page of the Query or Scan it stands
// for, filtered by the WHERE clause and projected.
func (db *DB) selectStatement(ctx context.Context, t *dbTable, st *statement, in *dynamodb.ExecuteStatementInput) (*dynamodb.ExecuteStatementOutput, error) {
	p := st.p
	// The WHERE clause and projection are compiled first, so they are
	// checked even when the page is empty.
	x, err := newExprs(p.names, p.values)
	if err != nil {
		return nil, err
	}
	x.onTable(t)
	where, err := x.condition(st.where)
	if err != nil {
		return nil, err
	}
	proj, err := x.projection(st.projection)
	if err != nil {
		return nil, err
	}
	if err := x.done(); err != nil {
		return nil, err
	}
	start, err := decodeNextToken(aws.ToString(in.Statement), in.NextToken)
	if err != nil {
		return nil, err
	}
	var index *string
	pk, sk := t.pk.name, t.sk.name
	if st.index != "" {
		index = aws.String(st.index)
		ix := t.index(st.index)
		if ix == nil {
			return nil, validationf("The table does not have the specified index: %s", st.index)
		}
		pk, sk = ix.pk.name, ix.sk.name
	}
	v, hashFixed := p.eqs[pk]
	forward, err := st.forward(pk, sk, hashFixed || p.ins[pk])
	if err != nil {
		return nil, err
	}
	var items []map[string]types.AttributeValue
	var last map[string]types.AttributeValue
	var consumed *types.ConsumedCapacity
	if hashFixed {
		out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(st.table), IndexName: index,
			KeyConditionExpression: aws.String("#k = :k"), ExpressionAttributeNames: map[string]string{"#k": pk},
			ExpressionAttributeValues: map[string]types.AttributeValue{":k": v}, ExclusiveStartKey: start, Limit: in.Limit,
			ScanIndexForward: aws.Bool(forward),
			ConsistentRead:   in.ConsistentRead, ReturnConsumedCapacity: in.ReturnConsumedCapacity})
		if err != nil {
			return nil, err
		}
		items, last, consumed = out.Items, out.LastEvaluatedKey, out.ConsumedCapacity
	} else {
		out, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(st.table), IndexName: index, ExclusiveStartKey: start,
			Limit: in.Limit, ConsistentRead: in.ConsistentRead, ReturnConsumedCapacity: in.ReturnConsumedCapacity})
		if err != nil {
			return nil, err
		}
		items, last, consumed = out.Items, out.LastEvaluatedKey, out.ConsumedCapacity
	}
	if len(st.orderBy) > 0 && !hashFixed {
		// Several partitions (pk IN [...], OR) come from one Scan: each
		// partition's items are put in the order asked, partitions in the
		// order the page met them, as DynamoDB Local answers.
		orderPage(items, pk, sk, forward)
	}
	out := &dynamodb.ExecuteStatementOutput{Items: []map[string]types.AttributeValue{}, ConsumedCapacity: consumed}
	for _, item := range items {
		ok, err := where.eval(item)
		if err != nil {
			return nil, err
		}
		if ok {
			out.Items = append(out.Items, proj.apply(item))
		}
	}
	if len(last) > 0 {
		out.NextToken = encodeNextToken(aws.ToString(in.Statement), last)
	}
	return out, nil
}

// A NextToken is the page's LastEvaluatedKey in the fake's item encoding
// after a CRC-32 of the statement and that encoding, base64url: opaque to
// the caller, as DynamoDB's are, and refused when altered or used with
// another statement.
func encodeNextToken(statement string, key map[string]types.AttributeValue) *string {
	enc := store.Encode(key, table.ItemSize(key))
	b := binary.BigEndian.AppendUint32(nil, crc32.ChecksumIEEE([]byte(statement+"\x00"+enc)))
	return aws.String(base64.RawURLEncoding.EncodeToString(append(b, enc...)))
}

func decodeNextToken(statement string, token *string) (map[string]types.AttributeValue, error) {
	if token == nil {
		return nil, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(*token)
	if err != nil || len(raw) <= 4 || binary.BigEndian.Uint32(raw) != crc32.ChecksumIEEE([]byte(statement+"\x00"+string(raw[4:]))) {
		return nil, validationf("Invalid NextToken")
	}
	b := raw[4:]
	var key map[string]types.AttributeValue
	func() {
		defer func() {
			if recover() != nil {
				key = nil
			}
		}()
		key = store.Decode(string(b))
	}()
	if len(key) == 0 {
		return nil, validationf("Invalid NextToken")
	}
	return key, nil
}

// orderBy parses the rest of an ORDER BY clause: "BY key [ASC|DESC], ...",
// as the PartiQL SELECT reference for DynamoDB gives it (a hash or sort
// key; ascending unless DESC).
func (p *pqParser) orderBy() ([]orderKey, error) {
	if err := p.expect("BY"); err != nil {
		return nil, err
	}
	var keys []orderKey
	for {
		t := p.take()
		if t.kind != pqIdent && t.kind != pqQuoted {
			return nil, pqSyntax("ORDER BY takes key attribute names, near '" + t.text + "'")
		}
		k := orderKey{name: t.text}
		switch {
		case p.keyword("DESC"):
			k.desc = true
		case p.keyword("ASC"):
		}
		keys = append(keys, k)
		if !p.punct(",") {
			return keys, nil
		}
	}
}

// forward checks a SELECT's ORDER BY clause against the keys it reads (the
// table's, or the index's: pk and sk, sk "" when there is none) and
// returns the direction it asks of the partition's sort key: true for
// ascending, the default. DynamoDB's rules, with DynamoDB Local's
// messages: the clause needs a WHERE clause that fixes the partition key,
// and names key attributes only; the first mention of the sort key
// decides (the partition key is one value within a partition).
func (st *statement) forward(pk, sk string, hashFixed bool) (bool, error) {
	if len(st.orderBy) == 0 {
		return true, nil
	}
	if st.where == nil {
		return false, validationf("Must have WHERE clause in the statement when using ORDER BY clause.")
	}
	if !hashFixed {
		return false, validationf("Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY clause.")
	}
	forward, decided := true, false
	for _, k := range st.orderBy {
		switch k.name {
		case pk:
		case sk:
			if !decided {
				forward, decided = !k.desc, true
			}
		default:
			return false, validationf("Variable reference %s in ORDER BY clause must be part of the primary key", k.name)
		}
	}
	return forward, nil
}

// orderPage sorts a Scan page's items by sort key within each partition,
// ascending or not, keeping the partitions in the order they came.
func orderPage(items []map[string]types.AttributeValue, pk, sk string, forward bool) {
	if sk == "" || (forward && len(items) < 2) {
		return
	}
	group := map[string]int{}
	for _, item := range items {
		k := keyString(item[pk])
		if _, ok := group[k]; !ok {
			group[k] = len(group)
		}
	}
	sort.SliceStable(items, func(i, j int) bool {
		gi, gj := group[keyString(items[i][pk])], group[keyString(items[j][pk])]
		if gi != gj {
			return gi < gj
		}
		c := compareKeys(items[i][sk], items[j][sk])
		if forward {
			return c < 0
		}
		return c > 0
	})
}

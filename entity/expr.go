package entity

import (
	"context"
	"errors"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/table"
)

// Expressions. An entity's requests have few shapes (a create is always
// "attribute_not_exists(#pk)", an optimistic put "#ver = :ver"), so New
// renders each once, names included, and a call fills in values only. The
// names maps are shared by every request and never written after New; the
// SDK and the fake only read them. A caller's own condition (If) is built
// with the expression package per call and joined to the prepared one;
// the two never clash, as the expression package names its placeholders
// #0, :0 and these are #pk, :ver, #f3.

// cond is a prepared condition expression.
type cond struct {
	text  *string
	names map[string]string
	now   bool // takes :now (Unix seconds), for TTL
	ver   bool // takes :ver
}

// exprs are an entity's prepared conditions.
type exprs struct {
	create        cond // no live item has the key
	absent        cond // no item has the key, expired or not
	exists        cond // a live item has the key
	version       cond // a live item has version :ver
	existsVersion cond // a live item has the key and version :ver
	fresh         cond // no item, or a live one: what an Update or Upsert may write over (TTL only)
	gone          cond // an item that has expired (TTL only)
}

func (m *model) prepare() {
	pk := map[string]string{"#pk": m.pk.attr.Name}
	expired, alive := "", ""
	if m.ttl != nil {
		pk["#ttl"] = m.ttl.name
		// An expired item is gone for this package (table.Expired, in the
		// same words as every read's test): a create may replace it, an
		// update or delete must not find it.
		expired = table.ExpiredText("#ttl", ":one", ":now")
		alive = " AND NOT " + expired
	}
	ttl := m.ttl != nil
	if ttl {
		m.expr.create = cond{text: ptr("attribute_not_exists(#pk) OR " + expired), names: pk, now: true}
		m.expr.fresh = cond{text: ptr("attribute_not_exists(#pk) OR NOT " + expired), names: pk, now: true}
		m.expr.gone = cond{text: ptr("attribute_exists(#pk) AND " + expired), names: pk, now: true}
	} else {
		m.expr.create = cond{text: ptr("attribute_not_exists(#pk)"), names: pk}
	}
	m.expr.absent = cond{text: ptr("attribute_not_exists(#pk)"), names: map[string]string{"#pk": m.pk.attr.Name}}
	m.expr.exists = cond{text: ptr("attribute_exists(#pk)" + alive), names: pk, now: ttl}
	if m.version != nil {
		vn := maps.Clone(pk)
		vn["#ver"] = m.version.name
		ver := map[string]string{"#ver": m.version.name}
		if ttl {
			ver["#ttl"] = m.ttl.name
		}
		m.expr.version = cond{text: ptr("#ver = :ver" + alive), names: ver, now: ttl, ver: true}
		m.expr.existsVersion = cond{text: ptr("attribute_exists(#pk) AND #ver = :ver" + alive), names: vn, now: ttl, ver: true}
	}
	for o := range opCount {
		m.ops[o].span = m.name + "." + opNames[o]
	}
}

func ptr(s string) *string { return &s }

// one is the Number 1: a version's increment, and the first second a TTL
// can have expired at (table.ExpiredText).
var one = &types.AttributeValueMemberN{Value: "1"}

// clearExpired deletes the expired item at key, conditional on it still
// having expired at now: the expiry an Update or Upsert starts afresh over
// is proved by DynamoDB, so an item made live again meanwhile is kept (and
// the write that follows applies to it). A refused condition is no error.
func (m *model) clearExpired(ctx context.Context, key table.Key, now time.Time) error {
	c, err := m.condition(m.expr.gone, now, 0, nil)
	if err != nil {
		return err
	}
	_, err = m.reg.t.DB().DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: m.tableName(), Key: key,
		ConditionExpression: c.text, ExpressionAttributeNames: c.names, ExpressionAttributeValues: c.values})
	m.ops[opClearExpired].use.call(err, 0, 1)
	var ccf *types.ConditionalCheckFailedException
	if err != nil && !errors.As(err, &ccf) {
		return m.wrap("delete", key, err)
	}
	return nil
}

// maxFresh bounds how often an Update or Upsert clears an expired item
// and tries again: each try follows a write that made the key's item
// expired once more, which only a racing writer does.
const maxFresh = 4

// afresh is how every write that may create its item treats an expired
// one: as no item. err is the write's first answer; while it is a refusal
// over an expired item (the write's own condition, or the caller's, saw
// the expired item's attributes), the item is cleared and send tries
// again, so that the write and the caller's conditions meet no item, as
// they would once DynamoDB has deleted it.
func (m *model) afresh(ctx context.Context, key table.Key, now time.Time, err error, send func() error) error {
	for try := 0; err != nil && try < maxFresh && m.staleFailure(err, now); try++ {
		if err := m.clearExpired(ctx, key, now); err != nil {
			return err
		}
		err = send()
	}
	return err
}

// staleFailure reports whether a refused Update or Upsert met an expired
// item, which it may clear and write afresh over.
func (m *model) staleFailure(err error, now time.Time) bool {
	var ccf *types.ConditionalCheckFailedException
	return m.ttl != nil && errors.As(err, &ccf) && len(ccf.Item) > 0 && m.expiredAt(ccf.Item, now)
}

// conditionInput is a write's condition: the prepared one, joined with
// the caller's conditions when there are any.
type conditionInput struct {
	text   *string
	names  map[string]string
	values map[string]types.AttributeValue
}

// condition fills base's values and joins the caller's conditions.
func (m *model) condition(base cond, now time.Time, version int64, extra []expression.ConditionBuilder) (conditionInput, error) {
	ci := conditionInput{text: base.text, names: base.names}
	if base.now || base.ver {
		ci.values = make(map[string]types.AttributeValue, 3)
		if base.now {
			ci.values[":now"] = &types.AttributeValueMemberN{Value: strconv.FormatInt(now.Unix(), 10)}
			ci.values[":one"] = one
		}
		if base.ver {
			ci.values[":ver"] = &types.AttributeValueMemberN{Value: strconv.FormatInt(version, 10)}
		}
	}
	if len(extra) == 0 {
		return ci, nil
	}
	c := extra[0]
	if len(extra) > 1 {
		c = expression.And(extra[0], extra[1], extra[2:]...)
	}
	e, err := table.Build(expression.NewBuilder().WithCondition(c)) // table's shape cache: values marshaled, text reused
	if err != nil {
		return ci, inputError(m.name+" condition", "", err.Error(), nil)
	}
	text := "(" + *e.Condition() + ")"
	if base.text != nil {
		text = "(" + *base.text + ") AND " + text
	}
	ci.text = &text
	// DynamoDB refuses an empty map of names or values (a condition such
	// as attribute_not_exists(x) has no values): none is sent then.
	if names := e.Names(); len(names) > 0 {
		ci.names = maps.Clone(base.names)
		if ci.names == nil {
			ci.names = make(map[string]string, len(names))
		}
		maps.Copy(ci.names, names)
	}
	if values := e.Values(); len(values) > 0 {
		if ci.values == nil {
			ci.values = make(map[string]types.AttributeValue, len(values))
		}
		maps.Copy(ci.values, values)
	}
	return ci, nil
}

// The operations, for span names and recorded access patterns.
type op uint8

const (
	opCreate op = iota
	opGet
	opPut
	opUpsert
	opDelete
	opUpdate
	opPatch
	opList
	opBatchGet
	opBatchPut
	opBatchDelete
	opTx
	opTxGet        // a TxGet in a read transaction
	opClearExpired // the DeleteItem a write that may create its item sends over an expired one
	opCount
)

var opNames = [opCount]string{"Create", "Get", "Put", "Upsert", "Delete", "Update", "Patch", "List", "BatchGet", "BatchPut", "BatchDelete", "Transact", "TransactGet", "ClearExpired"}

// opInfo is what an operation records: its span name, and what its calls
// were (access patterns).
type opInfo struct {
	span string
	use  usage
}

// start begins the span of one call (table.Table.Start: free when tracing
// is off) and counts the call.
func (m *model) start(ctx context.Context, o op) (context.Context, table.Span) {
	return m.reg.start(ctx, m.ops[o].span)
}

// writeError maps the error of a single-item write: a failed condition
// becomes the sentinel failure picks from the current item DynamoDB
// returned (nil when there was none), anything else table's mapping.
func (m *model) writeError(opName string, key table.Key, err error, failure func(current table.Item) error) error {
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return &table.Error{Op: opName, Table: m.reg.t.Name(), Key: key.String(), Err: failure(ccf.Item), Cause: err, Item: ccf.Item}
	}
	return m.wrap(opName, key, err)
}

// wrap maps a request's error with table's sentinels, naming the table
// and the key.
func (m *model) wrap(opName string, key table.Key, err error) error {
	w := table.WrapError(opName, err)
	var te *table.Error
	if errors.As(w, &te) && te.Table == "" {
		te.Table = m.reg.t.Name()
		if key != nil {
			te.Key = key.String()
		}
	}
	return w
}

func joinQuoted(ss []string) string { return strings.Join(ss, ", ") }

func parseInt(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return -1
	}
	return n
}

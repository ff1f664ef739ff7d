package dynamotest

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// field is one compared part of an answer: its name as a Difference
// reports it ("Items[2]", "Count") and its canonical text. A field whose
// value DynamoDB leaves partly undefined also has a coarse text, the part
// it does define; when either answer's field has one, the coarse texts are
// compared (see indexPageFields).
type field struct {
	name, text, coarse string
}

// compared is the text of f that is compared when loose is set.
func (f field) compared(loose bool) string {
	if loose && f.coarse != "" {
		return f.coarse
	}
	return f.text
}

// answerView is what the answer fields need beyond the request and the
// answer: the time and TTL attributes that decide which items have
// expired, and whether capacity is compared.
type answerView struct {
	now      time.Time
	ttl      func(table string) string
	index    func(table, index string) (pk, sk string)
	capacity bool
}

// expired reports whether item's TTL attribute (per its table's TTL
// setting) has passed: DynamoDB deletes such an item some time within a
// few days, so either store may hold it or not. A TTL more than five years
// in the past is ignored, as DynamoDB ignores it.
func (v answerView) expired(tableName string, item map[string]types.AttributeValue) bool {
	name := v.ttl(tableName)
	if name == "" || item == nil {
		return false
	}
	n, ok := item[name].(*types.AttributeValueMemberN)
	if !ok {
		return false
	}
	f, err := strconv.ParseFloat(n.Value, 64)
	if err != nil {
		return false
	}
	now := float64(v.now.Unix())
	return f <= now && f > now-5*365*24*3600
}

// live drops expired items, reporting whether it dropped any.
func (v answerView) live(tableName string, items []map[string]types.AttributeValue) ([]map[string]types.AttributeValue, bool) {
	var out []map[string]types.AttributeValue
	dropped := false
	for _, it := range items {
		if v.expired(tableName, it) {
			dropped = true
			continue
		}
		out = append(out, it)
	}
	return out, dropped
}

// liveItem is item, or nil when it has expired.
func (v answerView) liveItem(tableName string, item map[string]types.AttributeValue) map[string]types.AttributeValue {
	if v.expired(tableName, item) {
		return nil
	}
	return item
}

// answerFields are the fields of a successful answer that Compare
// compares, per operation. What is left out differs between correct
// stores, and CompareOptions' documentation lists it.
func answerFields(v answerView, in, out any) []field {
	var f []field
	add := func(name, text string) { f = append(f, field{name: name, text: text}) }
	capacity := func(cc ...types.ConsumedCapacity) {
		if v.capacity {
			add("ConsumedCapacity", canonCapacity(cc))
		}
	}
	capacityPtr := func(cc *types.ConsumedCapacity) {
		if cc != nil {
			capacity(*cc)
		} else {
			capacity()
		}
	}
	switch out := out.(type) {
	case *dynamodb.GetItemOutput:
		in := in.(*dynamodb.GetItemInput)
		add("Item", canonItem(v.liveItem(aws.ToString(in.TableName), out.Item)))
		capacityPtr(out.ConsumedCapacity)
	case *dynamodb.PutItemOutput:
		add("Attributes", canonItem(out.Attributes))
		add("ItemCollectionMetrics", canonMetrics(out.ItemCollectionMetrics))
		capacityPtr(out.ConsumedCapacity)
	case *dynamodb.UpdateItemOutput:
		add("Attributes", canonItem(out.Attributes))
		add("ItemCollectionMetrics", canonMetrics(out.ItemCollectionMetrics))
		capacityPtr(out.ConsumedCapacity)
	case *dynamodb.DeleteItemOutput:
		add("Attributes", canonItem(out.Attributes))
		add("ItemCollectionMetrics", canonMetrics(out.ItemCollectionMetrics))
		capacityPtr(out.ConsumedCapacity)
	case *dynamodb.QueryOutput:
		in := in.(*dynamodb.QueryInput)
		if in.IndexName != nil {
			f = append(f, indexPageFields(v, in, out)...)
		} else {
			f = append(f, pageFields(v, aws.ToString(in.TableName), out.Items, out.Count, out.ScannedCount, out.LastEvaluatedKey)...)
		}
		capacityPtr(out.ConsumedCapacity)
	case *dynamodb.ScanOutput:
		f = append(f, scanPageFields(v, in.(*dynamodb.ScanInput), out)...)
		capacityPtr(out.ConsumedCapacity)
	case *dynamodb.BatchGetItemOutput:
		// DynamoDB returns a batch's items in no particular order.
		for _, name := range sortedNames(out.Responses) {
			list, _ := v.live(name, out.Responses[name])
			texts := canonItems(list)
			sort.Strings(texts)
			add("Responses["+name+"]", "["+strings.Join(texts, ",")+"]")
		}
		for _, name := range sortedNames(out.UnprocessedKeys) {
			texts := canonItems(out.UnprocessedKeys[name].Keys)
			sort.Strings(texts)
			add("UnprocessedKeys["+name+"]", "["+strings.Join(texts, ",")+"]")
		}
		capacity(out.ConsumedCapacity...)
	case *dynamodb.BatchWriteItemOutput:
		for _, name := range sortedNames(out.UnprocessedItems) {
			var texts []string
			for _, w := range out.UnprocessedItems[name] {
				texts = append(texts, canonWrite(w))
			}
			sort.Strings(texts)
			add("UnprocessedItems["+name+"]", "["+strings.Join(texts, ",")+"]")
		}
		add("ItemCollectionMetrics", canonMetricsByTable(out.ItemCollectionMetrics))
		capacity(out.ConsumedCapacity...)
	case *dynamodb.TransactGetItemsOutput:
		in := in.(*dynamodb.TransactGetItemsInput)
		add("Responses.length", strconv.Itoa(len(out.Responses)))
		for i, r := range out.Responses {
			tableName := ""
			if i < len(in.TransactItems) && in.TransactItems[i].Get != nil {
				tableName = aws.ToString(in.TransactItems[i].Get.TableName)
			}
			add(fmt.Sprintf("Responses[%d]", i), canonItem(v.liveItem(tableName, r.Item)))
		}
		capacity(out.ConsumedCapacity...)
	case *dynamodb.TransactWriteItemsOutput:
		add("ItemCollectionMetrics", canonMetricsByTable(out.ItemCollectionMetrics))
		capacity(out.ConsumedCapacity...)
	case *dynamodb.CreateTableOutput:
		f = append(f, tableFields(out.TableDescription)...)
	case *dynamodb.DescribeTableOutput:
		f = append(f, tableFields(out.Table)...)
	case *dynamodb.UpdateTableOutput:
		f = append(f, tableFields(out.TableDescription)...)
	case *dynamodb.DeleteTableOutput:
		if out.TableDescription != nil {
			add("TableName", aws.ToString(out.TableDescription.TableName))
		}
	case *dynamodb.ListTablesOutput:
		// The reference lists every table of its account or endpoint, the
		// candidate only those made through the Comparison: nothing to
		// compare but whether the call succeeded.
	case *dynamodb.UpdateTimeToLiveOutput:
		if s := out.TimeToLiveSpecification; s != nil {
			add("TimeToLiveSpecification", aws.ToString(s.AttributeName)+" enabled="+strconv.FormatBool(aws.ToBool(s.Enabled)))
		}
	case *dynamodb.DescribeTimeToLiveOutput:
		if d := out.TimeToLiveDescription; d != nil {
			add("TimeToLiveDescription", aws.ToString(d.AttributeName)+" "+settledTTL(d.TimeToLiveStatus))
		}
	case *dynamodb.UpdateContinuousBackupsOutput:
		add("ContinuousBackupsDescription", canonBackups(out.ContinuousBackupsDescription))
	case *dynamodb.DescribeContinuousBackupsOutput:
		add("ContinuousBackupsDescription", canonBackups(out.ContinuousBackupsDescription))
	}
	return f
}

// pageFields are a Query or Scan page's items, in order, its counts and
// where it stopped. An expired item is left out, and marked (expiredMark):
// when either store still held one, the counts and the stopping key depend
// on which expired items each store has deleted yet, so withoutUndefined
// drops them from both answers.
func pageFields(v answerView, tableName string, items []map[string]types.AttributeValue, count, scanned int32, last map[string]types.AttributeValue) []field {
	live, dropped := v.live(tableName, items)
	f := []field{{name: "Items.length", text: strconv.Itoa(len(live))}}
	for i, it := range live {
		f = append(f, field{name: fmt.Sprintf("Items[%d]", i), text: canonItem(it)})
	}
	f = append(f,
		field{name: "Count", text: strconv.Itoa(int(count))},
		field{name: "ScannedCount", text: strconv.Itoa(int(scanned))},
		field{name: "LastEvaluatedKey", text: canonItem(last)})
	if dropped {
		f = append(f, field{name: expiredMark, text: "yes"})
	}
	return f
}

// indexPageFields are the fields of a Query page of an index. An index's
// sort key values need not be unique in a partition, and DynamoDB does not
// define the order of items that share one (table.Query's "Ties"; DynamoDB
// Local and the fake order them differently). So the page is compared run
// by run, a run being the items that share an index sort key value (the
// whole page, on an index without a sort key): the key values of the runs
// in order, and each run's items as a set. A page with a LastEvaluatedKey
// may stop inside the run of that key's value, holding an undefined part
// of it: that run is not compared, nor, when a filter dropped items of the
// page, the Count; of the LastEvaluatedKey only the index key attributes
// are. A page that starts inside a run (its ExclusiveStartKey shares the
// first run's key value, in either answer) continues from a place only the
// reference's order defines: it is marked (undefinedMark), and
// withoutUndefined leaves nothing of it to compare.
func indexPageFields(v answerView, in *dynamodb.QueryInput, out *dynamodb.QueryOutput) []field {
	tableName := aws.ToString(in.TableName)
	ipk, isk := v.index(tableName, aws.ToString(in.IndexName))
	if ipk == "" {
		return pageFields(v, tableName, out.Items, out.Count, out.ScannedCount, out.LastEvaluatedKey)
	}
	live, dropped := v.live(tableName, out.Items)
	runKey := func(item map[string]types.AttributeValue) string {
		if isk == "" || item == nil {
			return ""
		}
		return canonValue(item[isk])
	}
	type run struct {
		key   string
		items []string
	}
	var runs []run
	for _, it := range live {
		k := runKey(it)
		if len(runs) == 0 || runs[len(runs)-1].key != k {
			runs = append(runs, run{key: k})
		}
		r := &runs[len(runs)-1]
		r.items = append(r.items, canonItem(it))
	}
	var f []field
	if in.ExclusiveStartKey != nil && len(runs) > 0 && runKey(in.ExclusiveStartKey) == runs[0].key {
		f = append(f, field{name: undefinedMark, text: "the page starts inside a run of ties"})
	}
	cut := out.LastEvaluatedKey != nil
	cutKey := runKey(out.LastEvaluatedKey)
	var keys []string
	for _, r := range runs {
		if cut && r.key == cutKey {
			continue
		}
		sort.Strings(r.items)
		keys = append(keys, r.key)
		name := "Items"
		if isk != "" {
			name = "Items with " + isk + " " + r.key
		}
		f = append(f, field{name: name, text: "[" + strings.Join(r.items, ",") + "]"})
	}
	if isk != "" {
		f = append(f, field{name: "Sort keys", text: strings.Join(keys, ",")})
	}
	count := field{name: "Count", text: strconv.Itoa(int(out.Count))}
	if cut && (in.FilterExpression != nil || in.QueryFilter != nil) {
		count.coarse = "(a filtered page cut inside a run of ties)"
	}
	lek := field{name: "LastEvaluatedKey", text: none}
	if cut {
		indexKey := map[string]types.AttributeValue{ipk: out.LastEvaluatedKey[ipk]}
		if isk != "" {
			indexKey[isk] = out.LastEvaluatedKey[isk]
		}
		lek.text = canonItem(indexKey) + " (its index key)"
	}
	f = append(f, count, field{name: "ScannedCount", text: strconv.Itoa(int(out.ScannedCount))}, lek)
	if dropped {
		f = append(f, field{name: expiredMark, text: "yes"})
	}
	return f
}

// scanPageFields are the fields of a Scan page. DynamoDB defines no order
// for a Scan: a whole table read in one page is compared as a set of items,
// with its counts; a page of a longer Scan (ExclusiveStartKey, or a
// LastEvaluatedKey in either answer) or a segment of a parallel one holds
// an undefined part of the table, and is marked (undefinedMark).
func scanPageFields(v answerView, in *dynamodb.ScanInput, out *dynamodb.ScanOutput) []field {
	tableName := aws.ToString(in.TableName)
	if in.ExclusiveStartKey != nil || out.LastEvaluatedKey != nil || in.TotalSegments != nil {
		return []field{{name: undefinedMark, text: "a page of a Scan in parts"}}
	}
	live, dropped := v.live(tableName, out.Items)
	texts := canonItems(live)
	sort.Strings(texts)
	f := []field{{name: "Items", text: "[" + strings.Join(texts, ",") + "]"},
		{name: "Count", text: strconv.Itoa(int(out.Count))},
		{name: "ScannedCount", text: strconv.Itoa(int(out.ScannedCount))},
		{name: "LastEvaluatedKey", text: none}}
	if dropped {
		f = append(f, field{name: expiredMark, text: "yes"})
	}
	return f
}

// expiredMark is the field a page's fields hold when it held an expired
// item.
const expiredMark = "(an expired item was read)"

// undefinedMark is the field a page's fields hold when what the page holds
// is not defined by DynamoDB's API (it depends on an order DynamoDB leaves
// open).
const undefinedMark = "(undefined page)"

// withoutUndefined applies the rules that need both answers of a page:
// when what either holds is undefined, nothing of it is compared; when
// either held an expired item, the counts and the stopping key are not.
func withoutUndefined(ref, cand []field) ([]field, []field) {
	marked := func(f []field, mark string) bool {
		for _, x := range f {
			if x.name == mark {
				return true
			}
		}
		return false
	}
	if marked(ref, undefinedMark) || marked(cand, undefinedMark) {
		return nil, nil
	}
	if !marked(ref, expiredMark) && !marked(cand, expiredMark) {
		return ref, cand
	}
	drop := func(f []field) []field {
		var out []field
		for _, x := range f {
			switch x.name {
			case "Count", "ScannedCount", "LastEvaluatedKey", expiredMark:
			default:
				out = append(out, x)
			}
		}
		return out
	}
	return drop(ref), drop(cand)
}

// settledTTL is a TTL status as it ends: ENABLING is ENABLED, DISABLING
// DISABLED. DynamoDB takes up to an hour to settle; emulators settle at
// once.
func settledTTL(s types.TimeToLiveStatus) string {
	switch s {
	case types.TimeToLiveStatusEnabling:
		return string(types.TimeToLiveStatusEnabled)
	case types.TimeToLiveStatusDisabling:
		return string(types.TimeToLiveStatusDisabled)
	}
	return string(s)
}

func canonBackups(d *types.ContinuousBackupsDescription) string {
	if d == nil {
		return none
	}
	s := string(d.ContinuousBackupsStatus)
	if p := d.PointInTimeRecoveryDescription; p != nil {
		s += " pitr=" + string(p.PointInTimeRecoveryStatus)
	}
	return s
}

// tableFields are the parts of a table description that a correct store
// answers the same: names, keys, indexes, billing, stream settings. Status
// (DynamoDB takes seconds to reach ACTIVE), ARNs and ids, creation times,
// item counts and sizes (refreshed every six hours), stream labels and
// the throughput change history are left out; the table class is
// compared, a missing summary meaning STANDARD.
func tableFields(d *types.TableDescription) []field {
	if d == nil {
		return []field{{name: "Table", text: none}}
	}
	keys := func(ks []types.KeySchemaElement) string {
		var parts []string
		for _, k := range ks {
			parts = append(parts, aws.ToString(k.AttributeName)+" "+string(k.KeyType))
		}
		return strings.Join(parts, ", ")
	}
	projection := func(p *types.Projection) string {
		if p == nil {
			return none
		}
		s := string(p.ProjectionType)
		if len(p.NonKeyAttributes) > 0 {
			s += " " + strings.Join(sorted(p.NonKeyAttributes), ",")
		}
		return s
	}
	throughput := func(p *types.ProvisionedThroughputDescription) string {
		if p == nil {
			return "0/0"
		}
		return fmt.Sprintf("%d/%d", aws.ToInt64(p.ReadCapacityUnits), aws.ToInt64(p.WriteCapacityUnits))
	}
	var attrs []string
	for _, a := range d.AttributeDefinitions {
		attrs = append(attrs, aws.ToString(a.AttributeName)+" "+string(a.AttributeType))
	}
	sort.Strings(attrs)
	billing := types.BillingModeProvisioned
	if d.BillingModeSummary != nil && d.BillingModeSummary.BillingMode != "" {
		billing = d.BillingModeSummary.BillingMode
	}
	// A table never given a class is described without a summary: it is
	// STANDARD (API reference, TableClassSummary).
	class := types.TableClassStandard
	if d.TableClassSummary != nil && d.TableClassSummary.TableClass != "" {
		class = d.TableClassSummary.TableClass
	}
	stream := "disabled"
	if s := d.StreamSpecification; s != nil && aws.ToBool(s.StreamEnabled) {
		stream = "enabled " + string(s.StreamViewType)
	}
	f := []field{
		{name: "TableName", text: aws.ToString(d.TableName)},
		{name: "KeySchema", text: keys(d.KeySchema)},
		{name: "AttributeDefinitions", text: strings.Join(attrs, ", ")},
		{name: "BillingMode", text: string(billing)},
		{name: "ProvisionedThroughput", text: throughput(d.ProvisionedThroughput)},
		{name: "StreamSpecification", text: stream},
		{name: "DeletionProtectionEnabled", text: strconv.FormatBool(aws.ToBool(d.DeletionProtectionEnabled))},
		{name: "TableClass", text: string(class)},
	}
	var gsis, lsis []string
	for _, ix := range d.GlobalSecondaryIndexes {
		gsis = append(gsis, aws.ToString(ix.IndexName)+": "+keys(ix.KeySchema)+"; "+projection(ix.Projection)+"; "+throughput(ix.ProvisionedThroughput))
	}
	for _, ix := range d.LocalSecondaryIndexes {
		lsis = append(lsis, aws.ToString(ix.IndexName)+": "+keys(ix.KeySchema)+"; "+projection(ix.Projection))
	}
	sort.Strings(gsis)
	sort.Strings(lsis)
	return append(f,
		field{name: "GlobalSecondaryIndexes", text: strings.Join(gsis, " | ")},
		field{name: "LocalSecondaryIndexes", text: strings.Join(lsis, " | ")})
}

func canonMetrics(m *types.ItemCollectionMetrics) string {
	if m == nil {
		return none
	}
	return canonItem(m.ItemCollectionKey) + fmt.Sprint(m.SizeEstimateRangeGB)
}

func canonMetricsByTable(m map[string][]types.ItemCollectionMetrics) string {
	if len(m) == 0 {
		return none
	}
	var parts []string
	for _, name := range sortedNames(m) {
		var texts []string
		for i := range m[name] {
			texts = append(texts, canonMetrics(&m[name][i]))
		}
		sort.Strings(texts)
		parts = append(parts, name+": "+strings.Join(texts, ","))
	}
	return strings.Join(parts, "; ")
}

func canonWrite(w types.WriteRequest) string {
	switch {
	case w.PutRequest != nil:
		return "put " + canonItem(w.PutRequest.Item)
	case w.DeleteRequest != nil:
		return "delete " + canonItem(w.DeleteRequest.Key)
	}
	return "{}"
}

// canonCapacity renders consumed capacity per table, in table order.
func canonCapacity(cc []types.ConsumedCapacity) string {
	if len(cc) == 0 {
		return none
	}
	num := func(f *float64) string {
		if f == nil {
			return "-"
		}
		return strconv.FormatFloat(*f, 'f', -1, 64)
	}
	one := func(c *types.Capacity) string {
		if c == nil {
			return none
		}
		return num(c.CapacityUnits) + "/" + num(c.ReadCapacityUnits) + "/" + num(c.WriteCapacityUnits)
	}
	indexes := func(kind string, m map[string]types.Capacity) string {
		var s string
		for _, name := range sortedNames(m) {
			c := m[name]
			s += " " + kind + "[" + name + "]=" + one(&c)
		}
		return s
	}
	texts := make([]string, len(cc))
	for i, c := range cc {
		texts[i] = aws.ToString(c.TableName) + ": " + num(c.CapacityUnits) + "/" + num(c.ReadCapacityUnits) + "/" +
			num(c.WriteCapacityUnits) + " table=" + one(c.Table) + indexes("gsi", c.GlobalSecondaryIndexes) +
			indexes("lsi", c.LocalSecondaryIndexes)
	}
	sort.Strings(texts)
	return strings.Join(texts, "; ")
}

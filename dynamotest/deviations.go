package dynamotest

import (
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Deviation is a documented way a reference store departs from DynamoDB's
// API reference. Compare counts the differences a deviation matches apart
// from the candidate's bugs: where DynamoDB Local and the API reference
// disagree, the fake follows the reference, and Local's answer is the one
// that is off.
type Deviation struct {
	// Name identifies the deviation in a Difference ("local-checks-table-first").
	Name string
	// Why says what the reference does and what DynamoDB's API reference
	// (or DynamoDB itself, as measured) says instead.
	Why string
	// Match reports whether a difference is this deviation.
	Match func(d Difference) bool
}

// The names of DynamoDB Local's deviations.
const (
	LocalChecksTableFirst     = "local-checks-table-first"
	LocalWholeAttributes      = "local-whole-attributes"
	LocalLooksAhead           = "local-looks-ahead"
	LocalNoCollectionMetrics  = "local-no-item-collection-metrics"
	LocalOneViolation         = "local-one-violation"
	LocalScansIndexWholeItems = "local-scans-index-whole-items"
	LocalIgnoresNoAction      = "local-ignores-attribute-update-without-action"
	LocalBatchGetMessage      = "local-batch-get-too-many-message"
	LocalChargesNothing       = "local-charges-nothing-for-missing-items"
	LocalTransactionCapacity  = "local-transaction-capacity"
	LocalNotFoundMessage      = "local-not-found-message"
	LocalNoTableClass         = "local-no-table-class"
)

// LocalDeviations are DynamoDB Local's documented departures from
// DynamoDB's API reference that a table.API call can show, each as the
// conformance suite (dynamotest/conformance) records it beside the case it
// skips on Local. Compare(local, fake, KnownDeviations(LocalDeviations()...))
// counts them apart.
//
// Two of Local's documented departures have no matcher: Local counts only
// the items a filter keeps toward a page's 1 MB (DynamoDB counts what it
// reads), which a single difference cannot tell from a wrong page; and
// Local answers some requests with a 500 InternalFailure, which Compare
// treats as no answer at all.
func LocalDeviations() []Deviation {
	return []Deviation{
		{Name: LocalChecksTableFirst, Why: LocalDeviationWhy(LocalChecksTableFirst), Match: func(d Difference) bool {
			return d.Class == DiffError && strings.HasPrefix(d.Reference, "ResourceNotFoundException:") &&
				strings.HasPrefix(d.Candidate, "ValidationException:")
		}},
		{Name: LocalNotFoundMessage, Why: LocalDeviationWhy(LocalNotFoundMessage), Match: func(d Difference) bool {
			return d.Class == DiffMessage && d.Reference == "ResourceNotFoundException: Cannot do operations on a non-existent table" &&
				strings.HasPrefix(d.Candidate, "ResourceNotFoundException: Requested resource not found")
		}},
		{Name: LocalWholeAttributes, Why: LocalDeviationWhy(LocalWholeAttributes), Match: func(d Difference) bool {
			in, ok := d.Request.(*dynamodb.UpdateItemInput)
			return ok && d.Class == DiffAnswer && d.Field == "Attributes" &&
				(in.ReturnValues == types.ReturnValueUpdatedOld || in.ReturnValues == types.ReturnValueUpdatedNew)
		}},
		{Name: LocalLooksAhead, Why: LocalDeviationWhy(LocalLooksAhead), Match: func(d Difference) bool {
			in, ok := d.Request.(*dynamodb.QueryInput)
			return ok && in.Limit != nil && d.Class == DiffAnswer && d.Field == "LastEvaluatedKey" &&
				d.Reference == none && d.Candidate != none
		}},
		{Name: LocalNoCollectionMetrics, Why: LocalDeviationWhy(LocalNoCollectionMetrics), Match: func(d Difference) bool {
			return d.Class == DiffAnswer && d.Field == "ItemCollectionMetrics" && d.Reference == none
		}},
		{Name: LocalOneViolation, Why: LocalDeviationWhy(LocalOneViolation), Match: func(d Difference) bool {
			return d.Class == DiffMessage && strings.HasPrefix(d.Candidate, "ValidationException: ") &&
				strings.Contains(d.Candidate, " detected: ") && !strings.Contains(d.Reference, " detected: ")
		}},
		{Name: LocalScansIndexWholeItems, Why: LocalDeviationWhy(LocalScansIndexWholeItems), Match: func(d Difference) bool {
			in, ok := d.Request.(*dynamodb.ScanInput)
			return ok && in.IndexName != nil && d.Class == DiffError && d.Reference == "ok" &&
				strings.Contains(d.Candidate, "does not project one or more filter attributes")
		}},
		{Name: LocalIgnoresNoAction, Why: LocalDeviationWhy(LocalIgnoresNoAction), Match: func(d Difference) bool {
			in, ok := d.Request.(*dynamodb.UpdateItemInput)
			if !ok || (d.Class != DiffItem && !(d.Class == DiffAnswer && d.Field == "Attributes")) {
				return false
			}
			for _, u := range in.AttributeUpdates {
				if u.Action == "" {
					return true
				}
			}
			return false
		}},
		{Name: LocalBatchGetMessage, Why: LocalDeviationWhy(LocalBatchGetMessage), Match: func(d Difference) bool {
			return d.Op == "BatchGetItem" && d.Class == DiffMessage &&
				strings.Contains(d.Reference, "Too many items requested for the BatchGetItem call")
		}},
		{Name: LocalNoTableClass, Why: LocalDeviationWhy(LocalNoTableClass), Match: func(d Difference) bool {
			return d.Class == DiffAnswer && d.Field == "TableClass" && d.Reference == string(types.TableClassStandard)
		}},
		{Name: LocalChargesNothing, Why: LocalDeviationWhy(LocalChargesNothing), Match: func(d Difference) bool {
			return (d.Op == "Query" || d.Op == "BatchGetItem" || d.Op == "GetItem") && d.Field == "ConsumedCapacity" &&
				capacityTotal(d.Reference) == 0 && capacityTotal(d.Candidate) > 0
		}},
		{Name: LocalTransactionCapacity, Why: LocalDeviationWhy(LocalTransactionCapacity), Match: func(d Difference) bool {
			if d.Op != "TransactWriteItems" || d.Field != "ConsumedCapacity" {
				return false
			}
			ref, cand := capacityTotal(d.Reference), capacityTotal(d.Candidate)
			return ref > 0 && (cand == 2*ref || cand == ref)
		}},
	}
}

// LocalDeviationWhy is what the named deviation of DynamoDB Local is, in
// the words the conformance suite gives as its reason to skip a case on
// Local; "" for a name LocalDeviations does not hold.
func LocalDeviationWhy(name string) string {
	return localWhy[name]
}

var localWhy = map[string]string{
	LocalChecksTableFirst: "DynamoDB Local looks the table up before it validates the request and answers " +
		"ResourceNotFoundException; DynamoDB validates the request first (its API reference lists ValidationException " +
		"for an invalid request, whatever the table), so the fake follows DynamoDB",
	LocalNotFoundMessage: "DynamoDB Local says \"Cannot do operations on a non-existent table\" for every request on a missing table; " +
		"DynamoDB says \"Requested resource not found: Table: <name> not found\" for DescribeTable and \"Requested resource not found\" " +
		"for the item operations (dynalite's AWS-written \"should return ResourceNotFoundException if table does not exist\" tests)",
	LocalWholeAttributes: "DynamoDB Local returns whole top-level attributes for UPDATED_OLD and UPDATED_NEW; " +
		"DynamoDB returns only the updated paths (API reference, UpdateItem ReturnValues: \"Returns only the updated attributes\")",
	LocalLooksAhead: "DynamoDB Local returns no LastEvaluatedKey when a Limit page ends on an inclusive key-condition " +
		"bound and refuses that key as ExclusiveStartKey; DynamoDB returns a LastEvaluatedKey whenever Limit stops the page " +
		"(API reference, Query Limit and LastEvaluatedKey) and accepts it back",
	LocalNoCollectionMetrics: "DynamoDB Local returns no ItemCollectionMetrics; the API reference returns them for tables " +
		"with local secondary indexes when ReturnItemCollectionMetrics is SIZE",
	LocalOneViolation: "DynamoDB Local reports only the first broken member constraint, in its own words; " +
		"DynamoDB reports every one, up to ten, in one \"N validation errors detected\" message " +
		"(dynalite's AWS-written \"should return ValidationException for incorrect attributes\" tests)",
	LocalScansIndexWholeItems: "DynamoDB Local evaluates a Scan filter on a global index against the table's whole item; a global index " +
		"holds only its projected attributes and DynamoDB never fetches from the table for it (API reference: a read of a global " +
		"secondary index can request only projected attributes), so the fake refuses the filter as Local refuses it in a Query",
	LocalIgnoresNoAction: "DynamoDB Local ignores an AttributeUpdates entry without an Action; the API reference says PUT is the default",
	LocalBatchGetMessage: "DynamoDB Local answers \"Too many items requested for the BatchGetItem call\"; DynamoDB reports the Keys member's " +
		"constraint for more than 100 keys of one table and keeps that message for more than 100 over several " +
		"(dynalite's AWS-written \"should return ValidationException when fetching more than 100 keys\" tests)",
	LocalChargesNothing: "DynamoDB Local reports 0 units for a Query that matches nothing and for BatchGetItem keys " +
		"that find no item; DynamoDB charges a read of a missing item the minimum (0.5 eventually consistent, 1 consistent) " +
		"per its capacity documentation",
	LocalNoTableClass: "DynamoDB Local accepts a TableClass and describes every table without a TableClassSummary (STANDARD); " +
		"DynamoDB keeps the class CreateTable or UpdateTable set and describes it (API reference, TableDescription.TableClassSummary)",
	LocalTransactionCapacity: "DynamoDB Local reports a transactional write at the plain rate (1 unit per KB) and its CapacityUnits alone; " +
		"DynamoDB charges transactional writes double (2 units per KB, per its capacity documentation) and adds WriteCapacityUnits " +
		"(characterised against DynamoDB by paritysuite/dynamodb-conformance, issue 69; aws-sdk-go issue 2699)",
}

// capacityTotal is the sum of the CapacityUnits in a canonCapacity text,
// -1 when there are none.
func capacityTotal(text string) float64 {
	if text == none {
		return -1
	}
	total, found := 0.0, false
	for _, part := range strings.Split(text, "; ") {
		_, rest, ok := strings.Cut(part, ": ")
		if !ok {
			continue
		}
		units, _, _ := strings.Cut(rest, "/")
		f, err := strconv.ParseFloat(units, 64)
		if err != nil {
			continue
		}
		total, found = total+f, true
	}
	if !found {
		return -1
	}
	return total
}

// EventualReads is the deviation to add when the reference is DynamoDB
// itself: a read without ConsistentRead, or of a global secondary index,
// may return a state older than the candidate's (DynamoDB's reads are
// eventually consistent unless asked otherwise; the fake's are not, unless
// EventualConsistency), so an answer difference of such a read is counted
// apart. Make the reads a team compares consistent where it can.
func EventualReads() Deviation {
	return Deviation{Name: "eventual-read", Why: "an eventually consistent read of DynamoDB may return a state older than the last write " +
		"(API reference, ConsistentRead; global secondary indexes support eventually consistent reads only)",
		Match: func(d Difference) bool { return d.Class == DiffAnswer && !consistentRead(d.Request) }}
}

// consistentRead reports whether a read request asked for a strongly
// consistent read.
func consistentRead(in any) bool {
	switch in := in.(type) {
	case *dynamodb.GetItemInput:
		return aws.ToBool(in.ConsistentRead)
	case *dynamodb.QueryInput:
		return aws.ToBool(in.ConsistentRead) && in.IndexName == nil
	case *dynamodb.ScanInput:
		return aws.ToBool(in.ConsistentRead) && in.IndexName == nil
	}
	return true
}

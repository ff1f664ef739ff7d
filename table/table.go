package table

import "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

// Item is one DynamoDB item as the SDK represents it.
type Item = map[string]types.AttributeValue

// Key is the primary key of one item: the partition key attribute and, when
// the table has one, the sort key attribute.
type Key map[string]types.AttributeValue

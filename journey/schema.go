package journey

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/table"
)

// DefaultTableName is the seed's table.
const DefaultTableName = "TransformationSystem"

// IndexGSI1 is the seed's one global secondary index, on GSI1PK and GSI1SK
// (both S), projecting every attribute.
const IndexGSI1 = "GSI1"

// Schema is the seed's table under name (DefaultTableName when ""): PK and
// SK (S) and GSI1 on GSI1PK and GSI1SK (S, projection ALL), with the
// seed's point-in-time recovery and encryption at rest with AWS KMS
// (table.RecoveryAndKMS; Provisioning replaces them for a store), and TTL
// on ttl, which only log summaries carry (the seed has no TTL; its
// summaries are copies of what the S3 log files keep, and expire after
// Options.LogSummaryRetention). How the store uses it is declared by
// Patterns.
func Schema(name string) table.Schema {
	if name == "" {
		name = DefaultTableName
	}
	s := func(a string) table.Attribute { return table.Attribute{Name: a, Type: types.ScalarAttributeTypeS} }
	return table.Schema{
		Name:         name,
		PartitionKey: s(attrPK),
		SortKey:      s(attrSK),
		TTLAttribute: attrTTL,
		Indexes: []table.Index{{
			Name:         IndexGSI1,
			PartitionKey: s(attrGSI1PK),
			SortKey:      s(attrGSI1SK),
			Projection:   types.ProjectionTypeAll,
		}},
		Provisioning: table.RecoveryAndKMS(),
	}
}

package tasks

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/table"
)

// IndexGSI1 is the seed's one global secondary index: GSI1PK, GSI1SK,
// projecting ALL so Claim takes the payload from the index entry (the
// payload never changes, so the index's eventual consistency cannot hand
// out a stale one) instead of a second read.
const IndexGSI1 = "GSI1"

// Schema is the seed's single table named name: PK and SK (S), GSI1 on
// GSI1PK and GSI1SK (S), and TTL on ttl (finished tasks expire after
// Options.Retention). Patterns declares how the store uses it: the
// seed's access patterns and the ones this package adds (leases, reclaim),
// each with its item size and the rate of the seed's plan of 500 tasks per
// second.
func Schema(name string) table.Schema {
	s := func(n string) table.Attribute { return table.Attribute{Name: n, Type: types.ScalarAttributeTypeS} }
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
	}
}

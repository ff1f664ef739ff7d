package pipeline

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/table"
)

// Attribute and index names of the seed's table.
const (
	attrPK     = "pk"
	attrSK     = "sk"
	attrSiKey1 = "siKey1"
	attrCount  = "count"

	// IndexGSI1 is the seed's GSI-1: partition siKey1, sort pk.
	IndexGSI1 = "GSI-1"

	// DefaultTableName is used when Options.TableName is empty; the seed
	// does not name its table.
	DefaultTableName = "pipelines"
)

// Schema returns the pipeline table called name: pk and sk (strings), and
// GSI-1 on siKey1 with pk as its sort key, projecting every attribute
// because "list pipelines" and "list executions" return whole records.
// Patterns declares the seed's access patterns, as this package serves them.
func Schema(name string) table.Schema {
	s := func(n string) table.Attribute { return table.Attribute{Name: n, Type: types.ScalarAttributeTypeS} }
	return table.Schema{
		Name:         name,
		PartitionKey: s(attrPK),
		SortKey:      s(attrSK),
		Indexes: []table.Index{{
			Name:         IndexGSI1,
			PartitionKey: s(attrSiKey1),
			SortKey:      s(attrPK),
			Projection:   types.ProjectionTypeAll,
		}},
	}
}

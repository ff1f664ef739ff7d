package jobs

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/table"
)

// The seed's two global secondary indexes, both projecting ALL.
const (
	// IndexUserCreatedAt is GSI1, "User Job History": userId, createdAt.
	IndexUserCreatedAt = "userId-createdAt-index"
	// IndexStatusCreatedAt is GSI2, "Status-Based Queries (Admin)": status, createdAt.
	IndexStatusCreatedAt = "status-createdAt-index"
)

// DefaultTableName is the table a Store uses unless Options.TableName says
// otherwise: the seed's name in the dev environment.
const DefaultTableName = "photoeditor-dev-jobs"

// TableNameForEnv is the seed's table name for env: photoeditor-{env}-jobs.
func TableNameForEnv(env string) string {
	return "photoeditor-" + env + "-jobs"
}

// Schema is the seed's table named tableName (see TableNameForEnv): jobId
// (S) partition key, no sort key,
// TTL on ttl, and the two indexes keyed on createdAt (N, Unix ms), with
// the seed's "PITR: Enabled" and "Encryption: AWS-managed KMS"
// (table.RecoveryAndKMS; Provisioning replaces them for a store). How the
// store uses it (the seed's access patterns, with typical item sizes and
// rates) is declared by Patterns.
func Schema(tableName string) table.Schema {
	createdAt := table.Attribute{Name: attrCreatedAt, Type: types.ScalarAttributeTypeN}
	return table.Schema{
		Name:         tableName,
		PartitionKey: table.Attribute{Name: attrJobID, Type: types.ScalarAttributeTypeS},
		Indexes: []table.Index{
			{
				Name:         IndexUserCreatedAt,
				PartitionKey: table.Attribute{Name: attrUserID, Type: types.ScalarAttributeTypeS},
				SortKey:      createdAt,
				Projection:   types.ProjectionTypeAll,
			},
			{
				Name:         IndexStatusCreatedAt,
				PartitionKey: table.Attribute{Name: attrStatus, Type: types.ScalarAttributeTypeS},
				SortKey:      createdAt,
				Projection:   types.ProjectionTypeAll,
			},
		},
		TTLAttribute: attrTTL,
		Provisioning: table.RecoveryAndKMS(),
	}
}

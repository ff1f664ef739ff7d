package conformance

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Key is a key attribute: its name and scalar type.
type Key struct {
	Name string
	Type types.ScalarAttributeType
}

// GSI is a global secondary index.
type GSI struct {
	Name        string
	Hash, Range Key
	Projection  types.ProjectionType // "" means ALL
	NonKey      []string             // for INCLUDE
}

// LSI is a local secondary index: the table's partition key and Range.
type LSI struct {
	Name       string
	Range      Key
	Projection types.ProjectionType // "" means ALL
	NonKey     []string             // for INCLUDE
}

// Schema is the shape of a case's table.
type Schema struct {
	Hash, Range Key
	GSIs        []GSI
	LSIs        []LSI
	// TTL, when set, is enabled as the table's time-to-live attribute.
	TTL string
}

// The table shapes cases use.
var (
	// PK: partition key pk (S), no sort key.
	PK = Schema{Hash: Key{"pk", types.ScalarAttributeTypeS}}
	// PKSK: pk (S) and sort key sk (S); the default.
	PKSK = Schema{Hash: Key{"pk", types.ScalarAttributeTypeS}, Range: Key{"sk", types.ScalarAttributeTypeS}}
	// PKNum: pk (S) and a numeric sort key sk (N).
	PKNum = Schema{Hash: Key{"pk", types.ScalarAttributeTypeS}, Range: Key{"sk", types.ScalarAttributeTypeN}}
	// PKBin: binary pk and sk.
	PKBin = Schema{Hash: Key{"pk", types.ScalarAttributeTypeB}, Range: Key{"sk", types.ScalarAttributeTypeB}}
	// NumPK: a numeric partition key pk, no sort key.
	NumPK = Schema{Hash: Key{"pk", types.ScalarAttributeTypeN}}
	// Indexed: pk/sk with three GSIs, one per projection type:
	// byStatus (status S, created N, ALL), byOwner (owner S, KEYS_ONLY) and
	// byTag (tag S, rank N, INCLUDE title).
	Indexed = Schema{
		Hash:  Key{"pk", types.ScalarAttributeTypeS},
		Range: Key{"sk", types.ScalarAttributeTypeS},
		GSIs: []GSI{
			{Name: "byStatus", Hash: Key{"status", types.ScalarAttributeTypeS}, Range: Key{"created", types.ScalarAttributeTypeN}, Projection: types.ProjectionTypeAll},
			{Name: "byOwner", Hash: Key{"owner", types.ScalarAttributeTypeS}, Projection: types.ProjectionTypeKeysOnly},
			{Name: "byTag", Hash: Key{"tag", types.ScalarAttributeTypeS}, Range: Key{"rank", types.ScalarAttributeTypeN}, Projection: types.ProjectionTypeInclude, NonKey: []string{"title"}},
		},
	}
	// Local: pk/sk with two local secondary indexes: byOrd (ord N,
	// KEYS_ONLY) and byTitle (title S, INCLUDE x).
	Local = Schema{
		Hash:  Key{"pk", types.ScalarAttributeTypeS},
		Range: Key{"sk", types.ScalarAttributeTypeS},
		LSIs: []LSI{
			{Name: "byOrd", Range: Key{"ord", types.ScalarAttributeTypeN}, Projection: types.ProjectionTypeKeysOnly},
			{Name: "byTitle", Range: Key{"title", types.ScalarAttributeTypeS}, Projection: types.ProjectionTypeInclude, NonKey: []string{"x"}},
		},
	}
	// WithTTL: pk/sk with time-to-live on attribute "expires".
	WithTTL = Schema{Hash: Key{"pk", types.ScalarAttributeTypeS}, Range: Key{"sk", types.ScalarAttributeTypeS}, TTL: "expires"}
)

// CreateTableInput returns the on-demand CreateTable request for the shape.
func (s Schema) CreateTableInput(name string) *dynamodb.CreateTableInput {
	defs := map[string]types.ScalarAttributeType{}
	var order []string
	def := func(k Key) {
		if k.Name == "" {
			return
		}
		if _, ok := defs[k.Name]; !ok {
			order = append(order, k.Name)
		}
		defs[k.Name] = k.Type
	}
	keySchema := func(h, r Key) []types.KeySchemaElement {
		ks := []types.KeySchemaElement{{AttributeName: aws.String(h.Name), KeyType: types.KeyTypeHash}}
		if r.Name != "" {
			ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(r.Name), KeyType: types.KeyTypeRange})
		}
		return ks
	}
	def(s.Hash)
	def(s.Range)
	in := &dynamodb.CreateTableInput{
		TableName:   aws.String(name),
		BillingMode: types.BillingModePayPerRequest,
		KeySchema:   keySchema(s.Hash, s.Range),
	}
	for _, g := range s.GSIs {
		def(g.Hash)
		def(g.Range)
		p := g.Projection
		if p == "" {
			p = types.ProjectionTypeAll
		}
		proj := &types.Projection{ProjectionType: p}
		if p == types.ProjectionTypeInclude {
			proj.NonKeyAttributes = g.NonKey
		}
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{
			IndexName:  aws.String(g.Name),
			KeySchema:  keySchema(g.Hash, g.Range),
			Projection: proj,
		})
	}
	for _, l := range s.LSIs {
		def(l.Range)
		p := l.Projection
		if p == "" {
			p = types.ProjectionTypeAll
		}
		proj := &types.Projection{ProjectionType: p}
		if p == types.ProjectionTypeInclude {
			proj.NonKeyAttributes = l.NonKey
		}
		in.LocalSecondaryIndexes = append(in.LocalSecondaryIndexes, types.LocalSecondaryIndex{
			IndexName:  aws.String(l.Name),
			KeySchema:  keySchema(s.Hash, l.Range),
			Projection: proj,
		})
	}
	for _, n := range order {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String(n), AttributeType: defs[n]})
	}
	return in
}

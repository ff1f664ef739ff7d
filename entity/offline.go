package entity

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/tablekit/tablekit/table"
)

// ErrOffline: a call of an Offline registry's entity (or of its table)
// would have sent a request; nothing was sent.
var ErrOffline = errors.New("entity: the registry is offline: it decodes items and sends no request")

// Offline returns a registry of the table s describes that never reaches
// it: declare its entities with New as on NewRegistry's, and they decode
// items given by other means (Decode, FromChange, Registry.FromChange) and
// build keys (Key) as the same declarations on the table do. It is for
// code that reads items without a DynamoDB client (a stream consumer's
// package function, a backup reader): one declaration, no second decoder
// built by hand. Every call that would send a request (Get, Put, List,
// Transact, the table's own calls) fails with ErrOffline and sends
// nothing. Options are NewRegistry's; its clock (time.Now unless Clock
// sets one) decides what has expired, and a registry without Blobs cannot
// restore offloaded attributes (their Decode fails, as on a table without
// a blob store).
func Offline(s table.Schema, opts ...func(*RegistryOptions)) (*Registry, error) {
	return NewRegistry(table.New(offline{}, s), opts...)
}

// offline is the table API of an Offline registry: every request is
// refused with ErrOffline.
type offline struct{}

var _ table.API = offline{}

type dopts = func(*dynamodb.Options)

func (offline) CreateTable(context.Context, *dynamodb.CreateTableInput, ...dopts) (*dynamodb.CreateTableOutput, error) {
	return nil, ErrOffline
}

func (offline) DeleteTable(context.Context, *dynamodb.DeleteTableInput, ...dopts) (*dynamodb.DeleteTableOutput, error) {
	return nil, ErrOffline
}

func (offline) DescribeTable(context.Context, *dynamodb.DescribeTableInput, ...dopts) (*dynamodb.DescribeTableOutput, error) {
	return nil, ErrOffline
}

func (offline) ListTables(context.Context, *dynamodb.ListTablesInput, ...dopts) (*dynamodb.ListTablesOutput, error) {
	return nil, ErrOffline
}

func (offline) UpdateTimeToLive(context.Context, *dynamodb.UpdateTimeToLiveInput, ...dopts) (*dynamodb.UpdateTimeToLiveOutput, error) {
	return nil, ErrOffline
}

func (offline) DescribeTimeToLive(context.Context, *dynamodb.DescribeTimeToLiveInput, ...dopts) (*dynamodb.DescribeTimeToLiveOutput, error) {
	return nil, ErrOffline
}

func (offline) UpdateTable(context.Context, *dynamodb.UpdateTableInput, ...dopts) (*dynamodb.UpdateTableOutput, error) {
	return nil, ErrOffline
}

func (offline) UpdateContinuousBackups(context.Context, *dynamodb.UpdateContinuousBackupsInput, ...dopts) (*dynamodb.UpdateContinuousBackupsOutput, error) {
	return nil, ErrOffline
}

func (offline) DescribeContinuousBackups(context.Context, *dynamodb.DescribeContinuousBackupsInput, ...dopts) (*dynamodb.DescribeContinuousBackupsOutput, error) {
	return nil, ErrOffline
}

func (offline) ListTagsOfResource(context.Context, *dynamodb.ListTagsOfResourceInput, ...dopts) (*dynamodb.ListTagsOfResourceOutput, error) {
	return nil, ErrOffline
}

func (offline) GetItem(context.Context, *dynamodb.GetItemInput, ...dopts) (*dynamodb.GetItemOutput, error) {
	return nil, ErrOffline
}

func (offline) PutItem(context.Context, *dynamodb.PutItemInput, ...dopts) (*dynamodb.PutItemOutput, error) {
	return nil, ErrOffline
}

func (offline) UpdateItem(context.Context, *dynamodb.UpdateItemInput, ...dopts) (*dynamodb.UpdateItemOutput, error) {
	return nil, ErrOffline
}

func (offline) DeleteItem(context.Context, *dynamodb.DeleteItemInput, ...dopts) (*dynamodb.DeleteItemOutput, error) {
	return nil, ErrOffline
}

func (offline) Query(context.Context, *dynamodb.QueryInput, ...dopts) (*dynamodb.QueryOutput, error) {
	return nil, ErrOffline
}

func (offline) Scan(context.Context, *dynamodb.ScanInput, ...dopts) (*dynamodb.ScanOutput, error) {
	return nil, ErrOffline
}

func (offline) BatchGetItem(context.Context, *dynamodb.BatchGetItemInput, ...dopts) (*dynamodb.BatchGetItemOutput, error) {
	return nil, ErrOffline
}

func (offline) BatchWriteItem(context.Context, *dynamodb.BatchWriteItemInput, ...dopts) (*dynamodb.BatchWriteItemOutput, error) {
	return nil, ErrOffline
}

func (offline) TransactGetItems(context.Context, *dynamodb.TransactGetItemsInput, ...dopts) (*dynamodb.TransactGetItemsOutput, error) {
	return nil, ErrOffline
}

func (offline) TransactWriteItems(context.Context, *dynamodb.TransactWriteItemsInput, ...dopts) (*dynamodb.TransactWriteItemsOutput, error) {
	return nil, ErrOffline
}

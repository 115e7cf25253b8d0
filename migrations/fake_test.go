package migrations

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/tables"
)

// describeInput returns the description DynamoDB gives of a table created from in,
// once it and its indexes are ACTIVE.
func describeInput(in *dynamodb.CreateTableInput) *types.TableDescription {
	d := &types.TableDescription{
		TableName:             in.TableName,
		TableStatus:           types.TableStatusActive,
		KeySchema:             append([]types.KeySchemaElement(nil), in.KeySchema...),
		AttributeDefinitions:  append([]types.AttributeDefinition(nil), in.AttributeDefinitions...),
		BillingModeSummary:    &types.BillingModeSummary{BillingMode: in.BillingMode},
		ProvisionedThroughput: throughputDescription(in.ProvisionedThroughput),
	}
	for _, g := range in.GlobalSecondaryIndexes {
		d.GlobalSecondaryIndexes = append(d.GlobalSecondaryIndexes, types.GlobalSecondaryIndexDescription{
			IndexName:             g.IndexName,
			IndexStatus:           types.IndexStatusActive,
			KeySchema:             g.KeySchema,
			Projection:            g.Projection,
			ProvisionedThroughput: throughputDescription(g.ProvisionedThroughput),
		})
	}
	for _, l := range in.LocalSecondaryIndexes {
		d.LocalSecondaryIndexes = append(d.LocalSecondaryIndexes, types.LocalSecondaryIndexDescription{
			IndexName:  l.IndexName,
			KeySchema:  l.KeySchema,
			Projection: l.Projection,
		})
	}
	return d
}

func throughputDescription(t *types.ProvisionedThroughput) *types.ProvisionedThroughputDescription {
	if t == nil {
		return &types.ProvisionedThroughputDescription{ReadCapacityUnits: aws.Int64(0), WriteCapacityUnits: aws.Int64(0)}
	}
	return &types.ProvisionedThroughputDescription{ReadCapacityUnits: t.ReadCapacityUnits, WriteCapacityUnits: t.WriteCapacityUnits}
}

// fakeAPI is an in-memory DynamoDB control plane. Tables it creates, updates or
// deletes stay in their transitional state for busy DescribeTable calls, and the GSIs
// it creates for twice as many, as DynamoDB backfills them after the table is ACTIVE.
// Like DynamoDB, it rejects UpdateTable and DeleteTable on a table in transition.
type fakeAPI struct {
	mu     sync.Mutex
	busy   int
	tables map[string]*fakeTable
	calls  map[string]int
}

type fakeTable struct {
	desc         *types.TableDescription
	pending      int // DescribeTable calls left before the table's transition ends
	indexPending int // DescribeTable calls left before the GSIs' transitions end
	version      map[string]types.AttributeValue
}

func newFakeAPI(busy int) *fakeAPI {
	return &fakeAPI{busy: busy, tables: map[string]*fakeTable{}, calls: map[string]int{}}
}

// put stores d as an existing table.
func (f *fakeAPI) put(d *types.TableDescription) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tables[aws.ToString(d.TableName)] = &fakeTable{desc: d}
}

func (f *fakeAPI) count(op string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[op]
}

func (f *fakeAPI) total() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		n += c
	}
	return n
}

func (f *fakeAPI) writes() int {
	return f.count("CreateTable") + f.count("UpdateTable") + f.count("DeleteTable") + f.count("PutItem")
}

func notFound(name string) error {
	return &types.ResourceNotFoundException{Message: aws.String("Requested resource not found: Table: " + name + " not found")}
}

func inUse(name string) error {
	return &types.ResourceInUseException{Message: aws.String("Table is being created, updated or deleted: " + name)}
}

func (f *fakeAPI) begin(op string) {
	f.mu.Lock()
	f.calls[op]++
}

func (f *fakeAPI) CreateTable(_ context.Context, in *dynamodb.CreateTableInput, _ ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	f.begin("CreateTable")
	defer f.mu.Unlock()
	name := aws.ToString(in.TableName)
	if f.tables[name] != nil {
		return nil, inUse(name)
	}
	d := describeInput(in)
	t := &fakeTable{desc: d, pending: f.busy, indexPending: 2 * f.busy}
	if f.busy > 0 {
		d.TableStatus = types.TableStatusCreating
		for i := range d.GlobalSecondaryIndexes {
			d.GlobalSecondaryIndexes[i].IndexStatus = types.IndexStatusCreating
		}
	}
	f.tables[name] = t
	return &dynamodb.CreateTableOutput{TableDescription: d}, nil
}

func (f *fakeAPI) DescribeTable(_ context.Context, in *dynamodb.DescribeTableInput, _ ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	f.begin("DescribeTable")
	defer f.mu.Unlock()
	name := aws.ToString(in.TableName)
	t := f.tables[name]
	if t == nil {
		return nil, notFound(name)
	}
	if t.pending > 0 {
		t.pending--
	} else {
		switch t.desc.TableStatus {
		case types.TableStatusDeleting:
			delete(f.tables, name)
			return nil, notFound(name)
		case types.TableStatusCreating, types.TableStatusUpdating:
			t.desc.TableStatus = types.TableStatusActive
		}
	}
	if t.indexPending > 0 {
		t.indexPending--
	} else {
		for i, g := range t.desc.GlobalSecondaryIndexes {
			if g.IndexStatus == types.IndexStatusCreating || g.IndexStatus == types.IndexStatusUpdating {
				t.desc.GlobalSecondaryIndexes[i].IndexStatus = types.IndexStatusActive
			}
		}
	}
	return &dynamodb.DescribeTableOutput{Table: t.desc}, nil
}

func (f *fakeAPI) UpdateTable(_ context.Context, in *dynamodb.UpdateTableInput, _ ...func(*dynamodb.Options)) (*dynamodb.UpdateTableOutput, error) {
	f.begin("UpdateTable")
	defer f.mu.Unlock()
	name := aws.ToString(in.TableName)
	t := f.tables[name]
	if t == nil {
		return nil, notFound(name)
	}
	if notActive(t.desc) != "" {
		return nil, inUse(name)
	}
	if len(in.GlobalSecondaryIndexUpdates) != 1 || in.GlobalSecondaryIndexUpdates[0].Create == nil {
		return nil, fmt.Errorf("fake: want exactly one GSI creation per UpdateTable, got %d updates", len(in.GlobalSecondaryIndexUpdates))
	}
	c := in.GlobalSecondaryIndexUpdates[0].Create
	for _, k := range c.KeySchema {
		if attributeType(in.AttributeDefinitions, aws.ToString(k.AttributeName)) == "" {
			return nil, fmt.Errorf("fake: attribute %s of the new GSI is not defined", aws.ToString(k.AttributeName))
		}
	}
	if (liveBillingMode(t.desc) == types.BillingModeProvisioned) != (c.ProvisionedThroughput != nil) {
		return nil, fmt.Errorf("fake: GSI throughput %v does not fit billing mode %s", c.ProvisionedThroughput, liveBillingMode(t.desc))
	}
	for _, a := range in.AttributeDefinitions {
		if attributeType(t.desc.AttributeDefinitions, aws.ToString(a.AttributeName)) == "" {
			t.desc.AttributeDefinitions = append(t.desc.AttributeDefinitions, a)
		}
	}
	status := types.IndexStatusActive
	if f.busy > 0 {
		status = types.IndexStatusCreating
		t.indexPending = 2 * f.busy
	}
	t.desc.GlobalSecondaryIndexes = append(t.desc.GlobalSecondaryIndexes, types.GlobalSecondaryIndexDescription{
		IndexName:             c.IndexName,
		IndexStatus:           status,
		KeySchema:             c.KeySchema,
		Projection:            c.Projection,
		ProvisionedThroughput: throughputDescription(c.ProvisionedThroughput),
	})
	return &dynamodb.UpdateTableOutput{TableDescription: t.desc}, nil
}

func (f *fakeAPI) DeleteTable(_ context.Context, in *dynamodb.DeleteTableInput, _ ...func(*dynamodb.Options)) (*dynamodb.DeleteTableOutput, error) {
	f.begin("DeleteTable")
	defer f.mu.Unlock()
	name := aws.ToString(in.TableName)
	t := f.tables[name]
	if t == nil {
		return nil, notFound(name)
	}
	if t.desc.TableStatus != types.TableStatusActive {
		return nil, inUse(name)
	}
	t.desc.TableStatus = types.TableStatusDeleting
	t.pending = f.busy
	return &dynamodb.DeleteTableOutput{TableDescription: t.desc}, nil
}

func (f *fakeAPI) GetItem(_ context.Context, in *dynamodb.GetItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	f.begin("GetItem")
	defer f.mu.Unlock()
	name := aws.ToString(in.TableName)
	t := f.tables[name]
	if t == nil || t.desc.TableStatus == types.TableStatusCreating {
		return nil, notFound(name)
	}
	if !isVersionKey(in.Key) {
		return nil, fmt.Errorf("fake: GetItem of an unexpected key")
	}
	return &dynamodb.GetItemOutput{Item: t.version}, nil
}

func (f *fakeAPI) PutItem(_ context.Context, in *dynamodb.PutItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	f.begin("PutItem")
	defer f.mu.Unlock()
	name := aws.ToString(in.TableName)
	t := f.tables[name]
	if t == nil {
		return nil, notFound(name)
	}
	if !isVersionKey(in.Item) {
		return nil, fmt.Errorf("fake: PutItem of an unexpected key")
	}
	if old, ok := t.version[tables.AttrSchemaVersion]; ok && number(old) > number(in.Item[tables.AttrSchemaVersion]) {
		return nil, &types.ConditionalCheckFailedException{Message: aws.String("The conditional request failed")}
	}
	t.version = in.Item
	return &dynamodb.PutItemOutput{}, nil
}

// setVersion stores a version record in table name.
func (f *fakeAPI) setVersion(name string, v types.AttributeValue) {
	f.mu.Lock()
	defer f.mu.Unlock()
	item := versionKey()
	item[tables.AttrSchemaVersion] = v
	f.tables[name].version = item
}

func isVersionKey(item map[string]types.AttributeValue) bool {
	id, ok1 := item[tables.AttrID].(*types.AttributeValueMemberS)
	sk, ok2 := item[tables.AttrScopeTypeKey].(*types.AttributeValueMemberS)
	return ok1 && ok2 && id.Value == tables.VersionItemID && sk.Value == tables.VersionItemSortKey
}

func number(av types.AttributeValue) int {
	n, _ := strconv.Atoi(av.(*types.AttributeValueMemberN).Value)
	return n
}

var _ API = (*fakeAPI)(nil)

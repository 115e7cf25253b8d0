package migrations

import (
	"cmp"
	"context"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/rynodb/rynodb/internal/schema"
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

		DeletionProtectionEnabled: aws.Bool(aws.ToBool(in.DeletionProtectionEnabled)),
		SSEDescription:            sseDescription(in.SSESpecification),
		StreamSpecification:       in.StreamSpecification,
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

// sseDescription describes the encryption spec asks for as DynamoDB does: nothing for
// the AWS owned key, and the key's ARN for KMS, here the ARN of the AWS managed key
// when spec names none.
func sseDescription(spec *types.SSESpecification) *types.SSEDescription {
	if spec == nil || !aws.ToBool(spec.Enabled) {
		return nil
	}
	key := aws.ToString(spec.KMSMasterKeyId)
	if key == "" {
		key = awsManagedKey
	}
	return &types.SSEDescription{Status: types.SSEStatusEnabled, SSEType: types.SSETypeKms, KMSMasterKeyArn: aws.String(key)}
}

// awsManagedKey stands for the ARN of the key aws/dynamodb in the fake's account.
const awsManagedKey = "arn:aws:kms:us-east-1:111122223333:key/aws-dynamodb"

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
//
// It also stores the items that data steps scan and write, and can return them a few
// at a time, leave batch writes unprocessed and fail operations.
//
// It keeps point-in-time recovery, time to live, deletion protection and encryption
// as DynamoDB does. DynamoDB Local 3.3.1 cannot stand in for it there: it answers
// DescribeContinuousBackups and UpdateContinuousBackups with
// UnknownOperationException, and accepts an SSESpecification but ignores it (its
// tables have no SSEDescription, and UpdateTable of one fails with "Nothing to
// update"). Only deletion protection is also tested against it.
type fakeAPI struct {
	mu     sync.Mutex
	busy   int
	tables map[string]*fakeTable
	calls  map[string]int

	scanPage    int              // items per Scan page; all when zero
	unprocessed int              // BatchWriteItem calls left that leave half their writes unprocessed
	fail        map[string]error // operations that fail, by name

	batched int      // the writes BatchWriteItem applied
	log     []string // the keys of the items written by BatchWriteItem and PutItem, in order

	backupsUnavailable int // UpdateContinuousBackups calls left that fail as just after CreateTable
}

type fakeTable struct {
	desc         *types.TableDescription
	recovery     bool                         // point-in-time recovery
	ttl          *types.TimeToLiveDescription // time to live; DISABLED when nil
	pending      int                          // DescribeTable calls left before the table's transition ends
	indexPending int                          // DescribeTable calls left before the GSIs' transitions end
	version      map[string]types.AttributeValue
	items        map[string]map[string]types.AttributeValue // by itemKey; the version record aside
}

func newFakeAPI(busy int) *fakeAPI {
	return &fakeAPI{busy: busy, tables: map[string]*fakeTable{}, calls: map[string]int{}, fail: map[string]error{}}
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
	return f.count("CreateTable") + f.count("UpdateTable") + f.count("DeleteTable") + f.count("PutItem") + f.count("BatchWriteItem") + f.count("UpdateItem") +
		f.count("UpdateContinuousBackups") + f.count("UpdateTimeToLive")
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
	t, err := f.table(name)
	if err != nil {
		return nil, err
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
	t, err := f.activeTable(name)
	if err != nil {
		return nil, err
	}
	if in.DeletionProtectionEnabled != nil || in.SSESpecification != nil || in.StreamSpecification != nil {
		return f.updateSettings(t, in)
	}
	if len(in.GlobalSecondaryIndexUpdates) == 1 && in.GlobalSecondaryIndexUpdates[0].Delete != nil {
		return f.deleteGSI(t, aws.ToString(in.GlobalSecondaryIndexUpdates[0].Delete.IndexName))
	}
	if len(in.GlobalSecondaryIndexUpdates) != 1 || in.GlobalSecondaryIndexUpdates[0].Create == nil {
		return nil, fmt.Errorf("fake: want exactly one GSI creation or deletion per UpdateTable, got %d updates", len(in.GlobalSecondaryIndexUpdates))
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

// deleteGSI removes the GSI name of t, at once: DynamoDB keeps it DELETING for a
// while, which Up does not wait for.
func (f *fakeAPI) deleteGSI(t *fakeTable, name string) (*dynamodb.UpdateTableOutput, error) {
	i := slices.IndexFunc(t.desc.GlobalSecondaryIndexes, func(g types.GlobalSecondaryIndexDescription) bool {
		return aws.ToString(g.IndexName) == name
	})
	if i < 0 {
		return nil, fmt.Errorf("fake: ResourceNotFoundException: GSI %s not found", name)
	}
	t.desc.GlobalSecondaryIndexes = slices.Delete(t.desc.GlobalSecondaryIndexes, i, i+1)
	return &dynamodb.UpdateTableOutput{TableDescription: t.desc}, nil
}

// updateSettings applies an UpdateTable that changes deletion protection or
// encryption. DynamoDB takes one kind of change per call; the fake insists on it.
func (f *fakeAPI) updateSettings(t *fakeTable, in *dynamodb.UpdateTableInput) (*dynamodb.UpdateTableOutput, error) {
	changes := 0
	for _, set := range []bool{in.DeletionProtectionEnabled != nil, in.SSESpecification != nil, in.StreamSpecification != nil} {
		if set {
			changes++
		}
	}
	if len(in.GlobalSecondaryIndexUpdates) > 0 || changes > 1 {
		return nil, fmt.Errorf("fake: one change per UpdateTable")
	}
	if in.StreamSpecification != nil {
		t.desc.StreamSpecification = in.StreamSpecification
		return &dynamodb.UpdateTableOutput{TableDescription: t.desc}, nil
	}
	if in.DeletionProtectionEnabled != nil {
		t.desc.DeletionProtectionEnabled = in.DeletionProtectionEnabled
		return &dynamodb.UpdateTableOutput{TableDescription: t.desc}, nil
	}
	t.desc.SSEDescription = sseDescription(in.SSESpecification)
	if f.busy > 0 {
		t.desc.TableStatus = types.TableStatusUpdating
		t.pending = f.busy
	}
	return &dynamodb.UpdateTableOutput{TableDescription: t.desc}, nil
}

func (f *fakeAPI) DescribeContinuousBackups(_ context.Context, in *dynamodb.DescribeContinuousBackupsInput, _ ...func(*dynamodb.Options)) (*dynamodb.DescribeContinuousBackupsOutput, error) {
	f.begin("DescribeContinuousBackups")
	defer f.mu.Unlock()
	t := f.tables[aws.ToString(in.TableName)]
	if t == nil {
		return nil, &types.TableNotFoundException{Message: aws.String("Table not found: " + aws.ToString(in.TableName))}
	}
	status := types.PointInTimeRecoveryStatusDisabled
	if t.recovery {
		status = types.PointInTimeRecoveryStatusEnabled
	}
	return &dynamodb.DescribeContinuousBackupsOutput{ContinuousBackupsDescription: &types.ContinuousBackupsDescription{
		ContinuousBackupsStatus:        types.ContinuousBackupsStatusEnabled,
		PointInTimeRecoveryDescription: &types.PointInTimeRecoveryDescription{PointInTimeRecoveryStatus: status},
	}}, nil
}

func (f *fakeAPI) UpdateContinuousBackups(_ context.Context, in *dynamodb.UpdateContinuousBackupsInput, _ ...func(*dynamodb.Options)) (*dynamodb.UpdateContinuousBackupsOutput, error) {
	f.begin("UpdateContinuousBackups")
	defer f.mu.Unlock()
	t := f.tables[aws.ToString(in.TableName)]
	if t == nil {
		return nil, &types.TableNotFoundException{Message: aws.String("Table not found: " + aws.ToString(in.TableName))}
	}
	if f.backupsUnavailable > 0 {
		f.backupsUnavailable--
		return nil, &types.ContinuousBackupsUnavailableException{Message: aws.String("Backups are being enabled for the table")}
	}
	t.recovery = aws.ToBool(in.PointInTimeRecoverySpecification.PointInTimeRecoveryEnabled)
	return &dynamodb.UpdateContinuousBackupsOutput{}, nil
}

func (f *fakeAPI) DescribeTimeToLive(_ context.Context, in *dynamodb.DescribeTimeToLiveInput, _ ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error) {
	f.begin("DescribeTimeToLive")
	defer f.mu.Unlock()
	name := aws.ToString(in.TableName)
	t, err := f.table(name)
	if err != nil {
		return nil, err
	}
	d := types.TimeToLiveDescription{TimeToLiveStatus: types.TimeToLiveStatusDisabled}
	if t.ttl != nil {
		d = *t.ttl
	}
	return &dynamodb.DescribeTimeToLiveOutput{TimeToLiveDescription: &d}, nil
}

// UpdateTimeToLive turns time to live on or off at once, refusing what DynamoDB
// refuses: a table in transition, a change while it is being turned off, and turning
// it on when it is on, with messages that tell an attribute on from another.
func (f *fakeAPI) UpdateTimeToLive(_ context.Context, in *dynamodb.UpdateTimeToLiveInput, _ ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error) {
	f.begin("UpdateTimeToLive")
	defer f.mu.Unlock()
	name := aws.ToString(in.TableName)
	t, err := f.activeTable(name)
	if err != nil {
		return nil, err
	}
	spec := in.TimeToLiveSpecification
	if err := ttlRefusal(t.ttl, spec); err != nil {
		return nil, err
	}
	t.ttl = &types.TimeToLiveDescription{TimeToLiveStatus: types.TimeToLiveStatusDisabled}
	if aws.ToBool(spec.Enabled) {
		t.ttl = &types.TimeToLiveDescription{TimeToLiveStatus: types.TimeToLiveStatusEnabled, AttributeName: spec.AttributeName}
	}
	return &dynamodb.UpdateTimeToLiveOutput{TimeToLiveSpecification: spec}, nil
}

// ttlRefusal returns the ValidationException DynamoDB answers an update of time to
// live live with, or nil when it accepts it.
func ttlRefusal(live *types.TimeToLiveDescription, spec *types.TimeToLiveSpecification) error {
	refuse := func(msg string) error { return &smithy.GenericAPIError{Code: "ValidationException", Message: msg} }
	if live == nil {
		return nil
	}
	switch live.TimeToLiveStatus {
	case types.TimeToLiveStatusDisabling:
		return refuse("Time to live has been modified multiple times within a fixed interval")
	case types.TimeToLiveStatusEnabled, types.TimeToLiveStatusEnabling:
		switch {
		case !aws.ToBool(spec.Enabled):
			return nil
		case aws.ToString(live.AttributeName) == aws.ToString(spec.AttributeName):
			return refuse("TimeToLive is already enabled")
		default:
			return refuse("TimeToLive is active on a different AttributeName")
		}
	}
	return nil
}

// table returns the table name, or DynamoDB's error for a table that does not exist.
func (f *fakeAPI) table(name string) (*fakeTable, error) {
	if t := f.tables[name]; t != nil {
		return t, nil
	}
	return nil, notFound(name)
}

// activeTable returns the table name, or DynamoDB's error for a table that does not
// exist or is in transition.
func (f *fakeAPI) activeTable(name string) (*fakeTable, error) {
	t, err := f.table(name)
	if err == nil && notActive(t.desc) != "" {
		return nil, inUse(name)
	}
	return t, err
}

// setTimeToLive sets the time to live of table name, without a request.
func (f *fakeAPI) setTimeToLive(name string, status types.TimeToLiveStatus, attr string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tables[name].ttl = &types.TimeToLiveDescription{TimeToLiveStatus: status, AttributeName: aws.String(attr)}
}

func (f *fakeAPI) DeleteTable(_ context.Context, in *dynamodb.DeleteTableInput, _ ...func(*dynamodb.Options)) (*dynamodb.DeleteTableOutput, error) {
	f.begin("DeleteTable")
	defer f.mu.Unlock()
	name := aws.ToString(in.TableName)
	t, err := f.table(name)
	if err != nil {
		return nil, err
	}
	if t.desc.TableStatus != types.TableStatusActive {
		return nil, inUse(name)
	}
	if aws.ToBool(t.desc.DeletionProtectionEnabled) {
		return nil, fmt.Errorf("fake: ValidationException: Resource cannot be deleted as it is currently protected against deletion")
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
	t, err := f.table(name)
	if err != nil {
		return nil, err
	}
	if err := f.fail["PutItem"]; err != nil {
		return nil, err
	}
	if !isVersionKey(in.Item) {
		k, err := t.putItem(in)
		if err != nil {
			return nil, err
		}
		f.log = append(f.log, k)
		return &dynamodb.PutItemOutput{}, nil
	}
	if old, ok := t.version[schema.AttrSchemaVersion]; ok && number(old) > number(in.Item[schema.AttrSchemaVersion]) {
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
	item[schema.AttrSchemaVersion] = v
	f.tables[name].version = item
}

func isVersionKey(item map[string]types.AttributeValue) bool {
	id, ok1 := item[schema.AttrID].(*types.AttributeValueMemberS)
	sk, ok2 := item[schema.AttrScopeTypeKey].(*types.AttributeValueMemberS)
	return ok1 && ok2 && id.Value == schema.VersionItemID && sk.Value == schema.VersionItemSortKey
}

func number(av types.AttributeValue) int {
	n, _ := strconv.Atoi(av.(*types.AttributeValueMemberN).Value)
	return n
}

// putItem stores an item other than the version record, under the one condition
// data steps use: attribute_not_exists(#name).
func (t *fakeTable) putItem(in *dynamodb.PutItemInput) (string, error) {
	k, err := t.itemKey(in.Item)
	if err != nil {
		return "", err
	}
	if in.ConditionExpression != nil {
		ref, ok := strings.CutPrefix(aws.ToString(in.ConditionExpression), "attribute_not_exists(")
		ref, ok2 := strings.CutSuffix(ref, ")")
		name, ok3 := in.ExpressionAttributeNames[ref]
		if !ok || !ok2 || !ok3 {
			return "", fmt.Errorf("fake: unsupported condition %q", aws.ToString(in.ConditionExpression))
		}
		if _, exists := t.items[k][name]; exists {
			return "", &types.ConditionalCheckFailedException{Message: aws.String("The conditional request failed")}
		}
	}
	t.store(k, in.Item)
	return k, nil
}

func (t *fakeTable) store(k string, item map[string]types.AttributeValue) {
	if t.items == nil {
		t.items = map[string]map[string]types.AttributeValue{}
	}
	t.items[k] = maps.Clone(item)
}

// itemKey returns the primary key of item as one string: its key attributes, all
// strings in this schema, joined by NUL.
func (t *fakeTable) itemKey(item map[string]types.AttributeValue) (string, error) {
	var parts []string
	for _, k := range t.desc.KeySchema {
		s, ok := item[aws.ToString(k.AttributeName)].(*types.AttributeValueMemberS)
		if !ok {
			return "", fmt.Errorf("fake: item of %s has no string %s", aws.ToString(t.desc.TableName), aws.ToString(k.AttributeName))
		}
		parts = append(parts, s.Value)
	}
	return strings.Join(parts, "\x00"), nil
}

// primaryKey returns the key attributes of item.
func (t *fakeTable) primaryKey(item map[string]types.AttributeValue) map[string]types.AttributeValue {
	key := map[string]types.AttributeValue{}
	for _, k := range t.desc.KeySchema {
		key[aws.ToString(k.AttributeName)] = item[aws.ToString(k.AttributeName)]
	}
	return key
}

// scanOrder compares item keys in the order of a single-segment Scan: partitions in
// an order of their own, here by a hash of the partition key, and the items of each
// together in sort key order.
func scanOrder(a, b string) int {
	pa, _, _ := strings.Cut(a, "\x00")
	pb, _, _ := strings.Cut(b, "\x00")
	return cmp.Or(cmp.Compare(hash(pa), hash(pb)), strings.Compare(a, b))
}

func hash(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

func (f *fakeAPI) Scan(_ context.Context, in *dynamodb.ScanInput, _ ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	f.begin("Scan")
	defer f.mu.Unlock()
	if err := f.fail["Scan"]; err != nil {
		return nil, err
	}
	name := aws.ToString(in.TableName)
	t, err := f.table(name)
	if err != nil {
		return nil, err
	}
	if !aws.ToBool(in.ConsistentRead) {
		return nil, fmt.Errorf("fake: Scan of %s is not consistent", name)
	}
	keys := slices.SortedFunc(maps.Keys(t.items), scanOrder)
	start := 0
	if in.ExclusiveStartKey != nil {
		after, err := t.itemKey(in.ExclusiveStartKey)
		if err != nil {
			return nil, err
		}
		if start = slices.IndexFunc(keys, func(k string) bool { return scanOrder(k, after) > 0 }); start < 0 {
			start = len(keys)
		}
	}
	end := len(keys)
	if f.scanPage > 0 {
		end = min(start+f.scanPage, end)
	}
	out := &dynamodb.ScanOutput{}
	for _, k := range keys[start:end] {
		out.Items = append(out.Items, maps.Clone(t.items[k]))
	}
	out.Count = int32(len(out.Items))
	if end < len(keys) {
		out.LastEvaluatedKey = t.primaryKey(t.items[keys[end-1]])
	}
	return out, nil
}

func (f *fakeAPI) BatchWriteItem(_ context.Context, in *dynamodb.BatchWriteItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	f.begin("BatchWriteItem")
	defer f.mu.Unlock()
	if err := f.fail["BatchWriteItem"]; err != nil {
		return nil, err
	}
	if err := f.checkBatch(in); err != nil {
		return nil, err
	}
	out := &dynamodb.BatchWriteItemOutput{UnprocessedItems: map[string][]types.WriteRequest{}}
	for name, reqs := range in.RequestItems {
		if f.unprocessed > 0 {
			left := (len(reqs) + 1) / 2
			reqs, out.UnprocessedItems[name] = reqs[:len(reqs)-left], reqs[len(reqs)-left:]
		}
		t := f.tables[name]
		for _, r := range reqs {
			var k string
			if r.PutRequest != nil {
				k, _ = t.itemKey(r.PutRequest.Item)
				t.store(k, r.PutRequest.Item)
			} else {
				k, _ = t.itemKey(r.DeleteRequest.Key)
				delete(t.items, k)
			}
			f.batched++
			f.log = append(f.log, k)
		}
	}
	if f.unprocessed > 0 {
		f.unprocessed--
	}
	return out, nil
}

// checkBatch rejects what DynamoDB rejects: no writes or more than 25, a missing
// table, a request that is neither a put nor a delete, two writes of one key.
func (f *fakeAPI) checkBatch(in *dynamodb.BatchWriteItemInput) error {
	n := 0
	for name, reqs := range in.RequestItems {
		t := f.tables[name]
		if t == nil {
			return notFound(name)
		}
		seen := map[string]bool{}
		for _, r := range reqs {
			var item map[string]types.AttributeValue
			switch {
			case r.PutRequest != nil && r.DeleteRequest == nil:
				item = r.PutRequest.Item
			case r.DeleteRequest != nil && r.PutRequest == nil:
				item = r.DeleteRequest.Key
			default:
				return fmt.Errorf("fake: a write request must be a put or a delete")
			}
			k, err := t.itemKey(item)
			if err != nil {
				return err
			}
			if seen[k] {
				return fmt.Errorf("fake: BatchWriteItem writes %q twice", k)
			}
			seen[k] = true
		}
		n += len(reqs)
	}
	if n == 0 || n > 25 {
		return fmt.Errorf("fake: BatchWriteItem of %d writes", n)
	}
	return nil
}

// putItems stores items in table name as they are, without a request.
func (f *fakeAPI) putItems(name string, items ...map[string]types.AttributeValue) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := f.tables[name]
	for _, item := range items {
		k, err := t.itemKey(item)
		if err != nil {
			panic(err)
		}
		t.store(k, item)
	}
}

// itemsOf returns the items of table name, by primary key.
func (f *fakeAPI) itemsOf(name string) map[string]map[string]types.AttributeValue {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]map[string]types.AttributeValue{}
	for k, item := range f.tables[name].items {
		out[k] = maps.Clone(item)
	}
	return out
}

// setFailure makes op fail with err, or succeed again when err is nil.
func (f *fakeAPI) setFailure(op string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail[op] = err
}

// UpdateItem applies "SET #a = :a" to an item that exists, as the data steps send
// it with the condition attribute_exists; it fails the condition on a missing item.
func (f *fakeAPI) UpdateItem(_ context.Context, in *dynamodb.UpdateItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	f.begin("UpdateItem")
	defer f.mu.Unlock()
	if err := f.fail["UpdateItem"]; err != nil {
		return nil, err
	}
	name := aws.ToString(in.TableName)
	t, err := f.table(name)
	if err != nil {
		return nil, err
	}
	var attr, value string
	if _, err := fmt.Sscanf(aws.ToString(in.UpdateExpression), "SET %s = %s", &attr, &value); err != nil {
		return nil, fmt.Errorf("fake: UpdateItem %q: %w", aws.ToString(in.UpdateExpression), err)
	}
	if !strings.HasPrefix(aws.ToString(in.ConditionExpression), "attribute_exists(") {
		return nil, fmt.Errorf("fake: UpdateItem without attribute_exists could create an item")
	}
	k, err := t.itemKey(in.Key)
	if err != nil {
		return nil, err
	}
	item, ok := t.items[k]
	if !ok {
		return nil, &types.ConditionalCheckFailedException{Message: aws.String("The conditional request failed")}
	}
	item[in.ExpressionAttributeNames[attr]] = in.ExpressionAttributeValues[value]
	f.log = append(f.log, k)
	return &dynamodb.UpdateItemOutput{}, nil
}

var _ API = (*fakeAPI)(nil)

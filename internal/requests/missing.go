package requests

import (
	"context"
	"errors"
	"slices"
	"sort"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/tables"
)

// Missing is the client the store sends its requests through: it turns
// DynamoDB's ResourceNotFoundException into a *TableNotFoundError that names the
// table, so that a wrong TablePrefix or tables not yet migrated say so.
type Missing struct {
	API
}

func (m Missing) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	out, err := m.API.GetItem(ctx, in, opts...)
	return out, m.check(ctx, err, in.TableName)
}

func (m Missing) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	out, err := m.API.PutItem(ctx, in, opts...)
	return out, m.check(ctx, err, in.TableName)
}

func (m Missing) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	out, err := m.API.UpdateItem(ctx, in, opts...)
	return out, m.check(ctx, err, in.TableName)
}

func (m Missing) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	out, err := m.API.DeleteItem(ctx, in, opts...)
	return out, m.check(ctx, err, in.TableName)
}

func (m Missing) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	out, err := m.API.Query(ctx, in, opts...)
	return out, m.check(ctx, err, in.TableName)
}

func (m Missing) Scan(ctx context.Context, in *dynamodb.ScanInput, opts ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	out, err := m.API.Scan(ctx, in, opts...)
	return out, m.check(ctx, err, in.TableName)
}

func (m Missing) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	out, err := m.API.BatchGetItem(ctx, in, opts...)
	return out, m.check(ctx, err, sortedKeys(in.RequestItems)...)
}

func (m Missing) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	out, err := m.API.BatchWriteItem(ctx, in, opts...)
	return out, m.check(ctx, err, sortedKeys(in.RequestItems)...)
}

func (m Missing) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	out, err := m.API.TransactWriteItems(ctx, in, opts...)
	return out, m.check(ctx, err, transactTables(in.TransactItems)...)
}

// check returns err, as a *TableNotFoundError when DynamoDB found no table to
// serve it. Of several tables, the missing one is found by describing each: a few
// requests more, on a path that fails anyway.
func (m Missing) check(ctx context.Context, err error, names ...*string) error {
	if !isTableNotFound(err) || len(names) == 0 {
		return err
	}
	table := aws.ToString(names[0])
	if len(names) > 1 {
		table = m.firstMissing(ctx, names)
	}
	return &TableNotFoundError{Table: table, Err: err}
}

// firstMissing returns the first of names that DynamoDB does not describe, or all
// of them joined when each is found (a table created meanwhile).
func (m Missing) firstMissing(ctx context.Context, names []*string) string {
	all := make([]string, len(names))
	for i, name := range names {
		all[i] = aws.ToString(name)
		_, err := m.API.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: name})
		if isTableNotFound(err) {
			return all[i]
		}
	}
	return joinOr(all)
}

func isTableNotFound(err error) bool {
	var rnf *types.ResourceNotFoundException
	return errors.As(err, &rnf)
}

func sortedKeys[V any](m map[string]V) []*string {
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	sort.Strings(names)
	out := make([]*string, len(names))
	for i := range names {
		out[i] = &names[i]
	}
	return out
}

// transactTables returns the distinct tables the items of a transaction write.
func transactTables(items []types.TransactWriteItem) []*string {
	var names []string
	for _, it := range items {
		var name *string
		switch {
		case it.Put != nil:
			name = it.Put.TableName
		case it.Update != nil:
			name = it.Update.TableName
		case it.Delete != nil:
			name = it.Delete.TableName
		case it.ConditionCheck != nil:
			name = it.ConditionCheck.TableName
		}
		if n := aws.ToString(name); n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	out := make([]*string, len(names))
	for i := range names {
		out[i] = &names[i]
	}
	return out
}

func joinOr(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	s := names[0]
	for _, n := range names[1 : len(names)-1] {
		s += ", " + n
	}
	return s + " or " + names[len(names)-1]
}

// ErrTableNotFound matches a *TableNotFoundError (ryno.ErrTableNotFound).
var ErrTableNotFound = tables.ErrTableNotFound

// TableNotFoundError reports a request refused because a table of the store does
// not exist: package tables' type of the name, which package ryno names too.
type TableNotFoundError = tables.TableNotFoundError

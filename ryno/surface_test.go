package ryno_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/ryno"
	"github.com/rynodb/rynodb/tables"
)

// emptyStore answers as a store holding no entity whose batch reads DynamoDB never
// processes.
type emptyStore struct{ ryno.DynamoDBAPI }

func (emptyStore) GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return &dynamodb.GetItemOutput{}, nil
}

func (emptyStore) BatchGetItem(_ context.Context, in *dynamodb.BatchGetItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	return &dynamodb.BatchGetItemOutput{UnprocessedKeys: in.RequestItems}, nil
}

// noTables answers every read as DynamoDB does when the table does not exist.
type noTables struct{ ryno.DynamoDBAPI }

func (noTables) GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return nil, &types.ResourceNotFoundException{Message: aws.String("Requested resource not found")}
}

// internalTypes returns the types of the errors in err's tree that belong to a
// package under internal/, which a caller can neither name nor look up.
func internalTypes(err error) []string {
	var found []string
	var walk func(error)
	walk = func(e error) {
		if e == nil {
			return
		}
		t := reflect.TypeOf(e)
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if strings.Contains(t.PkgPath(), "/internal/") {
			found = append(found, fmt.Sprintf("%T", e))
		}
		switch u := e.(type) {
		case interface{ Unwrap() error }:
			walk(u.Unwrap())
		case interface{ Unwrap() []error }:
			for _, inner := range u.Unwrap() {
				walk(inner)
			}
		}
	}
	walk(err)
	return found
}

// The errors a caller receives are of public types: %T names a package the caller
// can import, and so does every error their chains hold.
func TestErrorsAreOfPublicTypes(t *testing.T) {
	ctx := context.Background()
	client := func(api ryno.DynamoDBAPI) *ryno.Client {
		db, err := ryno.New(api, ryno.Options{TablePrefix: "app", Retry: ryno.RetryOptions{MaxAttempts: 1}})
		require.NoError(t, err)
		return db
	}
	ada := ryno.Key{Scope: "acme", Type: "person", ID: "ada"}
	errOf := func(_ any, err error) error { return err }
	tests := []struct {
		name   string
		err    error
		typeOf string // %T of the error, or of the one errors.As finds under it
		as     any
	}{
		{"validation", errOf(client(emptyStore{}).Get(ctx, ryno.Key{})), "*tables.ValidationError", new(*ryno.ValidationError)},
		{"context of a call", errOf(client(emptyStore{}).BatchGet(ctx, []ryno.Key{ada, {}})), "*tables.CallError", new(*tables.CallError)},
		{"batch", errOf(client(emptyStore{}).BatchGet(ctx, []ryno.Key{ada})), "*tables.BatchError", new(*ryno.BatchError)},
		{"missing table", errOf(client(noTables{}).Get(ctx, ada)), "*tables.TableNotFoundError", new(*ryno.TableNotFoundError)},
		{"transaction limit", errOf(client(emptyStore{}).Transact(ctx, ryno.TxDelete(ada), ryno.TxDelete(ada))), "*tables.TransactionLimitError", new(*ryno.TransactionLimitError)},
		{"sentinel ErrExists", ryno.ErrExists, "*fmt.wrapError", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Error(t, tt.err)
			require.Empty(t, internalTypes(tt.err), "every error of %q is of a public type", tt.err)
			if tt.as == nil {
				require.Equal(t, tt.typeOf, fmt.Sprintf("%T", tt.err))
				return
			}
			require.True(t, errors.As(tt.err, tt.as), "%T: %v", tt.err, tt.err)
			require.Equal(t, tt.typeOf, fmt.Sprintf("%T", reflect.ValueOf(tt.as).Elem().Interface()))
		})
	}
}

func TestErrExistsMatchesErrConflictAndSaysOnlyItself(t *testing.T) {
	require.ErrorIs(t, ryno.ErrExists, ryno.ErrConflict)
	require.False(t, errors.Is(ryno.ErrConflict, ryno.ErrExists))
	require.EqualError(t, ryno.ErrExists, "ryno: entity already exists")
}

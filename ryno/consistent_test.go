package ryno

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"
)

// recordingReads answers every Query with no item and records the inputs.
type recordingReads struct {
	DynamoDBAPI // nil: any other operation panics
	queries     []*dynamodb.QueryInput
}

func (r *recordingReads) Query(_ context.Context, in *dynamodb.QueryInput, _ ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	r.queries = append(r.queries, in)
	return &dynamodb.QueryOutput{Items: []map[string]types.AttributeValue{}}, nil
}

func TestListingsReadConsistentlyWhereDynamoDBCan(t *testing.T) {
	ada := Key{Scope: "acme", Type: "person", ID: "ada"}
	tests := []struct {
		name    string
		opts    Options
		list    func(c *Client, p PageOptions) error
		page    PageOptions
		want    *bool // ConsistentRead of the Query; nil when refused
		refused bool
	}{
		{"relationships, asked", Options{}, relationshipsOf(ada), PageOptions{Consistent: true}, aws.Bool(true), false},
		{"relationships, by default", Options{ConsistentRead: true}, relationshipsOf(ada), PageOptions{}, aws.Bool(true), false},
		{"relationships, not asked", Options{}, relationshipsOf(ada), PageOptions{}, nil, false},
		{"by type, asked", Options{}, func(c *Client, p PageOptions) error {
			_, err := c.ListByType(context.Background(), Type{Scope: "acme", Name: "person"}, p)
			return err
		}, PageOptions{Consistent: true}, nil, true},
		{"by type, by default: a GSI cannot", Options{ConsistentRead: true}, func(c *Client, p PageOptions) error {
			_, err := c.ListByType(context.Background(), Type{Scope: "acme", Name: "person"}, p)
			return err
		}, PageOptions{}, nil, false},
		{"reverse, asked", Options{}, func(c *Client, p PageOptions) error {
			_, err := c.ReverseRelationships(context.Background(), ada, AllPredicates, p)
			return err
		}, PageOptions{Consistent: true}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := &recordingReads{}
			tt.opts.TablePrefix = "t"
			c, err := New(api, tt.opts)
			require.NoError(t, err)
			err = tt.list(c, tt.page)
			if tt.refused {
				require.ErrorIs(t, err, ErrInvalid)
				require.Empty(t, api.queries, "refused before any request")
				return
			}
			require.NoError(t, err)
			require.Len(t, api.queries, 1)
			require.Equal(t, tt.want, api.queries[0].ConsistentRead)
		})
	}
}

func relationshipsOf(k Key) func(c *Client, p PageOptions) error {
	return func(c *Client, p PageOptions) error {
		_, err := c.Relationships(context.Background(), k, AllPredicates, p)
		return err
	}
}

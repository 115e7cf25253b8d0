package tables

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"
)

// shape is a table definition reduced to what the design fixes.
type shape struct {
	table, partition, sort string
	indexes                map[string][3]string // name -> partition, sort, projection
	attrs                  map[string]types.ScalarAttributeType
}

func shapeOf(in *dynamodb.CreateTableInput) shape {
	s := shape{table: aws.ToString(in.TableName), indexes: map[string][3]string{}, attrs: map[string]types.ScalarAttributeType{}}
	s.partition, s.sort = aws.ToString(in.KeySchema[0].AttributeName), aws.ToString(in.KeySchema[1].AttributeName)
	for _, g := range in.GlobalSecondaryIndexes {
		s.indexes["GSI "+aws.ToString(g.IndexName)] = [3]string{aws.ToString(g.KeySchema[0].AttributeName), aws.ToString(g.KeySchema[1].AttributeName), string(g.Projection.ProjectionType)}
	}
	for _, l := range in.LocalSecondaryIndexes {
		s.indexes["LSI "+aws.ToString(l.IndexName)] = [3]string{aws.ToString(l.KeySchema[0].AttributeName), aws.ToString(l.KeySchema[1].AttributeName), string(l.Projection.ProjectionType)}
	}
	for _, a := range in.AttributeDefinitions {
		s.attrs[aws.ToString(a.AttributeName)] = a.AttributeType
	}
	return s
}

func TestDefinitionsMatchTheDesign(t *testing.T) {
	n, err := NewNames("p")
	require.NoError(t, err)
	var got []shape
	for _, def := range Definitions(n, Billing{}) {
		require.Equal(t, types.BillingModePayPerRequest, def.BillingMode)
		require.Nil(t, def.ProvisionedThroughput)
		got = append(got, shapeOf(def))
	}
	S := types.ScalarAttributeTypeS
	require.Equal(t, []shape{
		{
			table: "p_entities_master", partition: "_id", sort: "_scope_type_key",
			indexes: map[string][3]string{
				"GSI p_entities_by_type":       {"_scope_type_key", "_updated", "ALL"},
				"GSI p_entities_by_type_shard": {"_type_shard", "_shard_updated", "ALL"},
				"GSI p_entities_inline_1":      {"_inline1_name", "_inline1_key", "ALL"},
				"GSI p_entities_inline_2":      {"_inline2_name", "_inline2_key", "ALL"},
			},
			attrs: map[string]types.ScalarAttributeType{"_id": S, "_scope_type_key": S, "_updated": S,
				"_type_shard": S, "_shard_updated": S,
				"_inline1_name": S, "_inline1_key": S, "_inline2_name": S, "_inline2_key": S},
		},
		{
			table: "p_relationship_entries", partition: "_subject_key", sort: "_predicate_key",
			indexes: map[string][3]string{
				"GSI p_incoming_relationships":  {"_object_key", "_reverse_key", "ALL"},
				"GSI p_incoming_shard":          {"_object_shard", "_reverse_key", "ALL"},
				"LSI p_relationships_by_object": {"_subject_key", "_predicate_object_key", "KEYS_ONLY"},
			},
			attrs: map[string]types.ScalarAttributeType{"_subject_key": S, "_predicate_key": S, "_object_key": S, "_reverse_key": S, "_predicate_object_key": S,
				"_object_shard": S},
		},
		{
			table: "p_index_entries", partition: "_subject_key", sort: "_unique_key",
			indexes: map[string][3]string{"GSI p_index_lookup": {"_scope_index_name", "_index_key", "ALL"}},
			attrs:   map[string]types.ScalarAttributeType{"_subject_key": S, "_unique_key": S, "_scope_index_name": S, "_index_key": S},
		},
	}, got)
}

func TestDefinitionsWithProvisionedBilling(t *testing.T) {
	n, err := NewNames("p")
	require.NoError(t, err)
	b := Billing{Mode: types.BillingModeProvisioned, ReadCapacity: 5, WriteCapacity: 7}
	require.NoError(t, b.Validate())
	for _, def := range Definitions(n, b) {
		require.Equal(t, types.BillingModeProvisioned, def.BillingMode)
		require.Equal(t, int64(5), aws.ToInt64(def.ProvisionedThroughput.ReadCapacityUnits))
		require.Equal(t, int64(7), aws.ToInt64(def.ProvisionedThroughput.WriteCapacityUnits))
		for _, g := range def.GlobalSecondaryIndexes {
			require.Equal(t, int64(7), aws.ToInt64(g.ProvisionedThroughput.WriteCapacityUnits), "GSIs get the same capacity")
		}
	}
}

func TestDefinitionsAreFreshValues(t *testing.T) {
	n, err := NewNames("p")
	require.NoError(t, err)
	first := Definitions(n, Billing{})
	first[0].TableName = aws.String("changed")
	require.Equal(t, "p_entities_master", aws.ToString(Definitions(n, Billing{})[0].TableName))
}

func TestBillingValidate(t *testing.T) {
	tests := []struct {
		name string
		b    Billing
		ok   bool
	}{
		{"zero is on-demand", Billing{}, true},
		{"on-demand", Billing{Mode: types.BillingModePayPerRequest}, true},
		{"on-demand with capacity", Billing{ReadCapacity: 1}, false},
		{"provisioned", Billing{Mode: types.BillingModeProvisioned, ReadCapacity: 1, WriteCapacity: 1}, true},
		{"provisioned without capacity", Billing{Mode: types.BillingModeProvisioned}, false},
		{"unknown mode", Billing{Mode: "FREE"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.b.Validate()
			if tt.ok {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, ErrInvalid)
			}
		})
	}
}

package cli

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/iampolicy"
	"github.com/rynodb/rynodb/migrations"
	"github.com/rynodb/rynodb/ryno"
)

// methodsOf returns the method names of the interface types ifaces, without repeats.
func methodsOf(ifaces ...reflect.Type) []string {
	var names []string
	for _, it := range ifaces {
		for i := range it.NumMethod() {
			names = append(names, it.Method(i).Name)
		}
	}
	return slices.Compact(slices.Sorted(slices.Values(names)))
}

type policyDoc struct {
	Version   string
	Statement []struct {
		Sid, Effect      string
		Action, Resource []string
	}
}

// TestIAMPolicy holds the printed policies against the interfaces the library and
// the command call DynamoDB through: every method is allowed all the actions that
// authorize it, no action is allowed that no method needs, and the resources are
// exactly the store's tables and the indexes it queries.
func TestIAMPolicy(t *testing.T) {
	const prefix = "app"
	tables := []string{"app_entities_master", "app_relationship_entries", "app_index_entries"}
	indexes := []string{
		"app_entities_master/index/app_entities_by_type",
		"app_entities_master/index/app_entities_by_type_shard",
		"app_entities_master/index/app_entities_inline_1",
		"app_entities_master/index/app_entities_inline_2",
		"app_relationship_entries/index/app_incoming_relationships",
		"app_relationship_entries/index/app_incoming_shard",
		"app_relationship_entries/index/app_relationships_by_object",
		"app_index_entries/index/app_index_lookup",
	}
	tests := []struct {
		name            string
		args            []string
		region, account string
		methods         []string
	}{
		{"application", nil, "*", "*", methodsOf(reflect.TypeFor[ryno.DynamoDBAPI]())},
		{"application in an account", []string{"--account", "111122223333", "--region", "eu-west-1"}, "eu-west-1", "111122223333",
			methodsOf(reflect.TypeFor[ryno.DynamoDBAPI]())},
		{"migrations, check and reindex", []string{"--migrations"}, "*", "*",
			methodsOf(reflect.TypeFor[migrations.API](), reflect.TypeFor[ryno.DynamoDBAPI]())},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := run(t, nil, append([]string{"iam-policy", "--prefix", prefix}, tt.args...)...)
			require.Equal(t, ExitOK, code, errOut)
			var doc policyDoc
			require.NoError(t, json.Unmarshal([]byte(out), &doc))
			require.Equal(t, "2012-10-17", doc.Version)

			arn := func(name string) string { return "arn:aws:dynamodb:" + tt.region + ":" + tt.account + ":table/" + name }
			var tableARNs, indexARNs []string
			for _, n := range tables {
				tableARNs = append(tableARNs, arn(n))
			}
			for _, n := range indexes {
				indexARNs = append(indexARNs, arn(n))
			}
			onTables := map[string]bool{}
			for _, st := range doc.Statement {
				require.Equal(t, "Allow", st.Effect)
				if st.Sid == "QueryIndexes" {
					require.Equal(t, indexARNs, st.Resource, "the indexes the library queries, by name")
					require.Equal(t, []string{"dynamodb:Query"}, st.Action)
					continue
				}
				require.Equal(t, tableARNs, st.Resource, "statement %s", st.Sid)
				for _, a := range st.Action {
					onTables[a] = true
				}
			}

			needed := map[string]bool{}
			for _, m := range tt.methods {
				actions, ok := iampolicy.Actions(m)
				require.True(t, ok, "no IAM actions for %s", m)
				for _, a := range actions {
					require.True(t, onTables[a], "%s needs %s, which the policy does not allow", m, a)
					needed[a] = true
				}
			}
			for a := range onTables {
				require.True(t, needed[a], "the policy allows %s, which no method needs", a)
			}
		})
	}
}

// The command's interface is exactly the union of those of its commands.
func TestCommandAPI(t *testing.T) {
	require.Equal(t, methodsOf(reflect.TypeFor[migrations.API](), reflect.TypeFor[ryno.DynamoDBAPI]()),
		methodsOf(reflect.TypeFor[commandAPI]()))
}

package migrations

import (
	"context"
	"errors"
	"maps"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
)

// withoutReverseKey returns the item of e as versions 1 and 2 wrote it.
func withoutReverseKey(e relationships.Entry) item {
	it := e.Item()
	delete(it, schema.AttrReverseKey)
	return it
}

func TestAddReverseKeys(t *testing.T) {
	alice, bob := person("alice"), person("bob")
	old := []relationships.Entry{
		entry(alice, "follows", 0, bob),
		entry(alice, "follows", 3, person("carol")),
		entry(bob, "likes", 0, alice),
		relationships.SetEntry(bob, "tags", person("dave")),
	}
	current := entry(person("carol"), "follows", 1, alice) // already written with its key
	wrong := entry(person("dave"), "follows", 2, alice)
	wrongItem := wrong.Item()
	wrongItem[schema.AttrReverseKey] = &types.AttributeValueMemberS{Value: "stale"}
	stray := withoutReverseKey(entry(person("erin"), "follows", 0, bob))
	stray[schema.AttrSubjectID] = &types.AttributeValueMemberS{Value: "frank"} // not its partition's
	head := headItem(alice, "follows", 1, 4, old[:2])

	seed := []item{current.Item(), wrongItem, stray, head}
	for _, e := range old {
		seed = append(seed, withoutReverseKey(e))
	}
	for _, scanPage := range []int{0, 2} {
		api, n := newListStore(t, 2, seed)
		api.scanPage = scanPage
		ctx := context.Background()

		require.NoError(t, addReverseKeys(ctx, api, n))
		want := byKey(t, api, n, []item{current.Item(), wrong.Item(), stray, head})
		for _, e := range old {
			maps.Copy(want, byKey(t, api, n, []item{e.Item()}))
		}
		require.Equal(t, want, api.itemsOf(n.Relationships))
		require.Equal(t, len(old)+1, api.count("UpdateItem"), "the entries without their key, and the one with a wrong key")

		writes := api.writes()
		require.NoError(t, addReverseKeys(ctx, api, n))
		require.Equal(t, writes, api.writes(), "a second run writes nothing")
	}
}

func TestAddReverseKeysLeavesAnEntryDeletedMeanwhileDeleted(t *testing.T) {
	e := entry(person("alice"), "follows", 0, person("bob"))
	api, n := newListStore(t, 2, []item{withoutReverseKey(e)})
	key := e.PrimaryKey()
	// The entry is deleted between the Scan and the update.
	err := setReverseKey(context.Background(), deleting{api, n, key}, n.Relationships, e)
	require.NoError(t, err)
	require.Empty(t, api.itemsOf(n.Relationships))
}

// deleting deletes an item before each UpdateItem passes through.
type deleting struct {
	*fakeAPI
	n   schema.Names
	key item
}

func (d deleting) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	k, err := d.tables[d.n.Relationships].itemKey(d.key)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	delete(d.tables[d.n.Relationships].items, k)
	d.mu.Unlock()
	return d.fakeAPI.UpdateItem(ctx, in, opts...)
}

func TestAddReverseKeysReportsAFailedWrite(t *testing.T) {
	e := entry(person("alice"), "follows", 0, person("bob"))
	api, n := newListStore(t, 2, []item{withoutReverseKey(e)})
	api.setFailure("UpdateItem", errors.New("throttled"))
	err := addReverseKeys(context.Background(), api, n)
	require.ErrorContains(t, err, "throttled")
	require.ErrorContains(t, err, "acme:person:alice")
}

func TestDiffDeletesTheRetiredReverseIndexAfterTheDataSteps(t *testing.T) {
	n := testNames(t)
	want := schema.Definitions(n, onDemand)
	live := liveAll(want)
	retired := n.RetiredIndexes()[n.Relationships][0]
	rel := live[n.Relationships]
	rel.GlobalSecondaryIndexes = append(rel.GlobalSecondaryIndexes, types.GlobalSecondaryIndexDescription{
		IndexName:   aws.String(retired),
		IndexStatus: types.IndexStatusActive,
		KeySchema:   keys(schema.AttrObjectKey, schema.AttrIndex),
		Projection:  &types.Projection{ProjectionType: types.ProjectionTypeAll},
	})
	t.Run("at version 2", func(t *testing.T) {
		p := diff(target{tables: want, retired: n.RetiredIndexes()}, &snapshot{live: live, version: 2}, allMigrations())
		require.Equal(t, []string{
			"run-migration app_entities_master  3",
			"record-version app_entities_master  4",
			"delete-index app_relationship_entries app_reverse_relationships 0",
		}, actionStrings(p.Actions))
		require.Empty(t, p.Drift, "a retired index is deleted, not reported")
		require.Equal(t, "delete GSI app_reverse_relationships of table app_relationship_entries, replaced", p.Actions[2].String())
	})
	t.Run("version recorded, deletion left undone", func(t *testing.T) {
		p := diff(target{tables: want, retired: n.RetiredIndexes()}, &snapshot{live: live, version: 4}, allMigrations())
		require.Equal(t, []string{"delete-index app_relationship_entries app_reverse_relationships 0"}, actionStrings(p.Actions))
	})
	t.Run("being deleted", func(t *testing.T) {
		rel.GlobalSecondaryIndexes[len(rel.GlobalSecondaryIndexes)-1].IndexStatus = types.IndexStatusDeleting
		p := diff(target{tables: want, retired: n.RetiredIndexes()}, &snapshot{live: live, version: 4}, allMigrations())
		require.Empty(t, p.Actions)
		require.Empty(t, p.Drift)
	})
}

func TestUpFromVersion2(t *testing.T) {
	ctx := context.Background()
	api := newFakeAPI(2)
	p, _ := newTestProvider(t, api, onDemand)
	n := p.Names()
	for _, def := range schema.Definitions(n, onDemand) {
		d := describeInput(def)
		if aws.ToString(def.TableName) == n.Relationships {
			d.GlobalSecondaryIndexes = []types.GlobalSecondaryIndexDescription{{
				IndexName:   aws.String(n.RetiredIndexes()[n.Relationships][0]),
				IndexStatus: types.IndexStatusActive,
				KeySchema:   keys(schema.AttrObjectKey, schema.AttrIndex),
				Projection:  &types.Projection{ProjectionType: types.ProjectionTypeAll},
			}}
		}
		api.put(d)
	}
	api.setVersion(n.Entities, &types.AttributeValueMemberN{Value: "2"})
	e := entry(person("alice"), "follows", 0, person("bob"))
	api.putItems(n.Relationships, withoutReverseKey(e))

	res, err := p.Up(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{
		"create-index app_relationship_entries app_incoming_relationships 0",
		"create-index app_relationship_entries app_incoming_shard 0",
		"enable-time-to-live app_entities_master  0",
		"run-migration app_entities_master  3",
		"record-version app_entities_master  4",
		"delete-index app_relationship_entries app_reverse_relationships 0",
	}, actionStrings(res.Actions))
	require.Equal(t, byKey(t, api, n, []item{e.Item()}), api.itemsOf(n.Relationships))
	gsis := api.tables[n.Relationships].desc.GlobalSecondaryIndexes
	require.Len(t, gsis, 2, "the retired index is gone")
	require.Equal(t, n.ReverseRelationships, aws.ToString(gsis[0].IndexName))
	require.Equal(t, n.IncomingShard, aws.ToString(gsis[1].IndexName))

	st, err := p.Status(ctx)
	require.NoError(t, err)
	require.True(t, st.UpToDate(), "%+v", st)
}

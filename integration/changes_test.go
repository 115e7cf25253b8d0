package integration_test

import (
	"fmt"
	"math/big"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/changes"
	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/ryno"
)

// enableStreams turns on a stream of new and old images on the store's tables.
func enableStreams(t *testing.T, s *store) {
	t.Helper()
	for _, table := range s.Names().Tables() {
		dynamotest.EnableStream(t, s.raw, table)
	}
}

// streamChanges reads every record of the streams of the store's tables and decodes
// them, table by table, in each shard's order.
func streamChanges(t *testing.T, s *store) []changes.Change {
	t.Helper()
	d, err := changes.NewDecoder(s.Names().Prefix)
	require.NoError(t, err)
	var out []changes.Change
	for _, table := range s.Names().Tables() {
		_, records := dynamotest.StreamRecords(t, s.raw, table)
		for _, rec := range records {
			cs, err := d.Stream(table, rec)
			require.NoError(t, err)
			out = append(out, cs...)
		}
	}
	return out
}

// byKind returns the strings of the changes of kinds, in their order.
func byKind(cs []changes.Change, kinds ...changes.Kind) []string {
	var out []string
	for _, c := range cs {
		if slices.Contains(kinds, c.Kind) {
			out = append(out, c.String())
		}
	}
	return out
}

func TestStreamRecordsDecodeToTheCallsChanges(t *testing.T) {
	dynamotest.Parallel(t)
	s := newStoreOpts(t, nil, ryno.Options{Indexes: slugIndexes, Sets: []string{"likes"}})
	enableStreams(t, s)
	ada, bob, carl := pk("ada"), pk("bob"), pk("carl")
	entity := func(k ryno.Key, attrs map[string]any) *ryno.Entity { return &ryno.Entity{Key: k, Attributes: attrs} }

	// Entities: each kind of write, then a Delete.
	created, err := s.Create(ctx, entity(ada, map[string]any{"name": "Ada"}))
	require.NoError(t, err)
	updated, err := s.Update(ctx, &ryno.Entity{Key: ada, Version: created.Version, Attributes: map[string]any{"name": "Ada L."}})
	require.NoError(t, err)
	_, err = s.Set(ctx, entity(ada, map[string]any{"name": "Ada Lovelace"}))
	require.NoError(t, err)
	_, err = s.Patch(ctx, ada, ryno.Patch{Add: map[string]any{"visits": 2}})
	require.NoError(t, err)
	_ = updated
	createSubjects(t, s.Client, bob, carl)

	// Lists, a set, a transaction, and a large write under a lease.
	_, err = s.AddRelationships(ctx, ada, "follows", []ryno.Key{bob, carl})
	require.NoError(t, err)
	_, err = s.RemoveRelationships(ctx, ada, "follows", []ryno.Key{bob})
	require.NoError(t, err)
	_, err = s.AddRelationships(ctx, ada, "likes", []ryno.Key{bob})
	require.NoError(t, err)
	_, err = s.Transact(ctx, ryno.TxCreate(doc("d1", "hello", 0)), ryno.TxAddRelationships(carl, "wrote", []ryno.Key{{Scope: "acme", Type: "doc", ID: "d1"}}))
	require.NoError(t, err)
	many := pks("m", 60)
	require.NoError(t, s.ReplaceRelationships(ctx, bob, "follows", many))

	// A unique value that changes, then the Deletes.
	_, err = s.Set(ctx, doc("d1", "hello-world", 0))
	require.NoError(t, err)
	require.NoError(t, s.Delete(ctx, ada))
	require.NoError(t, s.Delete(ctx, ryno.Key{Scope: "acme", Type: "doc", ID: "d1"}))

	got := streamChanges(t, s)
	require.Equal(t, []string{
		"entity-created acme:person:ada v1",
		"entity-updated acme:person:ada v2",
		"entity-updated acme:person:ada v3",
		"entity-updated acme:person:ada v4",
		fmt.Sprintf("entity-deleted acme:person:ada v%d", 5),
	}, byKind(keyed(got, ada), changes.EntityCreated, changes.EntityUpdated, changes.EntityDeleted), "ada's entity changes, in order")
	adaChanges := keyed(got, ada)
	require.Equal(t, "Ada", adaChanges[1].Old.Attributes["name"])
	require.Equal(t, "Ada L.", adaChanges[1].New.Attributes["name"])

	require.Equal(t, map[string][]changes.Kind{
		"ada -follows-> bob at 0":  {changes.RelationshipAdded, changes.RelationshipRemoved},
		"ada -follows-> carl at 1": {changes.RelationshipAdded, changes.RelationshipRemoved},
		"ada -likes-> bob at 0":    {changes.RelationshipAdded, changes.RelationshipRemoved},
	}, entryHistories(keyed(got, ada)), "each of ada's entries, in order; the Delete removes what is left")

	bobAdds := byKind(keyed(got, bob), changes.RelationshipAdded)
	require.Len(t, bobAdds, 60, "the large Replace, once each, and nothing of its intent or lease")

	claims := map[string][]changes.Kind{}
	for _, c := range got {
		if c.Kind == changes.UniqueClaimed || c.Kind == changes.UniqueReleased {
			require.Equal(t, ryno.Key{Scope: "acme", Type: "doc", ID: "d1"}, c.Key)
			claims[c.Unique.Value.String()] = append(claims[c.Unique.Value.String()], c.Kind)
		}
	}
	require.Equal(t, map[string][]changes.Kind{
		`"hello"`:       {changes.UniqueClaimed, changes.UniqueReleased},
		`"hello-world"`: {changes.UniqueClaimed, changes.UniqueReleased},
	}, claims, "each claim in order, and nothing of the index entries")
	require.Equal(t, []string{"relationship-added acme:person:carl -wrote-> acme:doc:d1 at 0", "relationship-removed acme:person:carl -wrote-> acme:doc:d1 at 0"},
		byKind(keyed(got, carl), changes.RelationshipAdded, changes.RelationshipRemoved), "the transaction's entry, removed by the Delete of d1")

	d1 := ryno.Key{Scope: "acme", Type: "doc", ID: "d1"}
	require.Equal(t, []string{"entity-created acme:doc:d1 v1", "entity-updated acme:doc:d1 v2", "entity-deleted acme:doc:d1 v3"},
		byKind(keyed(got, d1), changes.EntityCreated, changes.EntityUpdated, changes.EntityDeleted), "the transaction's create, then a Set, then the Delete")

	// One item's records come in the order of their sequence numbers.
	history := byKindChanges(keyed(got, ada), changes.EntityCreated, changes.EntityUpdated, changes.EntityDeleted)
	for i := 1; i < len(history); i++ {
		prev, okPrev := new(big.Int).SetString(history[i-1].SequenceNumber, 10)
		next, ok := new(big.Int).SetString(history[i].SequenceNumber, 10)
		require.True(t, ok && okPrev, "sequence numbers are numbers: %q, %q", history[i-1].SequenceNumber, history[i].SequenceNumber)
		require.Negative(t, prev.Cmp(next), "sequence numbers grow along one item's records")
	}
	for _, c := range got {
		require.NotEmpty(t, c.SequenceNumber)
		require.NotEmpty(t, c.EventID)
		require.WithinDuration(t, time.Now(), c.Time, 10*time.Minute)
	}
}

// keyed returns the changes about k, in order.
func keyed(cs []changes.Change, k ryno.Key) []changes.Change {
	var out []changes.Change
	for _, c := range cs {
		if c.Key == k {
			out = append(out, c)
		}
	}
	return out
}

// entryHistories returns, for each entry the relationship changes of cs name, the
// kinds of its changes in order: DynamoDB keeps the order of one item's records,
// not of different items'.
func entryHistories(cs []changes.Change) map[string][]changes.Kind {
	out := map[string][]changes.Kind{}
	for _, c := range cs {
		if c.Kind != changes.RelationshipAdded && c.Kind != changes.RelationshipRemoved {
			continue
		}
		r := c.Relationship
		k := fmt.Sprintf("%s -%s-> %s at %d", r.Subject.ID, r.Predicate, r.Object.ID, r.Index)
		out[k] = append(out[k], c.Kind)
	}
	return out
}

// byKindChanges returns the changes of kinds, in their order.
func byKindChanges(cs []changes.Change, kinds ...changes.Kind) []changes.Change {
	var out []changes.Change
	for _, c := range cs {
		if slices.Contains(kinds, c.Kind) {
			out = append(out, c)
		}
	}
	return out
}

func TestAStreamConsumerCleansUpAfterTimeToLive(t *testing.T) {
	dynamotest.Parallel(t)
	s := newStoreOpts(t, nil, ryno.Options{Indexes: slugIndexes})
	fan, x := pk("fan"), pk("x")
	createSubjects(t, s.Client, fan, x)
	d1 := ryno.Key{Scope: "acme", Type: "doc", ID: "d1"}
	_, err := s.Create(ctx, doc("d1", "hello", 2))
	require.NoError(t, err)
	_, err = s.AddRelationships(ctx, d1, "cites", []ryno.Key{x})
	require.NoError(t, err)
	_, err = s.AddRelationships(ctx, fan, "reads", []ryno.Key{d1, x})
	require.NoError(t, err)

	// DynamoDB's time to live removes the entity item alone, as a service.
	key := map[string]types.AttributeValue{schema.AttrID: str(d1.ID), schema.AttrScopeTypeKey: str(schema.ScopeTypeKey(d1.Scope, d1.Type))}
	out, err := s.raw.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(s.Names().Entities), Key: key,
		ReturnValues: types.ReturnValueAllOld})
	require.NoError(t, err)
	d, err := changes.NewDecoder(s.Names().Prefix)
	require.NoError(t, err)
	cs, err := d.Decode(changes.Record{Table: s.Names().Entities, EventID: "ttl", EventName: "REMOVE", Old: out.Attributes, ByService: true})
	require.NoError(t, err)
	require.Len(t, cs, 1)
	require.True(t, cs[0].Expired)

	consume := func() {
		for _, c := range cs {
			if c.Kind == changes.EntityDeleted && c.Expired {
				require.NoError(t, s.Cleanup(ctx, c.Key))
			}
		}
	}
	consume()
	require.Equal(t, []ryno.Key{x}, objectsOf(t, s.Client, fan, "reads", 10), "the entry to it is gone")
	requireListExact(t, s, fan, "reads")
	require.Empty(t, objectsOf(t, s.Client, d1, "cites", 10), "its own list is gone")
	done, err := s.Check(ctx, ryno.CheckOptions{})
	require.NoError(t, err)
	require.Zero(t, done.Orphans+done.Traces, "nothing refers to it: %+v", done)
	_, err = s.Create(ctx, doc("d2", "hello", 0))
	require.NoError(t, err, "its unique value is free")

	consume() // a record delivered again
	requireListExact(t, s, fan, "reads")

	// Late: the entity was created anew before the record came again.
	_, err = s.Create(ctx, doc("d1", "again", 1))
	require.NoError(t, err)
	_, err = s.AddRelationships(ctx, fan, "reads", []ryno.Key{d1})
	require.NoError(t, err)
	consume()
	_, err = s.Get(ctx, d1)
	require.NoError(t, err, "the new entity stays")
	require.Equal(t, []ryno.Key{x, d1}, objectsOf(t, s.Client, fan, "reads", 10), "and what refers to it")
}

func TestRecordsOfAStreamWithoutBothImagesAreRefused(t *testing.T) {
	dynamotest.Parallel(t)
	for _, view := range []types.StreamViewType{types.StreamViewTypeNewImage, types.StreamViewTypeOldImage, types.StreamViewTypeKeysOnly} {
		t.Run(string(view), func(t *testing.T) {
			s := newStoreOpts(t, nil, ryno.Options{})
			table := s.Names().Entities
			dynamotest.EnableStreamOf(t, s.raw, table, view)
			ada := pk("ada")
			_, err := s.Create(ctx, &ryno.Entity{Key: ada, Attributes: map[string]any{"name": "Ada"}})
			require.NoError(t, err)
			_, err = s.Update(ctx, &ryno.Entity{Key: ada, Attributes: map[string]any{"name": "Ada L."}})
			require.NoError(t, err)
			require.NoError(t, s.Delete(ctx, ada))

			_, records := dynamotest.StreamRecords(t, s.raw, table)
			require.Len(t, records, 4, "the creation, the update, the tombstone and the removal")
			d, err := changes.NewDecoder(s.Names().Prefix)
			require.NoError(t, err)
			for _, rec := range records {
				require.Equal(t, string(view), string(rec.Dynamodb.StreamViewType), "DynamoDB Local names the view type")
				cs, err := d.Stream(table, rec)
				var refused *changes.ViewTypeError
				require.ErrorAs(t, err, &refused, "%s refused, not read as %v", rec.EventName, cs)
				require.Equal(t, string(view), refused.ViewType)
			}
			completer, err := changes.NewCompleter(s.Client)
			require.NoError(t, err)
			n, err := completer.Stream(ctx, table, records)
			require.Error(t, err)
			require.Zero(t, n, "the consumer stops at the first record")
		})
	}
}

func TestARecordOfAnItemWithoutAVersionIsNotTheStores(t *testing.T) {
	s := newStoreOpts(t, nil, ryno.Options{})
	table := s.Names().Entities
	dynamotest.EnableStream(t, s.raw, table)
	ada := pk("ada")
	// An item of an entity's shape that the store did not write: it has no version.
	_, err := s.raw.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
		schema.AttrID: str(ada.ID), schema.AttrScopeTypeKey: str(schema.ScopeTypeKey(ada.Scope, ada.Type)),
		schema.AttrScope: str(ada.Scope), schema.AttrType: str(ada.Type), "name": str("Ada"),
	}})
	require.NoError(t, err)

	_, records := dynamotest.StreamRecords(t, s.raw, table)
	require.Len(t, records, 1)
	d, err := changes.NewDecoder(s.Names().Prefix)
	require.NoError(t, err)
	cs, err := d.Stream(table, records[0])
	var foreign *changes.UnversionedError
	require.ErrorAs(t, err, &foreign, "decoded as %v", cs)
	require.Equal(t, changes.UnversionedError{Table: table, Key: ada}, *foreign)
	require.ErrorContains(t, err, table)
	require.ErrorContains(t, err, ada.String())
}

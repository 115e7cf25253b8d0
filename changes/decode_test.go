package changes

import (
	"encoding/json"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	streams "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/ryno"
)

type item = map[string]types.AttributeValue

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func n(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }

var (
	ada  = ryno.Key{Scope: "acme", Type: "person", ID: "ada"}
	bob  = ryno.Key{Scope: "acme", Type: "person", ID: "bob"}
	when = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
)

// entityItem is the item of ada at version v with a name, as the store writes it.
func entityItem(v, name string) item {
	return item{
		schema.AttrID: s(ada.ID), schema.AttrScopeTypeKey: s(schema.ScopeTypeKey(ada.Scope, ada.Type)),
		schema.AttrScope: s(ada.Scope), schema.AttrType: s(ada.Type), schema.AttrVersion: n(v),
		schema.AttrCreated: s(schema.FormatTime(when)), schema.AttrUpdated: s(schema.FormatTime(when)),
		schema.AttrShape: s("x"), "name": s(name),
	}
}

func with(it item, name string, v types.AttributeValue) item {
	out := maps.Clone(it)
	out[name] = v
	return out
}

func without(it item, name string) item {
	out := maps.Clone(it)
	delete(out, name)
	return out
}

func follows(index int) relationships.Entry {
	return relationships.Entry{Subject: ada, Predicate: "follows", Index: index, Object: bob}
}

func claim(owner ryno.Key) item {
	return indexentries.Claim{Scope: "acme", IndexName: "email", Value: indexing.String("a@example.com"), Type: owner.Type, ID: owner.ID}.Item()
}

func TestDecode(t *testing.T) {
	d, err := NewDecoder("app")
	require.NoError(t, err)
	names := d.names
	entry := follows(3).Item()
	set := relationships.SetEntry(ada, "likes", bob).Item()
	indexEntry, err := indexentries.Entry{Scope: "acme", Type: "person", ID: "ada", IndexName: "age", Value: indexing.Int(36)}.Item()
	require.NoError(t, err)
	version := item{schema.AttrID: s(schema.VersionItemID), schema.AttrScopeTypeKey: s(schema.VersionItemSortKey), schema.AttrSchemaVersion: n("3")}

	tests := []struct {
		name     string
		table    string
		event    string
		old, new item
		byTTL    bool
		want     []string
	}{
		{"created", names.Entities, "INSERT", nil, entityItem("1", "Ada"), false, []string{"entity-created acme:person:ada v1"}},
		{"updated", names.Entities, "MODIFY", entityItem("1", "Ada"), entityItem("2", "Ada L."), false, []string{"entity-updated acme:person:ada v2"}},
		{"a pending mark cleared: same version", names.Entities, "MODIFY",
			with(entityItem("2", "Ada"), schema.AttrPending, s("tok")), entityItem("2", "Ada"), false, nil},
		{"a tombstone laid", names.Entities, "MODIFY", entityItem("2", "Ada"), with(entityItem("3", "Ada"), schema.AttrDeleting, s("tok")), false,
			[]string{"entity-deleting acme:person:ada v3"}},
		{"a tombstone taken over", names.Entities, "MODIFY", with(entityItem("3", "Ada"), schema.AttrDeleting, s("tok")),
			with(entityItem("3", "Ada"), schema.AttrDeleting, s("tok2")), false, nil},
		{"the tombstoned item deleted", names.Entities, "REMOVE", with(entityItem("3", "Ada"), schema.AttrDeleting, s("tok")), nil, false,
			[]string{"entity-deleted acme:person:ada v3"}},
		{"a missing entity's tombstone laid, to sweep what it left", names.Entities, "INSERT", nil, missingTombstone(), false, nil},
		{"a missing entity's tombstone deleted", names.Entities, "REMOVE", missingTombstone(), nil, false, nil},
		{"expired by time to live", names.Entities, "REMOVE", entityItem("2", "Ada"), nil, true, []string{"entity-deleted acme:person:ada v2"}},
		{"an upsert that created it", names.Entities, "INSERT", nil, without(entityItem("1", "Ada"), schema.AttrShape), false,
			[]string{"entity-created acme:person:ada v1"}},
		{"the schema version", names.Entities, "MODIFY", version, with(version, schema.AttrSchemaVersion, n("4")), false, nil},
		{"an entity whose id is the schema version's", names.Entities, "INSERT", nil, with(entityItem("1", "Ada"), schema.AttrID, s(schema.VersionItemID)), false,
			[]string{"entity-created acme:person:" + schema.VersionItemID + " v1"}},
		{"an entry added", names.Relationships, "INSERT", nil, entry, false, []string{"relationship-added acme:person:ada -follows-> acme:person:bob at 3"}},
		{"an entry removed", names.Relationships, "REMOVE", entry, nil, false, []string{"relationship-removed acme:person:ada -follows-> acme:person:bob at 3"}},
		{"an entry given its reverse key", names.Relationships, "MODIFY", without(entry, schema.AttrReverseKey), entry, false, nil},
		{"a set entry added", names.Relationships, "INSERT", nil, set, false, []string{"relationship-added acme:person:ada -likes-> acme:person:bob at 0"}},
		{"a marker", names.Relationships, "INSERT", nil, relationships.MarkerItem(ada, "follows", bob, []int{3}), false, nil},
		{"a head", names.Relationships, "MODIFY", headItem("1"), headItem("2"), false, nil},
		{"a sequence", names.Relationships, "INSERT", nil, item{schema.AttrSubjectKey: s(ada.String()), schema.AttrPredicateKey: s(schema.SequenceKey("issues")), schema.AttrValue: n("7")}, false, nil},
		{"a value claimed", names.IndexEntries, "INSERT", nil, claim(ada), false, []string{`unique-claimed acme/email "a@example.com" by acme:person:ada`}},
		{"a value released", names.IndexEntries, "REMOVE", claim(ada), nil, false, []string{`unique-released acme/email "a@example.com" by acme:person:ada`}},
		{"a value that changed hands", names.IndexEntries, "MODIFY", claim(ada), claim(bob), false, []string{
			`unique-released acme/email "a@example.com" by acme:person:ada`, `unique-claimed acme/email "a@example.com" by acme:person:bob`}},
		{"an index entry", names.IndexEntries, "INSERT", nil, indexEntry, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := d.Decode(Record{Table: tt.table, EventID: "e1", EventName: tt.event, SequenceNumber: "100", Time: when,
				Old: tt.old, New: tt.new, ByService: tt.byTTL})
			require.NoError(t, err)
			var strs []string
			for _, c := range got {
				strs = append(strs, c.String())
				require.Equal(t, "100", c.SequenceNumber)
				require.Equal(t, "e1", c.EventID)
				require.Equal(t, when, c.Time)
				require.Equal(t, tt.byTTL, c.Expired)
			}
			require.Equal(t, tt.want, strs)
		})
	}
}

// missingTombstone is the tombstone a sweep of what ada left, while missing, puts
// on ada: no entity was written.
func missingTombstone() item {
	return item{
		schema.AttrID: s(ada.ID), schema.AttrScopeTypeKey: s(schema.ScopeTypeKey(ada.Scope, ada.Type)),
		schema.AttrScope: s(ada.Scope), schema.AttrType: s(ada.Type),
		schema.AttrDeleting: s("tok"), schema.AttrToken: s("tok"),
	}
}

func headItem(version string) item {
	h := relationships.RawAttributes(ada, "follows")
	maps.Copy(h, relationships.HeadPrimaryKey(ada, "follows"))
	h[schema.AttrVersion] = n(version)
	return h
}

func TestDecodeCarriesTheEntities(t *testing.T) {
	d, err := NewDecoder("app")
	require.NoError(t, err)
	got, err := d.Decode(Record{Table: d.names.Entities, EventName: "MODIFY", Old: entityItem("1", "Ada"), New: entityItem("2", "Ada L.")})
	require.NoError(t, err)
	require.Len(t, got, 1)
	c := got[0]
	require.Equal(t, ada, c.Key)
	require.Equal(t, int64(2), c.Version)
	require.Equal(t, "Ada", c.Old.Attributes["name"])
	require.Equal(t, "Ada L.", c.New.Attributes["name"])
	require.NotContains(t, c.New.Attributes, schema.AttrShape, "the store's attributes stay out")

	type person struct {
		ryno.Record
		Name string `dynamodbav:"name"`
	}
	old, cur, err := As[person](c)
	require.NoError(t, err)
	require.Equal(t, "Ada", old.Name)
	require.Equal(t, "Ada L.", cur.Name)
	require.Equal(t, int64(2), cur.Version)
	require.Equal(t, ada, cur.Key)

	got, err = d.Decode(Record{Table: d.names.Entities, EventName: "MODIFY", Old: entityItem("2", "Ada L."),
		New: with(entityItem("3", "Ada L."), schema.AttrDeleting, s("tok"))})
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, EntityDeleting, got[0].Kind)
	require.Equal(t, "Ada L.", got[0].Old.Attributes["name"], "a Delete begun carries the entity as it was")
	require.Nil(t, got[0].New)
}

func TestDecodeRefusesWhatItCannotRead(t *testing.T) {
	d, err := NewDecoder("app")
	require.NoError(t, err)
	tests := []struct {
		name string
		rec  Record
		want string
	}{
		{"another store's table", Record{Table: "other_entities_master", EventID: "e7", EventName: "INSERT", New: entityItem("1", "Ada")}, `record e7 is of table "other_entities_master"`},
		{"a removal without its old image (a KEYS_ONLY stream)", Record{Table: d.names.Relationships, EventID: "e13", EventName: "REMOVE"}, "record e13"},
		{"an update with its new image only (a NEW_IMAGE stream)", Record{Table: d.names.Entities, EventID: "e14", EventName: "MODIFY",
			New: entityItem("2", "Ada")}, "NEW_AND_OLD_IMAGES"},
		{"an update with its old image only", Record{Table: d.names.Entities, EventID: "e15", EventName: "MODIFY",
			Old: entityItem("2", "Ada")}, "record e15"},
		{"an event of another name without an image", Record{Table: d.names.Entities, EventID: "e16", EventName: "UNKNOWN_TO_SDK_VERSION"}, "record e16"},
		{"an entity without a key", Record{Table: d.names.Entities, EventID: "e8", EventName: "INSERT", New: item{"name": s("x")}}, "record e8"},
		{"an entity version of the wrong type", Record{Table: d.names.Entities, EventID: "e9", EventName: "INSERT",
			New: with(entityItem("1", "Ada"), schema.AttrVersion, s("one"))}, "record e9"},
		{"an entry missing its object", Record{Table: d.names.Relationships, EventID: "e10", EventName: "INSERT",
			New: without(follows(1).Item(), schema.AttrObjectID)}, "record e10"},
		{"a claim missing its value", Record{Table: d.names.IndexEntries, EventID: "e11", EventName: "INSERT",
			New: without(claim(ada), schema.AttrIndexKey)}, "record e11"},
		{"no image at all", Record{Table: d.names.Entities, EventID: "e12", EventName: "REMOVE"}, "record e12"},
		{"a tombstone's time of another form", Record{Table: d.names.Entities, EventID: "e17", EventName: "REMOVE",
			Old: with(with(entityItem("3", "Ada"), schema.AttrDeleting, s("tok")), schema.AttrDeletingSince, s("yesterday"))}, schema.AttrDeletingSince},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := d.Decode(tt.rec)
			require.ErrorContains(t, err, tt.want)
		})
	}
}

// lambdaEvent is a record as a Lambda function receives it, in DynamoDB's JSON.
const lambdaEvent = `{"Records": [{
	"eventID": "c4ca4238a0b923820dcc509a6f75849b",
	"eventName": "INSERT",
	"eventSource": "aws:dynamodb",
	"eventSourceARN": "arn:aws:dynamodb:us-east-1:123456789012:table/app_relationship_entries/stream/2026-01-02T03:04:05.006",
	"dynamodb": {
		"ApproximateCreationDateTime": 1767323045,
		"SequenceNumber": "111",
		"StreamViewType": "NEW_AND_OLD_IMAGES",
		"NewImage": {
			"_subject_scope": {"S": "acme"}, "_subject_type": {"S": "person"}, "_subject_id": {"S": "ada"},
			"_predicate": {"S": "follows"}, "_index": {"N": "4"},
			"_object_scope": {"S": "acme"}, "_object_type": {"S": "person"}, "_object_id": {"S": "bob"},
			"_subject_key": {"S": "acme:person:ada"}, "_object_key": {"S": "acme:person:bob"},
			"_predicate_key": {"S": "follows:0000000004:person:bob"},
			"since": {"M": {"year": {"N": "2017"}, "tags": {"SS": ["a", "b"]}, "ok": {"BOOL": true}, "none": {"NULL": true}, "l": {"L": [{"B": "AQI="}]}}}
		}
	}
}]}`

func TestLambdaRecords(t *testing.T) {
	var ev events.DynamoDBEvent
	require.NoError(t, json.Unmarshal([]byte(lambdaEvent), &ev))
	d, err := NewDecoder("app")
	require.NoError(t, err)
	got, err := d.Lambda(ev.Records[0])
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, RelationshipAdded, got[0].Kind)
	require.Equal(t, ryno.Relationship{Subject: ada, Predicate: "follows", Index: 4, Object: bob}, got[0].Relationship)
	require.Equal(t, "111", got[0].SequenceNumber)
	require.Equal(t, time.Unix(1767323045, 0).UTC(), got[0].Time)

	ev.Records[0].EventSourceArn = "arn:aws:sqs:us-east-1:123456789012:queue"
	_, err = d.Lambda(ev.Records[0])
	require.ErrorContains(t, err, "is not the ARN of a table's stream")

	rec, err := FromLambda(events.DynamoDBEventRecord{EventID: "zero", EventSourceArn: ev.Records[0].EventSourceArn,
		Change: events.DynamoDBStreamRecord{NewImage: map[string]events.DynamoDBAttributeValue{"a": {}}}})
	_ = rec
	require.Error(t, err, "a value built by hand that holds nothing")
}

func TestTimeToLiveDeletionsAreExpired(t *testing.T) {
	r := events.DynamoDBEventRecord{
		EventID: "e", EventName: "REMOVE",
		EventSourceArn: "arn:aws:dynamodb:us-east-1:123456789012:table/app_entities_master/stream/x",
		UserIdentity:   &events.DynamoDBUserIdentity{Type: "Service", PrincipalID: "dynamodb.amazonaws.com"},
		Change: events.DynamoDBStreamRecord{OldImage: map[string]events.DynamoDBAttributeValue{
			"_id": events.NewStringAttribute("ada"), "_scope_type_key": events.NewStringAttribute("acme:person"),
			"_scope": events.NewStringAttribute("acme"), "_type": events.NewStringAttribute("person"),
			"_version": events.NewNumberAttribute("4"),
		}},
	}
	d, err := NewDecoder("app")
	require.NoError(t, err)
	got, err := d.Lambda(r)
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, EntityDeleted, got[0].Kind)
	require.True(t, got[0].Expired)
	r.UserIdentity = nil
	got, err = d.Lambda(r)
	require.NoError(t, err)
	require.False(t, got[0].Expired, "a Delete of the store")
}

// FuzzLambdaRecord decodes arbitrary Lambda records: it returns changes or an error,
// and never panics.
func FuzzLambdaRecord(f *testing.F) {
	f.Add([]byte(lambdaEvent))
	f.Add([]byte(`{"Records":[{"eventName":"REMOVE","eventSourceARN":"arn:aws:dynamodb:r:1:table/app_entities_master/stream/x","dynamodb":{"OldImage":{"_id":{"S":"a"}}}}]}`))
	f.Add([]byte(`{"Records":[{"eventSourceARN":"arn:aws:dynamodb:r:1:table/app_index_entries/stream/x","dynamodb":{"NewImage":{"_unique_key":{"S":"\u0001claim"}}}}]}`))
	d, err := NewDecoder("app")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var ev events.DynamoDBEvent
		if json.Unmarshal(data, &ev) != nil {
			return
		}
		for _, r := range ev.Records {
			_, _ = d.Lambda(r)
		}
	})
}

func TestDeletionsOfExpiredEntitiesAreExpired(t *testing.T) {
	d, err := NewDecoder("app")
	require.NoError(t, err)
	tombstone := with(entityItem("5", "Ada"), schema.AttrDeleting, s("tok"))
	minute := when.Truncate(time.Minute) // a record's time, as DynamoDB Local rounds it
	tests := []struct {
		name    string
		alone   bool      // removed without the store's tombstone, as time to live removes it
		at      time.Time // the record's time
		expires time.Time // of the entity removed; zero for none
		want    bool
		since   time.Time // when the tombstone was laid, as the store writes it; zero for a tombstone of an earlier version
	}{
		{"no expiry", false, when, time.Time{}, false, time.Time{}},
		{"expiring after its removal: a Delete", false, when, when.Add(time.Hour), false, time.Time{}},
		{"expired when removed", false, when, when.Add(-time.Second), true, time.Time{}},
		{"expiring at the second of its removal", false, when, when, true, time.Time{}},
		{"removed alone with no expiry", true, when, time.Time{}, false, time.Time{}},
		{"removed alone in the minute of its expiry, the record's time rounded down", true, minute, when, true, time.Time{}},
		{"removed alone a minute before its expiry", true, minute, minute.Add(time.Minute), false, time.Time{}},
		{"a Delete in the minute of its expiry, the record's time rounded down", false, minute, when, false, time.Time{}},
		{"removed alone (a TxDelete) seconds before its expiry, the record's time to the second", true, when, when.Add(40 * time.Second), false, time.Time{}},
		{"a Delete that met it expired, in the minute of its expiry, the record's time rounded down", false, minute, when, true, when.Add(time.Second)},
		{"a Delete that met it expired at the second of its expiry", false, minute, when, true, when},
		{"a Delete begun before its expiry, its item removed after", false, when.Add(time.Minute), when, false, when.Add(-time.Millisecond)},
		{"a Delete begun long before its expiry", false, when, when.Add(time.Hour), false, when},
		{"a Delete with no expiry", false, when, time.Time{}, false, when},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := tombstone
			if tt.alone {
				old = entityItem("5", "Ada")
			}
			if !tt.expires.IsZero() {
				old = with(old, schema.AttrExpires, n(fmt.Sprint(tt.expires.Unix())))
			}
			if !tt.since.IsZero() {
				old = with(old, schema.AttrDeletingSince, s(schema.FormatTime(tt.since)))
			}
			got, err := d.Decode(Record{Table: "app_entities_master", EventName: "REMOVE", Time: tt.at, Old: old})
			require.NoError(t, err)
			require.Len(t, got, 1)
			require.Equal(t, EntityDeleted, got[0].Kind)
			require.Equal(t, tt.want, got[0].Expired)
			require.Equal(t, tt.expires.IsZero(), got[0].Old.Expires.IsZero(), "the entity carries its expiry")
		})
	}
}

// toLambda is item as a Lambda function receives an image.
func toLambda(t *testing.T, it item) map[string]events.DynamoDBAttributeValue {
	t.Helper()
	if it == nil {
		return nil
	}
	out := make(map[string]events.DynamoDBAttributeValue, len(it))
	for name, v := range it {
		switch v := v.(type) {
		case *types.AttributeValueMemberS:
			out[name] = events.NewStringAttribute(v.Value)
		case *types.AttributeValueMemberN:
			out[name] = events.NewNumberAttribute(v.Value)
		default:
			t.Fatalf("attribute %s: a value of type %T", name, v)
		}
	}
	return out
}

// toStream is item as the DynamoDB Streams API returns an image.
func toStream(t *testing.T, it item) map[string]streams.AttributeValue {
	t.Helper()
	if it == nil {
		return nil
	}
	out := make(map[string]streams.AttributeValue, len(it))
	for name, v := range it {
		switch v := v.(type) {
		case *types.AttributeValueMemberS:
			out[name] = &streams.AttributeValueMemberS{Value: v.Value}
		case *types.AttributeValueMemberN:
			out[name] = &streams.AttributeValueMemberN{Value: v.Value}
		default:
			t.Fatalf("attribute %s: a value of type %T", name, v)
		}
	}
	return out
}

func TestRecordsOfAStreamWithoutBothImagesAreRefused(t *testing.T) {
	d, err := NewDecoder("app")
	require.NoError(t, err)
	tests := []struct {
		name, table, viewType, event string
		old, new                     item
	}{
		{"an entity created, in a NEW_IMAGE stream", d.names.Entities, "NEW_IMAGE", "INSERT", nil, entityItem("1", "Ada")},
		{"an entity updated, in a NEW_IMAGE stream", d.names.Entities, "NEW_IMAGE", "MODIFY", nil, entityItem("2", "Ada")},
		{"an entry added, in a NEW_IMAGE stream", d.names.Relationships, "NEW_IMAGE", "INSERT", nil, follows(1).Item()},
		{"a value claimed, in a NEW_IMAGE stream", d.names.IndexEntries, "NEW_IMAGE", "INSERT", nil, claim(ada)},
		{"an entity deleted, in an OLD_IMAGE stream", d.names.Entities, "OLD_IMAGE", "REMOVE", entityItem("2", "Ada"), nil},
		{"an entity created, in a KEYS_ONLY stream", d.names.Entities, "KEYS_ONLY", "INSERT", nil, entityItem("1", "Ada")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := d.Lambda(events.DynamoDBEventRecord{EventID: "e1", EventName: tt.event,
				EventSourceArn: "arn:aws:dynamodb:us-east-1:123456789012:table/" + tt.table + "/stream/x",
				Change: events.DynamoDBStreamRecord{StreamViewType: tt.viewType, SequenceNumber: "1",
					OldImage: toLambda(t, tt.old), NewImage: toLambda(t, tt.new)}})
			require.ErrorContains(t, err, "record e1")
			var refused *ViewTypeError
			require.ErrorAs(t, err, &refused)
			require.Equal(t, tt.viewType, refused.ViewType)

			_, err = d.Stream(tt.table, streams.Record{EventID: aws.String("e2"), EventName: streams.OperationType(tt.event),
				Dynamodb: &streams.StreamRecord{StreamViewType: streams.StreamViewType(tt.viewType), SequenceNumber: aws.String("2"),
					OldImage: toStream(t, tt.old), NewImage: toStream(t, tt.new)}})
			require.ErrorContains(t, err, "record e2")
			require.ErrorAs(t, err, &refused)
			require.Equal(t, tt.viewType, refused.ViewType)
		})
	}

	// The same creation read from a stream of both images, or from a record that
	// names no view type (built by hand), is a creation.
	for _, view := range []string{"NEW_AND_OLD_IMAGES", ""} {
		got, err := d.Decode(Record{Table: d.names.Entities, EventName: "INSERT", ViewType: view, New: entityItem("1", "Ada")})
		require.NoError(t, err)
		require.Len(t, got, 1)
		require.Equal(t, EntityCreated, got[0].Kind)
	}
	_, err = d.Decode(Record{Table: d.names.Entities, EventID: "e3", EventName: "MODIFY", New: entityItem("2", "Ada")})
	require.ErrorContains(t, err, "lacks an image its event needs", "with no view type, a record lacking an image is refused")
}

func TestAnEntityImageWithoutAVersionIsNotTheStores(t *testing.T) {
	d, err := NewDecoder("app")
	require.NoError(t, err)
	unversioned := without(entityItem("1", "Ada"), schema.AttrVersion)
	tests := []struct {
		name, event string
		old, new    item
	}{
		{"created", "INSERT", nil, unversioned},
		{"written", "MODIFY", entityItem("1", "Ada"), unversioned},
		{"removed", "REMOVE", unversioned, nil},
		{"a tombstone laid without one", "MODIFY", entityItem("1", "Ada"), with(unversioned, schema.AttrDeleting, s("tok"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := d.Decode(Record{Table: d.names.Entities, EventID: "e1", EventName: tt.event, Old: tt.old, New: tt.new})
			require.Error(t, err, "decoded as %v", got)
			require.ErrorContains(t, err, d.names.Entities)
			require.ErrorContains(t, err, ada.String())
			require.ErrorContains(t, err, schema.AttrVersion)
			var foreign *UnversionedError
			require.ErrorAs(t, err, &foreign)
			require.Equal(t, UnversionedError{Table: d.names.Entities, Key: ada}, *foreign)
		})
	}

	// An item written before versions existed reads as version 0: the store's first
	// write of it gives it one.
	got, err := d.Decode(Record{Table: d.names.Entities, EventName: "MODIFY", Old: unversioned, New: entityItem("1", "Ada L.")})
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, "entity-updated acme:person:ada v1", got[0].String())
	require.Equal(t, int64(0), got[0].Old.Version)
}

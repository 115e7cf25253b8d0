package integration_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/changes"
	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/ryno"
)

// expiring is a store with a doc d1 that expires in an hour by the manual clock of
// db: d1 holds the slug "hello" and two tags, cites x, and fan reads d1 then x.
type expiring struct {
	s          *store
	db         *ryno.Client
	clk        *manualClock
	d1, fan, x ryno.Key
}

func newExpiring(t *testing.T) *expiring {
	t.Helper()
	s := newStoreOpts(t, nil, ryno.Options{Indexes: slugIndexes})
	clk := wholeSecondClock()
	db := newClientOn(t, s, ryno.Options{Indexes: slugIndexes, Now: clk.Now})
	x := &expiring{s: s, db: db, clk: clk, d1: ryno.Key{Scope: "acme", Type: "doc", ID: "d1"}, fan: pk("fan"), x: pk("x")}
	createSubjects(t, db, x.fan, x.x)
	d := doc("d1", "hello", 2)
	d.Expires = clk.Now().Add(time.Hour)
	created, err := db.Create(ctx, d)
	require.NoError(t, err)
	require.Equal(t, clk.Now().Add(time.Hour), created.Expires, "the expiry is read back")
	_, err = db.AddRelationships(ctx, x.d1, "cites", []ryno.Key{x.x})
	require.NoError(t, err)
	_, err = db.AddRelationships(ctx, x.fan, "reads", []ryno.Key{x.d1, x.x})
	require.NoError(t, err)
	return x
}

// removeAndCreateAgain removes d1's item alone, as DynamoDB's time to live does,
// then creates d as d1's next life, before anything swept what the earlier one left.
func (x *expiring) removeAndCreateAgain(t *testing.T, d *ryno.Entity) {
	t.Helper()
	_, err := x.s.raw.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(x.s.Names().Entities), Key: entityKeyItem(x.d1)})
	require.NoError(t, err)
	_, err = x.db.Create(ctx, d)
	require.NoError(t, err)
}

// wholeSecondClock is a manual clock at the next whole second of the real time,
// where expiries (stored to the second) fall exactly. The test tables have time to
// live on, as the store's migrations leave them, and DynamoDB Local deletes expired
// items within seconds: the entities the tests expire by this clock stay stored,
// as DynamoDB's lag (up to days) would keep them, because by the real clock they
// expire an hour or more later.
func wholeSecondClock() *manualClock {
	return &manualClock{t: time.Now().UTC().Truncate(time.Second).Add(time.Second)}
}

// reads returns what each read of the store's calls sees of d1: whether it finds it.
func (x *expiring) reads(t *testing.T) map[string]bool {
	t.Helper()
	db, seen := x.db, map[string]bool{}
	found := func(name string, err error) {
		switch {
		case errors.Is(err, ryno.ErrNotFound):
			seen[name] = false
		default:
			require.NoError(t, err, name)
			seen[name] = true
		}
	}
	_, err := db.Get(ctx, x.d1)
	found("Get", err)
	_, err = db.Get(ctx, x.d1, ryno.WithRelationships("cites"))
	found("Get with relationships", err)
	_, err = ryno.GetAs[map[string]any](ctx, db, x.d1)
	found("GetAs", err)
	_, err = db.GetByUnique(ctx, ryno.ScopedIndex{Scope: "acme", Index: "slug"}, indexing.String("hello"))
	found("GetByUnique", err)
	got, err := db.BatchGet(ctx, []ryno.Key{x.d1, x.x})
	require.NoError(t, err)
	seen["BatchGet"] = got[0] != nil
	require.NotNil(t, got[1])

	contains := func(name string, page *ryno.Page[*ryno.Entity], err error) {
		require.NoError(t, err, name)
		seen[name] = false
		for _, e := range page.Items {
			seen[name] = seen[name] || e.Key == x.d1
		}
	}
	page, err := db.ListByType(ctx, ryno.Type{Scope: "acme", Name: "doc"}, ryno.PageOptions{})
	contains("ListByType", page, err)
	page, err = db.RelatedEntities(ctx, x.fan, "reads", ryno.PageOptions{})
	contains("RelatedEntities", page, err)
	page, err = db.ReverseRelatedEntities(ctx, x.x, "cites", ryno.PageOptions{})
	contains("ReverseRelatedEntities", page, err)
	page, err = db.QueryIndex(ctx, ryno.ScopedIndex{Scope: "acme", Index: "doc-tag"}, indexing.BeginsWith(indexing.String("hello-tag")), ryno.PageOptions{})
	contains("QueryIndex", page, err)
	return seen
}

func TestAnExpiredEntityIsMissingToEveryReadAtOnce(t *testing.T) {
	x := newExpiring(t)
	for name, found := range x.reads(t) {
		require.True(t, found, "%s finds d1 before it expires", name)
	}
	x.clk.Advance(time.Hour - time.Millisecond)
	for name, found := range x.reads(t) {
		require.True(t, found, "%s finds d1 a millisecond before it expires", name)
	}
	x.clk.Advance(time.Millisecond)
	for name, found := range x.reads(t) {
		require.False(t, found, "%s does not find d1 once it has expired", name)
	}
	_, err := x.s.Get(ctx, x.d1)
	require.NoError(t, err, "nothing was written: a client whose clock is an hour behind still reads it")
}

func TestAWriterMeetingAnExpiredEntityDeletesItFirst(t *testing.T) {
	dynamotest.Parallel(t)
	tests := []struct {
		name string
		// write writes d1 once it has expired; it returns the error it meets.
		write   func(x *expiring) error
		missing bool // the write fails with ErrNotFound, d1 stays missing
	}{
		{"Create", func(x *expiring) error { _, err := x.db.Create(ctx, doc("d1", "hello", 1)); return err }, false},
		{"Set", func(x *expiring) error { _, err := x.db.Set(ctx, doc("d1", "hello", 1)); return err }, false},
		{"TxCreate", func(x *expiring) error {
			_, err := x.db.Transact(ctx, ryno.TxCreate(doc("d1", "hello", 1)))
			return err
		}, false},
		{"TxSet", func(x *expiring) error { _, err := x.db.Transact(ctx, ryno.TxSet(doc("d1", "hello", 1))); return err }, false},
		{"Set with the version read", func(x *expiring) error {
			d := doc("d1", "hello", 1)
			d.Version = 3
			_, err := x.db.Set(ctx, d)
			if errors.Is(err, ryno.ErrConflict) {
				return ryno.ErrNotFound
			}
			return err
		}, true},
		{"Update", func(x *expiring) error { _, err := x.db.Update(ctx, doc("d1", "hello", 1)); return err }, true},
		{"Modify", func(x *expiring) error {
			_, err := x.db.Modify(ctx, x.d1, func(e *ryno.Entity) error { e.Attributes["n"] = 1; return nil })
			return err
		}, true},
		{"Patch", func(x *expiring) error {
			_, err := x.db.Patch(ctx, x.d1, ryno.Patch{Set: map[string]any{"n": 1}})
			return err
		}, true},
		{"AddRelationships", func(x *expiring) error {
			_, err := x.db.AddRelationships(ctx, x.d1, "cites", []ryno.Key{x.fan})
			return err
		}, true},
		{"ReplaceRelationships", func(x *expiring) error {
			return x.db.ReplaceRelationships(ctx, x.d1, "cites", []ryno.Key{x.fan})
		}, true},
		{"Delete", func(x *expiring) error { return errors.Join(x.db.Delete(ctx, x.d1), ryno.ErrNotFound) }, true},
		{"another entity taking its unique value", func(x *expiring) error {
			_, err := x.db.Create(ctx, doc("d2", "hello", 1))
			require.NoError(t, err, "the value of an expired entity is free")
			return ryno.ErrNotFound
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := newExpiring(t)
			x.clk.Advance(time.Hour)
			err := tt.write(x)
			if tt.missing {
				require.ErrorIs(t, err, ryno.ErrNotFound)
				_, err := x.db.Get(ctx, x.d1)
				require.ErrorIs(t, err, ryno.ErrNotFound)
			} else {
				require.NoError(t, err)
				e, err := x.db.Get(ctx, x.d1)
				require.NoError(t, err)
				require.Equal(t, int64(1), e.Version, "a new entity, not the expired one written again")
				require.Equal(t, x.clk.Now(), e.Created)
				require.True(t, e.Expires.IsZero())
			}
			// Nothing of the expired entity is left, whichever write met it.
			_, err = x.s.Get(ctx, x.d1)
			if tt.missing {
				require.ErrorIs(t, err, ryno.ErrNotFound, "its item is gone, for every clock")
			}
			require.Equal(t, []ryno.Key{x.x}, objectsOf(t, x.db, x.fan, "reads", 10), "the entry to it is gone")
			requireListExact(t, x.s, x.fan, "reads")
			require.Empty(t, objectsOf(t, x.db, x.d1, "cites", 10), "its own list is gone")
			done, err := x.db.Check(ctx, ryno.CheckOptions{})
			require.NoError(t, err)
			require.Zero(t, done.Orphans+done.Traces, "nothing refers to it: %+v", done)
		})
	}
}

func TestAWriteDoesNotKeepAnEntityThatExpiresBeforeItLands(t *testing.T) {
	// A write that read d1 live and expects its version, sent once it has expired,
	// must not bring it back: its condition says the entity has not expired.
	x := newExpiring(t)
	e, err := x.db.Get(ctx, x.d1)
	require.NoError(t, err)
	x.clk.Advance(time.Hour)
	e.Expires = x.clk.Now().Add(time.Hour) // a session extended too late
	_, err = x.db.Update(ctx, e)
	require.ErrorIs(t, err, ryno.ErrConflict)
	_, err = x.db.Get(ctx, x.d1)
	require.ErrorIs(t, err, ryno.ErrNotFound)
	_, err = x.db.Patch(ctx, x.d1, ryno.Patch{Expires: x.clk.Now().Add(time.Hour)})
	require.ErrorIs(t, err, ryno.ErrNotFound)
}

func TestASetWithoutAReadDoesNotWriteOverAnExpiredEntity(t *testing.T) {
	// A Set of a type without indexes, of the same attributes, updates the item in
	// place without reading it: its condition refuses an expired entity, and the
	// Set creates a new one after deleting it.
	s := newStoreOpts(t, nil, ryno.Options{})
	clk := wholeSecondClock()
	db := newClientOn(t, s, ryno.Options{Now: clk.Now})
	session, x := ryno.Key{Scope: "acme", Type: "session", ID: "s1"}, pk("x")
	createSubjects(t, db, x)
	_, err := db.Create(ctx, &ryno.Entity{Key: session, Attributes: map[string]any{"n": 1}, Expires: clk.Now().Add(time.Hour)})
	require.NoError(t, err)
	_, err = db.AddRelationships(ctx, session, "reads", []ryno.Key{x})
	require.NoError(t, err)
	clk.Advance(time.Hour)
	e, err := db.Set(ctx, &ryno.Entity{Key: session, Attributes: map[string]any{"n": 2}, Expires: clk.Now().Add(time.Hour)})
	require.NoError(t, err)
	require.Equal(t, int64(1), e.Version, "a new entity")
	require.Equal(t, clk.Now(), e.Created)
	require.Empty(t, objectsOf(t, db, session, "reads", 10), "the expired entity's list went with it")
}

func TestExpiresIsWrittenAndKept(t *testing.T) {
	s := newStoreOpts(t, nil, ryno.Options{})
	clk := wholeSecondClock()
	db := newClientOn(t, s, ryno.Options{Now: clk.Now})
	ada := pk("ada")
	soon := clk.Now().Add(90*time.Minute + 400*time.Millisecond)
	e, err := db.Create(ctx, &ryno.Entity{Key: ada, Attributes: map[string]any{"n": 1}, Expires: soon})
	require.NoError(t, err)
	require.Equal(t, soon.Truncate(time.Second).Add(time.Second), e.Expires, "stored to the second, rounded up")

	_, err = db.Patch(ctx, ada, ryno.Patch{Set: map[string]any{"n": 2}})
	require.NoError(t, err)
	e, err = db.Modify(ctx, ada, func(e *ryno.Entity) error { e.Attributes["n"] = 3; return nil })
	require.NoError(t, err)
	require.Equal(t, soon.Truncate(time.Second).Add(time.Second), e.Expires, "Patch and Modify keep it")

	later := clk.Now().Add(3 * time.Hour)
	e, err = db.Patch(ctx, ada, ryno.Patch{Expires: later})
	require.NoError(t, err)
	require.Equal(t, later, e.Expires, "Patch.Expires sets it")
	clk.Advance(2 * time.Hour)
	_, err = db.Get(ctx, ada)
	require.NoError(t, err, "extended before it expired, it lives on")

	type person struct {
		ryno.Record
		N int `dynamodbav:"n"`
	}
	p, err := ryno.GetAs[person](ctx, db, ada)
	require.NoError(t, err)
	require.Equal(t, later, p.Expires, "typed entities read it")
	p.N = 4
	p.Expires = time.Time{}
	require.NoError(t, ryno.UpdateAs(ctx, db, p))
	require.Equal(t, later, p.Expires, "a zero Expires in a typed write keeps it")

	e, err = db.Get(ctx, ada)
	require.NoError(t, err)
	e.Expires = time.Time{}
	e, err = db.Update(ctx, e)
	require.NoError(t, err)
	require.True(t, e.Expires.IsZero(), "Update writes the entity as it is: without an expiry")
	clk.Advance(24 * time.Hour)
	_, err = db.Get(ctx, ada)
	require.NoError(t, err)

	_, err = db.Create(ctx, &ryno.Entity{Key: pk("old"), Expires: time.Unix(0, 0)})
	require.ErrorIs(t, err, ryno.ErrInvalid, "an expiry DynamoDB's time to live cannot hold")
}

func TestCheckFindsAndRepairsExpiredEntities(t *testing.T) {
	x := newExpiring(t)
	x.clk.Advance(time.Hour)
	var traces []ryno.Trace
	found, err := x.db.Check(ctx, ryno.CheckOptions{OnTrace: func(tr ryno.Trace) { traces = append(traces, tr) }})
	require.NoError(t, err)
	require.Equal(t, 1, found.Traces, "%+v", traces)
	require.Equal(t, ryno.TraceExpired, traces[0].Kind)
	require.Equal(t, x.d1, traces[0].Key)

	done, err := x.db.Check(ctx, ryno.CheckOptions{Repair: true})
	require.NoError(t, err)
	require.Equal(t, 1, done.Finished)
	_, err = x.s.Get(ctx, x.d1)
	require.ErrorIs(t, err, ryno.ErrNotFound, "its item is gone")
	require.Equal(t, []ryno.Key{x.x}, objectsOf(t, x.db, x.fan, "reads", 10))
	requireListExact(t, x.s, x.fan, "reads")
	_, err = x.db.LookupUnique(ctx, ryno.ScopedIndex{Scope: "acme", Index: "slug"}, indexing.String("hello"))
	require.ErrorIs(t, err, ryno.ErrNotFound, "its value is released")
	after, err := x.db.Check(ctx, ryno.CheckOptions{})
	require.NoError(t, err)
	require.Zero(t, after.Orphans+after.Traces, "%+v", after)
}

func TestTheExpiryConsumerCompletesWhatTimeToLiveStarted(t *testing.T) {
	x := newExpiring(t)
	x.clk.Advance(time.Hour)
	// DynamoDB's time to live removes the item alone, as a service; its stream
	// record names the service as the user.
	old, err := x.s.raw.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(x.db.Names().Entities),
		Key:          map[string]types.AttributeValue{schema.AttrID: str(x.d1.ID), schema.AttrScopeTypeKey: str(schema.ScopeTypeKey(x.d1.Scope, x.d1.Type))},
		ReturnValues: types.ReturnValueAllOld})
	require.NoError(t, err)
	require.NotNil(t, old.Attributes)
	ev := events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{{
		EventID: "ttl", EventName: "REMOVE",
		EventSourceArn: "arn:aws:dynamodb:us-east-1:123456789012:table/" + x.db.Names().Entities + "/stream/x",
		UserIdentity:   &events.DynamoDBUserIdentity{Type: "Service", PrincipalID: "dynamodb.amazonaws.com"},
		Change:         events.DynamoDBStreamRecord{SequenceNumber: "1", OldImage: lambdaImage(t, old.Attributes)},
	}}}
	expiries, err := changes.NewExpiries(x.db)
	require.NoError(t, err)
	handle := expiries.Lambda
	consume := func() {
		t.Helper()
		res, err := handle(ctx, ev)
		require.NoError(t, err)
		require.Empty(t, res.BatchItemFailures)
	}

	consume()
	require.Equal(t, []ryno.Key{x.x}, objectsOf(t, x.db, x.fan, "reads", 10), "the entry to it is gone")
	requireListExact(t, x.s, x.fan, "reads")
	require.Empty(t, objectsOf(t, x.db, x.d1, "cites", 10), "its own list is gone")
	_, err = x.db.LookupUnique(ctx, ryno.ScopedIndex{Scope: "acme", Index: "slug"}, indexing.String("hello"))
	require.ErrorIs(t, err, ryno.ErrNotFound, "its value is released")
	done, err := x.db.Check(ctx, ryno.CheckOptions{})
	require.NoError(t, err)
	require.Zero(t, done.Orphans+done.Traces, "nothing refers to it: %+v", done)

	consume() // the batch delivered again
	requireListExact(t, x.s, x.fan, "reads")

	// Late: the key holds a new entity by the time the record comes again.
	_, err = x.db.Create(ctx, doc("d1", "hello", 1))
	require.NoError(t, err)
	_, err = x.db.AddRelationships(ctx, x.fan, "reads", []ryno.Key{x.d1})
	require.NoError(t, err)
	consume()
	_, err = x.db.Get(ctx, x.d1)
	require.NoError(t, err, "the new entity stays")
	require.Equal(t, []ryno.Key{x.x, x.d1}, objectsOf(t, x.db, x.fan, "reads", 10), "and what refers to it")
	_, err = x.db.LookupUnique(ctx, ryno.ScopedIndex{Scope: "acme", Index: "slug"}, indexing.String("hello"))
	require.NoError(t, err, "and its value")

	// A record the handler cannot read fails the batch at that record.
	ev.Records[0].Change.OldImage = map[string]events.DynamoDBAttributeValue{"_id": events.NewStringAttribute("x")}
	res, err := handle(ctx, ev)
	require.NoError(t, err)
	require.Equal(t, []events.DynamoDBBatchItemFailure{{ItemIdentifier: "1"}}, res.BatchItemFailures)
}

func TestTimeToLiveRemovesAnExpiredEntityAndCleanupCompletesIt(t *testing.T) {
	// Not in parallel: DynamoDB Local's time to live shares its database's one
	// thread, and beside the parallel tests that write one list from many clients
	// it once removed nothing for two minutes.
	//
	// DynamoDB Local runs time to live: the item goes within seconds (about ten
	// here), alone, as on AWS. A worker reading the stream with the DynamoDB Streams
	// API completes the rest.
	// DynamoDB Local's time to live skips an item that a GSI of its table leaves
	// out, as the inline indexes leave out every entity without an inline value;
	// AWS's does not. So d1 holds a value in both, and the sharded by-type index,
	// which leaves out every entity of a type not sharded (and the by-type index
	// every other), is dropped: this store shards no type.
	indexes := append(slices.Clone(slugIndexes),
		ryno.Index{Type: "doc", Name: "doc-slug-1", Map: emitSlug, Inline: 1},
		ryno.Index{Type: "doc", Name: "doc-slug-2", Map: emitSlug, Inline: 2})
	s := newStoreOpts(t, nil, ryno.Options{Indexes: indexes})
	deleteGSI(t, s.raw, s.Names().Entities, s.Names().EntitiesByTypeShard)
	dynamotest.EnableStream(t, s.raw, s.Names().Entities)
	db := newClientOn(t, s, ryno.Options{Indexes: indexes})
	d1, fan, x := ryno.Key{Scope: "acme", Type: "doc", ID: "d1"}, pk("fan"), pk("x")
	createSubjects(t, db, fan, x)
	_, err := db.Create(ctx, doc("d1", "hello", 2))
	require.NoError(t, err)
	_, err = db.AddRelationships(ctx, d1, "cites", []ryno.Key{x})
	require.NoError(t, err)
	_, err = db.AddRelationships(ctx, fan, "reads", []ryno.Key{d1, x})
	require.NoError(t, err)
	e, err := db.Patch(ctx, d1, ryno.Patch{Expires: time.Now().Add(time.Second)})
	require.NoError(t, err)

	deadline := time.Now().Add(2 * time.Minute) // a wide margin on a loaded machine
	for entityItems(t, s.raw, s.Names())[schema.SubjectKey(d1.Scope, d1.Type, d1.ID)] != nil {
		require.True(t, time.Now().Before(deadline), "time to live did not remove the item")
		if !time.Now().Before(e.Expires) {
			_, err := db.Get(ctx, d1)
			require.ErrorIs(t, err, ryno.ErrNotFound, "expired, and still stored: it reads as missing")
		}
		time.Sleep(250 * time.Millisecond)
	}
	left, err := db.Check(ctx, ryno.CheckOptions{})
	require.NoError(t, err)
	require.NotZero(t, left.Orphans, "time to live removed the item alone")

	_, records := dynamotest.StreamRecords(t, s.raw, s.Names().Entities)
	expiries, err := changes.NewExpiries(db)
	require.NoError(t, err)
	n, err := expiries.Stream(ctx, s.Names().Entities, records)
	require.NoError(t, err)
	require.Equal(t, len(records), n)
	require.Equal(t, []ryno.Key{x}, objectsOf(t, db, fan, "reads", 10))
	requireListExact(t, s, fan, "reads")
	requireNothingOf(t, s, d1, true)
	_, err = db.LookupUnique(ctx, ryno.ScopedIndex{Scope: "acme", Index: "slug"}, indexing.String("hello"))
	require.ErrorIs(t, err, ryno.ErrNotFound)
	done, err := db.Check(ctx, ryno.CheckOptions{})
	require.NoError(t, err)
	require.Zero(t, done.Orphans+done.Traces, "%+v", done)
}

// lambdaImage returns an item as Lambda delivers the image of a stream record.
func lambdaImage(t *testing.T, item map[string]types.AttributeValue) map[string]events.DynamoDBAttributeValue {
	t.Helper()
	out := make(map[string]events.DynamoDBAttributeValue, len(item))
	for name, v := range item {
		out[name] = lambdaValue(t, v)
	}
	return out
}

func lambdaValue(t *testing.T, v types.AttributeValue) events.DynamoDBAttributeValue {
	t.Helper()
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return events.NewStringAttribute(v.Value)
	case *types.AttributeValueMemberN:
		return events.NewNumberAttribute(v.Value)
	case *types.AttributeValueMemberBOOL:
		return events.NewBooleanAttribute(v.Value)
	case *types.AttributeValueMemberNULL:
		return events.NewNullAttribute()
	case *types.AttributeValueMemberSS:
		return events.NewStringSetAttribute(v.Value)
	case *types.AttributeValueMemberNS:
		return events.NewNumberSetAttribute(v.Value)
	case *types.AttributeValueMemberL:
		l := make([]events.DynamoDBAttributeValue, len(v.Value))
		for i, e := range v.Value {
			l[i] = lambdaValue(t, e)
		}
		return events.NewListAttribute(l)
	case *types.AttributeValueMemberM:
		return events.NewMapAttribute(lambdaImage(t, v.Value))
	}
	t.Fatalf("a value of type %T", v)
	return events.DynamoDBAttributeValue{}
}

func TestWritersRacingOverAnExpiredEntityLeaveOneHolderAndNothingOfIt(t *testing.T) {
	dynamotest.Parallel(t)
	// Each round expires d1 (slug "hello", edges both ways), then 8 writers meet it at
	// once: 4 create other docs claiming its slug, 2 set d1 anew (slug "fresh"), 2
	// add d1 to fan's list. Exactly one of the 4 holds the slug; d1 is either gone
	// or new, never the expired one written again; nothing of the expired d1 is left.
	const rounds, writers = 10, 8
	for round := range rounds {
		x := newExpiring(t)
		x.clk.Advance(time.Hour)
		errs := make([]error, writers)
		race(writers, func(g int) {
			switch {
			case g < 4:
				_, errs[g] = x.db.Create(ctx, doc(fmt.Sprint("taker", g), "hello", 1))
			case g < 6:
				_, errs[g] = x.db.Set(ctx, doc("d1", "fresh", 1))
			default:
				_, errs[g] = x.db.AddRelationships(ctx, x.fan, "reads", []ryno.Key{x.d1})
			}
		})
		won := 0
		for g, err := range errs[:4] {
			var taken *ryno.UniqueError
			switch {
			case err == nil:
				won++
			case errors.As(err, &taken):
			default:
				require.NoError(t, err, "round %d, taker %d", round, g)
			}
		}
		require.Equal(t, 1, won, "round %d: one taker holds the slug: %v", round, errs[:4])
		for g, err := range errs[4:] {
			if !errors.Is(err, ryno.ErrNotFound) { // an Add before the Set's create finds no d1
				require.NoError(t, err, "round %d, writer %d", round, g+4)
			}
		}
		e, err := x.db.Get(ctx, x.d1)
		require.NoError(t, err, "round %d: d1 set anew", round)
		require.True(t, e.Expires.IsZero(), "round %d: the new d1, not the expired one", round)
		require.Equal(t, "fresh", e.Attributes["slug"])
		require.Empty(t, objectsOf(t, x.db, x.d1, "cites", 10), "round %d: the expired d1's list is gone", round)
		for _, k := range objectsOf(t, x.db, x.fan, "reads", 10) {
			require.Contains(t, []ryno.Key{x.x, x.d1}, k)
		}
		requireListExact(t, x.s, x.fan, "reads")
		requireIndexExact(t, x.s)
		requireClaimsExact(t, x.s)
		done, err := x.db.Check(ctx, ryno.CheckOptions{})
		require.NoError(t, err)
		require.Zero(t, done.Orphans+done.Traces, "round %d: %+v", round, done)
	}
}

func TestAValueIsFreedFromAHolderThatHasEnded(t *testing.T) {
	tests := []struct {
		name string
		end  func(x *expiring) // ends d1 without deleting what refers to it
	}{
		{"expired", func(x *expiring) { x.clk.Advance(time.Hour) }},
		{"its Delete cut off after the tombstone", func(x *expiring) {
			_, err := x.s.raw.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(x.db.Names().Entities), Key: entityKeyItem(x.d1),
				UpdateExpression:          aws.String("SET #d = :t"),
				ExpressionAttributeNames:  map[string]string{"#d": schema.AttrDeleting},
				ExpressionAttributeValues: map[string]types.AttributeValue{":t": str("cut")}})
			require.NoError(t, err)
		}},
		{"removed by time to live, with no consumer", func(x *expiring) {
			_, err := x.s.raw.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(x.db.Names().Entities), Key: entityKeyItem(x.d1)})
			require.NoError(t, err)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := newExpiring(t)
			tt.end(x)
			_, err := x.db.Create(ctx, doc("d2", "hello", 1))
			require.NoError(t, err, "the value of a holder that has ended is free")
			got, err := x.db.GetByUnique(ctx, ryno.ScopedIndex{Scope: "acme", Index: "slug"}, indexing.String("hello"))
			require.NoError(t, err)
			require.Equal(t, "d2", got.ID)
			requireClaimsExact(t, x.s)
		})
	}
	t.Run("a live holder keeps it", func(t *testing.T) {
		x := newExpiring(t)
		_, err := x.db.Create(ctx, doc("d2", "hello", 1))
		var taken *ryno.UniqueError
		require.ErrorAs(t, err, &taken)
		require.Equal(t, x.d1, taken.Owner)
	})
}

// entityKeyItem is the primary key of the entity item of k.
func entityKeyItem(k ryno.Key) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{schema.AttrID: str(k.ID), schema.AttrScopeTypeKey: str(schema.ScopeTypeKey(k.Scope, k.Type))}
}

func TestLookupUniqueSeesItsHolderExpire(t *testing.T) {
	x := newExpiring(t)
	counter := dynamotest.NewCounter(x.s.raw)
	db, err := ryno.New(counter, ryno.Options{TablePrefix: x.s.Names().Prefix, Indexes: slugIndexes, Now: x.clk.Now})
	require.NoError(t, err)
	slug := ryno.ScopedIndex{Scope: "acme", Index: "slug"}
	hint := func() types.AttributeValue { // the expiry the claim of "hello" records
		out, err := x.s.raw.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(x.db.Names().IndexEntries),
			Key: indexentries.ClaimPrimaryKey("acme", "slug", indexing.String("hello")), ConsistentRead: aws.Bool(true)})
		require.NoError(t, err)
		require.NotNil(t, out.Item)
		return out.Item[schema.AttrExpires]
	}
	lookup := func(gets int) error {
		t.Helper()
		counter.Reset()
		k, err := db.LookupUnique(ctx, slug, indexing.String("hello"))
		require.Equal(t, map[string]int{"GetItem": gets}, counter.Counts())
		if err == nil {
			require.Equal(t, x.d1, k)
		}
		return err
	}
	at := func(t time.Time) types.AttributeValue {
		return &types.AttributeValueMemberN{Value: fmt.Sprint(t.Unix())}
	}

	d1, err := db.Get(ctx, x.d1)
	require.NoError(t, err)
	require.Equal(t, at(d1.Expires), hint(), "the claim records its holder's expiry")
	require.NoError(t, lookup(1), "one read while the holder lives")

	// Extended by a Patch (read first, on an indexed type): the claim is put again.
	later := x.clk.Now().Add(3 * time.Hour)
	_, err = db.Patch(ctx, x.d1, ryno.Patch{Expires: later})
	require.NoError(t, err)
	require.Equal(t, at(later), hint())
	x.clk.Advance(2 * time.Hour)
	require.NoError(t, lookup(1), "extended: alive past its first expiry")

	// Extended by an Update that carries the version and reads nothing of the item.
	d1, err = db.Get(ctx, x.d1)
	require.NoError(t, err)
	latest := x.clk.Now().Add(5 * time.Hour)
	d1.Expires = latest
	_, err = db.Update(ctx, d1)
	require.NoError(t, err)
	require.Equal(t, at(latest), hint())

	// A write that clears the expiry clears the claim's.
	d1, err = db.Get(ctx, x.d1)
	require.NoError(t, err)
	d1.Expires, d1.Version = time.Time{}, 0
	_, err = db.Update(ctx, d1)
	require.NoError(t, err)
	require.Nil(t, hint())
	x.clk.Advance(24 * time.Hour)
	require.NoError(t, lookup(1))

	// Expiring again, then expired: the value is free to readers at once.
	_, err = db.Patch(ctx, x.d1, ryno.Patch{Expires: x.clk.Now().Add(time.Minute)})
	require.NoError(t, err)
	x.clk.Advance(time.Minute)
	require.ErrorIs(t, lookup(2), ryno.ErrNotFound, "the claim's expiry has passed: the holder is read, and has expired")
	_, err = db.GetByUnique(ctx, slug, indexing.String("hello"))
	require.ErrorIs(t, err, ryno.ErrNotFound)
}

// TestAConditionOnAnAttributeHoldsOnlyOnALiveEntity checks an attribute of an
// entity in a transaction: it holds while the entity lives, and not once it has
// expired, though its item still holds the attribute; nor once a Delete has laid
// its tombstone.
func TestAConditionOnAnAttributeHoldsOnlyOnALiveEntity(t *testing.T) {
	x := newExpiring(t)
	hello := ryno.Attr("slug").Equal("hello")
	_, err := x.db.Transact(ctx, ryno.TxCheck(x.d1, hello), ryno.TxCreate(&ryno.Entity{Key: pk("before")}))
	require.NoError(t, err, "d1 lives")

	x.clk.Advance(time.Hour)
	_, err = x.db.Transact(ctx, ryno.TxCheck(x.d1, hello), ryno.TxCreate(&ryno.Entity{Key: pk("after")}))
	var refused *ryno.TransactionError
	require.ErrorAs(t, err, &refused, "d1 has expired")
	_, err = x.db.Get(ctx, pk("after"))
	require.ErrorIs(t, err, ryno.ErrNotFound)

	held := newHeldRequest("Query") // the Delete's first read of what to sweep
	d := mustNew(t, held.wrap(x.s.raw), x.s.Names().Prefix, nil)
	held.armed.Store(true)
	e := doc("d2", "bye", 1)
	_, err = x.db.Create(ctx, e)
	require.NoError(t, err)
	del := background(func() error { return d.Delete(ctx, e.Key) })
	wait(t, held.held, "the Delete's read, after its tombstone")
	_, err = x.db.Transact(ctx, ryno.TxCheck(e.Key, ryno.Attr("slug").Equal("bye")), ryno.TxCreate(&ryno.Entity{Key: pk("during")}))
	require.ErrorAs(t, err, &refused, "d2 is being deleted")
	close(held.release)
	require.NoError(t, result(t, del, "the Delete"))
}

// TestAValueLeftByAnEarlierLifeIsFree removes an entity holding a unique value
// alone, as DynamoDB's time to live does, and creates it again with another value
// before anything swept what it left: the claim of its old value names a live
// holder whose record lacks the value, and another entity takes it.
func TestAValueLeftByAnEarlierLifeIsFree(t *testing.T) {
	x := newExpiring(t)
	x.removeAndCreateAgain(t, doc("d1", "bye", 1))

	_, err := x.db.Create(ctx, doc("d2", "hello", 1))
	require.NoError(t, err, "the value d1 held in its earlier life is free")
	_, err = x.db.Create(ctx, doc("d3", "bye", 1))
	var taken *ryno.UniqueError
	require.ErrorAs(t, err, &taken, "the value d1 holds now is not")
}

// TestAnIndexEntryLeftByAnEarlierLifeFindsNothing removes an entity alone, as
// DynamoDB's time to live does, and creates it again with other tags before anything
// swept its index entries: a query of an old tag finds the entry of the earlier life,
// and must not return the new life, whose tags are others.
func TestAnIndexEntryLeftByAnEarlierLifeFindsNothing(t *testing.T) {
	x := newExpiring(t)
	x.removeAndCreateAgain(t, doc("d1", "bye", 1))

	tags := ryno.ScopedIndex{Scope: "acme", Index: "doc-tag"}
	entries, err := x.db.QueryIndexEntries(ctx, tags, indexing.Equal(indexing.String("hello-tag001")), ryno.PageOptions{})
	require.NoError(t, err)
	require.Len(t, entries.Items, 1, "the earlier life's entry is still stored")
	page, err := x.db.QueryIndex(ctx, tags, indexing.Equal(indexing.String("hello-tag001")), ryno.PageOptions{})
	require.NoError(t, err)
	require.Empty(t, page.Items, "the new life does not hold the old tag")
	page, err = x.db.QueryIndex(ctx, tags, indexing.BeginsWith(indexing.String("bye-")), ryno.PageOptions{})
	require.NoError(t, err)
	require.Len(t, page.Items, 1, "it holds its own")

	_, err = x.db.Set(ctx, doc("d1", "bye", 2))
	require.NoError(t, err)
	entries, err = x.db.QueryIndexEntries(ctx, tags, indexing.Equal(indexing.String("hello-tag001")), ryno.PageOptions{})
	require.NoError(t, err)
	require.Empty(t, entries.Items, "the next write of the entity deletes what its earlier life left")
}

// TestACreateWithListsAfterTimeToLiveRemovedTheItemAlone removes d1's item alone,
// as time to live does, leaving its list "cites" stored, then creates d1 again with
// ReplaceLists, nothing else writing: the new life holds exactly the list given,
// as a Set with the same lists does.
func TestACreateWithListsAfterTimeToLiveRemovedTheItemAlone(t *testing.T) {
	dynamotest.Parallel(t)
	for _, call := range []string{"Create", "Set"} {
		for _, n := range []int{1, 120} { // in one transaction, and beyond
			t.Run(fmt.Sprintf("%s of %d", call, n), func(t *testing.T) {
				x := newExpiring(t)
				_, err := x.s.raw.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(x.s.Names().Entities), Key: entityKeyItem(x.d1)})
				require.NoError(t, err)
				want := pks("y", n)
				lists := ryno.ReplaceLists(map[string][]ryno.Key{"cites": want})
				if call == "Create" {
					_, err = x.db.Create(ctx, doc("d1", "again", 1), lists)
				} else {
					_, err = x.db.Set(ctx, doc("d1", "again", 1), lists)
				}
				require.NoError(t, err)
				require.Equal(t, want, objectsOf(t, x.db, x.d1, "cites", n+10))
				requireListExact(t, x.s, x.d1, "cites")
			})
		}
	}
}

func TestTheDeletionOfAnExpiredEntityIsExpiredInItsRecord(t *testing.T) {
	dynamotest.Parallel(t)
	tests := []struct {
		name    string
		advance time.Duration // the clock of the store's client, moved before delete runs
		delete  func(x *expiring) error
		expired bool
	}{
		{"a Set meeting it expired", time.Hour, func(x *expiring) error { _, err := x.db.Set(ctx, doc("d1", "hello", 1)); return err }, true},
		{"a Patch meeting it expired", time.Hour, func(x *expiring) error {
			if _, err := x.db.Patch(ctx, x.d1, ryno.Patch{Set: map[string]any{"n": 1}}); !errors.Is(err, ryno.ErrNotFound) {
				return fmt.Errorf("want ErrNotFound, got %v", err)
			}
			return nil
		}, true},
		{"Cleanup", time.Hour, func(x *expiring) error { return x.db.Cleanup(ctx, x.d1) }, true},
		{"check --repair", time.Hour, func(x *expiring) error {
			_, err := x.db.Check(ctx, ryno.CheckOptions{Repair: true})
			return err
		}, true},
		{"a Delete at its expiry", time.Hour, func(x *expiring) error { return x.db.Delete(ctx, x.d1) }, true},
		{"a Delete a second before its expiry", time.Hour - time.Second, func(x *expiring) error { return x.db.Delete(ctx, x.d1) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := newExpiring(t)
			table := x.db.Names().Entities
			dynamotest.EnableStream(t, x.s.raw, table)
			// The records' times are the real clock's, an hour before the expiry (and
			// rounded down to the minute by DynamoDB Local): only what the store wrote
			// tells that the entity had expired.
			x.clk.Advance(tt.advance)
			require.NoError(t, tt.delete(x))

			_, records := dynamotest.StreamRecords(t, x.s.raw, table)
			d, err := changes.NewDecoder(x.db.Names().Prefix)
			require.NoError(t, err)
			var deleted []changes.Change
			for _, rec := range records {
				cs, err := d.Stream(table, rec)
				require.NoError(t, err)
				for _, c := range cs {
					if c.Kind == changes.EntityDeleted && c.Key == x.d1 {
						deleted = append(deleted, c)
					}
				}
			}
			require.Len(t, deleted, 1)
			require.Equal(t, tt.expired, deleted[0].Expired, "%s at %s, expiring at %s", deleted[0], deleted[0].Time, deleted[0].Old.Expires)
		})
	}
}

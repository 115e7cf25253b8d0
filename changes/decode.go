package changes

import (
	"fmt"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	streams "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/ryno"
	"github.com/rynodb/rynodb/tables"
)

// A Decoder turns the stream records of one store's tables into Changes.
type Decoder struct {
	names tables.Names
}

// NewDecoder returns the Decoder of the store whose tables start with prefix.
func NewDecoder(prefix string) (*Decoder, error) {
	names, err := tables.NewNames(prefix)
	if err != nil {
		return nil, err
	}
	return &Decoder{names: names}, nil
}

// Lambda decodes one record of the event a Lambda function receives from the stream
// of one of the store's tables.
func (d *Decoder) Lambda(r events.DynamoDBEventRecord) ([]Change, error) {
	rec, err := FromLambda(r)
	if err != nil {
		return nil, err
	}
	return d.Decode(rec)
}

// Stream decodes one record read from the stream of table with the DynamoDB
// Streams API.
func (d *Decoder) Stream(table string, r streams.Record) ([]Change, error) {
	rec, err := FromStream(table, r)
	if err != nil {
		return nil, err
	}
	return d.Decode(rec)
}

// Decode returns the changes rec records: none for the store's own bookkeeping
// (list heads and markers, intents, sequences, index entries, pending marks,
// tombstones, the schema version), one for most records, two for a unique value
// that changed hands. A record it cannot read, or of a table that is not the
// store's, is an error naming the record: one of a stream that does not record
// both images is a *ViewTypeError, one of an entity item the store did not write
// an *UnversionedError.
func (d *Decoder) Decode(rec Record) ([]Change, error) {
	if err := rec.imagesFit(); err != nil {
		return nil, fmt.Errorf("changes: record %s (%s of %s): %w", rec.EventID, rec.EventName, rec.Table, err)
	}
	var (
		out []Change
		err error
	)
	switch rec.Table {
	case d.names.Entities:
		out, err = entityChanges(rec)
	case d.names.Relationships:
		out, err = relationshipChanges(rec)
	case d.names.IndexEntries:
		out, err = claimChanges(rec)
	default:
		return nil, fmt.Errorf("changes: record %s is of table %q, not one of store %s", rec.EventID, rec.Table, d.names.Prefix)
	}
	if err != nil {
		return nil, fmt.Errorf("changes: record %s (%s of %s): %w", rec.EventID, rec.EventName, rec.Table, err)
	}
	for i := range out {
		out[i].SequenceNumber, out[i].EventID, out[i].Time = rec.SequenceNumber, rec.EventID, rec.Time
	}
	return out, nil
}

// entityChanges decodes a record of the entities table. A write that changes the
// version is an entity change; one that does not (a pending mark cleared, say) is
// bookkeeping. A tombstone marks a Delete under way (EntityDeleting): the entity
// is deleted when its item goes.
func entityChanges(rec Record) ([]Change, error) {
	if versionRecord(rec.Old) || versionRecord(rec.New) {
		return nil, nil
	}
	old, err := entityOf(rec.Old)
	if err != nil {
		return nil, fmt.Errorf("old image: %w", err)
	}
	cur, err := entityOf(rec.New)
	if err != nil {
		return nil, fmt.Errorf("new image: %w", err)
	}
	if err := versioned(rec.Table, old, cur); err != nil {
		return nil, err
	}
	switch {
	case cur == nil && old == nil:
		return nil, fmt.Errorf("%s without an image of the entity", rec.EventName)
	case cur == nil && old.missing, cur != nil && cur.missing:
		return nil, nil // a tombstone a sweep put on a missing entity: no entity came or went
	case cur == nil: // the item is gone
		return []Change{{Kind: EntityDeleted, Key: old.Key, Old: old.Entity, Version: old.Version, Expired: expired(rec, old)}}, nil
	case cur.deleting && old != nil && !old.deleting:
		return []Change{{Kind: EntityDeleting, Key: cur.Key, Old: old.Entity, Version: cur.Version}}, nil
	case cur.deleting:
		return nil, nil
	case old == nil || old.deleting:
		return []Change{{Kind: EntityCreated, Key: cur.Key, New: cur.Entity, Version: cur.Version}}, nil
	case old.Version != cur.Version:
		return []Change{{Kind: EntityUpdated, Key: cur.Key, Old: old.Entity, New: cur.Entity, Version: cur.Version}}, nil
	}
	return nil, nil
}

// expired reports whether the entity item rec removes had expired: DynamoDB's time
// to live removed it (the record names the service as its user, as AWS writes it),
// or the store deleted it once its expiry had passed, as its tombstone's time says
// (the instant the deleting writer laid it, by the clock that found the entity
// expired or not). The record's time decides only for an item removed alone and
// for a tombstone written before it had a time. DynamoDB Local rounds a record's
// time down to the minute, and its time-to-live records name no user: an item
// removed alone, without the store's tombstone, at a whole minute that is the
// minute of its expiry or later, was removed by time to live.
func expired(rec Record, old *entityImage) bool {
	switch {
	case rec.ByService:
		return true
	case old.Expires.IsZero():
		return false
	case !old.deletingSince.IsZero():
		return !old.deletingSince.Before(old.Expires)
	case old.deleting || !rec.Time.Equal(rec.Time.Truncate(time.Minute)):
		return !rec.Time.Before(old.Expires)
	}
	return !rec.Time.Before(old.Expires.Truncate(time.Minute))
}

// versionRecord reports whether item is the record of the schema version: its
// sort key is the record's, which no entity's can be.
func versionRecord(item map[string]types.AttributeValue) bool {
	id, ok := item[schema.AttrID].(*types.AttributeValueMemberS)
	sk, ok2 := item[schema.AttrScopeTypeKey].(*types.AttributeValueMemberS)
	return ok && ok2 && id.Value == schema.VersionItemID && sk.Value == schema.VersionItemSortKey
}

// bothImages is the view type of the streams the store's tables have, and the only
// one whose records can be read.
const bothImages = "NEW_AND_OLD_IMAGES"

// A ViewTypeError refuses a record of a stream that does not record both images of
// an item (NEW_IMAGE, OLD_IMAGE, KEYS_ONLY): read from such a stream, an update
// would pass for a creation and a removal for nothing, so every one of its records
// is refused, even one that holds the images its event needs.
type ViewTypeError struct {
	ViewType string // the record's StreamViewType
}

func (e *ViewTypeError) Error() string {
	return fmt.Sprintf("the record is of a %s stream; the stream must record %s", e.ViewType, bothImages)
}

// imagesFit checks that rec is of a stream of both images (a *ViewTypeError
// otherwise) and holds the images its event needs. A record that names no view
// type (one built by hand) is read by its images alone.
func (rec Record) imagesFit() error {
	if rec.ViewType != "" && rec.ViewType != bothImages {
		return &ViewTypeError{ViewType: rec.ViewType}
	}
	var fit bool
	switch rec.EventName {
	case "INSERT":
		fit = rec.New != nil
	case "MODIFY":
		fit = rec.Old != nil && rec.New != nil
	case "REMOVE":
		fit = rec.Old != nil
	default: // a name this SDK does not know (DynamoDB Local's time-to-live records): read by the images
		fit = rec.Old != nil || rec.New != nil
	}
	if !fit {
		return fmt.Errorf("the record lacks an image its event needs; the stream must record %s", bothImages)
	}
	return nil
}

// An UnversionedError refuses a record of an entity item the store did not write:
// every entity item it writes carries _version.
type UnversionedError struct {
	Table string   // the table of the record
	Key   ryno.Key // the key of the item
}

func (e *UnversionedError) Error() string {
	return fmt.Sprintf("the item of %s in %s has no %s, which every entity item the store writes carries: it is not the store's",
		e.Key, e.Table, schema.AttrVersion)
}

// versioned checks that the entity images of a record of table carry a version.
// Only the old image of a write may lack one: an item written before versions
// existed, which reads as version 0 until that write gives it one. A missing
// entity's tombstone holds no entity, and no version.
func versioned(table string, old, cur *entityImage) error {
	switch {
	case cur != nil && !cur.missing && !cur.versioned:
		return &UnversionedError{Table: table, Key: cur.Key}
	case cur == nil && old != nil && !old.missing && !old.versioned:
		return &UnversionedError{Table: table, Key: old.Key}
	}
	return nil
}

// entityImage is an image of an entity item.
type entityImage struct {
	*ryno.Entity
	versioned bool // it carries _version
	deleting  bool // a tombstone: a Delete is under way
	// deletingSince is when the tombstone was laid; zero for none, or a tombstone
	// written before it recorded its time.
	deletingSince time.Time
	// missing is a tombstone put on a missing entity, to sweep what an earlier life
	// left: it holds no entity (every write of one sets _created).
	missing bool
}

func entityOf(item map[string]types.AttributeValue) (*entityImage, error) {
	if item == nil {
		return nil, nil
	}
	e, err := ryno.EntityFromItem(item)
	if err != nil {
		return nil, err
	}
	since, err := optionalTime(item, schema.AttrDeletingSince)
	if err != nil {
		return nil, err
	}
	_, versioned := item[schema.AttrVersion]
	_, deleting := item[schema.AttrDeleting]
	_, created := item[schema.AttrCreated]
	return &entityImage{Entity: e, versioned: versioned, deleting: deleting, deletingSince: since, missing: deleting && !created}, nil
}

// optionalTime returns the time attribute name of item: zero when there is none.
func optionalTime(item map[string]types.AttributeValue, name string) (time.Time, error) {
	av, ok := item[name]
	if !ok {
		return time.Time{}, nil
	}
	str, ok := av.(*types.AttributeValueMemberS)
	if !ok {
		return time.Time{}, fmt.Errorf("%s is %T, want a string", name, av)
	}
	t, err := schema.ParseTime(str.Value)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s: %w", name, err)
	}
	return t, nil
}

// relationshipChanges decodes a record of the relationship entries table: an
// entry added or removed. Heads, markers, intents and sequences are bookkeeping,
// and so is a write that leaves an entry as it was (a new attribute of the store).
func relationshipChanges(rec Record) ([]Change, error) {
	return imageChanges(rec, entryOf, func(a, b ryno.Relationship) bool { return a == b },
		func(r ryno.Relationship) Change {
			return Change{Kind: RelationshipRemoved, Key: r.Subject, Relationship: r}
		},
		func(r ryno.Relationship) Change {
			return Change{Kind: RelationshipAdded, Key: r.Subject, Relationship: r}
		})
}

// imageChanges reads the old and new images of rec with read (nil for what is not
// one) and returns what the record changed: the old one removed and the new one
// added, unless they are the same.
func imageChanges[T any](rec Record, read func(map[string]types.AttributeValue) (*T, error), same func(T, T) bool,
	removed, added func(T) Change) ([]Change, error) {
	old, err := read(rec.Old)
	if err != nil {
		return nil, fmt.Errorf("old image: %w", err)
	}
	cur, err := read(rec.New)
	if err != nil {
		return nil, fmt.Errorf("new image: %w", err)
	}
	changed := old == nil || cur == nil || !same(*old, *cur)
	var out []Change
	if old != nil && changed {
		out = append(out, removed(*old))
	}
	if cur != nil && changed {
		out = append(out, added(*cur))
	}
	return out, nil
}

// entryOf reads the entry an item holds, or nil for bookkeeping.
func entryOf(item map[string]types.AttributeValue) (*ryno.Relationship, error) {
	if item == nil || bookkeeping(item) {
		return nil, nil
	}
	e, err := relationships.FromItem(item)
	if err != nil {
		return nil, err
	}
	return &ryno.Relationship{Subject: e.Subject, Predicate: e.Predicate, Index: e.Index, Object: e.Object}, nil
}

// bookkeeping reports whether an item of the relationship entries table is a
// list's head, marker or intent part, or a sequence: its sort key sorts before
// every entry's.
func bookkeeping(item map[string]types.AttributeValue) bool {
	k, ok := item[schema.AttrPredicateKey].(*types.AttributeValueMemberS)
	return ok && k.Value <= schema.EntriesStart
}

// claimChanges decodes a record of the index entries table: a unique value claimed
// or released. Index entries are bookkeeping: the entity change that made them is
// the change.
func claimChanges(rec Record) ([]Change, error) {
	return imageChanges(rec, claimOf, sameClaim,
		func(c indexentries.Claim) Change { return claimChange(UniqueReleased, c) },
		func(c indexentries.Claim) Change { return claimChange(UniqueClaimed, c) })
}

func claimOf(item map[string]types.AttributeValue) (*indexentries.Claim, error) {
	if item == nil || !indexentries.IsClaim(item) {
		return nil, nil
	}
	c, err := indexentries.ClaimFromItem(item)
	if err != nil {
		return nil, err
	}
	return &c, nil
}

func sameClaim(a, b indexentries.Claim) bool {
	return a.Scope == b.Scope && a.IndexName == b.IndexName && a.Value.Encoding() == b.Value.Encoding() &&
		a.Type == b.Type && a.ID == b.ID
}

func claimChange(kind Kind, c indexentries.Claim) Change {
	return Change{Kind: kind, Key: ryno.Key{Scope: c.Scope, Type: c.Type, ID: c.ID},
		Unique: Unique{Scope: c.Scope, Index: c.IndexName, Value: c.Value}}
}

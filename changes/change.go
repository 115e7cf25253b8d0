package changes

import (
	"fmt"
	"time"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/ryno"
)

// Kind says what a Change is.
type Kind int

// The kinds of Change.
const (
	EntityCreated       Kind = iota + 1 // an entity was created: New holds it
	EntityUpdated                       // an entity was written anew: Old and New hold it before and after
	EntityDeleted                       // an entity was deleted, or expired: Old holds it as it was
	RelationshipAdded                   // an entry was added to a subject's list or set: Relationship
	RelationshipRemoved                 // an entry was removed: Relationship
	UniqueClaimed                       // an entity claimed a value of a unique index: Unique
	UniqueReleased                      // an entity released a value of a unique index: Unique
	// EntityDeleting: a Delete of an entity began (its tombstone was written), and
	// it reads as missing from now on; Old holds it as it was. The EntityDeleted
	// that ends it follows, with the same Version. A Delete cut off stops between
	// the two: Complete finishes it.
	EntityDeleting
)

var kindNames = map[Kind]string{
	EntityCreated:       "entity-created",
	EntityUpdated:       "entity-updated",
	EntityDeleted:       "entity-deleted",
	RelationshipAdded:   "relationship-added",
	RelationshipRemoved: "relationship-removed",
	UniqueClaimed:       "unique-claimed",
	UniqueReleased:      "unique-released",
	EntityDeleting:      "entity-deleting",
}

func (k Kind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// A Change is one change the store made, decoded from a stream record.
type Change struct {
	Kind Kind

	// Key is the entity the change is about: the entity written or deleted, the
	// subject of the relationship, the holder of the unique value.
	Key ryno.Key

	// Old and New are the entity before and after an entity change; nil where there
	// is none (Old of EntityCreated, New of EntityDeleted).
	Old, New *ryno.Entity

	// Version is the entity's version after the change, or for EntityDeleted the
	// version it had when deleted. Versions grow within one life of the entity: a
	// Create after a Delete starts again at 1. So a consumer that skips a record
	// delivered again by the last version it applied per key must forget that
	// version at the EntityDeleted (or compare Old's and New's Created as well).
	// The one pair that shares a version is an EntityDeleting and the
	// EntityDeleted after it (the tombstone is the last version): compare the Kind
	// too. Each record's SequenceNumber, which grows per item, identifies it alone.
	Version int64

	// Expired says that the entity of an EntityDeleted had expired: DynamoDB's time
	// to live deleted its item (the record names the DynamoDB service as its user,
	// or, as DynamoDB Local writes it, the item went alone, at a record time rounded
	// to a whole minute, in the minute of its Expires or later), or the store
	// deleted it once its Expires had passed (Entity.Expires). A deletion of the
	// store is read from its tombstone, which records when it was laid: by the
	// writer that found the entity expired, or at the start of a Delete. Only an
	// item removed alone (as a TxDelete removes it) and a tombstone of an earlier
	// version, without a time, are read by the record's time.
	Expired bool

	// Relationship is the entry added or removed, with its position in the
	// subject's list (0 in a set).
	Relationship ryno.Relationship

	// Unique is the value claimed or released.
	Unique Unique

	// SequenceNumber orders the records of one item (DynamoDB numbers a shard's
	// records in order); EventID names the record; Time is when DynamoDB wrote it,
	// to the second.
	SequenceNumber string
	EventID        string
	Time           time.Time
}

// Unique is a value of a unique index and the entity holding it.
type Unique struct {
	Scope string
	Index string
	Value indexing.Value
}

func (c Change) String() string {
	switch c.Kind {
	case RelationshipAdded, RelationshipRemoved:
		r := c.Relationship
		return fmt.Sprintf("%s %s -%s-> %s at %d", c.Kind, r.Subject, r.Predicate, r.Object, r.Index)
	case UniqueClaimed, UniqueReleased:
		return fmt.Sprintf("%s %s/%s %s by %s", c.Kind, c.Unique.Scope, c.Unique.Index, c.Unique.Value, c.Key)
	}
	return fmt.Sprintf("%s %s v%d", c.Kind, c.Key, c.Version)
}

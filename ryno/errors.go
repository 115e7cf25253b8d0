package ryno

import (
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/paging"
	"github.com/rynodb/rynodb/tables"
)

var (
	// ErrNotFound is returned (wrapped) when an entity does not exist.
	ErrNotFound = errs.ErrNotFound
	// ErrConflict is returned (wrapped) when someone else changed the entity: the
	// stored version is not the one a write expected, or concurrent writers kept
	// changing it until a write ran out of attempts. Nothing was written. It also
	// matches ErrExists, so code written for Create's former error keeps working.
	ErrConflict = errs.ErrConflict
	// ErrExists is returned (wrapped) by Create when the entity already exists.
	// errors.Is(err, ErrConflict) holds for it too.
	ErrExists = errs.ErrExists
	// ErrOutcomeUnknown is returned (wrapped) when a write's request failed in a way
	// that leaves open whether it was applied (a lost response), and the store could
	// not tell from the item: another writer changed it since. Read the entity to
	// see what is stored.
	ErrOutcomeUnknown = commit.ErrOutcomeUnknown
	// ErrUnknownIndex is returned (wrapped in an *UnknownIndexError) when an entity
	// was last written by a client that maintains indexes this client does not
	// register: writing it here would leave their entries stale.
	ErrUnknownIndex = errs.ErrUnknownIndex
	// ErrHasRelationships is returned (wrapped) by a transaction deleting an entity
	// that holds relationship entries, or that entries point at which no other
	// operation of the transaction removes (see TxDelete): deleting them could take
	// more than one transaction. Delete such an entity with Delete.
	ErrHasRelationships = errs.ErrHasRelationships
	// ErrInvalidCursor is returned (wrapped), before any request, for a cursor that
	// was altered, is malformed, or was issued for another query, direction or
	// key (Options.CursorKey).
	ErrInvalidCursor = paging.ErrInvalid
	// ErrUnprocessed is the cause in a *BatchError when DynamoDB kept leaving items
	// unprocessed until the retry budget ran out.
	ErrUnprocessed = batching.ErrUnprocessed
	// ErrUnreadable is matched by every *UnreadableError: an entity item the store
	// holds but cannot read.
	ErrUnreadable = errs.ErrUnreadable

	// ErrTableNotFound matches a *TableNotFoundError, and a *SchemaError that finds
	// a table missing: the tables were not created (see package migrations) or
	// Options.TablePrefix names another store.
	ErrTableNotFound = tables.ErrTableNotFound

	// ErrSchemaMismatch matches a *SchemaError that finds the tables or their indexes
	// other than this version of the store needs.
	ErrSchemaMismatch = errors.New("ryno: the tables do not match the schema")
	// ErrInvalid matches every *ValidationError with errors.Is.
	ErrInvalid = tables.ErrInvalid
)

// ValidationError reports input rejected before any request was sent: which field,
// and why. It is package tables' type, which every package of the module returns.
type ValidationError = tables.ValidationError

// BatchError reports the items a batch read or write could not finish. Every key in
// Keys was not read (BatchGetItem) or possibly not written (BatchWriteItem); every
// other item of the batch was. Op is "BatchGetItem" or "BatchWriteItem"; Keys are
// the unfinished items, sorted; Err says why: ErrUnprocessed, the context's error,
// or the error of a request. It is package tables' type.
type BatchError = tables.BatchError

// ItemKey is the primary key of one item of one table: Table, and Key, its key
// attributes. Its String method formats it as table{attr=value, ...}, the attributes
// sorted. It is package tables' type.
type ItemKey = tables.ItemKey

// ConflictError reports a write whose expectation of the stored entity did not
// hold: it expected version Expected (0: the entity absent, or any version for a
// write that kept losing races) and found Stored (0: no entity). Nothing was written.
// It matches ErrConflict, and ErrNotFound too when the entity does not exist.
//
// For a relationship list, Predicate names the list: Key's list under Predicate
// (Expected and Stored are 0). A list write under IfListVersion whose list is at
// another version fails with one. It is package entity's type, which the machinery
// raises as it is.
type ConflictError = entity.ConflictError

// LeaseError reports a write of a relationship list that another writer holds for a
// change too large for one transaction: Key's list under Predicate, leased until
// Until (by the writer's clock). Nothing was written. A writer that is cut off
// holds the list until then; the first write after Until takes the list over and
// finishes what was left. To wait for it, retry after time.Until(Until). Err says
// why the write stopped waiting: its attempts ran out, or its context ended. It
// matches ErrConflict. It is package entity's type.
type LeaseError = entity.LeaseError

// PartialWriteError reports a call that wrote the entity but failed in a later step
// (writing relationship entries, or index entries beyond one transaction). Entity
// is the entity as stored; Err says what failed. Writing the entity again, or any
// later write of it, completes the rest: differences are computed from the tables.
type PartialWriteError struct {
	Entity *Entity
	Err    error
}

func (e *PartialWriteError) Error() string {
	return fmt.Sprintf("%s%s is written (version %d), the rest is not: %s", errs.Prefix, e.Entity.Key, e.Entity.Version, errs.Message(e.Err))
}

// partialWrite is the error of a write the store ended with err: a
// *PartialWriteError holding the entity as stored when the store returned its
// item, which it does when the entity is written and a later step failed.
func (c *Client) partialWrite(k Key, item map[string]types.AttributeValue, err error) error {
	if item == nil {
		return err
	}
	written, derr := decodeEntity(item)
	if derr != nil || written.Key != k {
		s, _ := c.core.ReadStored(k, item)
		written = &Entity{Key: k, Version: s.Version}
	}
	return &PartialWriteError{Entity: written, Err: err}
}

func (e *PartialWriteError) Unwrap() error { return e.Err }

// UnreadableError reports entity items that are stored but cannot be read as
// entities: an attribute of the store's holds what it never writes there, such as a
// _created that is no time ("yesterday"), as another program or a hand edit in the
// console can leave it. Items names each, with why, in the order read; Keys returns
// their keys. It matches ErrUnreadable. It is package entity's type.
//
// Times in another RFC 3339 layout than the store's (2019-01-01T00:00:00Z, say, as
// the original JavaScript RynoDB wrote them) are read, not refused.
//
// Get returns it alone. A listing of entities (ListByType, QueryIndex,
// RelatedEntities, ReverseRelatedEntities) returns it together with the page of
// the items it could read, Cursor included, so that a caller may go on past them;
// BatchGet returns it together with the entities, nil at the keys it names. Every
// other error comes with no page. The iterators (AllByType, ...) yield it after the
// other entities of its page, and go on to the next page when the loop continues.
//
// The writes that keep Created (Update, Set, Patch, a Delete with IfCreated)
// refuse an entity whose _created is no time with it, and write nothing; Modify,
// which reads the entity first, refuses any it cannot read. Delete deletes it.
type UnreadableError = entity.UnreadableError

// UnreadableItem is one entity item an *UnreadableError reports: its Key, and Err,
// why it cannot be read. It is package entity's type.
type UnreadableItem = entity.UnreadableItem

// unreadableOrNil is e as an error: nil when it reports nothing.
func unreadableOrNil(e *UnreadableError) error {
	if e == nil || len(e.Items) == 0 {
		return nil
	}
	return e
}

// UnknownIndexError reports an entity last written by a client that maintains
// indexes this one does not register (Indexes names them). Register the same
// indexes in every client that writes the type; to drop an index deliberately, run
// Reindex with the new set. It matches ErrUnknownIndex. It is package entity's
// type.
type UnknownIndexError = entity.UnknownIndexError

func invalid(field, value, reason string) error {
	return &ValidationError{Field: field, Value: value, Reason: reason}
}

// wrap returns err with what the call was doing, or nil for no error, keeping one
// "ryno: " prefix however deep the wrapping goes.
func wrap(err error, format string, args ...any) error { return errs.Wrap(err, format, args...) }

// TableNotFoundError reports a request refused because a table of the store does
// not exist: Table names it (several joined with "or" when DynamoDB did not say
// which), and Err is DynamoDB's ResourceNotFoundException, which it unwraps to. It
// matches ErrTableNotFound. It is package tables' type.
type TableNotFoundError = tables.TableNotFoundError

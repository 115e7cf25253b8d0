package ryno

import (
	"context"
	"errors"
	"iter"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/relationships"
)

// Relationship is one entry of a subject's ordered list of objects under a predicate:
// subject -predicate-> object, at position Index of the list. Positions only order
// the list; removals leave gaps.
type Relationship struct {
	Subject   Key
	Predicate string
	Index     int
	Object    Key
}

func relationshipOf(e relationships.Entry) Relationship {
	return Relationship{Subject: e.Subject, Predicate: e.Predicate, Index: e.Index, Object: e.Object}
}

// relationshipPage decodes the relationship entries of a page.
func relationshipPage(items []map[string]types.AttributeValue, cursor string) (*Page[Relationship], error) {
	page := &Page[Relationship]{Items: make([]Relationship, len(items)), Cursor: cursor}
	for i, item := range items {
		e, err := relationships.FromItem(item)
		if err != nil {
			return nil, wrap(err, "decode relationship entry")
		}
		page.Items[i] = relationshipOf(e)
	}
	return page, nil
}

// AllPredicates, as the predicate of Relationships, RelatedEntities,
// ReverseRelationships and their iterators, lists the relationships of every
// predicate.
const AllPredicates = ""

// Relationships returns one page of the subject's relationships under predicate, in
// list order, or of every predicate with AllPredicates, ordered by predicate and
// then by list position. A page holding a whole list carries its version
// (Page.ListVersion), for a write that requires it (IfListVersion). It sends one
// Query per page (one round), whatever the length of the list.
func (c *Client) Relationships(ctx context.Context, subject Key, predicate string, p PageOptions) (_ *Page[Relationship], err error) {
	ctx, call, err := c.begin(ctx, "Relationships")
	defer call.end(&err)
	if err != nil {
		return nil, err
	}
	if !p.Projection.whole() {
		return nil, errNoEntities("Relationships")
	}
	q, err := c.core.OutgoingPage(subject, predicate)
	if err != nil {
		return nil, err
	}
	items, cursor, err := c.queryPage(ctx, q, p, nil)
	if err != nil {
		return nil, wrap(err, "relationships of %s", subject)
	}
	var page *Page[Relationship]
	if c.core.Ordered[predicate] {
		page, err = orderedPage(subject, predicate, items, cursor)
	} else {
		page, err = relationshipPage(items, cursor)
	}
	if err != nil {
		return nil, wrap(err, "relationships of %s", subject)
	}
	if predicate != AllPredicates && !c.core.Sets[predicate] && p.Cursor == "" && page.Cursor == "" {
		page.ListVersion = listVersion(subject, predicate, page.Items)
	}
	return page, nil
}

// listVersion is the version of subject's list for predicate whose entries are
// rels, all of them.
func listVersion(subject Key, predicate string, rels []Relationship) string {
	entries := make([]relationships.Entry, len(rels))
	for i, r := range rels {
		entries[i] = relationships.Entry{Subject: r.Subject, Predicate: r.Predicate, Index: r.Index, Object: r.Object}
	}
	return relationships.VersionOf(subject, predicate, entries)
}

// AllRelationships iterates over every relationship Relationships would page through.
// It sends one Query per page, as the loop reaches it.
func (c *Client) AllRelationships(ctx context.Context, subject Key, predicate string, p PageOptions) iter.Seq2[Relationship, error] {
	return all(ctx, p, func(ctx context.Context, p PageOptions) (*Page[Relationship], error) {
		return c.Relationships(ctx, subject, predicate, p)
	})
}

// RelatedEntities returns one page of the objects of the subject's relationships
// under predicate (AllPredicates for every one), in list order. Objects that no longer
// exist are skipped, so a page can hold fewer entities than its limit; an object
// listed twice appears twice. A page holding a whole list carries its version, as
// for Relationships: that of the list, whatever the entities read. An object that
// cannot be read does not fail the page: it comes with an *UnreadableError naming
// it. It sends one Query, then ceil(n/100) BatchGetItem in parallel for the page's n
// objects: 2 rounds per page; objects whose reads check their owners add rounds as
// in Get.
func (c *Client) RelatedEntities(ctx context.Context, subject Key, predicate string, p PageOptions) (_ *Page[*Entity], err error) {
	ctx, call, err := c.begin(ctx, "RelatedEntities")
	defer call.end(&err)
	if err != nil {
		return nil, err
	}
	if err := p.Projection.validate("PageOptions.Projection"); err != nil {
		return nil, err
	}
	rels, err := c.Relationships(ctx, subject, predicate, p.entries())
	if err != nil {
		return nil, err
	}
	page, err := c.entitiesPage(ctx, keysOf(rels.Items, func(r Relationship) Key { return r.Object }), rels.Cursor, p)
	if page != nil { // with an *UnreadableError, the objects it could read
		page.ListVersion = rels.ListVersion
	}
	return page, err
}

// keysOf returns the key pick takes from each relationship.
func keysOf(rels []Relationship, pick func(Relationship) Key) []Key {
	keys := make([]Key, len(rels))
	for i, r := range rels {
		keys[i] = pick(r)
	}
	return keys
}

// AllRelatedEntities iterates over every entity RelatedEntities would page through.
// It sends what RelatedEntities sends for each page, as the loop reaches it.
func (c *Client) AllRelatedEntities(ctx context.Context, subject Key, predicate string, p PageOptions) iter.Seq2[*Entity, error] {
	return all(ctx, p, func(ctx context.Context, p PageOptions) (*Page[*Entity], error) {
		return c.RelatedEntities(ctx, subject, predicate, p)
	})
}

// entitiesPage reads the entities of keys into a page with cursor, in the order of
// keys, skipping those that do not exist.
func (c *Client) entitiesPage(ctx context.Context, keys []Key, cursor string, p PageOptions) (*Page[*Entity], error) {
	opts := []GetOption{Project(p.Projection)}
	if p.Consistent {
		opts = append(opts, Consistent())
	}
	entities, err := c.BatchGet(ctx, keys, opts...)
	if err != nil && !errors.Is(err, ErrUnreadable) {
		return nil, err
	}
	return presentPage(entities, cursor), err // with the entities it could not read
}

// presentPage is the page with cursor of entities that are not nil, in order.
func presentPage(entities []*Entity, cursor string) *Page[*Entity] {
	return &Page[*Entity]{Items: slices.DeleteFunc(entities, func(e *Entity) bool { return e == nil }), Cursor: cursor}
}

// ReverseRelationships returns one page of the relationships pointing at object: who
// points at it, and under which predicate. With a predicate it returns only those of
// that predicate ("who follows me"); AllPredicates means every predicate, as for
// Relationships. It reads the reverse index, a GSI that DynamoDB keeps eventually
// consistent. Its order is that of the entries' _reverse_key: by predicate, then
// subject (scope, type, id, as their escaped forms compare), then position in the
// subject's list. It depends on the entries alone, so every listing of the same
// entries gives the same order. It sends one Query per page (one round).
func (c *Client) ReverseRelationships(ctx context.Context, object Key, predicate string, p PageOptions) (_ *Page[Relationship], err error) {
	ctx, call, err := c.begin(ctx, "ReverseRelationships")
	defer call.end(&err)
	if err != nil {
		return nil, err
	}
	if !p.Projection.whole() {
		return nil, errNoEntities("ReverseRelationships")
	}
	q, err := c.core.IncomingPage(object, predicate)
	if err != nil {
		return nil, err
	}
	items, cursor, err := c.queryPage(ctx, q, p, nil)
	if err != nil {
		return nil, wrap(err, "relationships to %s", object)
	}
	page, err := relationshipPage(items, cursor)
	if err != nil {
		return nil, wrap(err, "relationships to %s", object)
	}
	return page, nil
}

// ReverseRelatedEntities returns one page of the subjects of the relationships
// pointing at object under predicate (AllPredicates for every one), in the order of
// ReverseRelationships: "who follows me" as entities. Subjects that no longer exist
// are skipped, so a page can hold fewer entities than its limit; a subject pointing
// at object twice appears twice. PageAs and ValuesAs type them. A subject that cannot
// be read does not fail the page: it comes with an *UnreadableError naming it. It
// sends one Query of the reverse index, then ceil(n/100) BatchGetItem in parallel
// for the page's n subjects: 2 rounds per page.
func (c *Client) ReverseRelatedEntities(ctx context.Context, object Key, predicate string, p PageOptions) (_ *Page[*Entity], err error) {
	ctx, call, err := c.begin(ctx, "ReverseRelatedEntities")
	defer call.end(&err)
	if err != nil {
		return nil, err
	}
	if err := p.Projection.validate("PageOptions.Projection"); err != nil {
		return nil, err
	}
	rels, err := c.ReverseRelationships(ctx, object, predicate, p.entries())
	if err != nil {
		return nil, err
	}
	return c.entitiesPage(ctx, keysOf(rels.Items, func(r Relationship) Key { return r.Subject }), rels.Cursor, p)
}

// AllReverseRelatedEntities iterates over every entity ReverseRelatedEntities would
// page through. It sends what ReverseRelatedEntities sends for each page, as the loop
// reaches it.
func (c *Client) AllReverseRelatedEntities(ctx context.Context, object Key, predicate string, p PageOptions) iter.Seq2[*Entity, error] {
	return all(ctx, p, func(ctx context.Context, p PageOptions) (*Page[*Entity], error) {
		return c.ReverseRelatedEntities(ctx, object, predicate, p)
	})
}

// AllReverseRelationships iterates over every relationship ReverseRelationships would
// page through. It sends one Query per page, as the loop reaches it.
func (c *Client) AllReverseRelationships(ctx context.Context, object Key, predicate string, p PageOptions) iter.Seq2[Relationship, error] {
	return all(ctx, p, func(ctx context.Context, p PageOptions) (*Page[Relationship], error) {
		return c.ReverseRelationships(ctx, object, predicate, p)
	})
}

// HasRelationship reports whether subject has a relationship under predicate to
// object. It sends one Query of the by-object index (one round), whatever the length
// of the list; for a set or an ordered set, one GetItem of the object's entry.
func (c *Client) HasRelationship(ctx context.Context, subject Key, predicate string, object Key) (_ bool, err error) {
	ctx, call, err := c.begin(ctx, "HasRelationship")
	defer call.end(&err)
	if err != nil {
		return false, err
	}
	if err := relationships.Validate(subject, predicate, []Key{object}); err != nil {
		return false, err
	}
	has, err := c.core.HasRelationship(ctx, subject, predicate, object)
	return has, wrap(err, "relationship %s -%s-> %s", subject, predicate, object)
}

// validateSubject checks a subject and, unless it may be empty, a predicate.
func validateSubject(subject Key, predicate string, emptyPredicate bool) error {
	if err := subject.Validate(); err != nil {
		return err
	}
	if predicate == "" && emptyPredicate {
		return nil
	}
	return relationships.ValidatePredicate(predicate)
}

// CountRelationships returns how many entries the subject's list under predicate
// holds. It is strongly consistent with Options.ConsistentRead. It sends one GetItem
// of the list's head (one round), whatever the length of the list; a set or an
// ordered set keeps no head, so it sends a counting Query per 1 MB page of entries.
func (c *Client) CountRelationships(ctx context.Context, subject Key, predicate string) (_ int, err error) {
	ctx, call, err := c.begin(ctx, "CountRelationships")
	defer call.end(&err)
	if err != nil {
		return 0, err
	}
	if err := validateSubject(subject, predicate, false); err != nil {
		return 0, err
	}
	n, err := c.lists.CountRelationships(ctx, subject, predicate)
	return n, wrap(err, "count relationships %s -%s->", subject, predicate)
}

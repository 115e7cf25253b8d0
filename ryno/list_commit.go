package ryno

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/relationships"
)

// A list write reads the list's head and what it changes (the markers of its
// objects, or the whole list), plans a relationships.Change, and commits it in one
// transaction whose conditions make the plan hold at commit: the head's version (and
// the digest of a whole-list read), each marker it relies on, the subject's
// existence and, when asked, the objects'. A refused condition means another writer
// got there first: it reads and plans again. Changes too large for one transaction
// take a lease on the list instead (lease.go).

// listKind is the operation of a list write.
type listKind int

const (
	listAdd listKind = iota
	listRemove
	listReplace
)

func (k listKind) String() string {
	return [...]string{"add relationships", "remove relationships", "replace relationships"}[k]
}

// listOp is one write of a subject's list for a predicate.
type listOp struct {
	kind         listKind
	subject      Key
	predicate    string
	objects      []Key
	checkObjects bool
}

func (op listOp) relSubject() relationships.Key { return relationships.Key(op.subject) }

// listState is what a list write read: the head, and the markers of its objects
// (Add, Remove) or the whole list (Replace).
type listState struct {
	head    relationships.Head
	markers map[relationships.Key]relationships.Marker
	entries []relationships.Entry
}

// readListState reads what op plans from, in one round: the head and the markers in
// one consistent BatchGetItem, or the head and the whole list in parallel.
func (c *Client) readListState(ctx context.Context, op listOp) (listState, error) {
	if op.kind == listReplace {
		return c.readWholeList(ctx, op.subject, op.predicate)
	}
	objects := distinctKeys(op.objects)
	ops := make([]batching.GetOp, 0, len(objects)+1)
	ops = append(ops, batching.NewGetOp(c.names.Relationships, relationships.HeadPrimaryKey(op.relSubject(), op.predicate)))
	for _, o := range objects {
		ops = append(ops, batching.NewGetOp(c.names.Relationships, relationships.MarkerPrimaryKey(op.relSubject(), op.predicate, relationships.Key(o))))
	}
	items, err := c.batch.Get(ctx, ops, batching.ReadOptions{Consistent: true})
	if err != nil {
		return listState{}, err
	}
	var s listState
	if s.head, err = relationships.HeadFromItem(op.relSubject(), op.predicate, items[ops[0].ID]); err != nil {
		return s, err
	}
	s.markers = make(map[relationships.Key]relationships.Marker, len(objects))
	for i, o := range objects {
		m, err := relationships.MarkerFromItem(relationships.Key(o), items[ops[i+1].ID])
		if err != nil {
			return s, err
		}
		s.markers[relationships.Key(o)] = m
	}
	return s, nil
}

// readWholeList reads the head of a list and its entries in parallel.
func (c *Client) readWholeList(ctx context.Context, subject Key, predicate string) (listState, error) {
	var s listState
	var head map[string]types.AttributeValue
	err := batching.Parallel(ctx, 2, 2, func(ctx context.Context, i int) error {
		var err error
		if i == 0 {
			head, err = c.core.GetRelationshipItem(ctx, relationships.HeadPrimaryKey(relationships.Key(subject), predicate))
		} else {
			s.entries, err = c.readList(ctx, subject, predicate, true)
		}
		return err
	})
	if err != nil {
		return s, err
	}
	s.head, err = relationships.HeadFromItem(relationships.Key(subject), predicate, head)
	return s, err
}

// readHeads reads the heads of subject's lists for predicates in one consistent
// BatchGetItem.
func (c *Client) readHeads(ctx context.Context, subject Key, predicates []string) ([]relationships.Head, error) {
	ops := make([]batching.GetOp, len(predicates))
	for i, p := range predicates {
		ops[i] = batching.NewGetOp(c.names.Relationships, relationships.HeadPrimaryKey(relationships.Key(subject), p))
	}
	items, err := c.batch.Get(ctx, ops, batching.ReadOptions{Consistent: true})
	if err != nil {
		return nil, err
	}
	heads := make([]relationships.Head, len(predicates))
	for i, p := range predicates {
		if heads[i], err = relationships.HeadFromItem(relationships.Key(subject), p, items[ops[i].ID]); err != nil {
			return nil, err
		}
	}
	return heads, nil
}

// plan returns the change op makes to the list read.
func (op listOp) plan(s listState) relationships.Change {
	objects := relKeys(op.objects)
	switch op.kind {
	case listAdd:
		return relationships.ChangeAdd(s.head, s.markers, objects)
	case listRemove:
		return relationships.ChangeRemove(s.head, s.markers, objects)
	}
	return relationships.ChangeReplace(s.head, s.entries, objects)
}

// checkEntity adds the check that k exists, is not being deleted and has not
// expired, once per entity.
func (c *Client) checkEntity(t *actions.Transaction, k Key, role actions.Role) {
	actions.CheckEntity(t, c.names.Entities, relationships.Key(k), role, c.opts.Now(), nil)
}

// checkEntityAlso is checkEntity with the condition also, when not nil, in the same
// check.
func (c *Client) checkEntityAlso(t *actions.Transaction, k Key, role actions.Role, also *Condition) {
	if also == nil {
		c.checkEntity(t, k, role)
		return
	}
	now := c.opts.Now()
	cond := also.build(now)
	actions.CheckEntity(t, c.names.Entities, relationships.Key(k), role, now, &cond)
}

// listTables names the tables a list change writes and checks.
func (c *Client) listTables() actions.Tables {
	return actions.Tables{Entities: c.names.Entities, Relationships: c.names.Relationships}
}

// listRefusal is why a list transaction was refused: a condition another writer
// broke (retry), or an entity that does not exist (final).
type listRefusal struct {
	role    actions.Role
	missing error // ErrNotFound naming the entity, when an existence check failed
}

// refusal reads the cancellation of a list transaction from the failed action.
func refusal(t *actions.Transaction, a commit.Attempt) listRefusal {
	role, ok := t.RoleOf(a.Action)
	if !ok {
		return listRefusal{}
	}
	r := listRefusal{role: role}
	if r.role.Kind == actions.RoleObject {
		r.missing = &objectMissingError{object: Key(r.role.Object)}
	}
	return r
}

// listConflict is the error of a list write that kept losing races.
func listConflict(op listOp, err error) error {
	return &ConflictError{Key: op.subject, Predicate: op.predicate, Reason: "concurrent writers kept changing it: " + err.Error()}
}

package store

import (
	"context"
	"errors"
	"maps"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/schema"
)

// OwnerList names a list that owns its objects: its owner's type and predicate.
type OwnerList struct {
	Type      string // the owner's type, in any scope
	Predicate string
}

// maxOwnerLevels bounds how far up a read follows owners: the rounds of one read.
// Ownership that loops stops earlier, as each owner is read once.
const maxOwnerLevels = 16

// ChecksOwners reports whether a read of an entity of type t looks up its owners
// (Config.OwnersOf): whether an owner's Delete hides it at once.
func (c *Core) ChecksOwners(t string) bool { return len(c.OwnersOf[t]) > 0 }

// Owners finds the owners of each of keys whose type ChecksOwners: the subjects,
// of the owner's type, of the owned lists of Config.OwnersOf that hold it. One Query
// of the reverse index per distinct key and list, at most limit at once. The
// reverse index is eventually consistent: an entry written an instant ago may not
// be found yet.
func (c *Core) Owners(ctx context.Context, keys []Key, limit int) (map[Key][]Key, error) {
	type lookup struct {
		key  Key
		list OwnerList
	}
	var lookups []lookup
	for _, k := range DistinctKeys(keys) {
		for _, l := range c.OwnersOf[k.Type] {
			lookups = append(lookups, lookup{k, l})
		}
	}
	owners := make(map[Key][]Key, len(keys))
	var mu sync.Mutex
	err := batching.Parallel(ctx, len(lookups), max(limit, 1), func(ctx context.Context, i int) error {
		found, err := c.ownersIn(ctx, lookups[i].key, lookups[i].list)
		mu.Lock()
		defer mu.Unlock()
		owners[lookups[i].key] = append(owners[lookups[i].key], found...)
		return err
	})
	if err != nil {
		return nil, &OwnerCheckError{Err: err}
	}
	return owners, nil
}

// OwnerCheckError is the failure of a read's check of its entities' owners. It
// matches what its cause matches with errors.Is (throttling, a context's end), but
// hides a *batching.Error of the owners' keys, which are not the keys the caller
// asked for.
type OwnerCheckError struct{ Err error }

func (e *OwnerCheckError) Error() string {
	return "checking the owners of the entities read: " + e.Err.Error()
}

// Is reports whether the cause matches target.
func (e *OwnerCheckError) Is(target error) bool { return errors.Is(e.Err, target) }

// ownersIn returns the subjects of type l.Type whose list l.Predicate holds k.
func (c *Core) ownersIn(ctx context.Context, k Key, l OwnerList) ([]Key, error) {
	ins, err := c.IncomingQueries(k)
	if err != nil {
		return nil, err
	}
	var items []map[string]types.AttributeValue
	for _, in := range ins {
		in = WithSortPrefix(in, schema.AttrReverseKey, schema.PredicatePrefix(l.Predicate))
		in = KeysOnly(in, schema.AttrSubjectScope, schema.AttrSubjectType, schema.AttrSubjectID)
		found, err := c.QueryAll(ctx, in)
		if err != nil {
			return nil, errs.Wrap(err, "owners of %s under %s", k, l.Predicate)
		}
		items = append(items, found...)
	}
	var owners []Key
	for _, item := range items {
		s, err := subjectOf(item)
		if err != nil {
			return nil, errs.Wrap(err, "an entry of %s under %s", k, l.Predicate)
		}
		if s.Type == l.Type {
			owners = append(owners, s)
		}
	}
	return owners, nil
}

// HiddenByOwners reports which entities an owner hides: those with an owner, or an
// owner of an owner and so on, that is being deleted, has expired or is gone while
// its owned list still names them (DynamoDB's time to live removed it alone).
// owners holds the owners Owners found for the entities read. Each level up is one
// round: a BatchGetItem of the owners found, consistent as the read asked, beside
// the Queries for their own owners.
func (c *Core) HiddenByOwners(ctx context.Context, owners map[Key][]Key, consistent bool) (map[Key]bool, error) {
	g := newOwnerGraph(owners)
	for level := 0; level < maxOwnerLevels; level++ {
		next := g.unread()
		if len(next) == 0 {
			break
		}
		var items map[Key]map[string]types.AttributeValue
		var up map[Key][]Key
		gets := (len(next) + 99) / 100 // BatchGetItem requests of the owners
		err := batching.Parallel(ctx, 2, 2, func(ctx context.Context, i int) error {
			var err error
			if i == 0 {
				items, err = c.readOwners(ctx, next, consistent)
			} else {
				up, err = c.Owners(ctx, next, c.MaxConcurrency-gets)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		for _, k := range next {
			item := items[k]
			g.read(k, item == nil || c.Hidden(item), up[k])
		}
	}
	return g.hidden(), nil
}

// readOwners reads what a reader needs to tell whether each of keys has ended. An
// owner an eventually consistent read finds missing is read again consistently: it
// may have been created an instant ago.
func (c *Core) readOwners(ctx context.Context, keys []Key, consistent bool) (map[Key]map[string]types.AttributeValue, error) {
	items, err := c.readOwnerItems(ctx, keys, consistent)
	if err != nil || consistent {
		return items, err
	}
	var missing []Key
	for _, k := range keys {
		if items[k] == nil {
			missing = append(missing, k)
		}
	}
	if len(missing) == 0 {
		return items, nil
	}
	again, err := c.readOwnerItems(ctx, missing, true)
	maps.Copy(items, again)
	return items, err
}

// readOwnerItems reads the state of each of keys: nil for none.
func (c *Core) readOwnerItems(ctx context.Context, keys []Key, consistent bool) (map[Key]map[string]types.AttributeValue, error) {
	found, err := c.BatchReadEntities(ctx, keys, batching.ReadOptions{
		Consistent: consistent,
		Projection: []string{schema.AttrDeleting, schema.AttrExpires},
	})
	if err != nil {
		return nil, &OwnerCheckError{Err: err}
	}
	items := make(map[Key]map[string]types.AttributeValue, len(keys))
	for i, item := range found {
		if item != nil {
			items[keys[i]] = item
		}
	}
	return items, nil
}

// ownerGraph is what a read has learned of the owners of the entities it read: who
// owns whom, and which owners have ended. It sends no request.
type ownerGraph struct {
	read0 []Key         // the entities read, in the order given
	up    map[Key][]Key // each key's owners
	ended map[Key]bool  // each owner read: whether it has ended
	seen  map[Key]bool  // each key whose owners are known, or being read
}

func newOwnerGraph(owners map[Key][]Key) *ownerGraph {
	g := &ownerGraph{up: map[Key][]Key{}, ended: map[Key]bool{}, seen: map[Key]bool{}}
	for k, o := range owners {
		g.read0 = append(g.read0, k)
		g.up[k] = o
		g.seen[k] = true
	}
	return g
}

// unread returns the owners named but not read yet, each once, skipping those above
// an entity already known to be hidden.
func (g *ownerGraph) unread() []Key {
	var keys []Key
	for _, k := range g.read0 {
		if g.hides(k) {
			continue
		}
		g.walk(k, func(o Key) bool {
			if !g.seen[o] {
				g.seen[o] = true
				keys = append(keys, o)
			}
			return false
		})
	}
	return keys
}

// read records what reading owner k found: whether it has ended, and its owners.
func (g *ownerGraph) read(k Key, ended bool, owners []Key) {
	g.ended[k] = ended
	if !ended {
		g.up[k] = owners
	}
}

// hides reports whether an owner above k, at any level read so far, has ended.
func (g *ownerGraph) hides(k Key) bool {
	return g.walk(k, func(o Key) bool { return g.ended[o] })
}

// walk visits every owner above k once, depth first, and reports whether visit
// returned true for one of them, where it stops.
func (g *ownerGraph) walk(k Key, visit func(Key) bool) bool {
	done := map[Key]bool{k: true}
	stack := []Key{k}
	for len(stack) > 0 {
		k := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, o := range g.up[k] {
			if done[o] {
				continue
			}
			done[o] = true
			if visit(o) {
				return true
			}
			stack = append(stack, o)
		}
	}
	return false
}

// hidden returns the entities read that an ended owner hides.
func (g *ownerGraph) hidden() map[Key]bool {
	out := map[Key]bool{}
	for _, k := range g.read0 {
		if g.hides(k) {
			out[k] = true
		}
	}
	return out
}

// subjectOf reads the subject of a relationship entry from its item.
func subjectOf(item map[string]types.AttributeValue) (Key, error) {
	return keyFrom(item, schema.AttrSubjectScope, schema.AttrSubjectType, schema.AttrSubjectID)
}

// DistinctKeys returns keys without repetitions, in order of first appearance.
func DistinctKeys(keys []Key) []Key {
	seen := make(map[Key]bool, len(keys))
	unique := make([]Key, 0, len(keys))
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			unique = append(unique, k)
		}
	}
	return unique
}

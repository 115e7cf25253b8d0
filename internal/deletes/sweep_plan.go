// The plan of a sweep, pure: no I/O. The sweep (sweep.go) reads what refers to the
// entity and sends the transactions this file packs.

package deletes

import (
	"slices"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// Part is what one transaction of a sweep holds for one source: plain deletes,
// or the deletes of entries of one other subject's list with the updates of its head
// and of the deleted entity's marker in it.
type Part struct {
	Deletes []batching.WriteOp
	// Fenced are the deletes of set entries, which keep no head or marker. In a
	// sweep of more than one transaction they go outside the transactions
	// (TakeFenced); in a transaction they are plain deletes, the guard fencing them.
	Fenced []Fenced
	// Releases are the claims of unique values the entity held, deleted unless
	// another entity owns them by now.
	Releases []indexentries.Claim
	// Heads are the deletes of the heads of the entity's own lists, each on the
	// condition that the head is still the one the sweep read.
	Heads []store.OwnHead
	List  *relationships.Change // for entries of another list: its commutative change
	// Partial says the entries of list are not all the marker holds (a part of a
	// split group, or the reverse index missed some): the positions are taken out
	// of the marker rather than the marker deleted.
	Partial bool
}

// Actions is how many actions of a transaction p takes.
func (p Part) Actions() int {
	if p.List == nil {
		return len(p.Deletes) + len(p.Fenced) + len(p.Releases) + len(p.Heads)
	}
	return len(p.List.Deletes) + 2 // the head and the marker
}

// countFenced is how many fenced deletes parts hold.
func countFenced(parts []Part) int {
	n := 0
	for _, p := range parts {
		n += len(p.Fenced)
	}
	return n
}

// Fenced is the delete of a set entry outside any transaction: on the
// condition that the entry still holds token, the one the sweep read ("" for none).
// An entry written again since (a writer that met the tombstone takes its own
// entries back; a subject created anew has entries of its own) is not the sweep's
// to delete, however late its request lands.
type Fenced struct {
	Key   map[string]types.AttributeValue
	Token string
}

// fenceOf is the fenced delete of the set entry item (with its key and _token).
func fenceOf(item map[string]types.AttributeValue) Fenced {
	key := batching.Project(item, schema.RelationshipKeyAttrs())
	return Fenced{Key: key, Token: tokenOf(item)}
}

// claimsBeside returns the claims that no part releases already: one transaction
// may not release a claim twice.
func claimsBeside(claims []indexentries.Claim, parts []Part) []indexentries.Claim {
	var extra []indexentries.Claim
	for _, cl := range claims {
		released := slices.ContainsFunc(parts, func(p Part) bool { return slices.Contains(p.Releases, cl) })
		if !released && !slices.Contains(extra, cl) {
			extra = append(extra, cl)
		}
	}
	return extra
}

// holdsPositions is the condition that a marker holds every one of positions.
func holdsPositions(positions []int) expression.ConditionBuilder {
	holds := func(p int) expression.ConditionBuilder {
		return expression.Contains(expression.Name(schema.AttrPositions), &types.AttributeValueMemberN{Value: strconv.Itoa(p)})
	}
	cond := holds(positions[0])
	for _, p := range positions[1:] {
		cond = cond.And(holds(p))
	}
	return cond
}

// pack packs parts into transactions of at most capacity actions, no list
// twice in one (its head would be updated twice). A part larger than capacity is
// split first.
func pack(parts []Part, capacity int) [][]Part {
	var txs [][]Part
	var cur []Part
	size := 0
	lists := map[string]bool{}
	flush := func() {
		if len(cur) > 0 {
			txs = append(txs, cur)
		}
		cur, size, lists = nil, 0, map[string]bool{}
	}
	for _, p := range split(parts, capacity) {
		id := ""
		if p.List != nil {
			id = p.List.Subject.String() + "\x00" + p.List.Predicate
		}
		if size+p.Actions() > capacity || id != "" && lists[id] {
			flush()
		}
		cur = append(cur, p)
		size += p.Actions()
		if id != "" {
			lists[id] = true
		}
	}
	flush()
	return txs
}

// split splits parts larger than capacity actions.
func split(parts []Part, capacity int) []Part {
	var out []Part
	for _, p := range parts {
		for p.Actions() > capacity {
			switch {
			case p.List == nil && len(p.Deletes) > 0:
				n := min(capacity, len(p.Deletes))
				out = append(out, Part{Deletes: p.Deletes[:n]})
				p.Deletes = p.Deletes[n:]
				continue
			case p.List == nil && len(p.Fenced) > 0:
				n := min(capacity, len(p.Fenced))
				out = append(out, Part{Fenced: p.Fenced[:n]})
				p.Fenced = p.Fenced[n:]
				continue
			case p.List == nil && len(p.Releases) > 0:
				n := min(capacity, len(p.Releases))
				out = append(out, Part{Releases: p.Releases[:n]})
				p.Releases = p.Releases[n:]
				continue
			case p.List == nil:
				out = append(out, Part{Heads: p.Heads[:capacity]})
				p.Heads = p.Heads[capacity:]
				continue
			}
			n := capacity - 2
			head := incomingChange(p.List.Deletes[:n])
			out = append(out, Part{List: &head, Partial: true})
			rest := incomingChange(p.List.Deletes[n:])
			p.List, p.Partial = &rest, true
		}
		out = append(out, p)
	}
	return out
}

// incomingChange is the commutative change deleting entries of one list, all
// pointing at one object.
func incomingChange(deletes []relationships.Entry) relationships.Change {
	e := deletes[0]
	return relationships.Change{
		Subject: e.Subject, Predicate: e.Predicate, Deletes: deletes,
		Expect:     relationships.HeadExpectation{Exists: true},
		CountDelta: -len(deletes), DigestDelta: relationships.Delta(nil, deletes),
	}
}

// takeFenced takes the fenced deletes out of parts when they are limit or fewer,
// for the caller to send alone, and returns them with the parts left for
// transactions (parts left with no action dropped). More than limit stay in the
// parts: a transaction takes 99 deletes where a wave of requests takes far fewer.
func takeFenced(parts []Part, limit int) ([]Fenced, []Part) {
	n := countFenced(parts)
	if n == 0 || n > limit {
		return nil, parts
	}
	fenced := make([]Fenced, 0, n)
	var rest []Part
	for _, p := range parts {
		fenced, p.Fenced = append(fenced, p.Fenced...), nil
		if p.Actions() > 0 || p.List != nil {
			rest = append(rest, p)
		}
	}
	return fenced, rest
}

// tokenOf returns the _token of item, "" for none.
func tokenOf(item map[string]types.AttributeValue) string {
	if s, ok := item[schema.AttrToken].(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

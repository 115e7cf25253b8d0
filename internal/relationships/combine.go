package relationships

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/schema"
)

// Writers of one list in different processes combine their Adds and Removes on
// the list's head. A writer that lost its attempt to another's commit posts its
// call on the head as a Request (an attribute of its own, schema.WaitingAttr); the
// writer whose request is the oldest plans every request of that kind waiting,
// and commits them in one transaction that takes each request off the head and
// records its result (schema.DoneAttr), conditioned on the request still being
// there. The writer of each request reads its result and returns it: its call
// took effect at that commit, between its start and its end; it takes the result
// off later, with its next post on the head or an update of its own. A
// request withdrawn (its writer gave up) can no longer be committed, and one whose
// attribute is gone with no result was never committed (its head was deleted, or
// it was dropped): results stay until their writer takes them, or RequestTTL.

// Request is a list write waiting on its head.
type Request struct {
	ID      string
	Remove  bool // a Remove; an Add otherwise
	Objects []entity.Key
	Posted  time.Time
}

// Done is the result of a request committed by another writer.
type Done struct {
	Changed []entity.Key // the objects it added or removed
	At      time.Time
}

// Applied is a request that a combined commit takes off the head.
type Applied struct {
	ID      string
	Changed []entity.Key
	// Own says the committer is the request's writer: it records no result.
	Own bool
}

// RequestTTL is how long a request waits on the head, and its result stays there
// when its writer does not take it, before a commit drops it: its writer was cut
// off. A writer alive takes its request back long before (lists.awaitAtMost), so
// that a request dropped was never committed, clocks a little apart included.
const RequestTTL = time.Minute

// RequestValue encodes r as the value of its head attribute.
func RequestValue(r Request) types.AttributeValue {
	kind := "add"
	if r.Remove {
		kind = "remove"
	}
	return &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
		"k": str(kind),
		"o": keysValue(r.Objects),
		"t": number(r.Posted.UnixMilli()),
	}}
}

// DoneValue encodes the result of a request committed at now.
func DoneValue(changed []entity.Key, now time.Time) types.AttributeValue {
	return &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
		"o": keysValue(changed),
		"t": number(now.UnixMilli()),
	}}
}

func keysValue(keys []entity.Key) types.AttributeValue {
	l := make([]types.AttributeValue, len(keys))
	for i, k := range keys {
		l[i] = &types.AttributeValueMemberL{Value: []types.AttributeValue{str(k.Scope), str(k.Type), str(k.ID)}}
	}
	return &types.AttributeValueMemberL{Value: l}
}

func number(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

// readCombining reads the requests waiting on a head item and the results it
// holds, oldest request first.
func readCombining(item map[string]types.AttributeValue) (waiting []Request, done map[string]Done, err error) {
	for name, av := range item {
		switch {
		case strings.HasPrefix(name, schema.WaitingPrefix):
			r := Request{ID: strings.TrimPrefix(name, schema.WaitingPrefix)}
			m, ok := av.(*types.AttributeValueMemberM)
			if !ok {
				return nil, nil, fmt.Errorf("%s is %T, want a map", name, av)
			}
			r.Remove = stringOf(m.Value["k"]) == "remove"
			if r.Objects, err = keysOf(m.Value["o"]); err != nil {
				return nil, nil, errs.Wrap(err, "%s", name)
			}
			r.Posted = time.UnixMilli(numberOf(m.Value["t"]))
			waiting = append(waiting, r)
		case strings.HasPrefix(name, schema.DonePrefix):
			m, ok := av.(*types.AttributeValueMemberM)
			if !ok {
				return nil, nil, fmt.Errorf("%s is %T, want a map", name, av)
			}
			d := Done{At: time.UnixMilli(numberOf(m.Value["t"]))}
			if d.Changed, err = keysOf(m.Value["o"]); err != nil {
				return nil, nil, errs.Wrap(err, "%s", name)
			}
			if done == nil {
				done = map[string]Done{}
			}
			done[strings.TrimPrefix(name, schema.DonePrefix)] = d
		}
	}
	slices.SortFunc(waiting, func(a, b Request) int {
		if c := a.Posted.Compare(b.Posted); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return waiting, done, nil
}

func numberOf(av types.AttributeValue) int64 {
	if n, ok := av.(*types.AttributeValueMemberN); ok {
		v, _ := strconv.ParseInt(n.Value, 10, 64)
		return v
	}
	return 0
}

func keysOf(av types.AttributeValue) ([]entity.Key, error) {
	l, ok := av.(*types.AttributeValueMemberL)
	if !ok {
		return nil, fmt.Errorf("objects are %T, want a list", av)
	}
	keys := make([]entity.Key, len(l.Value))
	for i, v := range l.Value {
		parts, ok := v.(*types.AttributeValueMemberL)
		if !ok || len(parts.Value) != 3 {
			return nil, fmt.Errorf("object %d is not a key", i)
		}
		keys[i] = entity.Key{Scope: stringOf(parts.Value[0]), Type: stringOf(parts.Value[1]), ID: stringOf(parts.Value[2])}
	}
	return keys, nil
}

// Batch returns the requests of waiting that the next combined commit writes, in
// order, up to maxObjects objects in all: the Adds, and the Removes of objects no
// Add of the batch names (one commit writes an object's marker once).
func Batch(waiting []Request, maxObjects int) (adds, removes []Request) {
	added := map[entity.Key]bool{}
	n := 0
	for _, r := range waiting {
		if r.Remove || n+len(r.Objects) > maxObjects && n > 0 {
			continue
		}
		adds = append(adds, r)
		n += len(r.Objects)
		for _, o := range r.Objects {
			added[o] = true
		}
	}
	for _, r := range waiting {
		if !r.Remove || n+len(r.Objects) > maxObjects && n > 0 ||
			slices.ContainsFunc(r.Objects, func(o entity.Key) bool { return added[o] }) {
			continue
		}
		removes = append(removes, r)
		n += len(r.Objects)
	}
	return adds, removes
}

// ChangeCombined returns the change that adds adds to the list of head h, which
// exists, and removes removes, objects no add names: ChangeAdd and ChangeRemove
// in one commit, adding to the head's count and digest.
func ChangeCombined(h Head, markers map[entity.Key]Marker, adds, removes []entity.Key) Change {
	switch {
	case len(removes) == 0:
		return ChangeAdd(h, markers, adds)
	case len(adds) == 0:
		return ChangeRemove(h, markers, removes)
	}
	c := ChangeAdd(h, markers, adds)
	r := ChangeRemove(h, markers, removes)
	c.Deletes = r.Deletes
	c.Markers = append(c.Markers, r.Markers...)
	c.Removed = r.Removed
	c.CountDelta += r.CountDelta
	c.Count += r.CountDelta
	c.DigestDelta = new(big.Int).Add(c.DigestDelta, r.DigestDelta)
	c.Digest = c.Digest.Add(r.DigestDelta)
	return c
}

// Live returns the requests of waiting posted within RequestTTL of now: older
// ones were left by writers cut off, and are dropped, not committed.
func Live(waiting []Request, now time.Time) []Request {
	return slices.DeleteFunc(slices.Clone(waiting), func(r Request) bool { return r.Posted.Before(now.Add(-RequestTTL)) })
}

// ObjectsOf returns the objects of rs, in order.
func ObjectsOf(rs []Request) []entity.Key {
	var objects []entity.Key
	for _, r := range rs {
		objects = append(objects, r.Objects...)
	}
	return objects
}

// Expired returns the attributes of h that a commit at now drops: requests posted
// and results recorded more than RequestTTL before.
func Expired(h Head, now time.Time) []string {
	var names []string
	for _, r := range h.Waiting {
		if r.Posted.Before(now.Add(-RequestTTL)) {
			names = append(names, schema.WaitingPrefix+r.ID)
		}
	}
	for id, d := range h.Done {
		if d.At.Before(now.Add(-RequestTTL)) {
			names = append(names, schema.DonePrefix+id)
		}
	}
	slices.Sort(names)
	return names
}

// The cursors of a listing gathered from several queries: one per shard of a
// sharded partition key, each with where its next page starts.

package paging

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Start is where one query of a gathered listing goes on: from its first item
// (nil Key), from after Key, or nowhere (Done).
type Start struct {
	Key  map[string]types.AttributeValue
	Done bool
}

// gathered is a cursor of a gathered listing, as cursor is of one query.
type gathered struct {
	Sum    string      `json:"q"` // Codec.sum of the query, direction, starts and last
	Starts []startJSON `json:"g"`
	Last   string      `json:"l,omitempty"`
}

type startJSON struct {
	Key  map[string]Value `json:"k,omitempty"`
	Done bool             `json:"d,omitempty"`
}

// EncodeGathered returns the cursor continuing a gathered listing at starts, one
// per query, in the order of the queries, after an item whose sort value was last.
// It is "" when every query is done.
func (cc Codec) EncodeGathered(starts []Start, last string) (string, error) {
	g := gathered{Starts: make([]startJSON, len(starts)), Last: last}
	done := true
	for i, s := range starts {
		done = done && s.Done
		g.Starts[i].Done = s.Done
		if s.Key == nil || s.Done {
			continue
		}
		values, err := valuesOf(s.Key)
		if err != nil {
			return "", err
		}
		g.Starts[i].Key = values
	}
	if done {
		return "", nil
	}
	b, err := cc.marshalGathered(g)
	if err != nil {
		return "", err
	}
	return cc.seal(b)
}

// DecodeGathered returns the starts of the cursor s of a listing gathered from
// len(pos) queries, pos saying which keys each accepts, and the sort value of the
// last item listed; every query starts from its first item for the empty cursor,
// with no last item. Every cursor it does not accept is an error wrapping
// ErrInvalid.
func (cc Codec) DecodeGathered(s string, pos []Position) ([]Start, string, error) {
	starts := make([]Start, len(pos))
	if s == "" {
		return starts, "", nil
	}
	if len(s) > MaxLen*(len(pos)+1) {
		return nil, "", fmt.Errorf("%w: not a cursor", ErrInvalid)
	}
	b, err := cc.open(s)
	if err != nil {
		return nil, "", err
	}
	var g gathered
	if err := json.Unmarshal(b, &g); err != nil {
		return nil, "", fmt.Errorf("%w: not a cursor", ErrInvalid)
	}
	if canonical, err := cc.marshalGathered(g); err != nil || !bytes.Equal(canonical, b) {
		return nil, "", fmt.Errorf("%w: altered, or issued for a different query", ErrInvalid)
	}
	if len(g.Starts) != len(pos) {
		return nil, "", fmt.Errorf("%w: issued for %d shards, not %d", ErrInvalid, len(g.Starts), len(pos))
	}
	for i, st := range g.Starts {
		switch {
		case st.Done && st.Key != nil:
			return nil, "", fmt.Errorf("%w: altered", ErrInvalid)
		case st.Done:
			starts[i].Done = true
		case st.Key != nil:
			if starts[i].Key, err = pos[i].key(st.Key); err != nil {
				return nil, "", fmt.Errorf("%w: shard %d: %v", ErrInvalid, i, err)
			}
		}
	}
	return starts, g.Last, nil
}

// marshalGathered returns the JSON of g, with its checksum set from its starts
// and last.
func (cc Codec) marshalGathered(g gathered) ([]byte, error) {
	starts, err := json.Marshal([]any{g.Starts, g.Last})
	if err != nil {
		return nil, err
	}
	g.Sum = cc.sum(append([]byte("g"), starts...))
	return json.Marshal(g)
}

// valuesOf returns the attributes of key as a cursor holds them.
func valuesOf(key map[string]types.AttributeValue) (map[string]Value, error) {
	values := make(map[string]Value, len(key))
	for name, v := range key {
		switch v := v.(type) {
		case *types.AttributeValueMemberS:
			values[name] = Value{S: &v.Value}
		case *types.AttributeValueMemberN:
			values[name] = Value{N: &v.Value}
		default:
			return nil, fmt.Errorf("ryno: cannot page past key attribute %s of type %T", name, v)
		}
	}
	return values, nil
}

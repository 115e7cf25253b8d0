package ryno

import (
	"context"
	"iter"
	"time"
)

// Record, embedded in a struct, lets the struct stand for an entity: GetAs and
// Entity.Decode fill it with the entity's key, timestamps and version, and NewEntity,
// EntityOf and the typed writes (CreateAs, UpdateAs, SetAs) read it back, so that a
// write checks the version that was read. Its fields are never stored as attributes.
//
//	type Book struct {
//		ryno.Record
//		Title string `dynamodbav:"title" json:"title"`
//		Pages int    `dynamodbav:"pages" json:"pages"`
//	}
type Record struct {
	Key     Key       `dynamodbav:"-" json:"key"`
	Created time.Time `dynamodbav:"-" json:"created"`
	Updated time.Time `dynamodbav:"-" json:"updated"`
	Version int64     `dynamodbav:"-" json:"version"`
}

func (r Record) record() Record { return r }

func (r *Record) setRecord(v Record) { *r = v }

// recordGetter and recordSetter are satisfied by structs that embed Record.
type (
	recordGetter interface{ record() Record }
	recordSetter interface{ setRecord(Record) }
)

// recordOf returns the Record v embeds, if any.
func recordOf(v any) (Record, bool) {
	if r, ok := v.(recordGetter); ok {
		return r.record(), true
	}
	return Record{}, false
}

// EntityOf returns the entity v stands for: v embeds a Record that gives its key,
// and its other fields are the attributes, as for NewEntity.
func EntityOf(v any) (*Entity, error) {
	r, ok := recordOf(v)
	if !ok {
		return nil, invalid("EntityOf", "", "the value does not embed a ryno.Record holding its key; use NewEntity")
	}
	if err := r.Key.Validate(); err != nil {
		return nil, wrap(err, "Record.Key")
	}
	return NewEntity(r.Key, v)
}

// GetAs reads the entity k into a new T, as Get and Entity.Decode do. When T embeds
// a Record, it holds the key, timestamps and version.
func GetAs[T any](ctx context.Context, c *Client, k Key, opts ...GetOption) (*T, error) {
	e, err := c.Get(ctx, k, opts...)
	if err != nil {
		return nil, err
	}
	return decodeAs[T](e)
}

// CreateAs creates the entity v stands for, as Create does, and updates v's Record
// from the stored entity. T must embed a Record.
func CreateAs[T any](ctx context.Context, c *Client, v *T, opts ...WriteOption) error {
	return writeAs(v, func(e *Entity) (*Entity, error) { return c.Create(ctx, e, opts...) })
}

// UpdateAs updates the entity v stands for, as Update does: when v's Record holds
// a Version, the stored entity must still have it. It updates v's Record from the
// stored entity. T must embed a Record.
func UpdateAs[T any](ctx context.Context, c *Client, v *T, opts ...WriteOption) error {
	return writeAs(v, func(e *Entity) (*Entity, error) { return c.Update(ctx, e, opts...) })
}

// SetAs stores the entity v stands for, as Set does, and updates v's Record from
// the stored entity. T must embed a Record.
func SetAs[T any](ctx context.Context, c *Client, v *T, opts ...WriteOption) error {
	return writeAs(v, func(e *Entity) (*Entity, error) { return c.Set(ctx, e, opts...) })
}

func writeAs[T any](v *T, write func(*Entity) (*Entity, error)) error {
	e, err := EntityOf(v)
	if err != nil {
		return err
	}
	stored, err := write(e)
	if err != nil {
		return err
	}
	if r, ok := any(v).(recordSetter); ok {
		r.setRecord(Record{Key: stored.Key, Created: stored.Created, Updated: stored.Updated, Version: stored.Version})
	}
	return nil
}

// PageAs decodes the entities of a page into T values. It takes a listing's results
// as they come: PageAs[Book](db.ListByType(ctx, ryno.Type{Scope: "acme", Name: "book"}, ryno.PageOptions{})).
func PageAs[T any](p *Page[*Entity], err error) (*Page[*T], error) {
	if err != nil {
		return nil, err
	}
	out := &Page[*T]{Items: make([]*T, 0, len(p.Items)), Cursor: p.Cursor}
	for _, e := range p.Items {
		v, err := decodeAs[T](e)
		if err != nil {
			return nil, err
		}
		out.Items = append(out.Items, v)
	}
	return out, nil
}

// ValuesAs decodes the entities of seq, such as AllByType's, into T values. A
// decoding error ends the sequence.
func ValuesAs[T any](seq iter.Seq2[*Entity, error]) iter.Seq2[*T, error] {
	return func(yield func(*T, error) bool) {
		for e, err := range seq {
			if err != nil {
				yield(nil, err)
				return
			}
			v, err := decodeAs[T](e)
			if !yield(v, err) || err != nil {
				return
			}
		}
	}
}

func decodeAs[T any](e *Entity) (*T, error) {
	v := new(T)
	if err := e.Decode(v); err != nil {
		return nil, err
	}
	return v, nil
}

package ryno

import (
	"context"
	"errors"
	"iter"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/rynodb/rynodb/indexing"
)

// Record, embedded in a struct, lets the struct stand for an entity: GetAs and
// Entity.Decode fill it with the entity's key, timestamps and version, and NewEntity,
// EntityOf and the typed writes (CreateAs, UpdateAs, SetAs) read it back, so that a
// write checks the version and the life (Created) that were read. Its fields are
// never stored as attributes.
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
	// Expires is the entity's expiry (see Entity.Expires). Written back, a zero
	// Expires keeps the stored one; a time sets it.
	Expires time.Time `dynamodbav:"-" json:"expires,omitzero"`

	partial bool // read in part (see Entity.Partial)
}

// Partial reports whether the entity was read in part, with a Projection: the
// struct holds only the attributes named, and CreateAs, UpdateAs and SetAs refuse
// it (change it with Patch).
func (r Record) Partial() bool { return r.partial }

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
// a Record, it holds the key, timestamps and version. It sends what Get sends: one
// GetItem (one round).
func GetAs[T any](ctx context.Context, c *Client, k Key, opts ...GetOption) (*T, error) {
	e, err := c.Get(ctx, k, opts...)
	if err != nil {
		return nil, err
	}
	return decodeAs[T](e)
}

// CreateAs creates the entity v stands for, as Create does, and updates v's Record
// from the stored entity. T must embed a Record. It sends what Create sends: one
// PutItem (one round) for a type without index entries.
func CreateAs[T any](ctx context.Context, c *Client, v *T, opts ...WriteOption) error {
	return writeAs(v, func(e *Entity) (*Entity, error) { return c.Create(ctx, e, opts...) })
}

// UpdateAs writes v back onto the entity it stands for. It sets the attributes T
// names that v holds and removes those v leaves out (an omitempty field at its zero
// value); attributes T does not name, and the metadata, are kept as stored, as
// ModifyAs keeps them, so a struct that knows part of an entity never erases the
// rest. The entity must exist (ErrNotFound). When v's Record holds a Version, the
// stored entity must still have it (*ConflictError), and be the life its Created
// names, when it holds one, as Update checks an entity read: a copy of a life since
// deleted fails on the key's new life, at any version, with a *ConflictError
// matching ErrNotFound too. IfVersion and IfCreated given must agree with the Record
// (ErrInvalid otherwise). It updates v's Record from the stored entity. T must embed
// a Record. It is one Patch, and sends what Patch sends: one UpdateItem (one round)
// on a type without indexes.
func UpdateAs[T any](ctx context.Context, c *Client, v *T, opts ...WriteOption) error {
	named := namedAttributes(reflect.TypeFor[T]())
	return writeAs(v, func(e *Entity) (*Entity, error) { return c.patchNamed(ctx, e, named, opts) })
}

// SetAs stores v: as UpdateAs when the entity exists, keeping the attributes T does
// not name; as CreateAs when it does not. With a Version in v's Record, the entity
// must exist with that version, and be the life the Record's Created names, as for
// UpdateAs. Without one, it patches, creates when the entity is missing, and
// patches again when another writer created it meanwhile; under IfVersion or
// IfCreated it only patches. It updates v's Record from the stored entity. T must
// embed a Record. It sends one UpdateItem (one round) for an existing entity of a
// type without indexes, as Patch; for a missing one, that refused UpdateItem, then
// what Create sends (2 rounds), and a Patch more when another writer created it
// meanwhile.
func SetAs[T any](ctx context.Context, c *Client, v *T, opts ...WriteOption) error {
	named := namedAttributes(reflect.TypeFor[T]())
	return writeAs(v, func(e *Entity) (*Entity, error) {
		stored, err := c.patchNamed(ctx, e, named, opts)
		// A conflict is final: the entity the options name is gone, not to be created.
		if e.Version > 0 || !errors.Is(err, ErrNotFound) || errors.Is(err, ErrConflict) {
			return stored, err
		}
		stored, err = c.Create(ctx, e, opts...)
		if !errors.Is(err, ErrExists) {
			return stored, err
		}
		return c.patchNamed(ctx, e, named, opts)
	})
}

// patchNamed writes e, a struct encoded, as a Patch: every attribute it holds set,
// every attribute its type names that it does not hold removed, under e's version
// and life when it has a version, as Update writes an entity read.
func (c *Client) patchNamed(ctx context.Context, e *Entity, named map[string]bool, opts []WriteOption) (*Entity, error) {
	p := Patch{Set: e.Attributes, Expires: e.Expires}
	for _, name := range slices.Sorted(maps.Keys(named)) {
		if _, ok := e.Attributes[name]; !ok {
			p.Remove = append(p.Remove, name)
		}
	}
	o, err := writeOptionsOf("Patch", opts)
	if err == nil {
		_, err = o.onEntity(e, modeUpdate) // options that contradict the Record
	}
	if err != nil {
		return nil, err
	}
	if e.Version > 0 {
		opts = append(slices.Clip(opts), IfVersion(e.Version))
		if !e.Created.IsZero() {
			opts = append(opts, IfCreated(e.Created))
		}
	}
	return c.Patch(ctx, e.Key, p, opts...)
}

func writeAs[T any](v *T, write func(*Entity) (*Entity, error)) error {
	e, err := EntityOf(v)
	if err != nil {
		return err
	}
	if e.partial {
		return errPartial(e.Key)
	}
	stored, err := write(e)
	if err != nil {
		return err
	}
	if r, ok := any(v).(recordSetter); ok {
		r.setRecord(stored.record())
	}
	return nil
}

// ModifyAs is Modify for a T: it reads the entity k into a new T, calls fn to change
// it, and writes it back under the condition that it is still the version read,
// reading and calling fn again when another writer got there first. Attributes of
// the stored entity that T does not name (no field of T encodes to them) are kept
// as read, and so is the metadata: a struct that knows part of an entity changes
// that part only. An Expires that fn sets on T's Record is written; left as read
// (or zero), the stored one stays. It takes Modify's options: with IfVersion and
// IfCreated from an ETag, it writes over that version of that life only. It returns
// the entity as stored, as a T. It sends what Modify sends: one GetItem then one
// PutItem (2 rounds) per attempt for a type without index entries.
func ModifyAs[T any](ctx context.Context, c *Client, k Key, fn func(v *T) error, opts ...WriteOption) (*T, error) {
	named := namedAttributes(reflect.TypeOf((*T)(nil)).Elem())
	stored, err := c.Modify(ctx, k, func(e *Entity) error {
		v, err := decodeAs[T](e)
		if err != nil {
			return err
		}
		if err := fn(v); err != nil {
			return err
		}
		next, err := NewEntity(k, v)
		if err != nil {
			return err
		}
		for name, value := range e.Attributes {
			if !named[name] {
				next.Attributes[name] = value
			}
		}
		e.Attributes = next.Attributes
		if !next.Expires.IsZero() { // a zero Expires keeps the stored one
			e.Expires = next.Expires
		}
		return nil
	}, opts...)
	if err != nil {
		return nil, err
	}
	return decodeAs[T](stored)
}

// namedAttributes returns the attribute names the fields of struct type t encode
// to, as attributevalue does: the dynamodbav tag's name or the field's (an embedded
// non-struct's is its type's), embedded structs flattened, fields tagged "-" left
// out. A type that is no struct names none.
func namedAttributes(t reflect.Type) map[string]bool {
	names := map[string]bool{}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return names
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("dynamodbav"), ",")
		switch {
		case name == "-":
		case f.Anonymous && name == "" && isStruct(f.Type):
			for n := range namedAttributes(f.Type) {
				names[n] = true
			}
		case !f.IsExported():
		case name == "": // an exported embedded non-struct is named by its type
			names[f.Name] = true
		default:
			names[name] = true
		}
	}
	return names
}

// isStruct reports whether t is a struct, or a pointer to one.
func isStruct(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct
}

// GetByUniqueAs is GetByUnique into a new T. It sends what GetByUnique sends: one
// GetItem of the claim, then one of the entity (2 rounds).
func GetByUniqueAs[T any](ctx context.Context, c *Client, in ScopedIndex, value indexing.Value, opts ...GetOption) (*T, error) {
	e, err := c.GetByUnique(ctx, in, value, opts...)
	if err != nil {
		return nil, err
	}
	return decodeAs[T](e)
}

// ResultAs decodes the entity an operation of Transact wrote into a new T: nil
// (and no error) for an operation that returns none, such as a list operation, a
// check, a delete or a patch of a type without indexes.
func ResultAs[T any](r OpResult) (*T, error) {
	if r.Entity == nil {
		return nil, nil
	}
	return decodeAs[T](r.Entity)
}

// PageAs decodes the entities of a page into T values. It takes a listing's results
// as they come: PageAs[Book](db.ListByType(ctx, ryno.Type{Scope: "acme", Name: "book"}, ryno.PageOptions{})).
// A page that comes with an *UnreadableError is decoded, and returned with it.
func PageAs[T any](p *Page[*Entity], err error) (*Page[*T], error) {
	if p == nil || err != nil && !errors.Is(err, ErrUnreadable) {
		return nil, err
	}
	out := &Page[*T]{Items: make([]*T, 0, len(p.Items)), Cursor: p.Cursor, ListVersion: p.ListVersion}
	for _, e := range p.Items {
		v, err := decodeAs[T](e)
		if err != nil {
			return nil, err
		}
		out.Items = append(out.Items, v)
	}
	return out, err
}

// ValuesAs decodes the entities of seq, such as AllByType's, into T values. A
// decoding error ends the sequence; an *UnreadableError of seq is yielded, and seq
// goes on if the loop continues.
func ValuesAs[T any](seq iter.Seq2[*Entity, error]) iter.Seq2[*T, error] {
	return func(yield func(*T, error) bool) {
		for e, err := range seq {
			if err != nil {
				if !yield(nil, err) || !errors.Is(err, ErrUnreadable) {
					return
				}
				continue
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

package ryno

import (
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"

	"github.com/rynodb/rynodb/internal/numbers"
	"github.com/rynodb/rynodb/internal/schema"
)

// Entity is one stored record: its key, the user's attributes, free-form metadata and
// the timestamps the store maintains.
type Entity struct {
	Key

	// Attributes are the user's attributes, stored as top-level attributes of the
	// item. Names must not start with '_' (the store's own namespace). Values are
	// anything attributevalue can marshal, and big.Int, big.Float and big.Rat, which
	// are stored as exact numbers. Read back, numbers are json.Number,
	// which keeps every digit and encodes to JSON as a number; Decode or GetAs give
	// typed fields.
	Attributes map[string]any

	// Meta is free-form metadata, stored as the map attribute _meta.
	Meta map[string]any

	// Created and Updated are set by the store (UTC, millisecond precision). Writes
	// ignore Updated. A write that carries Version also checks Created, so an entity
	// deleted and created again is not mistaken for the one that was read; with
	// Created it needs no read to keep it.
	Created time.Time
	Updated time.Time

	// Version is the stored version: 1 when created, one more on every write. 0
	// means the entity was not read from the store. Update and Set of an entity that
	// carries a Version write only if the stored entity still has it, and fail with
	// an error matching ErrConflict otherwise (an HTTP service's If-Match).
	Version int64

	// Expires, when not zero, is when the entity expires: from that second on
	// (stored as Unix seconds, rounded up) every read sees it as missing, its
	// unique values are free for others, and the next writer of its key, a stream
	// consumer calling Cleanup once DynamoDB's time to live has removed it, or
	// `ryno check --repair` deletes what refers to it, as Delete would. Create,
	// Update and Set write it as the entity holds it (zero for none); Patch keeps the
	// stored one unless Patch.Expires gives another.
	Expires time.Time

	// Relationships holds the lists Get read with WithRelationships: a predicate maps
	// to its ordered objects. It is a read result only: no write sends it, so an
	// entity read and written back never undoes a list change made meanwhile. Write
	// lists with ReplaceLists, AddRelationships or RemoveRelationships.
	Relationships map[string][]Key

	// partial marks an entity read in part (a Projection), which no whole write
	// takes.
	partial bool
}

// Partial reports whether e was read in part, with a Projection: it holds only the
// attributes named, and Create, Update and Set refuse it (change it with Patch).
func (e *Entity) Partial() bool { return e.partial }

// NewEntity returns an entity with key k and the attributes of v, a struct (with
// dynamodbav tags) or a map, encoded as attributevalue.MarshalMap does. When v embeds
// a Record, the entity takes its Version and Created, so that a write checks the
// version read. Attribute names and values are checked here: a name in the store's
// '_' namespace, a number DynamoDB cannot hold, or a value the encoder would lose
// (a big.Int in a struct field, a struct whose fields are all unexported) fails
// with a *ValidationError. Big numbers in a map are stored exactly (see Entity).
func NewEntity(k Key, v any) (*Entity, error) {
	exact, err := numbers.Exact("Attributes", v)
	if err != nil {
		return nil, err
	}
	item, err := attributevalue.MarshalMap(exact)
	if err != nil {
		return nil, invalid("Attributes", "", err.Error())
	}
	for name, av := range item {
		if err := schema.ValidateAttributeName(name); err != nil {
			return nil, err
		}
		if err := numbers.ValidateAll("Attributes."+name, av); err != nil {
			return nil, err
		}
	}
	attrs := make(map[string]any, len(item))
	if err := decoder.Decode(mapValue(item), &attrs); err != nil {
		return nil, invalid("Attributes", "", err.Error())
	}
	e := &Entity{Key: k, Attributes: numbers.JSON(attrs).(map[string]any)}
	if r, ok := recordOf(v); ok {
		e.Version, e.Created, e.Expires, e.partial = r.Version, r.Created, r.Expires, r.partial
	}
	return e, nil
}

// Decode stores the entity's attributes in the struct or map out points to, as
// attributevalue.UnmarshalMap does. Numbers decode exactly into integer fields. When
// out embeds a Record, Decode fills it with the entity's key, timestamps and version.
func (e *Entity) Decode(out any) error {
	attrs, err := numbers.Exact("Attributes", e.Attributes)
	if err != nil {
		return err
	}
	item, err := attributevalue.MarshalMap(attrs)
	if err != nil {
		return err
	}
	if err := attributevalue.UnmarshalMap(item, out); err != nil {
		return wrap(err, "decode %s into %T", e.Key, out)
	}
	if r, ok := out.(recordSetter); ok {
		r.setRecord(e.record())
	}
	return nil
}

// String shows the entity's key, version, timestamps and attributes, such as
// "acme:user:ada v3 created 2026-01-02T03:04:05.006Z updated ... map[age:36 name:Ada]".
func (e Entity) String() string {
	var b strings.Builder
	b.WriteString(e.Key.String())
	if e.Version > 0 {
		fmt.Fprintf(&b, " v%d", e.Version)
	}
	if !e.Created.IsZero() {
		b.WriteString(" created " + schema.FormatTime(e.Created))
	}
	if !e.Updated.IsZero() {
		b.WriteString(" updated " + schema.FormatTime(e.Updated))
	}
	if !e.Expires.IsZero() {
		b.WriteString(" expires " + e.Expires.UTC().Format(time.RFC3339))
	}
	fmt.Fprintf(&b, " %v", e.Attributes)
	if len(e.Meta) > 0 {
		fmt.Fprintf(&b, " meta %v", e.Meta)
	}
	if e.Relationships != nil {
		fmt.Fprintf(&b, " relationships %v", e.Relationships)
	}
	if e.partial {
		b.WriteString(" (partial)")
	}
	return b.String()
}

// record is the Record of e: what a typed entity learns of it.
func (e *Entity) record() Record {
	return Record{Key: e.Key, Created: e.Created, Updated: e.Updated, Version: e.Version, Expires: e.Expires, partial: e.partial}
}

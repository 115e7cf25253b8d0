package ryno

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
)

// Entity is one stored record: its key, the user's attributes, free-form metadata and
// the timestamps the store maintains.
type Entity struct {
	Key

	// Attributes are the user's attributes, stored as top-level attributes of the
	// item. Names must not start with '_' (the store's own namespace). Values are
	// anything attributevalue can marshal. Read back, numbers are
	// attributevalue.Number, which keeps every digit; Decode into a struct for typed
	// fields.
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

	// Relationships maps a predicate to the entity's ordered list of objects.
	Relationships map[string][]Key
}

// NewEntity returns an entity with key k and the attributes of v, a struct (with
// dynamodbav tags) or a map, encoded as attributevalue.MarshalMap does.
func NewEntity(k Key, v any) (*Entity, error) {
	item, err := attributevalue.MarshalMap(v)
	if err != nil {
		return nil, invalid("Attributes", "", err.Error())
	}
	attrs := make(map[string]any, len(item))
	if err := decoder.Decode(mapValue(item), &attrs); err != nil {
		return nil, invalid("Attributes", "", err.Error())
	}
	return &Entity{Key: k, Attributes: attrs}, nil
}

// Decode stores the entity's attributes in the struct or map out points to, as
// attributevalue.UnmarshalMap does. Numbers decode exactly into integer fields.
func (e *Entity) Decode(out any) error {
	item, err := attributevalue.MarshalMap(e.Attributes)
	if err != nil {
		return err
	}
	return attributevalue.UnmarshalMap(item, out)
}

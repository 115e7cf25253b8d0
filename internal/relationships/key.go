package relationships

import "github.com/rynodb/rynodb/internal/schema"

// Key identifies the subject or the object of a relationship: an entity's scope,
// type and id. It has the same fields as ryno.Key, so either converts to the other.
type Key struct {
	Scope string
	Type  string
	ID    string
}

// String returns the key as the store writes it in _subject_key and _object_key:
// scope:type:id, each part escaped.
func (k Key) String() string { return schema.SubjectKey(k.Scope, k.Type, k.ID) }

package entity

import "github.com/rynodb/rynodb/internal/schema"

// Key identifies an entity: its scope (a tenant, an account, ...), its type and its
// id. Each part must be non-empty UTF-8 without control characters; ':' and '%' are
// allowed.
type Key struct {
	Scope string
	Type  string
	ID    string
}

// String returns the key as the store writes it in compound keys:
// scope:type:id, each part escaped ('%' as %25, ':' as %3A).
func (k Key) String() string { return schema.SubjectKey(k.Scope, k.Type, k.ID) }

// Validate reports whether the key can be stored: a *ValidationError of package
// tables otherwise.
func (k Key) Validate() error { return schema.ValidateEntityKey(k.Scope, k.Type, k.ID) }

// Type names the entities of one type within one scope: what ListByType, AllByType
// and Reindex of package ryno read. Its named fields keep a scope and a type from
// being swapped.
type Type struct {
	Scope string
	Name  string
}

// TypeOf returns the type of the entity k.
func (k Key) TypeOf() Type { return Type{Scope: k.Scope, Name: k.Type} }

// String returns the type as the store writes it: scope:type, each part escaped.
func (t Type) String() string { return schema.ScopeTypeKey(t.Scope, t.Name) }

package indexing

import "github.com/rynodb/rynodb/entity"

// Duplicate is a value of a unique index that Entity emits and Owner holds: a
// reindex (ryno.Client.Reindex) reports it instead of writing it.
type Duplicate struct {
	Index         string
	Value         any
	Entity, Owner entity.Key
}

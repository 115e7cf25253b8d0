package relationships

import "github.com/rynodb/rynodb/internal/relationships"

// ValidatePredicate reports whether predicate can name a relationship list: non-empty
// UTF-8 without control characters, short enough to leave room in a sort key for a
// position and an object. The error is a *tables.ValidationError.
func ValidatePredicate(predicate string) error { return relationships.ValidatePredicate(predicate) }

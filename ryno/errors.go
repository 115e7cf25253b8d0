package ryno

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/tables"
)

var (
	// ErrNotFound is returned (wrapped) when an entity does not exist.
	ErrNotFound = errors.New("ryno: entity not found")
	// ErrConflict is returned (wrapped) when Create finds the entity already there, or
	// when concurrent writers keep changing an entity while Update or Set retries.
	ErrConflict = errors.New("ryno: conflicting write")
	// ErrInvalidCursor is returned (wrapped) for a cursor that is malformed or was
	// issued for a different query.
	ErrInvalidCursor = errors.New("ryno: invalid cursor")
	// ErrUnprocessed is the cause in a *BatchError when DynamoDB kept leaving items
	// unprocessed until the retry budget ran out.
	ErrUnprocessed = errors.New("ryno: items left unprocessed after retries")
	// ErrInvalid matches every *ValidationError with errors.Is.
	ErrInvalid = tables.ErrInvalid
)

// ValidationError reports input rejected before any request was sent: which field,
// and why.
type ValidationError = tables.ValidationError

// BatchError reports the items a batch read or write could not finish. Every key in
// Keys was not read (BatchGetItem) or possibly not written (BatchWriteItem); every
// other item of the batch was. Err says why: ErrUnprocessed, the context's error, or
// the error of a request.
type BatchError struct {
	Op   string    // "BatchGetItem" or "BatchWriteItem"
	Keys []ItemKey // the unfinished items, sorted
	Err  error
}

func (e *BatchError) Error() string {
	const shown = 5
	names := make([]string, 0, shown)
	for _, k := range e.Keys[:min(shown, len(e.Keys))] {
		names = append(names, k.String())
	}
	more := ""
	if len(e.Keys) > shown {
		more = fmt.Sprintf(" and %d more", len(e.Keys)-shown)
	}
	return fmt.Sprintf("ryno: %s left %d item(s) unfinished (%s%s): %v",
		e.Op, len(e.Keys), strings.Join(names, ", "), more, e.Err)
}

func (e *BatchError) Unwrap() error { return e.Err }

// ItemKey is the primary key of one item of one table.
type ItemKey struct {
	Table string
	Key   map[string]types.AttributeValue
}

// String formats the key as table{attr=value, ...} with the attributes sorted.
func (k ItemKey) String() string {
	names := make([]string, 0, len(k.Key))
	for name := range k.Key {
		names = append(names, name)
	}
	slices.Sort(names)
	var b strings.Builder
	b.WriteString(k.Table)
	b.WriteByte('{')
	for i, name := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s=%s", name, scalarString(k.Key[name]))
	}
	b.WriteByte('}')
	return b.String()
}

// scalarString formats a key attribute value: S and N as their text, B as hex.
func scalarString(v types.AttributeValue) string {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return fmt.Sprintf("%q", v.Value)
	case *types.AttributeValueMemberN:
		return v.Value
	case *types.AttributeValueMemberB:
		return fmt.Sprintf("%x", v.Value)
	default:
		return fmt.Sprintf("%T", v)
	}
}

func invalid(field, value, reason string) error {
	return &ValidationError{Field: field, Value: value, Reason: reason}
}

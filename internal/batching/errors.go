package batching

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/errs"
)

// ErrUnprocessed is the cause in an *Error when DynamoDB kept leaving items
// unprocessed until the retry budget ran out.
var ErrUnprocessed = errors.New("ryno: items left unprocessed after retries")

// Error reports the items a batch read or write could not finish. Every key in
// Keys was not read (BatchGetItem) or possibly not written (BatchWriteItem); every
// other item of the batch was. Err says why: ErrUnprocessed, the context's error, or
// the error of a request. Package ryno names it BatchError.
type Error struct {
	Op   string    // "BatchGetItem" or "BatchWriteItem"
	Keys []ItemKey // the unfinished items, sorted
	Err  error
}

func (e *Error) Error() string {
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
		e.Op, len(e.Keys), strings.Join(names, ", "), more, errs.Message(e.Err))
}

func (e *Error) Unwrap() error { return e.Err }

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

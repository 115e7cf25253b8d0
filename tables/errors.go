package tables

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The errors below are returned as they are by every package of the module, and
// raised by the machinery under them: they are defined here, in the package every
// other one imports. Package ryno names several of them again (ryno.ValidationError
// is ValidationError, ryno.BatchError is BatchError).

// prefix starts every error message of the module.
const prefix = "ryno: "

// message returns err's message without its "ryno: " prefix, for a message that
// has one.
func message(err error) string { return strings.TrimPrefix(err.Error(), prefix) }

// ErrInvalid matches every *ValidationError and *TransactionLimitError with
// errors.Is.
var ErrInvalid = errors.New("invalid input")

// ValidationError reports input rejected before any request is sent. ryno,
// migrations and the other packages return it for bad input.
type ValidationError struct {
	Field  string // what was checked, such as "Key.ID", "TablePrefix" or "Attributes.name"
	Value  string // the rejected value, if it helps to show it
	Reason string // why it was rejected
}

// maxShownValue bounds how much of a rejected value an error message repeats.
const maxShownValue = 64

func (e *ValidationError) Error() string {
	if e.Value == "" {
		return fmt.Sprintf("%sinvalid %s: %s", prefix, e.Field, e.Reason)
	}
	v := e.Value
	if len(v) > maxShownValue {
		v = v[:maxShownValue] + "..."
	}
	return fmt.Sprintf("%sinvalid %s %q: %s", prefix, e.Field, v, e.Reason)
}

// Is reports whether target is ErrInvalid.
func (e *ValidationError) Is(target error) bool { return target == ErrInvalid }

// CallError says what a call was doing when Err happened: Op, such as
// "relationships of acme:person:ada" or "delete table app_index_entries". Its
// message is "ryno: ", Op, ": " and Err's message without a "ryno: " of its own, so
// that one prefix starts it however deep the wrapping goes. errors.Is and errors.As
// see through it to Err.
type CallError struct {
	Op  string
	Err error
}

func (e *CallError) Error() string { return prefix + e.Op + ": " + message(e.Err) }

func (e *CallError) Unwrap() error { return e.Err }

// BatchError reports the items a batch read or write could not finish. Every key in
// Keys was not read (BatchGetItem) or possibly not written (BatchWriteItem); every
// other item of the batch was. Err says why: ErrUnprocessed of package ryno, the
// context's error, or the error of a request.
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
	return fmt.Sprintf("%s%s left %d item(s) unfinished (%s%s): %v",
		prefix, e.Op, len(e.Keys), strings.Join(names, ", "), more, message(e.Err))
}

func (e *BatchError) Unwrap() error { return e.Err }

// ItemKey is the primary key of one item of one table: Table, and Key, its key
// attributes.
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

// ErrTableNotFound matches a *TableNotFoundError with errors.Is.
var ErrTableNotFound = errors.New("ryno: table not found")

// TableNotFoundError reports a request refused because a table of the store does
// not exist: Table names it (several joined with "or" when DynamoDB did not say
// which), and Err is DynamoDB's ResourceNotFoundException, which it unwraps to. It
// matches ErrTableNotFound.
type TableNotFoundError struct {
	Table string
	Err   error
}

func (e *TableNotFoundError) Error() string {
	return "ryno: table " + e.Table + " not found; create the tables with `ryno migrate up` or check Options.TablePrefix"
}

// Is reports whether target is ErrTableNotFound.
func (e *TableNotFoundError) Is(target error) bool { return target == ErrTableNotFound }

// Unwrap returns DynamoDB's error.
func (e *TableNotFoundError) Unwrap() error { return e.Err }

// TransactionLimitError reports a transaction over one of DynamoDB's limits on
// TransactWriteItems: Limit is "actions" (100), "bytes" (4 MB) or "item" (an item
// written twice). Nothing was written. It matches ErrInvalid.
type TransactionLimitError struct {
	Limit  string
	Detail string
}

func (e *TransactionLimitError) Error() string {
	return fmt.Sprintf("%stransaction over DynamoDB's limit on %s: %s", prefix, e.Limit, e.Detail)
}

// Is reports whether target is ErrInvalid.
func (e *TransactionLimitError) Is(target error) bool { return target == ErrInvalid }

package batching

import (
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/tables"
)

// ErrUnprocessed is the cause in an *Error when DynamoDB kept leaving items
// unprocessed until the retry budget ran out.
var ErrUnprocessed = errors.New("ryno: items left unprocessed after retries")

// Error reports the items a batch read or write could not finish: package tables'
// BatchError, which package ryno names BatchError too.
type Error = tables.BatchError

// ItemKey is the primary key of one item of one table.
type ItemKey = tables.ItemKey

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

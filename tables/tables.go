package tables

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/rynodb/rynodb/internal/schema"
)

// Names holds the physical table and index names of one store.
type Names = schema.Names

// NewNames validates prefix and returns the table and index names derived from it.
func NewNames(prefix string) (Names, error) { return schema.NewNames(prefix) }

// MaxPrefixLen is the longest prefix whose every table and index name fits DynamoDB's
// 255-byte name limit.
const MaxPrefixLen = schema.MaxPrefixLen

// ValidatePrefix reports whether prefix can start DynamoDB table and index names:
// one to MaxPrefixLen characters from [A-Za-z0-9_.-].
func ValidatePrefix(prefix string) error { return schema.ValidatePrefix(prefix) }

// Billing chooses how the tables and their global secondary indexes are billed.
// The zero value is on-demand (PAY_PER_REQUEST).
type Billing = schema.Billing

// Definitions returns the CreateTable inputs of the three tables, in creation order,
// each with its secondary indexes. Every call returns new values that the caller may
// modify.
func Definitions(n Names, b Billing) []*dynamodb.CreateTableInput { return schema.Definitions(n, b) }

// ValidationError reports input rejected before any request is sent. ryno,
// migrations and the other packages return it for bad input.
type ValidationError = schema.ValidationError

// ErrInvalid matches every *ValidationError with errors.Is.
var ErrInvalid = schema.ErrInvalid

package schema

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/rynodb/rynodb/tables"
)

// The names, definitions and validation error of the tables are package tables',
// defined once where users and the machinery both reach them.

// Names holds the physical table and index names of one store.
type Names = tables.Names

// NewNames validates prefix and returns the table and index names derived from it.
func NewNames(prefix string) (Names, error) { return tables.NewNames(prefix) }

// MaxPrefixLen is the longest prefix whose every table and index name fits DynamoDB's
// 255-byte name limit.
const MaxPrefixLen = tables.MaxPrefixLen

// ValidatePrefix reports whether prefix can start DynamoDB table and index names.
func ValidatePrefix(prefix string) error { return tables.ValidatePrefix(prefix) }

// Billing chooses how the tables and their global secondary indexes are billed.
type Billing = tables.Billing

// Definitions returns the CreateTable inputs of the three tables, in creation order.
func Definitions(n Names, b Billing) []*dynamodb.CreateTableInput { return tables.Definitions(n, b) }

// ValidationError reports input rejected before any request is sent.
type ValidationError = tables.ValidationError

// ErrInvalid matches every *ValidationError with errors.Is.
var ErrInvalid = tables.ErrInvalid

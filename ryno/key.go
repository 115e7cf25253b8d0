package ryno

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/tables"
)

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
func (k Key) String() string { return tables.SubjectKey(k.Scope, k.Type, k.ID) }

// Validate reports whether the key can be stored: a *ValidationError otherwise.
func (k Key) Validate() error { return tables.ValidateEntityKey(k.Scope, k.Type, k.ID) }

// item returns the primary key of the entity's item in the entities table.
func (k Key) item() map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		tables.AttrID:           str(k.ID),
		tables.AttrScopeTypeKey: str(tables.ScopeTypeKey(k.Scope, k.Type)),
	}
}

func str(s string) *types.AttributeValueMemberS { return &types.AttributeValueMemberS{Value: s} }

package ryno

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/rynodb/rynodb/tables"
)

// maxAttributeNameBytes is DynamoDB's limit on the length of an attribute name.
const maxAttributeNameBytes = 65535

// validateAttributeName rejects names DynamoDB would refuse and names in the store's
// reserved '_' namespace.
func validateAttributeName(name string) error {
	field := "Attributes." + name
	switch {
	case name == "":
		return invalid("Attributes", "", "attribute names must not be empty")
	case strings.HasPrefix(name, tables.ReservedPrefix):
		return invalid(field, name, "names starting with '_' are reserved for the store")
	case !utf8.ValidString(name):
		return invalid(field, name, "is not valid UTF-8")
	case len(name) > maxAttributeNameBytes:
		return invalid(field, name[:16], fmt.Sprintf("name is %d bytes; DynamoDB allows at most %d", len(name), maxAttributeNameBytes))
	}
	return nil
}

// validateRelationshipMap checks every list an entity carries.
func validateRelationshipMap(subject Key, lists map[string][]Key) error {
	for predicate, objects := range lists {
		if err := validateList(subject, predicate, objects); err != nil {
			return fmt.Errorf("Relationships[%q]: %w", predicate, err)
		}
	}
	return nil
}

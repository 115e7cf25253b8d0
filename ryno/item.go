package ryno

import (
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/numbers"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

var (
	encoder = attributevalue.NewEncoder()
	// decoder keeps numbers as attributevalue.Number so no digit is lost; decodeAny
	// turns them into json.Number.
	decoder = attributevalue.NewDecoder(func(o *attributevalue.DecoderOptions) { o.UseNumber = true })
)

// entityAttrs is the number of attributes the store adds to every entity item.
const entityAttrs = 8

// encodeEntity validates e and builds its item, without the timestamps.
func encodeEntity(e *Entity) (map[string]types.AttributeValue, error) {
	if e == nil {
		return nil, invalid("Entity", "", "must not be nil")
	}
	if err := e.Key.Validate(); err != nil {
		return nil, err
	}
	if e.partial {
		return nil, errPartial(e.Key)
	}
	item := make(map[string]types.AttributeValue, len(e.Attributes)+entityAttrs)
	for name, v := range e.Attributes {
		if err := schema.ValidateAttributeName(name); err != nil {
			return nil, err
		}
		av, err := encodeValue("Attributes."+name, v)
		if err != nil {
			return nil, err
		}
		item[name] = av
	}
	if len(e.Meta) > 0 {
		av, err := encodeValue("Meta", e.Meta)
		if err != nil {
			return nil, err
		}
		item[schema.AttrMeta] = av
	}
	for name, av := range itemKey(e.Key) {
		item[name] = av
	}
	item[schema.AttrScope] = str(e.Scope)
	item[schema.AttrType] = str(e.Type)
	if err := validateExpiry("Expires", e.Expires); err != nil {
		return nil, err
	}
	if !e.Expires.IsZero() {
		item[schema.AttrExpires] = store.ExpiresAttr(e.Expires)
	}
	return item, nil
}

// encodeValue encodes the value of the attribute field, rejecting what DynamoDB
// would refuse and what the encoder would lose. Big numbers are stored exactly (see
// exactValue).
func encodeValue(field string, v any) (types.AttributeValue, error) {
	v, err := numbers.Exact(field, v)
	if err != nil {
		return nil, err
	}
	av, err := encoder.Encode(v)
	switch {
	case err != nil:
		return nil, invalid(field, "", err.Error())
	case av == nil: // the encoder skips what it cannot store, such as funcs
		return nil, invalid(field, "", fmt.Sprintf("a %T cannot be stored", v))
	}
	if err := numbers.ValidateAll(field, av); err != nil {
		return nil, err
	}
	return av, nil
}

// EntityFromItem decodes an item of the entities table, as a DynamoDB stream record,
// an export or a backup holds it: the key, timestamps, version, metadata and
// attributes, with numbers as json.Number. The store's own attributes (those
// starting with '_') are left out. It reports ErrInvalid when the item is not an
// entity's. Package changes decodes stream records with it.
func EntityFromItem(item map[string]types.AttributeValue) (*Entity, error) {
	e, err := decodeEntity(item)
	if err != nil {
		return nil, invalid("item", "", err.Error())
	}
	if err := e.Key.Validate(); err != nil {
		return nil, invalid("item", "", "holds no entity key: "+err.Error())
	}
	return e, nil
}

// decodeEntity builds an entity from an item of the entities table.
func decodeEntity(item map[string]types.AttributeValue) (*Entity, error) {
	e := &Entity{Attributes: make(map[string]any, len(item)), Meta: map[string]any{}}
	var err error
	for name, av := range item {
		switch name {
		case schema.AttrID:
			e.ID, err = stringValue(name, av)
		case schema.AttrScope:
			e.Scope, err = stringValue(name, av)
		case schema.AttrType:
			e.Type, err = stringValue(name, av)
		case schema.AttrCreated:
			e.Created, err = timeValue(name, av)
		case schema.AttrUpdated, schema.AttrShardUpdated:
			e.Updated, err = timeValue(name, av)
		case schema.AttrMeta:
			if err = decoder.Decode(av, &e.Meta); err == nil {
				numbers.JSON(e.Meta)
			}
		case schema.AttrVersion:
			e.Version, err = entitystate.VersionValue(av)
		case schema.AttrExpires:
			e.Expires = store.ExpiryTime(entitystate.ExpiresOf(item))
		default:
			if strings.HasPrefix(name, schema.ReservedPrefix) {
				continue
			}
			e.Attributes[name], err = numbers.Decode(av)
		}
		if err != nil {
			return nil, wrap(err, "attribute %s", name)
		}
	}
	return e, nil
}

func stringValue(name string, av types.AttributeValue) (string, error) {
	s, ok := av.(*types.AttributeValueMemberS)
	if !ok {
		return "", fmt.Errorf("%s is %T, want a string", name, av)
	}
	return s.Value, nil
}

// timeValue reads a timestamp in the store's layout or any other RFC 3339 one:
// another program may have written it.
func timeValue(name string, av types.AttributeValue) (t time.Time, err error) {
	s, err := stringValue(name, av)
	if err != nil {
		return t, err
	}
	return schema.ReadTime(s)
}

// decodeStored decodes an entity item read from the store: an item it cannot read
// is an *UnreadableError naming k, the key it was read by or listed under.
func decodeStored(k Key, item map[string]types.AttributeValue) (*Entity, error) {
	e, err := decodeEntity(item)
	if err != nil {
		return nil, &UnreadableError{Items: []UnreadableItem{{Key: k, Err: err}}}
	}
	return e, nil
}

// storedKey is the key of an entity item as stored, for naming one that cannot be
// read: its primary key (_id, and _scope_type_key split), by which Get and Delete
// find it; its _scope, _type and _id when that does not split.
func storedKey(item map[string]types.AttributeValue) Key {
	st, _ := item[schema.AttrScopeTypeKey].(*types.AttributeValueMemberS)
	id, _ := item[schema.AttrID].(*types.AttributeValueMemberS)
	if st != nil && id != nil {
		if parts, ok := schema.Split(st.Value, 2); ok {
			return Key{Scope: parts[0], Type: parts[1], ID: id.Value}
		}
	}
	k, _ := store.EntityKeyOf(item)
	return k
}

func mapValue(m map[string]types.AttributeValue) *types.AttributeValueMemberM {
	return &types.AttributeValueMemberM{Value: m}
}

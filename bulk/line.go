package bulk

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/tables"
)

// Line is one entity as an export holds it.
type Line struct {
	Key     entity.Key
	Version int64     // the entity's version; an import keeps it (see ImportOptions)
	Created time.Time // as stored, millisecond precision
	Updated time.Time
	Expires time.Time // zero: none
	// Attributes are the user's attributes and Meta the entity's metadata, as
	// DynamoDB holds them.
	Attributes map[string]types.AttributeValue
	Meta       map[string]types.AttributeValue
	// Lists are the entity's lists, sets and ordered sets by predicate, each with
	// its objects in order.
	Lists map[string][]entity.Key
	// Sequences are the last numbers drawn from the entity's sequences, by name.
	Sequences map[string]int64
}

// lineJSON is the JSON form of a Line.
type lineJSON struct {
	Key        keyJSON                    `json:"key"`
	Version    int64                      `json:"version"`
	Created    string                     `json:"created"`
	Updated    string                     `json:"updated"`
	Expires    string                     `json:"expires,omitempty"`
	Attributes map[string]json.RawMessage `json:"attributes"`
	Meta       map[string]json.RawMessage `json:"meta,omitempty"`
	Lists      map[string][]keyJSON       `json:"lists,omitempty"`
	Sequences  map[string]int64           `json:"sequences,omitempty"`
}

type keyJSON struct {
	Scope string `json:"scope"`
	Type  string `json:"type"`
	ID    string `json:"id"`
}

func keyOf(k entity.Key) keyJSON  { return keyJSON{Scope: k.Scope, Type: k.Type, ID: k.ID} }
func (k keyJSON) key() entity.Key { return entity.Key{Scope: k.Scope, Type: k.Type, ID: k.ID} }

// timeLayout is the layout of the times of a line: the store's, in UTC.
const timeLayout = "2006-01-02T15:04:05.000Z"

// MarshalJSON writes l as one line of an export, without its newline.
func (l Line) MarshalJSON() ([]byte, error) {
	j := lineJSON{Key: keyOf(l.Key), Version: l.Version, Created: l.Created.UTC().Format(timeLayout),
		Updated: l.Updated.UTC().Format(timeLayout), Sequences: l.Sequences}
	if !l.Expires.IsZero() {
		j.Expires = l.Expires.UTC().Format(time.RFC3339)
	}
	var err error
	if j.Attributes, err = valuesJSON(l.Attributes); err != nil {
		return nil, err
	}
	if len(l.Meta) > 0 {
		if j.Meta, err = valuesJSON(l.Meta); err != nil {
			return nil, err
		}
	}
	if len(l.Lists) > 0 {
		j.Lists = make(map[string][]keyJSON, len(l.Lists))
		for p, objects := range l.Lists {
			keys := make([]keyJSON, len(objects))
			for i, o := range objects {
				keys[i] = keyOf(o)
			}
			j.Lists[p] = keys
		}
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads one line of an export. It checks the form of what it reads
// (times, DynamoDB JSON); ryno.Client.Import checks the rest (keys, names) before
// writing.
func (l *Line) UnmarshalJSON(data []byte) error {
	var j lineJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return invalid("line", "", err.Error())
	}
	out := Line{Key: j.Key.key(), Version: j.Version, Sequences: j.Sequences}
	var err error
	if out.Created, err = parseTime("created", j.Created); err != nil {
		return err
	}
	if out.Updated, err = parseTime("updated", j.Updated); err != nil {
		return err
	}
	if j.Expires != "" {
		if out.Expires, err = time.Parse(time.RFC3339, j.Expires); err != nil {
			return invalid("expires", j.Expires, "is not an RFC 3339 time")
		}
	}
	if out.Attributes, err = valuesOf("attributes", j.Attributes); err != nil {
		return err
	}
	if out.Meta, err = valuesOf("meta", j.Meta); err != nil {
		return err
	}
	if len(j.Lists) > 0 {
		out.Lists = make(map[string][]entity.Key, len(j.Lists))
		for p, keys := range j.Lists {
			objects := make([]entity.Key, len(keys))
			for i, k := range keys {
				objects[i] = k.key()
			}
			out.Lists[p] = objects
		}
	}
	*l = out
	return nil
}

func parseTime(field, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, invalid(field, "", "is missing")
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return t, invalid(field, s, "is not an RFC 3339 time")
	}
	return t.UTC(), nil
}

func valuesJSON(m map[string]types.AttributeValue) (map[string]json.RawMessage, error) {
	out := make(map[string]json.RawMessage, len(m))
	for name, av := range m {
		b, err := MarshalValue(av)
		if err != nil {
			return nil, fmt.Errorf("bulk: attribute %s: %w", name, err)
		}
		out[name] = b
	}
	return out, nil
}

func valuesOf(field string, m map[string]json.RawMessage) (map[string]types.AttributeValue, error) {
	if m == nil {
		return nil, nil
	}
	out := make(map[string]types.AttributeValue, len(m))
	for name, raw := range m {
		av, err := UnmarshalValue(raw)
		if err != nil {
			return nil, invalid(field+"."+name, "", err.Error())
		}
		out[name] = av
	}
	return out, nil
}

// invalid is the error of a line refused before any request.
func invalid(field, value, reason string) error {
	return &tables.ValidationError{Field: field, Value: value, Reason: reason}
}

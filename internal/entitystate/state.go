package entitystate

import (
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/schema"
)

// State is what a write needs to know of a stored entity item: its version and the
// marks that concurrency control leaves on it.
type State struct {
	Item    map[string]types.AttributeValue // nil when there is no item
	Version int64                           // 0 for an item written before versions
	Created time.Time
	Indexes string // the _indexes set of the last writer; "" for none
	Token   string // the token of the write that stored it
	Pending string // token of a writer still writing index entries
	// PendingUntil is when the lease of Pending's writer ends, in Unix
	// milliseconds; 0 for a mark written before marks recorded it.
	PendingUntil int64
	Deleting     string // token of a Delete in progress
	Expires      int64  // the expiry, in Unix seconds; 0 for none
	Expired      bool   // whether it had passed when the item was read

	// CreatedAttr is _created as stored ("" for none), which a write's condition
	// pins: another program may have written it in another layout than the store's.
	CreatedAttr string
	// Unreadable says why _created does not read as a time; nil when it does, or
	// there is none. A write that keeps Created refuses such an entity.
	Unreadable error
}

// Decode decodes the state of item, nil for no item, as of now.
func Decode(item map[string]types.AttributeValue, now time.Time) (State, error) {
	s := State{Item: item}
	if item == nil {
		return s, nil
	}
	s.Expires = ExpiresOf(item)
	s.Expired = ExpiredAt(s.Expires, now)
	var err error
	if s.Version, err = VersionValue(item[schema.AttrVersion]); err != nil {
		return s, err
	}
	s.Created, s.CreatedAttr, s.Unreadable = createdOf(item)
	s.Indexes = OptionalString(item, schema.AttrIndexes)
	s.Token = OptionalString(item, schema.AttrToken)
	s.Pending = OptionalString(item, schema.AttrPending)
	if n, ok := item[schema.AttrPendingUntil].(*types.AttributeValueMemberN); ok {
		s.PendingUntil, _ = strconv.ParseInt(n.Value, 10, 64) // unreadable: judged by age
	}
	s.Deleting = OptionalString(item, schema.AttrDeleting)
	return s, nil
}

// createdOf reads the _created attribute of item: as a time, as stored, and why it
// is no time. A Delete, or a writer completing one, needs none of it, so an item
// whose _created cannot be read is still a state.
func createdOf(item map[string]types.AttributeValue) (t time.Time, attr string, unreadable error) {
	switch av := item[schema.AttrCreated].(type) {
	case nil:
		return t, "", nil
	case *types.AttributeValueMemberS:
		t, err := schema.ReadTime(av.Value)
		if err != nil {
			return t, av.Value, fmt.Errorf("attribute %s: %w", schema.AttrCreated, err) // as a read says it
		}
		return t, av.Value, nil
	default:
		return t, "", fmt.Errorf("attribute %s: %s is %T, want a string", schema.AttrCreated, schema.AttrCreated, av)
	}
}

// storedCreated is _created as stored: CreatedAttr, or Created in the store's
// layout for a state that does not say.
func (s State) storedCreated() string {
	if s.CreatedAttr == "" && !s.Created.IsZero() {
		return schema.FormatTime(s.Created)
	}
	return s.CreatedAttr
}

// Exists reports whether there is an item.
func (s State) Exists() bool { return s.Item != nil }

// Live reports whether the item is an entity that exists: there, not being
// deleted, and not expired.
func (s State) Live() bool { return s.Exists() && s.Deleting == "" && !s.Expired }

// Life returns the Created time of the entity s holds, zero when s holds none live.
func (s State) Life() time.Time {
	if !s.Live() {
		return time.Time{}
	}
	return s.Created
}

// Ending reports whether the item is an entity whose deletion a writer meeting it
// completes: a Delete in progress, or an entity that has expired.
func (s State) Ending() bool { return s.Deleting != "" || (s.Exists() && s.Expired) }

// VersionValue decodes the _version attribute av: 0 when there is none.
func VersionValue(av types.AttributeValue) (int64, error) {
	if av == nil {
		return 0, nil
	}
	n, ok := av.(*types.AttributeValueMemberN)
	if !ok {
		return 0, fmt.Errorf("%s is %T, want a number", schema.AttrVersion, av)
	}
	v, err := strconv.ParseInt(n.Value, 10, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%s is %q, want a version", schema.AttrVersion, n.Value)
	}
	return v, nil
}

// OptionalString returns the string attribute name of item, "" when there is none.
func OptionalString(item map[string]types.AttributeValue, name string) string {
	if s, ok := item[name].(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

// ExpiresOf returns the expiry an entity item records, in Unix seconds; 0 for
// none, or one that reads neither as a number nor as a time. The store writes a
// number, as DynamoDB's time to live requires; a string holding an RFC 3339 time,
// as a hand edit may leave, is read as that time, rounded up to the second.
func ExpiresOf(item map[string]types.AttributeValue) int64 {
	switch av := item[schema.AttrExpires].(type) {
	case *types.AttributeValueMemberN:
		s, err := strconv.ParseInt(av.Value, 10, 64)
		if err != nil {
			return 0
		}
		return s
	case *types.AttributeValueMemberS:
		t, err := schema.ReadTime(av.Value)
		if err != nil {
			return 0
		}
		s := t.Unix()
		if t.Nanosecond() > 0 {
			s++
		}
		return s
	}
	return 0
}

// ExpiredAt reports whether an expiry (Unix seconds; 0 for none) has passed at now.
func ExpiredAt(expires int64, now time.Time) bool {
	return expires > 0 && now.Unix() >= expires
}

func number(n int64) *types.AttributeValueMemberN {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

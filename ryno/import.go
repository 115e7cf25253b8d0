package ryno

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/bulk"
	"github.com/rynodb/rynodb/internal/numbers"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
	"github.com/rynodb/rynodb/internal/writes"
)

// Import reads JSON Lines of bulk.Line from r, as Export writes them, and writes
// each entity through the store's write path: its attributes, Meta, expiry,
// Created, Updated and version as the line holds them, its index entries and
// unique values as the indexes this client registers emit them, its lists (sets
// and ordered sets as Options declares them), and its sequences at their last
// numbers. An entity that exists already is kept, overwritten or replaced when the
// line is newer, as opts.Existing says.
//
// Each line is checked before any request of its own and written whole or not at
// all: a line refused (unreadable, a bad key, a unique value another entity holds)
// is a *bulk.LineError naming it, which stops the import (lines after it that were
// in flight may be written; Report.Resume is at or before it), or with
// SkipBadLines is counted and reported. Lines are written up to Options.MaxConcurrency at once;
// Report.Resume says where a run cut off starts again (ImportOptions.From), and a
// line written twice is written once. Each line costs what a Create (or Set) of
// the entity with ReplaceLists costs, and a conditional UpdateItem per sequence.
func (c *Client) Import(ctx context.Context, r io.Reader, opts bulk.ImportOptions) (_ bulk.Report, err error) {
	ctx, call, err := c.begin(ctx, "Import")
	defer call.end(&err)
	if err != nil {
		return bulk.Report{}, err
	}
	switch {
	case opts.Existing < bulk.Keep || opts.Existing > bulk.Newer:
		return bulk.Report{}, invalid("ImportOptions.Existing", fmt.Sprint(int(opts.Existing)), "must be Keep, Overwrite or Newer")
	case opts.From < 0:
		return bulk.Report{}, invalid("ImportOptions.From", fmt.Sprint(opts.From), "must not be negative")
	}
	return c.transfer.Import(ctx, r, opts, c.importPut)
}

// importPut checks l and returns the write of its entity, before any request.
func (c *Client) importPut(l *bulk.Line, existing bulk.Existing) (writes.Put, error) {
	if err := l.Key.Validate(); err != nil {
		return writes.Put{}, err
	}
	switch {
	case l.Version < 1:
		return writes.Put{}, invalid("version", fmt.Sprint(l.Version), "must be 1 or more")
	case l.Created.IsZero() || l.Updated.IsZero():
		return writes.Put{}, invalid("created", "", "created and updated must be set")
	}
	base, err := importBase(l)
	if err != nil {
		return writes.Put{}, err
	}
	for name, last := range l.Sequences {
		if err := validateSequence(l.Key, name); err != nil {
			return writes.Put{}, err
		}
		if last < 0 {
			return writes.Put{}, invalid("sequences."+name, fmt.Sprint(last), "must not be negative")
		}
	}
	o := writeOptions{lists: l.Lists}
	sets, err := c.takeSets(l.Key, &o)
	if err != nil {
		return writes.Put{}, err
	}
	if err := c.validateLists(l.Key, o.lists); err != nil {
		return writes.Put{}, err
	}
	p := writes.Put{Mode: writes.PutCreate, Key: l.Key, Base: base, Lists: ownLists(o.lists), Sets: sets,
		Restore: &writes.Restored{Created: l.Created, Updated: l.Updated, Version: l.Version}}
	switch existing {
	case bulk.Overwrite:
		p.Mode = writes.PutSet
	case bulk.Newer:
		p.Mode, p.Cond = writes.PutSet, olderThan(l.Version)
	}
	return p, nil
}

// importBase is the item of l's entity without the store's bookkeeping.
func importBase(l *bulk.Line) (map[string]types.AttributeValue, error) {
	item := itemKey(l.Key)
	item[schema.AttrScope] = str(l.Key.Scope)
	item[schema.AttrType] = str(l.Key.Type)
	for name, av := range l.Attributes {
		if err := schema.ValidateAttributeName(name); err != nil {
			return nil, err
		}
		if err := numbers.ValidateAll("attributes."+name, av); err != nil {
			return nil, err
		}
		item[name] = av
	}
	if len(l.Meta) > 0 {
		meta := &types.AttributeValueMemberM{Value: l.Meta}
		if err := numbers.ValidateAll("meta", meta); err != nil {
			return nil, err
		}
		item[schema.AttrMeta] = meta
	}
	if !l.Expires.IsZero() {
		if err := validateExpiry("expires", l.Expires); err != nil {
			return nil, err
		}
		item[schema.AttrExpires] = store.ExpiresAttr(l.Expires)
	}
	return item, nil
}

// olderThan is the condition of an import that replaces only older entities: none
// stored, or one at a lower version.
type olderThan int64

func (v olderThan) Expression(time.Time) expression.ConditionBuilder {
	version := expression.Name(schema.AttrVersion)
	return expression.AttributeNotExists(version).Or(version.LessThan(expression.Value(store.AttrN(int64(v)))))
}

func (v olderThan) String() string { return fmt.Sprintf("version below %d", int64(v)) }

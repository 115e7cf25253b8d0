package relationships

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/schema"
)

// Intent is what a writer holding a list under a lease is about to write to its
// entries. The writer records it in the subject's partition, and marks it whole in
// the head, before it writes a single entry: a writer that takes the list over after
// it was cut off finishes those writes (puts and deletes are idempotent), so the
// list ends as the change meant it, never as a mix of before and after.
type Intent struct {
	Token   string // the writer's lease token; it names the parts
	Puts    []Entry
	Deletes []Entry
}

// Empty reports whether the intent writes nothing.
func (in Intent) Empty() bool { return len(in.Puts) == 0 && len(in.Deletes) == 0 }

// maxIntentPartBytes bounds the size of one intent part: below DynamoDB's 400 KB
// per item, with room for the key and the raw attributes.
const maxIntentPartBytes = 350 << 10

// IntentItems returns the items that record in for subject's list under predicate:
// parts of at most about 350 KB, numbered from 0, each listing entries as
// position:scope:type:id (escaped) with the edge attributes of the puts that have
// any beside them.
func IntentItems(subject entity.Key, predicate string, in Intent) []map[string]types.AttributeValue {
	var parts []map[string]types.AttributeValue
	cur := &intentPart{}
	add := func(e Entry, put bool) {
		code := intentCode(e)
		size := len(code)
		if put && len(e.Attributes) > 0 {
			size += len(code) + schema.ItemSize(e.Attributes) + attrEntryBytes
		}
		if cur.bytes+size > maxIntentPartBytes && !cur.empty() {
			parts = append(parts, cur.item(subject, predicate, in.Token, len(parts)))
			cur = &intentPart{}
		}
		cur.add(code, e, put, size)
	}
	for _, e := range in.Puts {
		add(e, true)
	}
	for _, e := range in.Deletes {
		add(e, false)
	}
	if !cur.empty() {
		parts = append(parts, cur.item(subject, predicate, in.Token, len(parts)))
	}
	return parts
}

// attrEntryBytes bounds what an entry of the edge attributes map adds besides its
// name and value.
const attrEntryBytes = 4

// intentPart accumulates the entries of one part.
type intentPart struct {
	puts, deletes []string
	attrs         map[string]types.AttributeValue
	bytes         int
}

func (p *intentPart) empty() bool { return len(p.puts)+len(p.deletes) == 0 }

// add adds e, written as code, which costs size bytes.
func (p *intentPart) add(code string, e Entry, put bool, size int) {
	p.bytes += size
	if !put {
		p.deletes = append(p.deletes, code)
		return
	}
	p.puts = append(p.puts, code)
	if len(e.Attributes) > 0 {
		if p.attrs == nil {
			p.attrs = map[string]types.AttributeValue{}
		}
		p.attrs[code] = &types.AttributeValueMemberM{Value: e.Attributes}
	}
}

func (p *intentPart) item(subject entity.Key, predicate, token string, n int) map[string]types.AttributeValue {
	item := RawAttributes(subject, predicate)
	maps.Copy(item, IntentPrimaryKey(subject, predicate, token, n))
	item[schema.AttrLease] = str(token)
	if len(p.puts) > 0 {
		item[schema.AttrPuts] = &types.AttributeValueMemberSS{Value: p.puts}
	}
	if len(p.deletes) > 0 {
		item[schema.AttrDeletes] = &types.AttributeValueMemberSS{Value: p.deletes}
	}
	if len(p.attrs) > 0 {
		item[schema.AttrEdgeAttrs] = &types.AttributeValueMemberM{Value: p.attrs}
	}
	return item
}

// IntentPrimaryKey returns the primary key of part n of the intent token of
// subject's list for predicate.
func IntentPrimaryKey(subject entity.Key, predicate, token string, n int) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		schema.AttrSubjectKey:   str(subject.String()),
		schema.AttrPredicateKey: str(schema.ListIntentKey(predicate, token, n)),
	}
}

// IntentToken returns the token of the writer an intent part belongs to.
func IntentToken(item map[string]types.AttributeValue) string {
	s, _ := item[schema.AttrLease].(*types.AttributeValueMemberS)
	if s == nil {
		return ""
	}
	return s.Value
}

// IntentFromItems reads the intent token of subject's list for predicate from its
// parts, in any order. Parts of other writers are ignored.
func IntentFromItems(subject entity.Key, predicate, token string, items []map[string]types.AttributeValue) (Intent, error) {
	in := Intent{Token: token}
	for _, item := range items {
		if IntentToken(item) != token {
			continue
		}
		var attrs map[string]types.AttributeValue
		if m, ok := item[schema.AttrEdgeAttrs].(*types.AttributeValueMemberM); ok {
			attrs = m.Value
		}
		for _, f := range []struct {
			name string
			dst  *[]Entry
		}{{schema.AttrPuts, &in.Puts}, {schema.AttrDeletes, &in.Deletes}} {
			codes, err := stringSet(item, f.name)
			if err != nil {
				return Intent{}, err
			}
			for _, code := range codes {
				e, err := entryOfCode(subject, predicate, code)
				if err != nil {
					return Intent{}, err
				}
				if m, ok := attrs[code].(*types.AttributeValueMemberM); ok && f.name == schema.AttrPuts {
					e.Attributes = m.Value
				}
				*f.dst = append(*f.dst, e)
			}
		}
	}
	slices.SortFunc(in.Puts, compareKeys)
	slices.SortFunc(in.Deletes, compareKeys)
	return in, nil
}

// intentCode writes an entry of an intent: position:scope:type:id, escaped.
func intentCode(e Entry) string {
	return schema.Join(strconv.Itoa(e.Index), e.Object.Scope, e.Object.Type, e.Object.ID)
}

// entryOfCode reads an entry of subject's list for predicate from its intent code.
func entryOfCode(subject entity.Key, predicate, code string) (Entry, error) {
	fields := strings.Split(code, string(schema.Delimiter))
	if len(fields) != 4 {
		return Entry{}, errs.New("intent entry %q: want position:scope:type:id", code)
	}
	for i, f := range fields {
		raw, err := schema.Unescape(f)
		if err != nil {
			return Entry{}, errs.Wrap(err, "intent entry %q", code)
		}
		fields[i] = raw
	}
	index, err := strconv.Atoi(fields[0])
	if err != nil || schema.ValidateIndex(index) != nil {
		return Entry{}, errs.New("intent entry %q: %q is not a list position", code, fields[0])
	}
	return Entry{Subject: subject, Predicate: predicate, Index: index,
		Object: entity.Key{Scope: fields[1], Type: fields[2], ID: fields[3]}}, nil
}

func stringSet(item map[string]types.AttributeValue, name string) ([]string, error) {
	av, ok := item[name]
	if !ok {
		return nil, nil
	}
	set, ok := av.(*types.AttributeValueMemberSS)
	if !ok {
		return nil, fmt.Errorf("intent part: %s is %T, want a string set", name, av)
	}
	return set.Value, nil
}

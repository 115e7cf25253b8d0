package store

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/schema"
)

// Every entity item records its shape (_shape): a digest of the names of its
// attributes and metadata. A write that sets every attribute without reading the
// item (an upsert) must remove the names the stored item has and it does not set,
// which only a shape known to the writer tells. So a client remembers, per entity
// type, the names behind the shapes it has written and those it found on an item
// that refused an upsert. An upsert then removes the names of every shape it
// remembers and does not set, on condition that the stored shape is one of them:
// the entity whose optional attributes come and go is replaced by one UpdateItem,
// and only a shape the client has never met costs the refused write that shows it.

// shapesPerType bounds the shapes remembered for one type, the most recent kept.
const shapesPerType = 8

// Shape is the digest of a list of names, and the names.
type Shape struct {
	Digest string
	Names  []string
}

// Shapes is what a client remembers of the shapes of each type.
type Shapes struct {
	mu     sync.Mutex
	byType map[string][]Shape // the most recent last
}

// Learn remembers the shape of names for typ.
func (s *Shapes) Learn(typ string, names []string) {
	sh := Shape{Digest: digestOf(names), Names: names}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byType == nil {
		s.byType = map[string][]Shape{}
	}
	known := slices.DeleteFunc(s.byType[typ], func(o Shape) bool { return o.Digest == sh.Digest })
	known = append(known, sh)
	if len(known) > shapesPerType {
		known = known[len(known)-shapesPerType:]
	}
	s.byType[typ] = known
}

// LearnStored remembers the shape of a stored item of typ whose _shape attribute
// is the digest of its names: an item a Patch wrote last records none.
func (s *Shapes) LearnStored(typ string, item map[string]types.AttributeValue) {
	names := ShapeNames(item)
	if recorded, ok := item[schema.AttrShape].(*types.AttributeValueMemberS); ok && recorded.Value == digestOf(names) {
		s.Learn(typ, names)
	}
}

// Others returns the shapes remembered for typ other than digest, the most recent
// first.
func (s *Shapes) Others(typ, digest string) []Shape {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Shape
	for _, sh := range slices.Backward(s.byType[typ]) {
		if sh.Digest != digest {
			out = append(out, sh)
		}
	}
	return out
}

// ShapeOf is the digest of the names of base's attributes and metadata: 16 bytes of
// SHA-256 over the sorted names, each prefixed with its length, base64-encoded.
func ShapeOf(base map[string]types.AttributeValue) string {
	return digestOf(ShapeNames(base))
}

// ShapeNames returns the names of item's attributes and metadata that its shape
// covers, sorted: the user's attributes, _meta and _expires.
func ShapeNames(item map[string]types.AttributeValue) []string {
	var names []string
	for name := range item {
		if name == schema.AttrMeta || name == schema.AttrExpires || !strings.HasPrefix(name, schema.ReservedPrefix) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// digestOf is the digest of sorted names.
func digestOf(names []string) string {
	h := sha256.New()
	for _, name := range names { // length-prefixed: no two lists of names write alike
		fmt.Fprintf(h, "%d:%s", len(name), name)
	}
	return base64.RawStdEncoding.EncodeToString(h.Sum(nil)[:16])
}

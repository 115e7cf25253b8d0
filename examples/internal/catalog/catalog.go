// Package catalog is what examples/httpapi and examples/lambda serve alike: a
// catalogue of articles and their authors stored with RynoDB, its routes and their
// handlers, and how the store's errors become statuses. Each example adapts its
// transport to Request and Reply: net/http in one, API Gateway's events in the
// other.
package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"strings"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/ryno"
)

// Scope holds every entity of the catalogue. A service with tenants would take the
// scope from the caller's identity instead, so that tenants never see each other's
// entities.
const Scope = "catalog"

// PredicateAuthors names the relationship from an article to its authors, in
// byline order. An author's articles are the reverse lookup of the same entries.
const PredicateAuthors = "authors"

// tagIndex indexes articles by each of their tags.
const tagIndex = "tag"

// Kind is one type of entity the API serves under /{collection}.
type Kind struct {
	collection string         // the path segment, such as "articles"
	typ        string         // the entity type, such as "article"
	newPayload func() payload // an empty request body for the type
}

// The kinds of entity in the catalogue.
var (
	Articles = Kind{collection: "articles", typ: "article", newPayload: func() payload { return new(Article) }}
	Authors  = Kind{collection: "authors", typ: "author", newPayload: func() payload { return new(Author) }}
)

// Key returns the key of the entity of this kind with the given id.
func (k Kind) Key(id string) ryno.Key { return ryno.Key{Scope: Scope, Type: k.typ, ID: id} }

// payload is the JSON body a client sends to create or replace an entity: its id
// and its attributes. The id is not an attribute: the key holds it.
type payload interface {
	id() string
	validate() error
}

// Article is the body of an article. Its authors are not an attribute but a
// relationship, so that an author's articles can be listed without a scan.
type Article struct {
	ID    string   `json:"id,omitempty" dynamodbav:"-"`
	Title string   `json:"title" dynamodbav:"title"`
	Text  string   `json:"text,omitempty" dynamodbav:"text,omitempty"`
	Tags  []string `json:"tags,omitempty" dynamodbav:"tags,omitempty"`
}

func (a *Article) id() string { return a.ID }

// Each tag is an index entry, written in the article's transaction: a bound on
// them keeps one request's write small (a transaction holds 100 items).
const (
	maxTags     = 20
	maxTagBytes = 64
)

func (a *Article) validate() error {
	if strings.TrimSpace(a.Title) == "" {
		return BadRequest("title is required")
	}
	if len(a.Tags) > maxTags {
		return BadRequest("an article has at most %d tags", maxTags)
	}
	seen := make(map[string]bool, len(a.Tags))
	for _, tag := range a.Tags {
		switch {
		case strings.TrimSpace(tag) == "":
			return BadRequest("tags must not be empty")
		case len(tag) > maxTagBytes:
			return BadRequest("a tag has at most %d bytes", maxTagBytes)
		case seen[tag]:
			return BadRequest("tag %q appears twice", tag)
		}
		seen[tag] = true
	}
	return nil
}

// Author is the body of an author.
type Author struct {
	ID   string `json:"id,omitempty" dynamodbav:"-"`
	Name string `json:"name" dynamodbav:"name"`
}

func (a *Author) id() string { return a.ID }

func (a *Author) validate() error {
	if strings.TrimSpace(a.Name) == "" {
		return BadRequest("name is required")
	}
	return nil
}

// decodePayload reads the body of an entity of kind k: one JSON object with only
// the fields the kind knows, so that a misspelt field is an error rather than lost.
func decodePayload(k Kind, body []byte) (payload, error) {
	p := k.newPayload()
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(p); err != nil {
		return nil, BadRequest("the body is not a JSON %s: %v", k.typ, err)
	}
	if err := dec.Decode(new(json.RawMessage)); !errors.Is(err, io.EOF) {
		return nil, BadRequest("the body holds more than one JSON value")
	}
	return p, p.validate()
}

// document is an entity as the API sends it: its attributes, with its id, version
// and times.
func document(e *ryno.Entity) map[string]any {
	doc := make(map[string]any, len(e.Attributes)+4)
	maps.Copy(doc, e.Attributes)
	doc["id"] = e.ID
	doc["version"] = e.Version
	doc["created"] = e.Created
	doc["updated"] = e.Updated
	return doc
}

// page is a page of a listing as the API sends it: Cursor, when not empty,
// continues the listing as the cursor query parameter.
type page struct {
	Items  []map[string]any `json:"items"`
	Cursor string           `json:"cursor,omitempty"`
}

// pageOf returns the documents of entities, continued by cursor.
func pageOf(entities []*ryno.Entity, cursor string) page {
	p := page{Items: make([]map[string]any, 0, len(entities)), Cursor: cursor}
	for _, e := range entities {
		p.Items = append(p.Items, document(e))
	}
	return p
}

// indexes are the catalogue's indexes, which the store keeps in step with every
// write of an article.
var indexes = []ryno.Index{{
	Type: Articles.typ,
	Name: tagIndex,
	Map: func(e *ryno.Entity, emit func(indexing.Value)) {
		var a Article
		if e.Decode(&a) != nil {
			return // not an article this version can read: no entries
		}
		for _, tag := range a.Tags {
			emit(indexing.String(tag))
		}
	},
}}

package catalog

import (
	"context"
	"net/http"
	"net/url"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/ryno"
)

// create serves POST /{collection}: the body names the new entity's id, and an
// entity that exists already is a 409.
func (c catalogue) create(k Kind) Handler {
	return func(ctx context.Context, req Request) (Reply, error) {
		p, err := readPayload(req, k)
		if err != nil {
			return Reply{}, err
		}
		if p.id() == "" {
			return Reply{}, BadRequest("id is required")
		}
		e, err := ryno.NewEntity(k.Key(p.id()), p)
		if err != nil {
			return Reply{}, err
		}
		stored, err := c.db.Create(ctx, e)
		if err != nil {
			return Reply{}, err
		}
		return Reply{
			Status:   http.StatusCreated,
			Body:     document(stored),
			Version:  stored.Version,
			Location: "/" + k.collection + "/" + url.PathEscape(stored.ID),
		}, nil
	}
}

// get serves GET /{collection}/{id}, with the entity's version as its ETag.
func (c catalogue) get(k Kind) Handler {
	return func(ctx context.Context, req Request) (Reply, error) {
		e, err := c.db.Get(ctx, k.Key(req.PathValue("id")))
		if err != nil {
			return Reply{}, err
		}
		return Reply{Status: http.StatusOK, Body: document(e), Version: e.Version}, nil
	}
}

// update serves PUT /{collection}/{id}: it replaces the entity's attributes. With
// If-Match, only the version named (412 otherwise); without, whatever is stored.
func (c catalogue) update(k Kind) Handler {
	return func(ctx context.Context, req Request) (Reply, error) {
		version, err := req.IfMatch()
		if err != nil {
			return Reply{}, err
		}
		p, err := readPayload(req, k)
		if err != nil {
			return Reply{}, err
		}
		id := req.PathValue("id")
		if p.id() != "" && p.id() != id {
			return Reply{}, BadRequest("the body's id is not the path's")
		}
		e, err := ryno.NewEntity(k.Key(id), p)
		if err != nil {
			return Reply{}, err
		}
		// The store writes only over this version. Without Created, it reads the
		// entity's first: the client does not send it back.
		e.Version = version
		stored, err := c.db.Update(ctx, e)
		if err != nil {
			return Reply{}, conditional(err, version)
		}
		return Reply{Status: http.StatusOK, Body: document(stored), Version: stored.Version}, nil
	}
}

// remove serves DELETE /{collection}/{id}. The store deletes the entity's
// relationships, both ways, and its index entries with it. Deleting an entity that
// does not exist succeeds, unless If-Match named a version.
func (c catalogue) remove(k Kind) Handler {
	return func(ctx context.Context, req Request) (Reply, error) {
		version, err := req.IfMatch()
		if err != nil {
			return Reply{}, err
		}
		var opts []ryno.WriteOption
		if version != 0 {
			opts = append(opts, ryno.IfVersion(version))
		}
		if err := c.db.Delete(ctx, k.Key(req.PathValue("id")), opts...); err != nil {
			return Reply{}, conditional(err, version)
		}
		return Reply{Status: http.StatusNoContent}, nil
	}
}

// list serves GET /{collection}: a page of the kind's entities, newest first.
func (c catalogue) list(k Kind) Handler {
	return func(ctx context.Context, req Request) (Reply, error) {
		p, err := pageOptions(req)
		if err != nil {
			return Reply{}, err
		}
		p.Descending = true
		found, err := c.db.ListByType(ctx, ryno.Type{Scope: Scope, Name: k.typ}, p)
		if err != nil {
			return Reply{}, err
		}
		return Reply{Status: http.StatusOK, Body: pageOf(found.Items, found.Cursor)}, nil
	}
}

// articlesTagged serves GET /tags/{tag}/articles: the articles with the tag, in
// one query of the tag index and the entities read fresh.
func (c catalogue) articlesTagged(ctx context.Context, req Request) (Reply, error) {
	p, err := pageOptions(req)
	if err != nil {
		return Reply{}, err
	}
	found, err := c.db.QueryIndex(ctx, ryno.ScopedIndex{Scope: Scope, Index: tagIndex},
		indexing.Equal(indexing.String(req.PathValue("tag"))), p)
	if err != nil {
		return Reply{}, err
	}
	return Reply{Status: http.StatusOK, Body: pageOf(found.Items, found.Cursor)}, nil
}

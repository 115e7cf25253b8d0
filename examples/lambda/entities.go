package main

import (
	"context"
	"net/http"
	"net/url"

	"github.com/aws/aws-lambda-go/events"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/ryno"
)

// create serves POST /{collection}: the body names the new entity's id, and an
// entity that exists already is a 409.
func (h *Handler) create(k kind) route {
	return func(ctx context.Context, req *events.APIGatewayV2HTTPRequest) (reply, error) {
		p, err := readPayload(k, req)
		if err != nil {
			return reply{}, err
		}
		if p.id() == "" {
			return reply{}, badRequest("id is required")
		}
		e, err := ryno.NewEntity(k.key(p.id()), p)
		if err != nil {
			return reply{}, err
		}
		stored, err := h.db.Create(ctx, e)
		if err != nil {
			return reply{}, err
		}
		return reply{
			status:   http.StatusCreated,
			body:     document(stored),
			version:  stored.Version,
			location: "/" + k.collection + "/" + url.PathEscape(stored.ID),
		}, nil
	}
}

// get serves GET /{collection}/{id}, with the entity's version as its ETag.
func (h *Handler) get(k kind) route {
	return func(ctx context.Context, req *events.APIGatewayV2HTTPRequest) (reply, error) {
		e, err := h.db.Get(ctx, k.key(req.PathParameters["id"]))
		if err != nil {
			return reply{}, err
		}
		return reply{status: http.StatusOK, body: document(e), version: e.Version}, nil
	}
}

// update serves PUT /{collection}/{id}: it replaces the entity's attributes. With
// If-Match, only the version named (412 otherwise); without, whatever is stored.
func (h *Handler) update(k kind) route {
	return func(ctx context.Context, req *events.APIGatewayV2HTTPRequest) (reply, error) {
		version, err := ifMatch(req)
		if err != nil {
			return reply{}, err
		}
		p, err := readPayload(k, req)
		if err != nil {
			return reply{}, err
		}
		id := req.PathParameters["id"]
		if p.id() != "" && p.id() != id {
			return reply{}, badRequest("the body's id is not the path's")
		}
		e, err := ryno.NewEntity(k.key(id), p)
		if err != nil {
			return reply{}, err
		}
		// The store writes only over this version. Without Created, it reads the
		// entity's first: the HTTP client does not send it back.
		e.Version = version
		stored, err := h.db.Update(ctx, e)
		if err != nil {
			return reply{}, conditional(err, version)
		}
		return reply{status: http.StatusOK, body: document(stored), version: stored.Version}, nil
	}
}

// remove serves DELETE /{collection}/{id}. The store deletes the entity's
// relationships, both ways, and its index entries with it. Deleting an entity that
// does not exist succeeds, unless If-Match named a version.
func (h *Handler) remove(k kind) route {
	return func(ctx context.Context, req *events.APIGatewayV2HTTPRequest) (reply, error) {
		version, err := ifMatch(req)
		if err != nil {
			return reply{}, err
		}
		var opts []ryno.WriteOption
		if version != 0 {
			opts = append(opts, ryno.IfVersion(version))
		}
		if err := h.db.Delete(ctx, k.key(req.PathParameters["id"]), opts...); err != nil {
			return reply{}, conditional(err, version)
		}
		return reply{status: http.StatusNoContent}, nil
	}
}

// list serves GET /{collection}: a page of the kind's entities, newest first.
func (h *Handler) list(k kind) route {
	return func(ctx context.Context, req *events.APIGatewayV2HTTPRequest) (reply, error) {
		p, err := pageOptions(req)
		if err != nil {
			return reply{}, err
		}
		p.Descending = true
		found, err := h.db.ListByType(ctx, ryno.Type{Scope: scope, Name: k.typ}, p)
		if err != nil {
			return reply{}, err
		}
		return reply{status: http.StatusOK, body: pageOf(found.Items, found.Cursor)}, nil
	}
}

// articlesTagged serves GET /tags/{tag}/articles: the articles with the tag, in
// one query of the tag index and the entities read fresh.
func (h *Handler) articlesTagged(ctx context.Context, req *events.APIGatewayV2HTTPRequest) (reply, error) {
	p, err := pageOptions(req)
	if err != nil {
		return reply{}, err
	}
	found, err := h.db.QueryIndex(ctx, ryno.ScopedIndex{Scope: scope, Index: tagIndex},
		indexing.Equal(indexing.String(req.PathParameters["tag"])), p)
	if err != nil {
		return reply{}, err
	}
	return reply{status: http.StatusOK, body: pageOf(found.Items, found.Cursor)}, nil
}

// readPayload decodes the request's body as an entity of kind k.
func readPayload(k kind, req *events.APIGatewayV2HTTPRequest) (payload, error) {
	b, err := body(req)
	if err != nil {
		return nil, err
	}
	return decodePayload(k, b)
}

package main

import (
	"context"
	"net/http"

	"github.com/aws/aws-lambda-go/events"

	"github.com/rynodb/rynodb/ryno"
)

// listAuthors serves GET /articles/{id}/authors: the article's authors, in byline
// order, read in one query and one batch.
func (h *Handler) listAuthors(ctx context.Context, req *events.APIGatewayV2HTTPRequest) (reply, error) {
	p, err := pageOptions(req)
	if err != nil {
		return reply{}, err
	}
	found, err := h.db.RelatedEntities(ctx, articles.key(req.PathParameters["id"]), predicateAuthors, p)
	if err != nil {
		return reply{}, err
	}
	return reply{status: http.StatusOK, body: pageOf(found.Items, found.Cursor)}, nil
}

// addAuthor serves PUT /articles/{id}/authors/{authorId}: it appends the author to
// the byline, 201 when added and 204 when already there. The store checks that
// both exist (Options.CheckObjects), in the same transaction: a 404 otherwise.
func (h *Handler) addAuthor(ctx context.Context, req *events.APIGatewayV2HTTPRequest) (reply, error) {
	added, err := h.db.AddRelationships(ctx, articles.key(req.PathParameters["id"]), predicateAuthors,
		[]ryno.Key{authors.key(req.PathParameters["authorId"])})
	if err != nil {
		return reply{}, err
	}
	if len(added) == 0 {
		return reply{status: http.StatusNoContent}, nil
	}
	return reply{status: http.StatusCreated}, nil
}

// removeAuthor serves DELETE /articles/{id}/authors/{authorId}; removing an author
// who is not on the byline succeeds, as a repeated DELETE should.
func (h *Handler) removeAuthor(ctx context.Context, req *events.APIGatewayV2HTTPRequest) (reply, error) {
	_, err := h.db.RemoveRelationships(ctx, articles.key(req.PathParameters["id"]), predicateAuthors,
		[]ryno.Key{authors.key(req.PathParameters["authorId"])})
	if err != nil {
		return reply{}, err
	}
	return reply{status: http.StatusNoContent}, nil
}

// articlesBy serves GET /authors/{id}/articles: the articles whose byline names the
// author, found through the reverse index, then read in one batch.
func (h *Handler) articlesBy(ctx context.Context, req *events.APIGatewayV2HTTPRequest) (reply, error) {
	p, err := pageOptions(req)
	if err != nil {
		return reply{}, err
	}
	found, err := h.db.ReverseRelationships(ctx, authors.key(req.PathParameters["id"]), predicateAuthors, p)
	if err != nil {
		return reply{}, err
	}
	keys := make([]ryno.Key, len(found.Items))
	for i, r := range found.Items {
		keys[i] = r.Subject
	}
	entities, err := h.db.BatchGet(ctx, keys)
	if err != nil {
		return reply{}, err
	}
	// An article deleted since the index was read is nil: leave it out.
	present := entities[:0]
	for _, e := range entities {
		if e != nil {
			present = append(present, e)
		}
	}
	return reply{status: http.StatusOK, body: pageOf(present, found.Cursor)}, nil
}

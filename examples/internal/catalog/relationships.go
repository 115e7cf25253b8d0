package catalog

import (
	"context"
	"net/http"

	"github.com/rynodb/rynodb/ryno"
)

// listAuthors serves GET /articles/{id}/authors: the article's authors, in byline
// order, read in one query and one batch.
func (c catalogue) listAuthors(ctx context.Context, req Request) (Reply, error) {
	p, err := pageOptions(req)
	if err != nil {
		return Reply{}, err
	}
	found, err := c.db.RelatedEntities(ctx, Articles.Key(req.PathValue("id")), PredicateAuthors, p)
	if err != nil {
		return Reply{}, err
	}
	return Reply{Status: http.StatusOK, Body: pageOf(found.Items, found.Cursor)}, nil
}

// addAuthor serves PUT /articles/{id}/authors/{authorId}: it appends the author to
// the byline, 201 when added and 204 when already there. The store checks that
// both exist (Options.CheckObjects), in the same transaction: a 404 otherwise.
func (c catalogue) addAuthor(ctx context.Context, req Request) (Reply, error) {
	added, err := c.db.AddRelationships(ctx, Articles.Key(req.PathValue("id")), PredicateAuthors,
		[]ryno.Key{Authors.Key(req.PathValue("authorId"))})
	if err != nil {
		return Reply{}, err
	}
	if len(added) == 0 {
		return Reply{Status: http.StatusNoContent}, nil
	}
	return Reply{Status: http.StatusCreated}, nil
}

// removeAuthor serves DELETE /articles/{id}/authors/{authorId}; removing an author
// who is not on the byline succeeds, as a repeated DELETE should.
func (c catalogue) removeAuthor(ctx context.Context, req Request) (Reply, error) {
	_, err := c.db.RemoveRelationships(ctx, Articles.Key(req.PathValue("id")), PredicateAuthors,
		[]ryno.Key{Authors.Key(req.PathValue("authorId"))})
	if err != nil {
		return Reply{}, err
	}
	return Reply{Status: http.StatusNoContent}, nil
}

// articlesBy serves GET /authors/{id}/articles: the articles whose byline names the
// author, found through the reverse index, then read in one batch.
func (c catalogue) articlesBy(ctx context.Context, req Request) (Reply, error) {
	p, err := pageOptions(req)
	if err != nil {
		return Reply{}, err
	}
	found, err := c.db.ReverseRelationships(ctx, Authors.Key(req.PathValue("id")), PredicateAuthors, p)
	if err != nil {
		return Reply{}, err
	}
	keys := make([]ryno.Key, len(found.Items))
	for i, r := range found.Items {
		keys[i] = r.Subject
	}
	entities, err := c.db.BatchGet(ctx, keys)
	if err != nil {
		return Reply{}, err
	}
	// An article deleted since the index was read is nil: leave it out.
	present := entities[:0]
	for _, e := range entities {
		if e != nil {
			present = append(present, e)
		}
	}
	return Reply{Status: http.StatusOK, Body: pageOf(present, found.Cursor)}, nil
}

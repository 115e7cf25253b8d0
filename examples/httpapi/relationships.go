package main

import (
	"net/http"

	"github.com/rynodb/rynodb/ryno"
)

// listAuthors serves GET /articles/{id}/authors: the article's authors, in byline
// order, read in one query and one batch.
func (a *API) listAuthors(w http.ResponseWriter, r *http.Request) error {
	p, err := pageOptions(r)
	if err != nil {
		return err
	}
	found, err := a.db.RelatedEntities(r.Context(), articles.key(r.PathValue("id")), predicateAuthors, p)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, pageOf(found.Items, found.Cursor))
	return nil
}

// addAuthor serves PUT /articles/{id}/authors/{authorId}: it appends the author to
// the byline, 201 when added and 204 when already there. The store checks that
// both exist (Options.CheckObjects), in the same transaction: a 404 otherwise.
func (a *API) addAuthor(w http.ResponseWriter, r *http.Request) error {
	added, err := a.db.AddRelationships(r.Context(), articles.key(r.PathValue("id")), predicateAuthors,
		[]ryno.Key{authors.key(r.PathValue("authorId"))})
	if err != nil {
		return err
	}
	if len(added) == 0 {
		w.WriteHeader(http.StatusNoContent)
	} else {
		w.WriteHeader(http.StatusCreated)
	}
	return nil
}

// removeAuthor serves DELETE /articles/{id}/authors/{authorId}; removing an author
// who is not on the byline succeeds, as a repeated DELETE should.
func (a *API) removeAuthor(w http.ResponseWriter, r *http.Request) error {
	_, err := a.db.RemoveRelationships(r.Context(), articles.key(r.PathValue("id")), predicateAuthors,
		[]ryno.Key{authors.key(r.PathValue("authorId"))})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// articlesBy serves GET /authors/{id}/articles: the articles whose byline names the
// author, found through the reverse index, then read in one batch.
func (a *API) articlesBy(w http.ResponseWriter, r *http.Request) error {
	p, err := pageOptions(r)
	if err != nil {
		return err
	}
	found, err := a.db.ReverseRelationships(r.Context(), authors.key(r.PathValue("id")), predicateAuthors, p)
	if err != nil {
		return err
	}
	keys := make([]ryno.Key, len(found.Items))
	for i, rel := range found.Items {
		keys[i] = rel.Subject
	}
	entities, err := a.db.BatchGet(r.Context(), keys)
	if err != nil {
		return err
	}
	// An article deleted since the index was read is nil: leave it out.
	present := entities[:0]
	for _, e := range entities {
		if e != nil {
			present = append(present, e)
		}
	}
	writeJSON(w, http.StatusOK, pageOf(present, found.Cursor))
	return nil
}

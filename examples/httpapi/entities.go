package main

import (
	"net/http"
	"net/url"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/ryno"
)

// create serves POST /{collection}: the body names the new entity's id, and an
// entity that exists already is a 409.
func (a *API) create(k kind) handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		p, err := readPayload(w, r, k)
		if err != nil {
			return err
		}
		if p.id() == "" {
			return badRequest("id is required")
		}
		e, err := ryno.NewEntity(k.key(p.id()), p)
		if err != nil {
			return err
		}
		stored, err := a.db.Create(r.Context(), e)
		if err != nil {
			return err
		}
		w.Header().Set("Location", "/"+k.collection+"/"+url.PathEscape(stored.ID))
		writeEntity(w, http.StatusCreated, stored)
		return nil
	}
}

// get serves GET /{collection}/{id}, with the entity's version as its ETag.
func (a *API) get(k kind) handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		e, err := a.db.Get(r.Context(), k.key(r.PathValue("id")))
		if err != nil {
			return err
		}
		writeEntity(w, http.StatusOK, e)
		return nil
	}
}

// update serves PUT /{collection}/{id}: it replaces the entity's attributes. With
// If-Match, only the version named (412 otherwise); without, whatever is stored.
func (a *API) update(k kind) handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		version, err := ifMatch(r)
		if err != nil {
			return err
		}
		p, err := readPayload(w, r, k)
		if err != nil {
			return err
		}
		id := r.PathValue("id")
		if p.id() != "" && p.id() != id {
			return badRequest("the body's id is not the path's")
		}
		e, err := ryno.NewEntity(k.key(id), p)
		if err != nil {
			return err
		}
		// The store writes only over this version. Without Created, it reads the
		// entity's first: the HTTP client does not send it back.
		e.Version = version
		stored, err := a.db.Update(r.Context(), e)
		if err != nil {
			return conditional(err, version)
		}
		writeEntity(w, http.StatusOK, stored)
		return nil
	}
}

// remove serves DELETE /{collection}/{id}. The store deletes the entity's
// relationships, both ways, and its index entries with it. Deleting an entity that
// does not exist succeeds, unless If-Match named a version.
func (a *API) remove(k kind) handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		version, err := ifMatch(r)
		if err != nil {
			return err
		}
		var opts []ryno.WriteOption
		if version != 0 {
			opts = append(opts, ryno.IfVersion(version))
		}
		if err := a.db.Delete(r.Context(), k.key(r.PathValue("id")), opts...); err != nil {
			return conditional(err, version)
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
}

// list serves GET /{collection}: a page of the kind's entities, newest first.
func (a *API) list(k kind) handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		p, err := pageOptions(r)
		if err != nil {
			return err
		}
		p.Descending = true
		found, err := a.db.ListByType(r.Context(), ryno.Type{Scope: scope, Name: k.typ}, p)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, pageOf(found.Items, found.Cursor))
		return nil
	}
}

// articlesTagged serves GET /tags/{tag}/articles: the articles with the tag, in
// one query of the tag index and the entities read fresh.
func (a *API) articlesTagged(w http.ResponseWriter, r *http.Request) error {
	p, err := pageOptions(r)
	if err != nil {
		return err
	}
	found, err := a.db.QueryIndex(r.Context(), ryno.ScopedIndex{Scope: scope, Index: tagIndex},
		indexing.Equal(indexing.String(r.PathValue("tag"))), p)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, pageOf(found.Items, found.Cursor))
	return nil
}

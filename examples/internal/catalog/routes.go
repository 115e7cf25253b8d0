package catalog

import (
	"context"

	"github.com/rynodb/rynodb/ryno"
)

// Handler serves one route: it reads req and answers a Reply, or an error that
// StatusOf turns into the status the client sees.
type Handler func(ctx context.Context, req Request) (Reply, error)

// Reply is what a route answers, before its transport sends it.
type Reply struct {
	Status   int
	Body     any    // encoded as JSON; nil for no body
	Version  int64  // the entity's version, sent as its ETag (see ETag); 0 for none
	Location string // the Location header of a created entity
}

// catalogue serves the routes from the store's client, which is safe for
// concurrent use: it holds no state of its own.
type catalogue struct{ db *ryno.Client }

// Routes returns the API's routes, keyed by method and path pattern as both
// net/http's ServeMux and API Gateway's route keys write them:
// "GET /articles/{id}". examples/lambda/template.yaml declares the same routes.
func Routes(db *ryno.Client) map[string]Handler {
	c := catalogue{db: db}
	routes := map[string]Handler{
		"GET /articles/{id}/authors":               c.listAuthors,
		"PUT /articles/{id}/authors/{authorId}":    c.addAuthor,
		"DELETE /articles/{id}/authors/{authorId}": c.removeAuthor,
		"GET /authors/{id}/articles":               c.articlesBy,
		"GET /tags/{tag}/articles":                 c.articlesTagged,
	}
	for _, k := range []Kind{Articles, Authors} {
		routes["POST /"+k.collection] = c.create(k)
		routes["GET /"+k.collection] = c.list(k)
		routes["GET /"+k.collection+"/{id}"] = c.get(k)
		routes["PUT /"+k.collection+"/{id}"] = c.update(k)
		routes["DELETE /"+k.collection+"/{id}"] = c.remove(k)
	}
	return routes
}

package main

// routeTable maps the route keys of the HTTP API (template.yaml declares the same
// routes) to their handlers. API Gateway has matched the path already and passes
// its parameters, so the function needs no router of its own.
func (h *Handler) routeTable() map[string]route {
	routes := map[string]route{
		"GET /articles/{id}/authors":               h.listAuthors,
		"PUT /articles/{id}/authors/{authorId}":    h.addAuthor,
		"DELETE /articles/{id}/authors/{authorId}": h.removeAuthor,
		"GET /authors/{id}/articles":               h.articlesBy,
		"GET /tags/{tag}/articles":                 h.articlesTagged,
	}
	for _, k := range []kind{articles, authors} {
		routes["POST /"+k.collection] = h.create(k)
		routes["GET /"+k.collection] = h.list(k)
		routes["GET /"+k.collection+"/{id}"] = h.get(k)
		routes["PUT /"+k.collection+"/{id}"] = h.update(k)
		routes["DELETE /"+k.collection+"/{id}"] = h.remove(k)
	}
	return routes
}

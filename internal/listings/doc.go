// Package listings holds the positions of the store's listings: for each query a
// cursor can continue (entities by type, a subject's entries, the entries pointing
// at an object, an index's entries, an inline index's entities), the key
// attributes of the page's last item and what each may hold, against which
// package paging checks a cursor before any request. Pure: no I/O. It may import
// package indexing and the internal packages paging, relationships and schema.
package listings

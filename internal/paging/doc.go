// Package paging writes and reads the cursors of the store's listings. A cursor
// is the exclusive start key of the next page's Query, checksummed with the query
// and direction it belongs to, and sealed with AES-256-GCM when the client has a
// cursor key. Decode accepts a cursor only as it was issued, byte for byte, and only
// with a key the query could have returned (Position): a forged cursor can name no
// item outside its listing, and never reaches DynamoDB as a malformed key. The
// cursor of a listing gathered from several queries (the shards of a sharded
// index) holds where each goes on, checked against each one's Position.
//
// Package ryno declares the positions of its listings and the errors users match
// (ryno.ErrInvalidCursor is ErrInvalid). The package performs no I/O and imports
// nothing of the store.
package paging

// Package schema defines the DynamoDB schema of a RynoDB store: the attribute names
// the store reserves and the codec that builds compound keys. The names of its three
// tables and their indexes for a given prefix, their CreateTable definitions and
// the validation error are package tables', which this package names again for the
// machinery.
//
// A store with prefix "app" uses these tables and indexes:
//
//	app_entities_master         _id / _scope_type_key
//	  app_entities_by_type      GSI _scope_type_key / _updated
//	  app_entities_by_type_shard GSI _type_shard / _shard_updated (sharded types)
//	app_relationship_entries    _subject_key / _predicate_key
//	  app_incoming_relationships GSI _object_key / _reverse_key
//	  app_incoming_shard        GSI _object_shard / _reverse_key (sharded incoming)
//	  app_relationships_by_object LSI _subject_key / _predicate_object_key
//	app_index_entries           _subject_key / _unique_key
//	  app_index_lookup          GSI _scope_index_name / _index_key
//
// Compound keys join escaped components with ':'. Escaping replaces '%' with "%25" and
// ':' with "%3A", so distinct component tuples never produce the same key. Validate
// components and keys (ValidateEntityKey, ValidatePredicate, ValidateKeyLength) before
// building a request: DynamoDB limits partition keys to 2048 bytes and sort keys to
// 1024, counted after escaping.
//
// Timestamps are written in the fixed-width TimeLayout so that they sort in time order,
// and ItemSize computes an item's size as DynamoDB counts it against MaxItemBytes.
//
// The package performs no I/O; it computes names, definitions and keys only.
package schema

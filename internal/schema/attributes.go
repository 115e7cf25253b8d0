package schema

import "github.com/rynodb/rynodb/tables"

// ReservedPrefix starts every attribute name the store writes itself. User attribute
// names must not start with it.
const ReservedPrefix = "_"

// Attributes of an entity item in the entities table.
const (
	AttrID           = "_id"             // raw entity id; partition key
	AttrScopeTypeKey = "_scope_type_key" // ScopeTypeKey(scope, type); sort key, GSI partition key
	AttrScope        = "_scope"
	AttrType         = "_type"
	AttrCreated      = "_created" // FormatTime; set once
	AttrUpdated      = "_updated" // FormatTime; GSI sort key
	// AttrShardUpdated holds the update time of an entity of a sharded type
	// instead of _updated, which would put it in the by-type index; it is the sort
	// key of the sharded by-type index.
	AttrShardUpdated = "_shard_updated"
	// AttrTypeShard is the partition key of the sharded by-type index:
	// ShardedScopeTypeKey of the entity's scope, type and shard.
	AttrTypeShard    = "_type_shard"
	AttrMeta         = "_meta"
	AttrIndexEntries = "_index_entries" // index name -> index keys emitted at the last write
	// AttrShape is a digest of the names of the item's attributes and metadata, as
	// its last whole write stored them; a patch removes it. A write without a
	// version updates the item in place when the shapes match.
	AttrShape = "_shape"
	// AttrExpires is when the entity expires, in Unix seconds: from then on it reads
	// as missing. It is the entities table's time-to-live attribute.
	AttrExpires = "_expires"

	// Concurrency control; see package ryno.
	AttrVersion = "_version" // N: 1 on create, +1 on every write
	AttrToken   = "_token"   // S: the token of the write that stored the item
	AttrIndexes = "_indexes" // S: the index names the last writer maintained; absent for none
	AttrPending = "_pending" // S: token of a writer whose index entries are being written
	// AttrPendingSince is when a Reindex put its pending mark (FormatTime): a
	// Reindex does not move _updated, by which check tells a mark's age otherwise.
	AttrPendingSince = "_pending_since"
	// AttrPendingUntil is when the lease of the pending mark's writer ends (N, Unix
	// milliseconds): from then on the writer is taken for gone, and whoever meets
	// the mark finishes its write.
	AttrPendingUntil = "_pending_until"
	AttrDeleting     = "_deleting" // S: token of a Delete in progress (a tombstone)
	// AttrDeletingSince is when the Delete laid its tombstone (FormatTime), by the
	// clock that found the entity expired or not: a stream consumer tells from it
	// whether the entity deleted had expired, whatever the record's time.
	AttrDeletingSince = "_deleting_since"
)

// Attributes of a relationship entry item.
const (
	AttrSubjectScope       = "_subject_scope"
	AttrSubjectType        = "_subject_type"
	AttrSubjectID          = "_subject_id"
	AttrPredicate          = "_predicate"
	AttrIndex              = "_index" // position in the subject's list (N)
	AttrObjectScope        = "_object_scope"
	AttrObjectType         = "_object_type"
	AttrObjectID           = "_object_id"
	AttrSubjectKey         = "_subject_key"          // SubjectKey; partition key (also of index entries)
	AttrObjectKey          = "_object_key"           // SubjectKey of the object; reverse GSI partition key
	AttrPredicateKey       = "_predicate_key"        // PredicateKey; sort key
	AttrPredicateObjectKey = "_predicate_object_key" // PredicateObjectKey; LSI sort key
	AttrReverseKey         = "_reverse_key"          // ReverseKey; reverse GSI sort key
	// AttrObjectShard replaces _object_key in an entry pointing at an entity of a
	// type whose incoming entries are sharded: ShardedObjectKey of the object and
	// the shard its subject hashes to; the sharded reverse GSI's partition key.
	AttrObjectShard = "_object_shard"

	// A sequence item (SequenceKey) holds the last number drawn, and its name.
	AttrValue    = "_value"    // N
	AttrSequence = "_sequence" // S
)

// RelationshipKeyAttrs returns the attributes of the primary key of the
// relationship entries table, to project an item onto its key.
func RelationshipKeyAttrs() []string { return []string{AttrSubjectKey, AttrPredicateKey} }

// IndexEntryKeyAttrs returns the attributes of the primary key of the index entries
// table.
func IndexEntryKeyAttrs() []string { return []string{AttrSubjectKey, AttrUniqueKey} }

// Attributes of the bookkeeping items of a relationship list (see ListHeadKey and
// ListMarkerKey), besides the keys and the raw subject and predicate.
const (
	AttrNext       = "_next"        // head, N: the next free position
	AttrCount      = "_count"       // head, N: how many entries the list holds
	AttrDigest     = "_digest"      // head, N: the sum of the entries' digests
	AttrLease      = "_lease"       // head, S: the token of a writer holding the list
	AttrLeaseUntil = "_lease_until" // head, N: when that lease expires, in Unix milliseconds
	AttrPositions  = "_positions"   // marker, NS: the positions of the object's entries

	// A head records the intent of the writer holding the list once the intent is
	// whole: its token and how many parts it has. Intent parts hold the writes.
	AttrIntent       = "_intent"        // head, S: the token of a whole intent to finish
	AttrIntentParts  = "_intent_parts"  // head, N: how many parts that intent has
	AttrCheckObjects = "_check_objects" // head, BOOL: the intent's edges need their objects
	AttrPuts         = "_puts"          // intent part, SS: the entries to put
	AttrDeletes      = "_deletes"       // intent part, SS: the entries to delete
	AttrEdgeAttrs    = "_edge_attrs"    // intent part, M: the edge attributes of puts that have some

	// Writers of different processes combine their calls on a list's head: each
	// request waits in an attribute of its own, and its result stays in another
	// until its writer takes it (see relationships.Request).
	WaitingPrefix = "_w_" // head, M: a request waiting, by its id
	DonePrefix    = "_d_" // head, M: the result of a request committed, by its id
)

// InlineSlots is how many inline indexes the entities table has: GSIs keyed by
// attributes of the entity item itself, so that an index emitting at most one value
// per entity is kept by DynamoDB with the item, with no index entry to write.
const InlineSlots = len(tables.Names{}.EntitiesInline)

// Attributes of an entity item in inline index slot n (1 to InlineSlots): its
// GSI's partition key, the scope and index name as AttrScopeIndexName holds them,
// and its sort key, the value's encoding as AttrIndexKey holds it.
var (
	AttrInlineName = [InlineSlots]string{"_inline1_name", "_inline2_name"}
	AttrInlineKey  = [InlineSlots]string{"_inline1_key", "_inline2_key"}
)

// Attributes of an index entry item (AttrScope, AttrType, AttrID and AttrSubjectKey too).
const (
	AttrIndexName      = "_index_name"
	AttrIndexKey       = "_index_key" // GSI sort key
	AttrUniqueKey      = "_unique_key"
	AttrScopeIndexName = "_scope_index_name" // GSI partition key
)

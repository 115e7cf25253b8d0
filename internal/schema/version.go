package schema

// The schema version the migrations applied is recorded in one reserved item of the
// entities table. Its sort key has no ':', while every entity's _scope_type_key has
// one, so no entity can have its key; it has no _updated, so the by-type index never
// lists it. Code that scans the entities table skips it (see the constants above).
const (
	VersionItemID      = "_rynodb"         // the record's _id
	VersionItemSortKey = "_schema"         // the record's _scope_type_key
	AttrSchemaVersion  = "_schema_version" // N: the version applied last
	AttrSchemaApplied  = "_schema_applied" // S: when, in TimeLayout
	// AttrSchemaCompatible is the oldest schema version whose programs still read and
	// write a store at the recorded one (N): a program older than the recorded
	// version works on as long as its own version is at least this.
	AttrSchemaCompatible = "_schema_compatible_since"
)

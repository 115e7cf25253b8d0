// Package migrations provisions the DynamoDB tables of a RynoDB store and keeps them in
// step with the schema of package tables.
//
// A Provider compares the tables that exist with the definitions from
// tables.Definitions and plans what is missing:
//
//	p, err := migrations.NewProvider(client, migrations.Options{TablePrefix: "myapp"})
//	...
//	plan, err := p.Plan(ctx)   // what Up would do, and any drift
//	res, err := p.Up(ctx)      // do it, wait until every table and index is ACTIVE
//	st, err := p.Status(ctx)   // each table and index with its state
//
// Up only adds: it creates missing tables and missing global secondary indexes (one per
// UpdateTable call, as DynamoDB requires), turns on the entities table's time to live
// (see below) and records the schema version. It never deletes, rebuilds or re-keys
// anything. Differences it cannot repair, such as a table with another key schema or
// a missing local secondary index (which DynamoDB can only create with its table),
// are drift of SeverityError: Up refuses to run and returns a
// *DriftError listing them, which matches ErrDrift with errors.Is. Differences that do
// not stop the store from working, such as another billing mode or an extra index, are
// warnings.
//
// Every run of Up is idempotent: a second run finds nothing to do and says so in its
// Result.
//
// # Time to live
//
// An entity may expire: its expiry is stored in the attribute _expires, in Unix
// seconds. Up turns on time to live on the entities table, on that attribute, so that
// DynamoDB deletes expired entities, which it does in the background, typically
// within days of their expiry. Until then the store hides expired entities itself:
// reads do not depend on time to live. Time to live is part of the schema rather than
// an option (it costs nothing and acts only on items that carry the attribute), so Up
// turns it on in existing stores too, without Options.UpdateExisting, with one
// UpdateTimeToLive; Plan, Status and Up read it with one DescribeTimeToLive. A table
// whose time to live is on another attribute is reported as a warning and left
// alone, as DynamoDB allows one such attribute per table. Check does not read it.
//
// # Versions
//
// The schema has a version, CurrentVersion; Plan and Status report the version
// recorded in the store. The table layout is declarative (whatever
// tables.Definitions returns is what Up converges to), so a later version that adds
// a GSI needs only the new definition; a version that must transform data adds a
// step that Up runs once the tables match. Version 2 is such a step: it builds the
// heads and markers of the relationship lists that earlier versions wrote without
// them, in one scan of the relationship entries table. The version Up applied last
// is recorded in the store itself, in a reserved item of the entities table (_id
// "_rynodb"): DynamoDB Local does not support table tags, and the schema has no
// room for a table of its own.
//
// Down deletes the three tables and everything in them; it does nothing unless
// DownOptions.ConfirmDataLoss is set.
package migrations

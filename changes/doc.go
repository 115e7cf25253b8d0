// Package changes turns the DynamoDB stream records of a store's tables into typed
// changes: an entity created, updated, being deleted or deleted (with its old and
// new images and versions), an entry added to or removed from a subject's list or set (with its
// position), a unique value claimed or released. The store's own bookkeeping (list
// heads and markers, intents, sequences, index entries, pending marks, the schema
// version) decodes to nothing, so a consumer sees what the calls did,
// not how the store keeps them.
//
// Turn the streams on with `ryno migrate up --streams` (migrations.Options.Streams):
// one stream of new and old images per table. A Lambda function given the stream's
// events decodes each record with Decoder.Lambda; a worker reading the DynamoDB
// Streams API, with Decoder.Stream:
//
//	d, err := changes.NewDecoder("app")
//	for _, r := range event.Records {
//		cs, err := d.Lambda(r)
//		if err != nil {
//			return err // a record it cannot read names itself: report it as failed
//		}
//		for _, c := range cs {
//			switch c.Kind {
//			case changes.RelationshipAdded:
//				fmt.Println(c.Relationship.Subject, c.Relationship.Predicate, c.Relationship.Object)
//			case changes.EntityUpdated:
//				old, cur, err := changes.As[Book](c)
//				...
//			}
//		}
//	}
//
// A worker on a server runs a Reader instead: it lists the stream's shards, reads
// each from its checkpoint (CheckpointsIn keeps them in the store), a parent to its
// end before its children, finds new shards, and hands each batch to a Handler
// (Changes decodes them; Completer.Stream is one), at least once.
//
// DynamoDB delivers a table's records once each, in order per item, but a consumer
// that retries a batch sees its records again: each Change carries the entity's
// Version and the record's SequenceNumber, to skip what was applied. A Delete shows
// as EntityDeleting when it begins (the entity reads as missing from then on), and
// as EntityDeleted when the entity's item goes, after the entries that referred to
// it were removed; an entity DynamoDB's time to live deleted is Expired.
//
// Complete finishes what the store leaves to a consumer: a Delete cut off between
// the two records, and what referred to an entity time to live removed. Completer
// is a whole consumer doing only that.
package changes

// Package costmodel computes what DynamoDB bills for requests, by AWS's published
// rules, from the requests themselves and the items they touched. It does no I/O:
// Bill is a pure function of a Request and the Schema of the tables it names.
//
// Sizes are item sizes as DynamoDB counts them (schema.ItemSize). WCU(n) is n bytes
// in 1 KB units rounded up, at least 1; RCU(n) is n bytes in 4 KB units rounded up,
// at least 1, halved for an eventually consistent read.
//
// Writes:
//   - PutItem, UpdateItem, DeleteItem, and each item of a BatchWriteItem: WCU of the
//     larger of the item before and after the write (a delete of a missing item: 1).
//   - Each secondary index, global or local, is billed on the entry it stores for the
//     item (its projection), before and after: an entry appearing or disappearing
//     costs WCU of that entry; a moved index key costs the delete and the put, each
//     rounded; an entry changed in place costs WCU of the larger image; an entry left
//     identical, or absent both sides, costs nothing.
//   - TransactWriteItems: 2 × WCU per action on its table, ConditionCheck included
//     (on the item it checks; 2 when there is none); its index writes are billed as
//     outside a transaction.
//   - A single-item write whose condition fails is billed WCU of the item it found (1
//     when there was none), and writes no index.
//   - A cancelled TransactWriteItems is billed too. DynamoDB reports no capacity for
//     it and publishes no figure; the model bills each action once, WCU of the item it
//     found (the prepare phase of the two-phase commit), and no index writes.
//   - Items a batch left unprocessed are not billed.
//
// Reads:
//   - GetItem, and each key of a BatchGetItem: RCU of the whole item (whatever the
//     projection), 1 unit when it is missing.
//   - Query and Scan: RCU of the sum of the sizes of the items evaluated (before any
//     filter; index entries for an index), rounded up once. Global secondary index
//     queries are eventually consistent.
//
// Not modelled: transactional reads (TransactGetItems), local secondary index queries
// that fetch attributes the index does not project, and item collection overheads.
package costmodel

package indexentries

// Diff compares the entries stored for an entity (existing, as read from the index
// entries table) with the entries its map functions emit now, and returns the entries
// to put and the entries to delete. Entries are identified by their primary key
// (entity, index name and value):
//
//   - an emitted entry with no stored counterpart is put;
//   - a stored entry with no emitted counterpart is deleted;
//   - an entry in both is put only when its projected attributes changed: the put
//     overwrites, so no key is ever both put and deleted (a delete applied after the
//     put would lose the entry);
//   - an unchanged entry produces nothing.
//
// Duplicates collapse: an entity emitting one value twice into an index has one entry,
// with the attributes of the last duplicate. Puts keep the order in which entries were
// first emitted, deletes the order of existing.
func Diff(existing, emitted []Entry) (puts, deletes []Entry) {
	wanted, position := collapse(emitted)
	stored := make(map[entryKey]Entry, len(existing))
	for _, e := range existing {
		k := e.key()
		if _, dup := stored[k]; dup {
			continue
		}
		stored[k] = e
		if _, ok := position[k]; !ok {
			deletes = append(deletes, e)
		}
	}
	for _, e := range wanted {
		if old, ok := stored[e.key()]; ok && attributesEqual(old.Attributes, e.Attributes) {
			continue
		}
		puts = append(puts, e)
	}
	return puts, deletes
}

// collapse returns entries without duplicate keys, each at the position of its first
// occurrence with the content of its last, and the position of each key.
func collapse(entries []Entry) ([]Entry, map[entryKey]int) {
	unique := make([]Entry, 0, len(entries))
	position := make(map[entryKey]int, len(entries))
	for _, e := range entries {
		k := e.key()
		if i, dup := position[k]; dup {
			unique[i] = e
			continue
		}
		position[k] = len(unique)
		unique = append(unique, e)
	}
	return unique, position
}

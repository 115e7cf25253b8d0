// Package entity defines, once, what identifies an entity of a RynoDB store (its
// Key, and the Type of entities it belongs to) and the errors a write of an entity
// or of its lists is refused with: a *ConflictError, *LeaseError, *ConditionError,
// *UniqueError, *UnknownIndexError, *UnreadableError or *TransactionError. The
// machinery under package ryno raises these types as they are, and ryno names each
// again (ryno.Key is Key, ryno.ConflictError is ConflictError), so that a caller of
// ryno alone need not import this package.
//
// The package performs no I/O. It imports only the key codec and the sentinel
// errors under it, so that every package of the module can import it.
package entity

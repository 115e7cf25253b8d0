package ryno

import "github.com/rynodb/rynodb/tables"

// CallReport is what one call of a Client cost, given to Options.OnCall when the
// call returns: the requests it sent, in how many rounds, what was sent again and
// the capacity it consumed. It is package tables' type.
type CallReport = tables.CallReport

// Capacity is the capacity a call consumed on one table or one of its indexes, as
// DynamoDB reports it. It is package tables' type.
type Capacity = tables.Capacity

package indexing

import (
	"fmt"
	"strings"

	"github.com/rynodb/rynodb/internal/errs"
)

// op is the comparison of a Condition.
type op uint8

const (
	opAll op = iota // the zero Condition
	opEqual
	opBeginsWith
	opBetween
	opLess
	opLessOrEqual
	opGreater
	opGreaterOrEqual
)

var opNames = [...]string{"all", "eq", "begins_with", "between", "lt", "le", "gt", "ge"}

// Condition selects the entries of an index by their value. Build it with one of the
// constructors; the zero Condition is All. A constructor never fails: Validate (and
// Expression) report misuse, such as Between values of different kinds.
//
// Except All, a condition only matches values of its operand's kind: Less(Int(5))
// matches Int(4) but neither Float(4) nor String("4").
type Condition struct {
	op   op
	a, b Value // the operand; for Between, the lower (a) and upper (b) bounds
}

// All matches every entry of the index, of every kind.
func All() Condition { return Condition{} }

// Equal matches the entries whose value is v.
func Equal(v Value) Condition { return Condition{op: opEqual, a: v} }

// BeginsWith matches the string values that start with prefix, itself a string
// Value: BeginsWith(String("ad")) matches String("ada"). Given a tuple, it matches
// the tuples whose first parts are prefix's parts: BeginsWith(Tuple(String("acme")))
// matches Tuple(String("acme"), Int(1)) but not Tuple(String("acmeX")). Other kinds
// are rejected; use Between for their ranges.
func BeginsWith(prefix Value) Condition { return Condition{op: opBeginsWith, a: prefix} }

// Between matches the values from lo to hi, both included. lo and hi must be of the
// same kind, with lo <= hi.
func Between(lo, hi Value) Condition { return Condition{op: opBetween, a: lo, b: hi} }

// Less matches the values of v's kind below v.
func Less(v Value) Condition { return Condition{op: opLess, a: v} }

// LessOrEqual matches the values of v's kind up to v, included.
func LessOrEqual(v Value) Condition { return Condition{op: opLessOrEqual, a: v} }

// Greater matches the values of v's kind above v.
func Greater(v Value) Condition { return Condition{op: opGreater, a: v} }

// GreaterOrEqual matches the values of v's kind from v, included.
func GreaterOrEqual(v Value) Condition { return Condition{op: opGreaterOrEqual, a: v} }

// Validate reports whether c can be queried: its values valid, BeginsWith on a string,
// and Between on two values of one kind in order. Errors are *tables.ValidationError.
func (c Condition) Validate() error {
	if c.op == opAll {
		return nil
	}
	if err := c.a.Validate(); err != nil {
		return errs.Wrap(err, "%s condition", opNames[c.op])
	}
	switch c.op {
	case opBeginsWith:
		if c.a.kind != KindString && c.a.kind != KindTuple {
			return invalid("Condition", c.String(), fmt.Sprintf(
				"begins_with needs a string or a tuple value, not a %s; use Between for a range", c.a.kind))
		}
	case opBetween:
		return c.validateBetween()
	}
	return nil
}

func (c Condition) validateBetween() error {
	if err := c.b.Validate(); err != nil {
		return errs.Wrap(err, "between condition: upper bound")
	}
	if c.a.kind != c.b.kind {
		return invalid("Condition", c.String(), fmt.Sprintf(
			"between needs bounds of one kind, not a %s and a %s", c.a.kind, c.b.kind))
	}
	if c.a.enc > c.b.enc {
		return invalid("Condition", c.String(), "between needs the lower bound first")
	}
	return nil
}

// Match reports whether c selects v: what a query with c returns, evaluated in
// memory. It is false when c or v is not valid.
func (c Condition) Match(v Value) bool {
	if c.Validate() != nil || v.Validate() != nil {
		return false
	}
	if c.op == opAll {
		return true
	}
	if v.kind != c.a.kind {
		return false
	}
	x, a := v.enc, c.a.enc
	switch c.op {
	case opEqual:
		return x == a
	case opBeginsWith:
		return strings.HasPrefix(x, a)
	case opBetween:
		return a <= x && x <= c.b.enc
	case opLess:
		return x < a
	case opLessOrEqual:
		return x <= a
	case opGreater:
		return x > a
	case opGreaterOrEqual:
		return x >= a
	}
	return false
}

// String returns a stable text form of c, such as all() or between("i8000000000000001",
// "i8000000000000009"), with the encoded values quoted: equal conditions have equal
// forms. It suits binding a paging cursor to the condition that issued it.
func (c Condition) String() string {
	name := opNames[c.op]
	switch c.op {
	case opAll:
		return name + "()"
	case opBetween:
		return name + "(" + c.a.String() + ", " + c.b.String() + ")"
	}
	return name + "(" + c.a.String() + ")"
}

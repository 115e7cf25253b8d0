package ryno

import (
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// Condition is what a write requires of the stored entity besides its version: a
// test of its attributes (Attr), or of the entity itself (Exists, Absent,
// VersionIs). DynamoDB evaluates it when the write commits, so it holds at that
// instant. Use it with If, or alone in a transaction with TxCheck.
type Condition struct {
	// build builds the condition as a write sent at now checks it.
	build func(now time.Time) expression.ConditionBuilder
	text  string
	err   error
}

// String describes the condition, for messages.
func (c Condition) String() string { return c.text }

// Expression is the condition as DynamoDB's expression builder writes it for a
// write sent at now (a condition on Expires compares with now).
func (c Condition) Expression(now time.Time) expression.ConditionBuilder { return c.build(now) }

// And returns the condition that c and o both hold.
func (c Condition) And(o Condition) Condition {
	return Condition{
		build: func(now time.Time) expression.ConditionBuilder { return c.build(now).And(o.build(now)) },
		text:  c.text + " and " + o.text,
		err:   firstErr(c.valid(), o.valid()),
	}
}

// validIfAny is valid for c when not nil.
func (c *Condition) validIfAny() error {
	if c == nil {
		return nil
	}
	return c.valid()
}

// valid returns the error that makes c unusable: a zero Condition, built by none
// of the functions above, or an attribute a condition cannot name.
func (c Condition) valid() error {
	if c.build == nil {
		return invalid("Condition", "", "is the zero Condition; build one with Attr, Exists, Absent or VersionIs")
	}
	return c.err
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Exists is the condition that the entity exists (not being deleted, and not
// expired).
func Exists() Condition {
	return Condition{text: "exists", build: actions.Live}
}

// Absent is the condition that the entity does not exist (or is being deleted, or
// has expired).
func Absent() Condition {
	return Condition{text: "does not exist", build: actions.Gone}
}

// VersionIs is the condition that the entity exists with version v.
func VersionIs(v int64) Condition {
	return Condition{text: fmt.Sprintf("version %d", v), build: func(now time.Time) expression.ConditionBuilder {
		return expression.Name(schema.AttrVersion).Equal(expression.Value(number(v))).
			And(expression.AttributeNotExists(expression.Name(schema.AttrDeleting)), actions.NotExpired(now))
	}}
}

// Attr names a user attribute of the entity, for a condition on it. The name is the
// attribute's whole name; DynamoDB's path syntax ('.', '[') is not read. A
// condition on an attribute holds only on a live entity: not on a missing one,
// nor on one being deleted or expired, whose item still holds its attributes.
func Attr(name string) AttrRef { return AttrRef{name: name} }

// AttrRef is an attribute a condition tests.
type AttrRef struct{ name string }

// Exists is the condition that the attribute is stored.
func (a AttrRef) Exists() Condition {
	return a.condition("exists", func(n expression.NameBuilder) expression.ConditionBuilder { return expression.AttributeExists(n) })
}

// Absent is the condition that the attribute is not stored.
func (a AttrRef) Absent() Condition {
	return a.condition("is absent", func(n expression.NameBuilder) expression.ConditionBuilder { return expression.AttributeNotExists(n) })
}

// Equal is the condition that the attribute equals v.
func (a AttrRef) Equal(v any) Condition { return a.compare("=", v, expression.NameBuilder.Equal) }

// NotEqual is the condition that the attribute does not equal v (or is absent).
func (a AttrRef) NotEqual(v any) Condition {
	return a.compare("<>", v, expression.NameBuilder.NotEqual)
}

// Less is the condition that the attribute is less than v.
func (a AttrRef) Less(v any) Condition { return a.compare("<", v, expression.NameBuilder.LessThan) }

// LessOrEqual is the condition that the attribute is at most v.
func (a AttrRef) LessOrEqual(v any) Condition {
	return a.compare("<=", v, expression.NameBuilder.LessThanEqual)
}

// Greater is the condition that the attribute is greater than v.
func (a AttrRef) Greater(v any) Condition {
	return a.compare(">", v, expression.NameBuilder.GreaterThan)
}

// GreaterOrEqual is the condition that the attribute is at least v.
func (a AttrRef) GreaterOrEqual(v any) Condition {
	return a.compare(">=", v, expression.NameBuilder.GreaterThanEqual)
}

func (a AttrRef) compare(op string, v any, cmp func(expression.NameBuilder, expression.OperandBuilder) expression.ConditionBuilder) Condition {
	av, err := encodeValue("Attr("+a.name+")", v)
	c := a.condition(fmt.Sprintf("%s %v", op, v), func(n expression.NameBuilder) expression.ConditionBuilder {
		return cmp(n, expression.Value(av))
	})
	c.err = firstErr(c.err, err)
	return c
}

func (a AttrRef) condition(text string, f func(expression.NameBuilder) expression.ConditionBuilder) Condition {
	// Only a live entity has attributes to test: a tombstone, which keeps them, and
	// an entity expired read as missing.
	c := Condition{text: a.name + " " + text, build: func(now time.Time) expression.ConditionBuilder {
		return actions.Live(now).And(f(expression.NameNoDotSplit(a.name)))
	}}
	switch {
	case strings.ContainsAny(a.name, "[]"):
		c.err = invalid("Attr", a.name, "conditions cannot name attributes with '[' or ']'")
	default:
		c.err = schema.ValidateAttributeName(a.name)
	}
	return c
}

// If makes a write require c of the stored entity when it commits: otherwise it
// fails with a *ConditionError (ErrConflict) and writes nothing. Patch, Delete and
// the operations of Transact take it.
func If(c Condition) WriteOption {
	return func(o *writeOptions) {
		if o.cond == nil {
			o.cond = &c
			return
		}
		both := o.cond.And(c)
		o.cond = &both
	}
}

// ConditionError reports a write refused because its condition did not hold. It
// matches ErrConflict: the entity is not as the writer required. It is package
// entity's type.
type ConditionError = entity.ConditionError

// store returns the condition as the store takes it; nil for none.
func (c *Condition) store() store.Condition {
	if c == nil {
		return nil
	}
	return *c
}

package indexing

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"maps"

	"github.com/rynodb/rynodb/internal/schema"
)

// Expression is the key condition of a Query on the index lookup GSI, ready for
// dynamodb.QueryInput's KeyConditionExpression, ExpressionAttributeNames and
// ExpressionAttributeValues. The attribute names start with '_', so the expression
// refers to them through the placeholders #pk and #sk.
type Expression struct {
	KeyCondition string
	Names        map[string]string
	Values       map[string]types.AttributeValue
}

// WithPartition returns x selecting the same values under the _scope_index_name
// partition instead of its own: the shard of a sharded index.
func (x Expression) WithPartition(partition string) Expression {
	values := maps.Clone(x.Values)
	values[valuePartition] = str(partition)
	x.Values = values
	return x
}

// Placeholders of the key condition.
const (
	namePartition  = "#pk"
	nameSort       = "#sk"
	valuePartition = ":pk"
	valueOperand   = ":v"
	valueLower     = ":lo"
	valueUpper     = ":hi"
)

// leastChar is the smallest character a string value may contain: control characters
// are rejected, so no stored value has a byte below ' ' after its tag.
const leastChar = " "

// Expression returns the key condition selecting the entries of index indexName in
// scope that c matches: _scope_index_name = scope:indexName and a condition on
// _index_key. It reports a *tables.ValidationError for an invalid scope, index name
// or condition.
//
// DynamoDB allows one comparison on the sort key, and ranges must not reach values of
// another kind. Each kind's encodings start with its tag byte t and are longer than
// it, so they all lie strictly between the strings t and t+1, which are never
// stored. Hence, for an operand x of kind t:
//
//	Equal(x)           _index_key = x
//	BeginsWith(x)      begins_with(_index_key, x)
//	Between(x, y)      _index_key BETWEEN x AND y
//	GreaterOrEqual(x)  _index_key BETWEEN x AND t+1
//	Greater(x)         _index_key BETWEEN x+" " AND t+1
//	LessOrEqual(x)     _index_key BETWEEN t AND x, or <= x for strings
//	Less(x)            _index_key BETWEEN t AND x', or < x for strings
//
// Greater uses x+" " because every stored value above x is at least x+" ": one that
// extends x continues with a byte of at least ' ' (control characters are rejected),
// and one that is larger at a byte within x is larger than x+" " too. Less uses x', x
// with its last byte decremented: for the fixed-width kinds, a value below x is at
// most x'. A string has no largest value below it, but strings have the lowest tag,
// so < x reaches no other kind.
func (c Condition) Expression(scope, indexName string) (Expression, error) {
	partition, err := schema.ValidScopeIndexName(scope, indexName)
	if err != nil {
		return Expression{}, err
	}
	if err := c.Validate(); err != nil {
		return Expression{}, err
	}
	x := Expression{
		KeyCondition: namePartition + " = " + valuePartition,
		Names:        map[string]string{namePartition: schema.AttrScopeIndexName},
		Values:       map[string]types.AttributeValue{valuePartition: str(partition)},
	}
	cond, values := c.sortKeyCondition()
	if cond == "" {
		return x, nil // DynamoDB rejects unused placeholders, so #sk only when used
	}
	x.KeyCondition += " AND " + cond
	x.Names[nameSort] = schema.AttrIndexKey
	for name, v := range values {
		x.Values[name] = str(v)
	}
	return x, nil
}

// sortKeyCondition returns the condition on #sk of a valid c and the values of its
// placeholders; "" for All.
func (c Condition) sortKeyCondition() (string, map[string]string) {
	x := c.a.enc
	isString := c.a.kind == KindString
	switch c.op {
	case opEqual:
		return nameSort + " = " + valueOperand, operand(x)
	case opBeginsWith:
		return "begins_with(" + nameSort + ", " + valueOperand + ")", operand(x)
	case opBetween:
		return between(x, c.b.enc)
	case opGreaterOrEqual:
		return between(x, kindEnd(c.a.kind))
	case opGreater:
		return between(x+leastChar, kindEnd(c.a.kind))
	case opLessOrEqual:
		if isString {
			return nameSort + " <= " + valueOperand, operand(x)
		}
		return between(kindStart(c.a.kind), x)
	case opLess:
		if isString {
			return nameSort + " < " + valueOperand, operand(x)
		}
		return between(kindStart(c.a.kind), decrementLast(x))
	}
	return "", nil
}

func operand(v string) map[string]string { return map[string]string{valueOperand: v} }

func between(lo, hi string) (string, map[string]string) {
	return nameSort + " BETWEEN " + valueLower + " AND " + valueUpper,
		map[string]string{valueLower: lo, valueUpper: hi}
}

// kindStart and kindEnd bound the encodings of kind k, exclusive: each is one byte,
// and no encoding is a single byte.
func kindStart(k Kind) string { return string(rune(k.tag())) }
func kindEnd(k Kind) string   { return string(rune(k.tag() + 1)) }

// decrementLast returns enc with its last byte decremented. The fixed-width
// encodings end in an ASCII letter or digit, a tuple's in partEnd (0x02), so the
// result is still ASCII, and no encoding lies between it and enc.
func decrementLast(enc string) string {
	return enc[:len(enc)-1] + string(rune(enc[len(enc)-1]-1))
}

func str(s string) *types.AttributeValueMemberS { return &types.AttributeValueMemberS{Value: s} }

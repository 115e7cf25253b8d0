package numbers

import (
	"fmt"
	"math/big"
	"reflect"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"

	"github.com/rynodb/rynodb/internal/schema"
)

// attributevalue marshals a struct as a map of its exported fields, so a value
// whose fields are all unexported, such as a *big.Int, becomes an empty map: its
// data is lost without an error. Exact stands between the values a caller
// gives and the encoder: it turns Go's arbitrary-precision numbers into numbers
// DynamoDB stores exactly, and refuses the values that would be lost.

var (
	bigIntType    = reflect.TypeFor[big.Int]()
	bigFloatType  = reflect.TypeFor[big.Float]()
	bigRatType    = reflect.TypeFor[big.Rat]()
	timeType      = reflect.TypeFor[time.Time]()
	marshalerType = reflect.TypeFor[attributevalue.Marshaler]()
	anyType       = reflect.TypeFor[any]()
)

// maxValueDepth bounds the walk of a value: DynamoDB nests at most 32 levels, and
// a value that refers to itself would never end.
const maxValueDepth = 64

// Exact returns v, for the encoder, with every big.Int, big.Float and big.Rat
// in it (by value or pointer, at any depth of maps, slices and interfaces) replaced
// by its decimal attributevalue.Number, as bigDecimal writes it. It refuses, with a
// *schema.ValidationError naming field, a big number DynamoDB cannot hold, a big number in
// a struct field (the encoder writes those itself), and a value that the encoder
// would write as an empty map although it holds data (a struct whose fields are
// all unexported, such as a netip.Addr). v is never modified: what changes is
// copied.
func Exact(field string, v any) (any, error) {
	out, changed, err := exactOf(reflect.ValueOf(v), 0, false)
	if err != nil {
		return nil, within(field, err)
	}
	if !changed {
		return v, nil
	}
	return out.Interface(), nil
}

// within returns err, a *schema.ValidationError whose Field is a path inside a value
// (".a[2]", or "" for the value itself), with the path put after field. The walk
// names the fields only when it fails, so that it allocates nothing for the names
// of the values it accepts.
func within(field string, err error) error {
	if ve, ok := err.(*schema.ValidationError); ok {
		ve.Field = field + ve.Field
	}
	return err
}

// exactOf returns the replacement of rv and whether there is one. In a struct
// (inStruct), nothing can be replaced: a big number is refused instead. Errors
// name the field relative to rv (see within).
func exactOf(rv reflect.Value, depth int, inStruct bool) (reflect.Value, bool, error) {
	if !rv.IsValid() || depth > maxValueDepth {
		return rv, false, nil
	}
	switch rv.Kind() {
	case reflect.Bool, reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return rv, false, nil // the encoder's own
	}
	t := rv.Type()
	if t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType) {
		return rv, false, nil // the type encodes itself
	}
	if isBigNumberType(t) {
		if inStruct {
			return rv, false, bigInStruct(t)
		}
		n, err := bigDecimal("", rv)
		return reflect.ValueOf(attributevalue.Number(n)), err == nil, err
	}
	switch rv.Kind() {
	case reflect.Pointer:
		if inStruct && isBigNumberType(t.Elem()) {
			return rv, false, bigInStruct(t) // even nil: it would be lost once set
		}
		if rv.IsNil() {
			return rv, false, nil
		}
		return exactOf(rv.Elem(), depth+1, inStruct)
	case reflect.Interface:
		if rv.IsNil() {
			return rv, false, nil
		}
		return exactOf(rv.Elem(), depth, inStruct)
	case reflect.Map:
		return exactMap(rv, depth, inStruct)
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return rv, false, nil // binary
		}
		return exactList(rv, depth, inStruct)
	case reflect.Struct:
		return rv, false, checkStruct(rv, depth)
	}
	return rv, false, nil
}

func isBigNumberType(t reflect.Type) bool {
	return t == bigIntType || t == bigFloatType || t == bigRatType
}

func bigInStruct(t reflect.Type) error {
	return invalid("", "", fmt.Sprintf("a struct field of type %s cannot be stored: attributevalue writes it as an empty map; "+
		"use an int64, a string or a type that implements attributevalue.Marshaler, or put the number in a map", t))
}

// exactMap returns a map[K]any copy of the map rv when a value in it is replaced.
func exactMap(rv reflect.Value, depth int, inStruct bool) (reflect.Value, bool, error) {
	var out reflect.Value
	iter := rv.MapRange()
	for iter.Next() {
		v, changed, err := exactOf(iter.Value(), depth+1, inStruct)
		if err != nil {
			return rv, false, within(fmt.Sprint(".", mapKey(iter.Key())), err)
		}
		if !changed {
			continue
		}
		if !out.IsValid() {
			out = reflect.MakeMapWithSize(reflect.MapOf(rv.Type().Key(), anyType), rv.Len())
			for k, e := range rv.Seq2() {
				out.SetMapIndex(k, e)
			}
		}
		out.SetMapIndex(iter.Key(), v)
	}
	return out, out.IsValid(), nil
}

// mapKey returns the key for a field name; a key read through an unexported
// struct field cannot be turned into an interface, and only names the field.
func mapKey(k reflect.Value) any {
	if k.Kind() == reflect.String {
		return k.String()
	}
	if k.CanInterface() {
		return k.Interface()
	}
	return "?"
}

// exactList returns a []any copy of the slice or array rv when an element of it
// is replaced.
func exactList(rv reflect.Value, depth int, inStruct bool) (reflect.Value, bool, error) {
	var out []any
	for i := range rv.Len() {
		v, changed, err := exactOf(rv.Index(i), depth+1, inStruct)
		if err != nil {
			return rv, false, within(fmt.Sprintf("[%d]", i), err)
		}
		if !changed {
			continue
		}
		if out == nil {
			out = make([]any, rv.Len())
			for j := range rv.Len() {
				out[j] = rv.Index(j).Interface()
			}
		}
		out[i] = v.Interface()
	}
	return reflect.ValueOf(out), out != nil, nil
}

// checkStruct refuses a struct the encoder would write as an empty map although
// it holds data, and big numbers in its fields at any depth.
func checkStruct(rv reflect.Value, depth int) error {
	t := rv.Type()
	if t.ConvertibleTo(timeType) {
		return nil // the encoder writes times itself
	}
	if !hasEncodedFields(t, 0) {
		if rv.IsZero() {
			return nil
		}
		return invalid("", "", fmt.Sprintf("a %s has no exported fields: attributevalue would store it as an empty map and lose it; "+
			"store its string form, or use a type that implements attributevalue.Marshaler", t))
	}
	for i := range t.NumField() {
		sf := t.Field(i)
		name, skip := fieldName(sf)
		if skip {
			continue
		}
		if _, _, err := exactOf(rv.Field(i), depth+1, true); err != nil {
			if name != "" {
				return within("."+name, err)
			}
			return err
		}
	}
	return nil
}

// fieldName returns the attribute name the encoder gives the struct field sf ("" for
// an embedded struct whose fields it promotes), and whether the encoder skips it.
func fieldName(sf reflect.StructField) (name string, skip bool) {
	tag, _, _ := strings.Cut(sf.Tag.Get("dynamodbav"), ",")
	if tag == "-" {
		return "", true
	}
	if sf.Anonymous && tag == "" {
		t := sf.Type
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() == reflect.Struct {
			return "", false
		}
	}
	if !sf.IsExported() {
		return "", true
	}
	if tag == "" {
		tag = sf.Name
	}
	return tag, false
}

// hasEncodedFields reports whether the encoder writes any field of the struct type
// t: an exported one, or one promoted from an embedded struct.
func hasEncodedFields(t reflect.Type, depth int) bool {
	if depth > maxValueDepth {
		return false
	}
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.IsExported() {
			return true
		}
		if sf.Anonymous {
			et := sf.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct && hasEncodedFields(et, depth+1) {
				return true
			}
		}
	}
	return false
}

// bigDecimal returns the big.Int, big.Float or big.Rat rv (a value of one of those
// types) in decimal notation, as DynamoDB stores it:
//
//   - a big.Int, all its digits;
//   - a big.Float, the shortest decimal that reads back as the same value at the
//     float's precision, as a float64 is stored;
//   - a big.Rat, its exact decimal expansion, refused when there is none (1/3).
//
// It refuses a number DynamoDB cannot hold: beyond 38 significant digits, outside
// magnitudes 1e-130 to 1e126, or infinite.
func bigDecimal(field string, rv reflect.Value) (string, error) {
	p := reflect.New(rv.Type())
	p.Elem().Set(rv) // a copy: the methods take pointers, and rv may not be addressable
	var n string
	switch x := p.Interface().(type) {
	case *big.Int:
		// 2^419 > 1e126: a longer integer is out of range, whatever its digits.
		if x.BitLen() > 419 {
			return "", invalid(field, new(big.Float).SetInt(x).Text('g', 6), "is out of DynamoDB's number range (magnitudes from 1e-130 to below 1e126)")
		}
		n = x.String()
	case *big.Float:
		if x.IsInf() {
			return "", invalid(field, x.String(), "is not a number DynamoDB can store")
		}
		if e := x.MantExp(nil); e > 419 || e < -440 { // beyond 2^±, surely out of range
			return "", invalid(field, x.Text('g', 6), "is out of DynamoDB's number range (magnitudes from 1e-130 to below 1e126)")
		}
		n = x.Text('g', -1)
	case *big.Rat:
		var err error
		if n, err = ratDecimal(field, x); err != nil {
			return "", err
		}
	}
	if err := Validate(field, n); err != nil {
		return "", err
	}
	return n, nil
}

// ratDecimal returns the exact decimal expansion of x, or an error when it has
// none: when its denominator has a prime factor other than 2 and 5.
func ratDecimal(field string, x *big.Rat) (string, error) {
	if x.IsInt() {
		return x.Num().String(), nil
	}
	// A number DynamoDB holds has its last significant digit at 10^-167 or above
	// (38 digits from 1e-130), so x times 10^167 is an integer: no more than 167
	// factors 2 or 5 divide its denominator.
	const maxFactors = MaxDigits - 1 - minExp
	tooFine := func() error {
		return invalid(field, x.RatString(), fmt.Sprintf("needs more than %d significant digits, or is below 1e-130", MaxDigits))
	}
	den := new(big.Int).Set(x.Denom())
	twos := int(den.TrailingZeroBits())
	if twos > maxFactors {
		return "", tooFine()
	}
	den.Rsh(den, uint(twos))
	fives := 0
	one, five, q, r := big.NewInt(1), big.NewInt(5), new(big.Int), new(big.Int)
	for den.Cmp(one) != 0 {
		q.QuoRem(den, five, r)
		if r.Sign() != 0 {
			return "", invalid(field, x.RatString(), "has no exact decimal representation; DynamoDB stores decimal numbers")
		}
		if fives++; fives > maxFactors {
			return "", tooFine()
		}
		den.Set(q)
	}
	// x = num / (2^twos * 5^fives) = num * 2^(k-twos) * 5^(k-fives) / 10^k
	k := max(twos, fives)
	m := new(big.Int).Set(x.Num())
	m.Lsh(m, uint(k-twos))
	m.Mul(m, new(big.Int).Exp(five, big.NewInt(int64(k-fives)), nil))
	return formatDecimal(m, -k), nil
}

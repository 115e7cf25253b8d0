package indexing

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// String returns the Value of a string, encoded as a quote followed by s: 'ada.
// Strings sort by their UTF-8 bytes, which is code point order.
//
// s must be non-empty UTF-8 without control characters (below U+0020, and U+007F),
// like every key component. It must also fit the 1024-byte _unique_key
// index_name:'s, in which ':' and '%' take three bytes each: the escaped lengths of
// the index name and of s must add up to at most 1022.
func String(s string) Value {
	return Value{kind: KindString, enc: string(tagString) + s}
}

// Bool returns the Value of a bool: b0 for false, b1 for true.
func Bool(b bool) Value {
	if b {
		return Value{kind: KindBool, enc: "b1"}
	}
	return Value{kind: KindBool, enc: "b0"}
}

func parseBool(payload string) Value {
	return Bool(payload == "1") // ParseValue rejects anything Bool does not write
}

// signBit is the sign bit of an int64 and of a float64.
const signBit = 1 << 63

// Int returns the Value of an int64: i followed by 16 lower-case hex digits of i with
// its sign bit flipped. Flipping the sign bit maps math.MinInt64..math.MaxInt64 onto
// 0..2^64-1 in order, and the fixed width makes string order numeric order:
//
//	Int(math.MinInt64)  i0000000000000000
//	Int(-1)             i7fffffffffffffff
//	Int(0)              i8000000000000000
//	Int(5)              i8000000000000005
//	Int(math.MaxInt64)  iffffffffffffffff
func Int(i int64) Value {
	return Value{kind: KindInt, enc: hex64(tagInt, uint64(i)^signBit)}
}

func parseInt(payload string) Value {
	i, err := decodeInt(payload)
	if err != nil {
		return Value{kind: KindInt, invalid: err.Error()}
	}
	return Int(i)
}

func decodeInt(payload string) (int64, error) {
	u, err := decodeHex64(payload)
	return int64(u ^ signBit), err
}

// Float returns the Value of a float64: f followed by 16 lower-case hex digits of its
// IEEE 754 bits, with every bit flipped for a negative number and the sign bit set
// for a positive one. That maps -Inf..+Inf onto increasing integers: the flip reverses
// the magnitude order of negatives and puts them below the positives.
//
//	Float(math.Inf(-1))  f000fffffffffffff
//	Float(-1)            f400fffffffffffff
//	Float(0)             f8000000000000000 (also for -0, which equals 0)
//	Float(1)             fbff0000000000000
//	Float(math.Inf(1))   ffff0000000000000
//
// Subnormal, tiny and huge magnitudes all keep their order. NaN is not ordered and
// cannot be indexed: Validate reports it.
func Float(f float64) Value {
	if math.IsNaN(f) {
		return Value{kind: KindFloat, invalid: "NaN has no place in an order and cannot be indexed"}
	}
	return Value{kind: KindFloat, enc: hex64(tagFloat, floatBits(f))}
}

// floatBits returns the order-preserving integer of f, which is not NaN.
func floatBits(f float64) uint64 {
	if f == 0 {
		return signBit // -0 == 0, so both share the encoding of +0
	}
	b := math.Float64bits(f)
	if b&signBit != 0 {
		return ^b
	}
	return b | signBit
}

func parseFloat(payload string) Value {
	f, err := decodeFloat(payload)
	if err != nil {
		return Value{kind: KindFloat, invalid: err.Error()}
	}
	return Float(f)
}

func decodeFloat(payload string) (float64, error) {
	u, err := decodeHex64(payload)
	if u&signBit != 0 {
		return math.Float64frombits(u &^ signBit), err
	}
	return math.Float64frombits(^u), err
}

const hexDigits = "0123456789abcdef"

// hex64 returns tag followed by u in 16 lower-case hex digits.
func hex64(tag byte, u uint64) string {
	var b [17]byte
	b[0] = tag
	for i := 16; i > 0; i-- {
		b[i] = hexDigits[u&0xf]
		u >>= 4
	}
	return string(b[:])
}

func decodeHex64(payload string) (uint64, error) {
	u, err := strconv.ParseUint(payload, 16, 64)
	if err != nil || len(payload) != 16 {
		return 0, fmt.Errorf("%q is not 16 hex digits", payload)
	}
	return u, nil
}

// Supported years of Time, the years timeLayout writes in four digits.
const (
	minYear = 1
	maxYear = 9999
)

// timeLayout is RFC 3339 in UTC with all nine fractional digits: fixed width for
// years 1 to 9999, so string order is time order. (time.RFC3339Nano drops trailing
// zeros and does not sort.)
const timeLayout = "2006-01-02T15:04:05.000000000Z"

// Time returns the Value of an instant: t followed by the time in UTC with nanosecond
// precision, t2024-05-01T12:00:00.000000000Z. The location and the monotonic clock
// reading of t are dropped: instants that are Equal have equal Values.
//
// The supported range is years 1 to 9999 in UTC (0001-01-01T00:00:00Z, the zero
// time.Time, to 9999-12-31T23:59:59.999999999Z); Validate reports a time outside it.
func Time(t time.Time) Value {
	t = t.UTC()
	if y := t.Year(); y < minYear || y > maxYear {
		return Value{kind: KindTime, invalid: fmt.Sprintf("%s: year %d is outside %d..%d", t, y, minYear, maxYear)}
	}
	return Value{kind: KindTime, enc: string(tagTime) + t.Format(timeLayout)}
}

func parseTime(payload string) Value {
	t, err := decodeTime(payload)
	if err != nil {
		return Value{kind: KindTime, invalid: fmt.Sprintf("%q is not a time in the layout %s", payload, timeLayout)}
	}
	return Time(t)
}

func decodeTime(payload string) (time.Time, error) {
	return time.Parse(timeLayout, payload)
}

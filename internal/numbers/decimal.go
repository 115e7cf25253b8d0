package numbers

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// Add returns a+b for two numbers in DynamoDB's decimal notation, exactly,
// as DynamoDB's ADD computes it. It lets a Patch of an indexed type show the map
// functions the sum before it is stored.
func Add(a, b string) (string, error) {
	x, xe, err := parseDecimal(a)
	if err != nil {
		return "", err
	}
	y, ye, err := parseDecimal(b)
	if err != nil {
		return "", err
	}
	exp := min(xe, ye)
	x = scale(x, xe-exp)
	y = scale(y, ye-exp)
	return formatDecimal(x.Add(x, y), exp), nil
}

// parseDecimal returns the integer m and exponent e with s = m * 10^e.
func parseDecimal(s string) (*big.Int, int, error) {
	m := syntax.FindStringSubmatch(s)
	if m == nil {
		return nil, 0, fmt.Errorf("%q is not a number", s)
	}
	exp := 0
	if m[2] != "" {
		var err error
		if exp, err = strconv.Atoi(m[2]); err != nil {
			return nil, 0, fmt.Errorf("%q is out of range", s)
		}
	}
	whole, fraction, _ := strings.Cut(m[1], ".")
	digits := whole + fraction
	if digits == "" {
		digits = "0"
	}
	n, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		return nil, 0, fmt.Errorf("%q is not a number", s)
	}
	if strings.HasPrefix(s, "-") {
		n.Neg(n)
	}
	return n, exp - len(fraction), nil
}

// scale returns n * 10^k for k >= 0.
func scale(n *big.Int, k int) *big.Int {
	if k == 0 {
		return n
	}
	return n.Mul(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(k)), nil))
}

// formatDecimal writes m * 10^exp in plain decimal notation, without trailing zeros
// after the point.
func formatDecimal(m *big.Int, exp int) string {
	if exp >= 0 {
		return scale(m, exp).String()
	}
	sign := ""
	if m.Sign() < 0 {
		sign = "-"
		m = new(big.Int).Neg(m)
	}
	digits := m.String()
	if pad := -exp + 1 - len(digits); pad > 0 {
		digits = strings.Repeat("0", pad) + digits
	}
	whole, fraction := digits[:len(digits)+exp], strings.TrimRight(digits[len(digits)+exp:], "0")
	if fraction == "" {
		if whole == "0" {
			sign = ""
		}
		return sign + whole
	}
	return sign + whole + "." + fraction
}

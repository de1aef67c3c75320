package sqlworld

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// normValue is the canonical form of a value for comparing answers:
// numbers by value (an integral float as an integer, others to 10
// significant digits), text trimmed and lower-cased, and text that is a
// number as that number ("004" is 4); NULL is distinct from every text.
func normValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "\x00null"
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return normFloat(x)
	case string:
		s := strings.ToLower(strings.TrimSpace(x))
		if looksNumeric(s) {
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				return strconv.FormatInt(n, 10)
			}
			if f, err := strconv.ParseFloat(s, 64); err == nil {
				return normFloat(f)
			}
		}
		return s
	}
	return strings.ToLower(strings.TrimSpace(formatValue(v)))
}

func normFloat(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', 10, 64)
}

// looksNumeric reports a plain decimal number: digits with an optional
// sign, point and exponent (no "inf", "nan" or hexadecimal).
func looksNumeric(s string) bool {
	if s == "" || len(s) > 40 {
		return false
	}
	digits := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digits = true
		case c == '+' || c == '-' || c == '.' || c == 'e':
		default:
			return false
		}
	}
	return digits
}

// rowKeys returns the canonical form of each row.
func rowKeys(rows [][]any) []string {
	keys := make([]string, len(rows))
	for i, r := range rows {
		parts := make([]string, len(r))
		for j, v := range r {
			parts[j] = normValue(v)
		}
		keys[i] = strings.Join(parts, "\x1f")
	}
	return keys
}

// sameAnswer compares a submitted result set with the reference one. Rows
// must have the reference's number of columns, in its order (column names
// do not matter). With ordered the rows must come in the same order;
// otherwise the two are compared as sets (order and duplicate rows do not
// matter).
func sameAnswer(ref, got *result, ordered bool) bool {
	if got.more || len(got.columns) != len(ref.columns) {
		return false
	}
	rk, gk := rowKeys(ref.rows), rowKeys(got.rows)
	if ordered {
		return slices.Equal(rk, gk)
	}
	slices.Sort(rk)
	slices.Sort(gk)
	return slices.Equal(slices.Compact(rk), slices.Compact(gk))
}

// answerKey is the canonical form of a whole result, for deduplicating
// tasks.
func answerKey(res *result, ordered bool) string {
	k := rowKeys(res.rows)
	if !ordered {
		slices.Sort(k)
		k = slices.Compact(k)
	}
	return strings.Join(k, "\x1e")
}

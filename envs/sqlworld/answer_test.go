package sqlworld

import "testing"

func TestSameAnswer(t *testing.T) {
	res := func(rows ...[]any) *result {
		r := &result{rows: rows}
		if len(rows) > 0 {
			r.columns = make([]string, len(rows[0]))
		} else {
			r.columns = []string{"x"}
		}
		return r
	}
	for _, tc := range []struct {
		name     string
		ref, got *result
		ordered  bool
		want     bool
	}{
		{"equal", res([]any{"Oslo"}), res([]any{"Oslo"}), false, true},
		{"case and spaces", res([]any{"Oslo"}), res([]any{" oSLO "}), false, true},
		{"unicode case", res([]any{"Åland"}), res([]any{"åland"}), false, true},
		{"int and float", res([]any{int64(5)}), res([]any{5.0}), false, true},
		{"int and text", res([]any{int64(4)}), res([]any{"004"}), false, true},
		{"float digits", res([]any{0.1 + 0.2}), res([]any{0.3}), false, true},
		{"different", res([]any{"Oslo"}), res([]any{"Bergen"}), false, false},
		{"null is not text", res([]any{nil}), res([]any{"NULL"}), false, false},
		{"null", res([]any{nil}), res([]any{nil}), false, true},
		{"set order", res([]any{"a"}, []any{"b"}), res([]any{"b"}, []any{"a"}), false, true},
		{"set duplicates", res([]any{"a"}, []any{"b"}), res([]any{"b"}, []any{"a"}, []any{"a"}), false, true},
		{"missing", res([]any{"a"}, []any{"b"}), res([]any{"a"}), false, false},
		{"ordered", res([]any{"a"}, []any{"b"}), res([]any{"a"}, []any{"b"}), true, true},
		{"ordered swapped", res([]any{"a"}, []any{"b"}), res([]any{"b"}, []any{"a"}), true, false},
		{"columns", res([]any{"a"}), res([]any{"a", "b"}), false, false},
		{"column order", res([]any{"a", "b"}), res([]any{"b", "a"}), false, false},
		{"inf is text", res([]any{"inf"}), res([]any{"INF"}), false, true},
		{"truncated", res([]any{"a"}), &result{columns: []string{"x"}, rows: [][]any{{"a"}}, more: true}, false, false},
	} {
		if got := sameAnswer(tc.ref, tc.got, tc.ordered); got != tc.want {
			t.Errorf("%s: sameAnswer = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestCheckStatement(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"SELECT 1", "SELECT 1", true},
		{"  select 1 ;  ", "select 1", true},
		{"WITH x AS (SELECT 1) SELECT * FROM x;", "WITH x AS (SELECT 1) SELECT * FROM x", true},
		{"SELECT ';' AS semi -- ; comment", "SELECT ';' AS semi -- ; comment", true},
		{"SELECT 1; -- trailing comment", "SELECT 1", true},
		{"SELECT replace(name, 'a', 'b') FROM countries", "SELECT replace(name, 'a', 'b') FROM countries", true},
		{"SELECT 1; SELECT 2", "", false},
		{"(SELECT 1)", "", false},
		{"VALUES (1)", "", false},
		{"EXPLAIN SELECT 1", "", false},
		{"", "", false},
		{"-- only a comment", "", false},
		{"SELECT '\x00'", "", false},
	} {
		got, err := checkStatement(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("checkStatement(%q) = %q, %v; want %q, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

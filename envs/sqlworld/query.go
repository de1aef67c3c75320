package sqlworld

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxStatementBytes bounds the SQL text of one query.
const MaxStatementBytes = 4096

// maxCellRunes bounds one value in an observation table.
const maxCellRunes = 80

// result is the result set of a query: column names and rows of int64,
// float64, string or nil values, at most the bound the query ran with.
type result struct {
	columns []string
	rows    [][]any
	// more reports rows beyond the bound, which were not read.
	more bool
}

// queryError is a failure of the agent's query (refused, invalid, too
// slow): an observation, never a failure of the episode.
type queryError struct{ msg string }

func (e *queryError) Error() string { return e.msg }

// checkStatement accepts a single SELECT statement (WITH ... SELECT
// included) and returns it without trailing semicolons. Its errors are
// *queryError. It is a first, syntactic line of defence with clear
// messages; the read-only connection and its authorizer are the others.
func checkStatement(s string) (string, error) {
	if len(s) > MaxStatementBytes {
		return "", &queryError{fmt.Sprintf("the query is %d bytes; at most %d are allowed", len(s), MaxStatementBytes)}
	}
	if !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
		return "", &queryError{"the query is not valid UTF-8 text"}
	}
	toks := tokenize(s)
	first, end := "", -1
	for _, t := range toks {
		switch {
		case t.kind == tokSemicolon && end < 0:
			end = t.pos
		case end >= 0:
			return "", &queryError{"only one statement per query is allowed; remove everything after the first ';'"}
		case first == "" && t.kind == tokWord:
			first = strings.ToUpper(t.text)
		case first == "":
			return "", &queryError{"a query must start with SELECT or WITH"}
		}
	}
	switch first {
	case "SELECT", "WITH":
	case "":
		return "", &queryError{"the query is empty"}
	default:
		return "", &queryError{fmt.Sprintf("only SELECT queries are allowed (SELECT ... or WITH ... SELECT ...); %s statements are refused: the database is read-only", clip(first, 20))}
	}
	if end >= 0 {
		s = s[:end]
	}
	return strings.TrimSpace(s), nil
}

type tokKind int

const (
	tokWord tokKind = iota
	tokSemicolon
	tokOther
)

type token struct {
	kind tokKind
	text string
	pos  int
}

// tokenize splits SQL into words, semicolons and other tokens, skipping
// white space, comments, string literals and quoted identifiers (an
// unterminated one runs to the end; SQLite reports it).
func tokenize(s string) []token {
	var toks []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '-' && i+1 < len(s) && s[i+1] == '-':
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				return toks
			}
			i += j + 1
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			j := strings.Index(s[i+2:], "*/")
			if j < 0 {
				return toks
			}
			i += j + 4
		case c == '\'' || c == '"' || c == '`' || c == '[':
			closer := c
			if c == '[' {
				closer = ']'
			}
			start := i
			i++
			for i < len(s) {
				if s[i] == closer {
					if closer != ']' && i+1 < len(s) && s[i+1] == closer {
						i += 2 // doubled quote
						continue
					}
					break
				}
				i++
			}
			i++ // past the closer (or the end)
			toks = append(toks, token{kind: tokOther, text: s[start:min(i, len(s))], pos: start})
		case c == ';':
			toks = append(toks, token{kind: tokSemicolon, text: ";", pos: i})
			i++
		case c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= 0x80:
			start := i
			for i < len(s) && (s[i] == '_' || s[i] == '$' || s[i] >= 'A' && s[i] <= 'Z' || s[i] >= 'a' && s[i] <= 'z' || s[i] >= '0' && s[i] <= '9' || s[i] >= 0x80) {
				i++
			}
			toks = append(toks, token{kind: tokWord, text: s[start:i], pos: start})
		default:
			toks = append(toks, token{kind: tokOther, text: s[i : i+1], pos: i})
			i++
		}
	}
	return toks
}

// query runs one checked statement on the read-only pool and reads at most
// maxRows rows. Errors of the query itself are *queryError; an error of
// ctx (the caller's) is returned as it is.
func (e *Env) query(ctx context.Context, stmt string, maxRows int) (*result, error) {
	stmt, err := checkStatement(stmt)
	if err != nil {
		return nil, err
	}
	conn, err := e.db.Conn(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("sqlworld: connection: %w", err)
	}
	defer conn.Close()
	if err := setLimits(conn, MaxStatementBytes+64); err != nil {
		return nil, fmt.Errorf("sqlworld: limits: %w", err)
	}
	qctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	res, err := readRows(qctx, conn, stmt, maxRows)
	if err == nil {
		return res, nil
	}
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case qctx.Err() != nil || strings.Contains(err.Error(), "interrupted"):
		return nil, &queryError{fmt.Sprintf("the query was stopped after the time limit of %v; simplify it or add conditions", e.timeout)}
	}
	return nil, &queryError{sqliteMessage(err)}
}

func readRows(ctx context.Context, conn *sql.Conn, stmt string, maxRows int) (*result, error) {
	rows, err := conn.QueryContext(ctx, stmt)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	res := &result{columns: cols}
	for rows.Next() {
		if len(res.rows) == maxRows {
			res.more = true
			break
		}
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				vals[i] = string(b)
			}
		}
		res.rows = append(res.rows, vals)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	return res, nil
}

// sqliteMessage returns SQLite's message for err, without the driver's
// decoration, with a hint for a denied action.
func sqliteMessage(err error) string {
	msg := err.Error()
	if strings.Contains(msg, "not authorized") {
		return "not authorized: the database is read-only and only SELECT queries may run"
	}
	// The driver writes "SQL logic error: no such table: x (1)".
	msg = strings.TrimPrefix(msg, "SQL logic error: ")
	if i := strings.LastIndex(msg, " ("); i > 0 && strings.HasSuffix(msg, ")") {
		if _, aerr := strconv.Atoi(msg[i+2 : len(msg)-1]); aerr == nil {
			msg = msg[:i]
		}
	}
	return clip(msg, 300)
}

// table renders res as a text table bounded to maxBytes.
func (res *result) table(maxBytes int) string {
	var b strings.Builder
	b.WriteString(strings.Join(cells(res.columns), " | "))
	b.WriteByte('\n')
	shown := 0
	for _, r := range res.rows {
		vals := make([]string, len(r))
		for i, v := range r {
			vals[i] = formatValue(v)
		}
		line := strings.Join(cells(vals), " | ") + "\n"
		if b.Len()+len(line) > maxBytes-80 {
			fmt.Fprintf(&b, "(output truncated: %d of %d rows shown; narrow the query)", shown, len(res.rows))
			return b.String()
		}
		b.WriteString(line)
		shown++
	}
	switch {
	case res.more:
		fmt.Fprintf(&b, "(first %d rows shown; the result has more)", len(res.rows))
	case len(res.rows) == 1:
		b.WriteString("(1 row)")
	default:
		fmt.Fprintf(&b, "(%d rows)", len(res.rows))
	}
	return b.String()
}

func cells(vals []string) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		v = strings.NewReplacer("\n", `\n`, "\r", `\r`, "\t", " ", "|", "¦").Replace(v)
		out[i] = clip(v, maxCellRunes)
	}
	return out
}

// formatValue writes a value as the observation shows it.
func formatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		return x
	}
	return fmt.Sprint(v)
}

// clip shortens s to at most n runes, marking the cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

package dotenv

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxFileSize bounds a .env file: a larger one is an error, never read
// whole.
const MaxFileSize = 1 << 20

// ErrInvalid reports a file that cannot be read as a .env file at all:
// larger than MaxFileSize, or not UTF-8. A malformed statement is not such
// an error; it is skipped with a ParseError.
var ErrInvalid = errors.New("dotenv: invalid file")

// Binding is one statement of a .env file.
type Binding struct {
	// Key is the variable's name.
	Key string
	// Value is the value as written, quotes and escapes decoded,
	// ${...} not yet interpolated (see Resolve).
	Value string
	// HasValue is false for a bare key without "=", which sets nothing.
	HasValue bool
	// Line is the 1-based line the statement starts on.
	Line int
}

// ParseError is a statement that does not parse: python-dotenv skips it
// with a warning and reads on from the next line, and so does Parse.
type ParseError struct {
	// Line is the 1-based line the statement starts on.
	Line int
	// Text is the statement's text, at most 80 characters of it.
	Text string
}

// Error implements error.
func (e ParseError) Error() string {
	return fmt.Sprintf("dotenv: line %d: cannot parse statement %q", e.Line, e.Text)
}

// Parse reads the statements of a .env file. It returns the bindings in
// file order (a key may repeat: the last one wins), the statements it
// skipped, and an error wrapping ErrInvalid only for data that is larger
// than MaxFileSize or not UTF-8. A leading byte-order mark is dropped.
func Parse(data []byte) ([]Binding, []ParseError, error) {
	if len(data) > MaxFileSize {
		return nil, nil, fmt.Errorf("%w: %d bytes, more than %d", ErrInvalid, len(data), MaxFileSize)
	}
	if !utf8.Valid(data) {
		return nil, nil, fmt.Errorf("%w: not UTF-8", ErrInvalid)
	}
	r := &reader{s: []rune(strings.TrimPrefix(string(data), "\ufeff")), line: 1}
	var (
		out  []Binding
		errs []ParseError
	)
	for r.pos < len(r.s) {
		b, ok, perr := r.binding()
		switch {
		case perr != nil:
			errs = append(errs, *perr)
		case ok:
			out = append(out, b)
		}
	}
	return out, errs, nil
}

// errSyntax stops one statement; the reader then skips the rest of its
// line.
var errSyntax = errors.New("syntax")

// reader walks the text as python-dotenv's Reader does: each step either
// consumes what its pattern matches or fails, leaving the position where
// it was.
type reader struct {
	s    []rune
	pos  int
	line int // line of pos
	seen int // position up to which line has been counted
}

// lineAt returns the 1-based line of position p, for p >= every earlier
// call's p.
func (r *reader) lineAt(p int) int {
	for ; r.seen < p; r.seen++ {
		switch r.s[r.seen] {
		case '\n':
			r.line++
		case '\r':
			if r.seen+1 >= len(r.s) || r.s[r.seen+1] != '\n' {
				r.line++
			}
		}
	}
	return r.line
}

// binding reads one statement (python-dotenv's parse_binding). ok is
// false where there was nothing but white space or a comment, or a key
// without a value is not wanted; perr is set for a statement skipped.
func (r *reader) binding() (b Binding, ok bool, perr *ParseError) {
	r.skip(isSpace) // _multiline_whitespace
	if r.pos >= len(r.s) {
		return Binding{}, false, nil
	}
	stmt := r.pos
	b.Line = r.lineAt(stmt)
	key, hasKey, err := r.statement(&b)
	if err != nil {
		r.restOfLine()
		text := string(r.s[stmt:r.pos])
		text = strings.TrimRight(text, "\r\n")
		if n := []rune(text); len(n) > 80 {
			text = string(n[:80])
		}
		return Binding{}, false, &ParseError{Line: b.Line, Text: text}
	}
	if !hasKey {
		return Binding{}, false, nil
	}
	b.Key = key
	return b, true, nil
}

// statement reads export, key, value, comment and end of line.
func (r *reader) statement(b *Binding) (key string, hasKey bool, err error) {
	r.export()
	key, hasKey, err = r.key()
	if err != nil {
		return "", false, err
	}
	r.skip(isHorizontalSpace)
	if r.peek() == '=' {
		r.pos++
		r.skip(isHorizontalSpace)
		v, err := r.value()
		if err != nil {
			return "", false, err
		}
		b.Value, b.HasValue = v, true
	}
	r.comment()
	if err := r.endOfLine(); err != nil {
		return "", false, err
	}
	return key, hasKey, nil
}

// peek returns the rune at the position, or -1 at the end.
func (r *reader) peek() rune {
	if r.pos >= len(r.s) {
		return -1
	}
	return r.s[r.pos]
}

// skip consumes runes while keep holds.
func (r *reader) skip(keep func(rune) bool) {
	for r.pos < len(r.s) && keep(r.s[r.pos]) {
		r.pos++
	}
}

// export consumes "export" followed by horizontal white space.
func (r *reader) export() {
	const word = "export"
	end := r.pos + len(word)
	if end < len(r.s) && string(r.s[r.pos:end]) == word && isHorizontalSpace(r.s[end]) {
		r.pos = end
		r.skip(isHorizontalSpace)
	}
}

// key reads a key: none before "#", a quoted one, or a bare one.
func (r *reader) key() (string, bool, error) {
	switch r.peek() {
	case '#':
		return "", false, nil
	case '\'':
		// '([^']+)'
		end := -1
		for i := r.pos + 1; i < len(r.s); i++ {
			if r.s[i] == '\'' {
				end = i
				break
			}
		}
		if end <= r.pos+1 {
			return "", false, errSyntax
		}
		k := string(r.s[r.pos+1 : end])
		r.pos = end + 1
		return k, true, nil
	}
	// ([^=\#\s]+)
	begin := r.pos
	r.skip(func(c rune) bool { return c != '=' && c != '#' && !isSpace(c) })
	if r.pos == begin {
		return "", false, errSyntax
	}
	return string(r.s[begin:r.pos]), true, nil
}

// value reads a value after "=".
func (r *reader) value() (string, error) {
	switch c := r.peek(); c {
	case '\'', '"':
		end := r.closingQuote(c)
		if end < 0 {
			return "", errSyntax
		}
		raw := r.s[r.pos+1 : end]
		r.pos = end + 1
		return unescape(raw, c), nil
	case -1, '\n', '\r':
		return "", nil
	}
	begin := r.pos
	r.skip(func(c rune) bool { return c != '\n' && c != '\r' })
	part := r.s[begin:r.pos]
	// re.sub(r"\s+#.*", "", part).rstrip()
	for i := 1; i < len(part); i++ {
		if part[i] == '#' && isSpace(part[i-1]) {
			part = part[:i]
			break
		}
	}
	return strings.TrimRightFunc(string(part), isSpace), nil
}

// closingQuote returns the position of the quote that closes the value
// opened at the position, as the greedy pattern q((?:\\q|[^q])*)q
// matches: the first quote not preceded by a backslash, or else the last
// (escaped) quote of the text; -1 for none.
func (r *reader) closingQuote(q rune) int {
	best := -1
	for i := r.pos + 1; i < len(r.s); i++ {
		if r.s[i] != q {
			continue
		}
		best = i
		if i == r.pos+1 || r.s[i-1] != '\\' {
			break
		}
	}
	return best
}

// unescape decodes the escapes of a quoted value: \\ and \' in single
// quotes; \\ \' \" \a \b \f \n \r \t \v in double quotes.
func unescape(raw []rune, q rune) string {
	var sb strings.Builder
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' || i+1 >= len(raw) {
			sb.WriteRune(c)
			continue
		}
		next := raw[i+1]
		var out rune = -1
		switch next {
		case '\\', '\'':
			out = next
		}
		if q == '"' {
			switch next {
			case '"':
				out = '"'
			case 'a':
				out = '\a'
			case 'b':
				out = '\b'
			case 'f':
				out = '\f'
			case 'n':
				out = '\n'
			case 'r':
				out = '\r'
			case 't':
				out = '\t'
			case 'v':
				out = '\v'
			}
		}
		if out < 0 {
			sb.WriteRune(c)
			continue
		}
		sb.WriteRune(out)
		i++
	}
	return sb.String()
}

// comment consumes an optional "[white space]# ..." up to the end of the
// line.
func (r *reader) comment() {
	p := r.pos
	for p < len(r.s) && isHorizontalSpace(r.s[p]) {
		p++
	}
	if p >= len(r.s) || r.s[p] != '#' {
		return
	}
	for p < len(r.s) && r.s[p] != '\r' && r.s[p] != '\n' {
		p++
	}
	r.pos = p
}

// endOfLine consumes horizontal white space and one line break (or the
// end of the text); anything else is a syntax error.
func (r *reader) endOfLine() error {
	p := r.pos
	for p < len(r.s) && isHorizontalSpace(r.s[p]) {
		p++
	}
	switch {
	case p >= len(r.s):
	case r.s[p] == '\r' && p+1 < len(r.s) && r.s[p+1] == '\n':
		p += 2
	case r.s[p] == '\r' || r.s[p] == '\n':
		p++
	default:
		return errSyntax
	}
	r.pos = p
	return nil
}

// restOfLine skips to after the next line break ([^\r\n]*(?:\r|\n|\r\n)?).
func (r *reader) restOfLine() {
	r.skip(func(c rune) bool { return c != '\r' && c != '\n' })
	if r.pos < len(r.s) {
		r.pos++
	}
}

// isSpace is Python's str.isspace for one character (the \s of its
// Unicode regular expressions): Go's unicode.IsSpace plus the
// information separators U+001C to U+001F.
func isSpace(c rune) bool {
	return unicode.IsSpace(c) || (c >= 0x1c && c <= 0x1f)
}

// isHorizontalSpace is [^\S\r\n]: white space but a line break.
func isHorizontalSpace(c rune) bool {
	return c != '\r' && c != '\n' && isSpace(c)
}

package toolworld

import (
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/org/agentevolver"
)

// MaxActionBytes bounds the size of an action (content plus structured tool
// calls). Larger actions are rejected without being parsed.
const MaxActionBytes = 32 << 10

// maxArgs bounds the number of arguments of one call.
const maxArgs = 16

// Sentinel kinds of malformed actions, reported inside an *ActionError.
var (
	// ErrNoCall: the action contains no tool call.
	ErrNoCall = errors.New("toolworld: no tool call")
	// ErrMultipleCalls: the action contains more than one call.
	ErrMultipleCalls = errors.New("toolworld: more than one call")
	// ErrSyntax: a command line does not follow the app.api key=value syntax.
	ErrSyntax = errors.New("toolworld: bad call syntax")
	// ErrBadJSON: a JSON tool call could not be decoded.
	ErrBadJSON = errors.New("toolworld: bad JSON tool call")
	// ErrTooLong: the action exceeds MaxActionBytes.
	ErrTooLong = errors.New("toolworld: action too long")
)

// ActionError describes a malformed action: Kind is one of the sentinel
// errors above (testable with errors.Is) and Detail says, for the agent,
// what was wrong and how to fix it.
type ActionError struct {
	Kind   error
	Detail string
}

// Error implements error.
func (e *ActionError) Error() string { return "toolworld: " + e.Detail }

// Unwrap returns Kind.
func (e *ActionError) Unwrap() error { return e.Kind }

func actionErr(kind error, format string, args ...any) *ActionError {
	return &ActionError{Kind: kind, Detail: fmt.Sprintf(format, args...)}
}

// Arg is one named argument of a call; Value is its text (numbers in their
// decimal form).
type Arg struct {
	Name  string
	Value string
}

// Call is one parsed API call, such as contacts.find name=Ann. App, API and
// argument names are lower case; arguments keep the order they were given
// in (JSON arguments are sorted by name).
type Call struct {
	App  string
	API  string
	Args []Arg
}

// Arg returns the value of the named argument and whether it is present.
func (c Call) Arg(name string) (string, bool) {
	for _, a := range c.Args {
		if a.Name == name {
			return a.Value, true
		}
	}
	return "", false
}

// String renders the call as a command line that ParseAction reads back
// unchanged: app.api key=value ..., with values quoted where needed.
func (c Call) String() string {
	var b strings.Builder
	b.WriteString(c.App)
	b.WriteByte('.')
	b.WriteString(c.API)
	for _, a := range c.Args {
		b.WriteByte(' ')
		b.WriteString(a.Name)
		b.WriteByte('=')
		writeValue(&b, a.Value)
	}
	return b.String()
}

// Message renders the call as an assistant message holding one tool block,
// the syntax the expert solver demonstrates.
func (c Call) Message() agentevolver.Message {
	return agentevolver.Message{Role: agentevolver.RoleAssistant, Content: "```tool\n" + c.String() + "\n```"}
}

func writeValue(b *strings.Builder, v string) {
	plain := v != ""
	for _, r := range v {
		if unicode.IsSpace(r) || r == '"' || r == '\'' || r == '\\' || r == '`' || r == '=' {
			plain = false
			break
		}
	}
	if plain {
		b.WriteString(v)
		return
	}
	b.WriteByte('"')
	for i := 0; i < len(v); i++ {
		switch ch := v[i]; ch {
		case '"', '\\', '`':
			b.WriteByte('\\')
			b.WriteByte(ch)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteByte(ch)
		}
	}
	b.WriteByte('"')
}

// ParseAction extracts the one API call of an agent's action. It accepts,
// in this order of precedence:
//
//  1. structured tool calls (msg.ToolCalls, OpenAI style);
//  2. a fenced tool block in the content, holding one command line
//     (app.api key=value ...) or one JSON call;
//  3. a JSON call {"name": "app.api", "arguments": {...}} anywhere in the
//     content (bare, in a ```json fence or in <tool_call> tags).
//
// Function names may use "_" for "." (contacts_find), since OpenAI function
// names cannot contain dots. Text around the call is ignored. Errors are
// *ActionError values whose Detail tells the agent how to fix the action.
func ParseAction(msg agentevolver.Message) (Call, error) {
	size := len(msg.Content)
	for _, tc := range msg.ToolCalls {
		size += len(tc.Function.Name) + len(tc.Function.Arguments)
	}
	if size > MaxActionBytes {
		return Call{}, actionErr(ErrTooLong, "the action is %d bytes, the limit is %d; send one short tool call", size, MaxActionBytes)
	}
	switch len(msg.ToolCalls) {
	case 0:
	case 1:
		return parseJSONCall(msg.ToolCalls[0].Function.Name, []byte(msg.ToolCalls[0].Function.Arguments))
	default:
		return Call{}, actionErr(ErrMultipleCalls, "%d tool calls found; send exactly one call per turn", len(msg.ToolCalls))
	}

	blocks := fencedBlocks(msg.Content)
	var tool []string
	var otherTag string
	for _, b := range blocks {
		if b.tag == "tool" {
			tool = append(tool, b.body)
		} else if otherTag == "" && b.tag != "json" {
			otherTag = b.tag
			if otherTag == "" {
				otherTag = "untagged"
			}
		}
	}
	switch {
	case len(tool) == 1:
		return parseToolBlock(tool[0])
	case len(tool) > 1:
		return Call{}, actionErr(ErrMultipleCalls, "%d tool blocks found; send exactly one call per turn", len(tool))
	}

	call, found, err := findJSONCall(msg.Content)
	if err != nil || found {
		return call, err
	}
	if otherTag != "" {
		return Call{}, actionErr(ErrNoCall, "found a %s code block but no tool block; put the call in a block that starts with ```tool, e.g.\n```tool\ncontacts.find name=Ann\n```", otherTag)
	}
	return Call{}, actionErr(ErrNoCall, "no tool call found; reply with one call in a tool block, e.g.\n```tool\ncontacts.find name=Ann\n```")
}

type block struct{ tag, body string }

// fencedBlocks lists the ``` fenced blocks of s. The tag is the first word
// of the opening line, lower-cased. An unterminated last block runs to the
// end of s, and a block may close on the line of its last command.
func fencedBlocks(s string) []block {
	var out []block
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], "```")
		if j < 0 {
			break
		}
		start := skipBackticks(s, i+j)
		line := s[start:]
		if nl := strings.IndexByte(line, '\n'); nl >= 0 {
			line = line[:nl]
		}
		if k := strings.Index(line, "```"); k >= 0 {
			// One-line block: ```tool contacts.list```.
			tag, body := splitTag(line[:k])
			out = append(out, block{tag: tag, body: body})
			i = skipBackticks(s, start+k)
			continue
		}
		tag, rest := splitTag(line)
		bodyStart := start + len(line)
		body := rest
		if bodyStart < len(s) {
			bodyStart++ // the newline
			end := strings.Index(s[bodyStart:], "```")
			if end < 0 {
				out = append(out, block{tag: tag, body: joinBody(rest, s[bodyStart:])})
				break
			}
			body = joinBody(rest, s[bodyStart:bodyStart+end])
			i = skipBackticks(s, bodyStart+end)
		} else {
			i = len(s)
		}
		out = append(out, block{tag: tag, body: body})
	}
	return out
}

func joinBody(rest, body string) string {
	if strings.TrimSpace(rest) == "" {
		return body
	}
	return rest + "\n" + body
}

func skipBackticks(s string, i int) int {
	for i < len(s) && s[i] == '`' {
		i++
	}
	return i
}

// splitTag splits an opening fence line into its tag (first word, lower
// case) and the rest.
func splitTag(line string) (tag, rest string) {
	line = strings.TrimLeftFunc(line, unicode.IsSpace)
	end := strings.IndexFunc(line, unicode.IsSpace)
	if end < 0 {
		return strings.ToLower(line), ""
	}
	return strings.ToLower(line[:end]), line[end:]
}

// parseToolBlock reads the body of a tool block: one JSON call or one
// command line.
func parseToolBlock(body string) (Call, error) {
	trimmed := strings.TrimSpace(body)
	if strings.HasPrefix(trimmed, "{") {
		return parseJSONObject([]byte(trimmed))
	}
	var lines []string
	for _, l := range strings.Split(body, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	switch len(lines) {
	case 0:
		return Call{}, actionErr(ErrNoCall, "the tool block is empty; write one call in it, e.g. contacts.find name=Ann")
	case 1:
		return parseCommand(lines[0])
	default:
		return Call{}, actionErr(ErrMultipleCalls, "the tool block has %d lines; send exactly one call per turn, then the next one after its result", len(lines))
	}
}

// parseCommand reads one command line: app.api key=value key="quoted value".
func parseCommand(line string) (Call, error) {
	head := line
	rest := ""
	if end := strings.IndexFunc(line, unicode.IsSpace); end >= 0 {
		head, rest = line[:end], line[end:]
	}
	if p := strings.IndexByte(head, '('); p >= 0 {
		return Call{}, actionErr(ErrSyntax, "write arguments as key=value pairs separated by spaces, without parentheses, e.g. contacts.find name=Ann")
	}
	app, api, err := splitName(head, '.')
	if err != nil {
		return Call{}, err
	}
	call := Call{App: app, API: api}
	for i := 0; ; {
		for i < len(rest) && isSpaceByte(rest, i) {
			i += spaceLen(rest, i)
		}
		if i >= len(rest) {
			break
		}
		eq := i
		for eq < len(rest) && rest[eq] != '=' && !isSpaceByte(rest, eq) {
			eq++
		}
		key := rest[i:eq]
		if eq >= len(rest) || rest[eq] != '=' {
			return Call{}, actionErr(ErrSyntax, "argument %q has no value; write key=value, e.g. name=Ann", clip(key))
		}
		if !isIdent(key) {
			return Call{}, actionErr(ErrSyntax, "%q is not an argument name; names are letters, digits and _", clip(key))
		}
		value, next, err := readValue(rest, eq+1)
		if err != nil {
			return Call{}, err
		}
		if err := call.add(strings.ToLower(key), value); err != nil {
			return Call{}, err
		}
		i = next
	}
	return call, nil
}

func (c *Call) add(key, value string) error {
	if _, dup := c.Arg(key); dup {
		return actionErr(ErrSyntax, "argument %q is given twice", key)
	}
	if len(c.Args) >= maxArgs {
		return actionErr(ErrSyntax, "too many arguments (limit %d)", maxArgs)
	}
	c.Args = append(c.Args, Arg{Name: key, Value: value})
	return nil
}

// readValue reads a bare or quoted value starting at s[i] and returns it
// with the index just after it.
func readValue(s string, i int) (string, int, error) {
	if i >= len(s) || isSpaceByte(s, i) {
		return "", i, nil
	}
	q := s[i]
	if q != '"' && q != '\'' {
		end := i
		for end < len(s) && !isSpaceByte(s, end) {
			end++
		}
		return s[i:end], end, nil
	}
	var b strings.Builder
	for j := i + 1; j < len(s); j++ {
		ch := s[j]
		switch {
		case ch == q:
			if j+1 < len(s) && !isSpaceByte(s, j+1) {
				return "", 0, actionErr(ErrSyntax, "put a space after the closing quote of a value")
			}
			return b.String(), j + 1, nil
		case ch == '\\' && q == '"' && j+1 < len(s):
			j++
			switch s[j] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(s[j])
			}
		default:
			b.WriteByte(ch)
		}
	}
	return "", 0, actionErr(ErrSyntax, "a quoted value is missing its closing %c", q)
}

// isSpaceByte reports whether a Unicode space starts at s[i].
func isSpaceByte(s string, i int) bool { return spaceLen(s, i) > 0 }

// spaceLen returns the byte length of the Unicode space at s[i], or 0.
func spaceLen(s string, i int) int {
	if c := s[i]; c < 0x80 {
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' {
			return 1
		}
		return 0
	}
	for _, r := range s[i:] {
		if r != unicode.ReplacementChar && unicode.IsSpace(r) {
			return len(string(r))
		}
		return 0
	}
	return 0
}

// splitName splits "app.api" (or "app_api" with sep '_') into lower-case
// identifiers.
func splitName(name string, sep byte) (app, api string, err error) {
	dot := strings.IndexByte(name, sep)
	if dot < 0 && sep == '.' {
		return "", "", actionErr(ErrSyntax, "a call starts with app.api, e.g. contacts.find; got %q", clip(name))
	}
	if dot < 0 {
		return "", "", actionErr(ErrBadJSON, "tool name %q must be app.api, e.g. contacts.find", clip(name))
	}
	app, api = strings.ToLower(name[:dot]), strings.ToLower(name[dot+1:])
	if !isIdent(app) || !isIdent(api) {
		kind := ErrSyntax
		if sep != '.' {
			kind = ErrBadJSON
		}
		return "", "", actionErr(kind, "%q is not an API name; write app.api, e.g. contacts.find", clip(name))
	}
	return app, api, nil
}

// isIdent reports whether s is a non-empty ASCII identifier.
func isIdent(s string) bool {
	if s == "" || len(s) > 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// clip shortens s for quoting in an observation.
func clip(s string) string {
	const limit = 40
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "..."
}

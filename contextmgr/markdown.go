package contextmgr

import (
	"strings"
	"unicode/utf8"
)

// MaxMarkdownBytes bounds the text ParseMarkdownSections reads; the rest is
// ignored.
const MaxMarkdownBytes = 1 << 20

// ParseMarkdownSections extracts named sections from a markdown reply, the
// parser the reference's Memory strategy imports but does not ship. A
// section starts at an ATX heading ("# name", any level, outside fenced
// code blocks) whose title matches one of names, ignoring case, surrounding
// spaces, emphasis marks and a trailing colon; it runs to the next heading
// that matches one of names. Other headings, and "#" lines inside fenced
// code (Python comments), are content. The result maps each name found with
// non-empty content to its trimmed content; a name that appears twice keeps
// its first section.
func ParseMarkdownSections(text string, names []string) map[string]string {
	if len(text) > MaxMarkdownBytes {
		cut := MaxMarkdownBytes
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut]
	}
	want := make(map[string]string, len(names))
	for _, n := range names {
		want[normaliseTitle(n)] = n
	}
	out := map[string]string{}
	var (
		current string // name being captured, "" when none
		body    []string
		fence   string // opening fence of the code block we are in
	)
	flush := func() {
		if current != "" {
			if c := strings.TrimFunc(strings.Join(body, "\n"), pyIsSpace); c != "" {
				out[current] = c
			}
		}
		current, body = "", nil
	}
	seen := map[string]bool{}
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimSuffix(line, "\r")
		trimmed := strings.TrimLeft(line, " \t")
		if f := fenceOf(trimmed); f != "" {
			switch {
			case fence == "":
				// A line that also closes what it opens is inline code.
				if !strings.Contains(trimmed[len(f):], f[:3]) {
					fence = f
				}
			case strings.HasPrefix(f, fence) && strings.TrimSpace(strings.TrimLeft(trimmed, f[:1])) == "":
				fence = ""
			}
		} else if fence == "" {
			if title, ok := headingTitle(trimmed); ok {
				if name, ok := want[normaliseTitle(title)]; ok {
					flush()
					if !seen[name] {
						seen[name] = true
						current = name
					}
					continue
				}
			}
		}
		if current != "" {
			body = append(body, line)
		}
	}
	flush()
	return out
}

// fenceOf returns the fence (a run of at least three ` or ~) that opens
// line, or "".
func fenceOf(line string) string {
	if line == "" || (line[0] != '`' && line[0] != '~') {
		return ""
	}
	n := 0
	for n < len(line) && line[n] == line[0] {
		n++
	}
	if n < 3 {
		return ""
	}
	return line[:n]
}

// headingTitle returns the title of an ATX heading line.
func headingTitle(line string) (string, bool) {
	n := 0
	for n < len(line) && line[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(line) && line[n] != ' ' && line[n] != '\t') {
		return "", false
	}
	title := strings.TrimSpace(line[n:])
	title = strings.TrimSpace(strings.TrimRight(title, "#"))
	return title, true
}

func normaliseTitle(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.TrimSuffix(s, ":")
	return strings.TrimSpace(strings.Trim(s, "*_`"))
}

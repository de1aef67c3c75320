package textgame

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxActionBytes bounds one command line after trimming. The game's own
// line buffer is 1024 bytes and its parser reads two words, so a longer
// line is never a useful command.
const MaxActionBytes = 200

// ErrBadAction is the cause of every SanitizeAction error. A bad action is
// the agent's mistake, not the environment's: Step answers it with an
// observation starting "error:" and the episode goes on.
var ErrBadAction = errors.New("textgame: bad action")

// SanitizeAction turns an agent's message content into one command line
// for the game: it trims surrounding white space (a trailing newline
// included), strips surrounding pairs of backquotes (`look`), and collapses runs
// of spaces and tabs into one space. It rejects, with an error wrapping
// ErrBadAction, an empty command, one longer than MaxActionBytes, invalid
// UTF-8, and any control character (a newline inside the command included,
// so that one action is exactly one line the game reads).
func SanitizeAction(content string) (string, error) {
	s := strings.TrimSpace(content)
	for len(s) >= 2 && s[0] == '`' && s[len(s)-1] == '`' {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	if s == "" {
		return "", fmt.Errorf("%w: empty command; send one line such as \"go north\" or \"take lamp\"", ErrBadAction)
	}
	if len(s) > MaxActionBytes {
		return "", fmt.Errorf("%w: command of %d bytes, longer than %d; send one short command", ErrBadAction, len(s), MaxActionBytes)
	}
	if !utf8.ValidString(s) {
		return "", fmt.Errorf("%w: command is not valid UTF-8", ErrBadAction)
	}
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case r == ' ' || r == '\t':
			space = true
			continue
		case unicode.IsControl(r) || r == utf8.RuneError || r == '\u2028' || r == '\u2029':
			if r == '\n' || r == '\r' {
				return "", fmt.Errorf("%w: several lines; send exactly one command per action", ErrBadAction)
			}
			return "", fmt.Errorf("%w: control character %U in command", ErrBadAction, r)
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String(), nil
}

// blockedVerbs are commands the environment answers itself, without the
// game: saving and restoring would write or read files, and seed and waste
// are debugging commands that would let an agent change the game's random
// stream or burn its turns.
var blockedVerbs = map[string]string{
	"save":    "saving",
	"suspend": "saving",
	"pause":   "saving",
	"resume":  "restoring",
	"restore": "restoring",
	"restart": "restoring",
	"seed":    "the debugging command seed",
	"waste":   "the debugging command waste",
}

// blocked reports the observation for a command the environment refuses,
// or "" when the game may read it. The game tells words apart by their
// first five letters, so "suspe" and "suspended" count as "suspend".
func blocked(cmd string) string {
	first, _, _ := strings.Cut(strings.ToLower(cmd), " ")
	for verb, what := range blockedVerbs {
		if wordKey(first) == wordKey(verb) {
			return "This environment does not allow " + what + "; the command was not sent to the game."
		}
	}
	return ""
}

// wordKey is the part of a word the game's vocabulary compares.
func wordKey(w string) string {
	if len(w) > 5 {
		return w[:5]
	}
	return w
}

// cleanOutput turns raw terminal output into observation text: it drops
// ANSI escape sequences, carriage returns and other control characters
// (keeping newlines and tabs), trims each line's trailing space and the
// whole text, and bounds it to maxBytes (cutting at a line where it can and
// marking the cut).
func cleanOutput(raw []byte, maxBytes int) string {
	var b strings.Builder
	s := string(raw)
	for i := 0; i < len(s); {
		c := s[i]
		if c == 0x1b { // ESC: skip a CSI sequence, or the next byte
			i++
			if i < len(s) && s[i] == '[' {
				i++
				for i < len(s) && (s[i] < 0x40 || s[i] > 0x7e) {
					i++
				}
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r == '\n' || r == '\t' || (!unicode.IsControl(r) && r != utf8.RuneError) {
			b.WriteRune(r)
		}
	}
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	out := strings.TrimSpace(strings.Join(lines, "\n"))
	for strings.Contains(out, "\n\n\n") {
		out = strings.ReplaceAll(out, "\n\n\n", "\n\n")
	}
	if maxBytes > 0 && len(out) > maxBytes {
		const mark = "\n[output truncated]"
		cut := maxBytes - len(mark)
		if cut < 0 {
			cut = 0
		}
		for cut > 0 && !utf8.RuneStart(out[cut]) {
			cut--
		}
		if nl := strings.LastIndexByte(out[:cut], '\n'); nl > cut/2 {
			cut = nl
		}
		out = out[:cut] + mark
	}
	return out
}

package tokenizer

import (
	"fmt"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
)

// splitter cuts a stretch of normalised text into pre-tokens; BPE merges
// never cross a pre-token boundary. Pieces are appended to dst as substrings
// of s, in order, non-empty and covering s.
type splitter interface {
	split(s string, dst []string) []string
}

// Pre-tokenizer patterns recognised by NewBPE and served by the hand-written
// splitter instead of a regular expression engine.
const (
	// QwenPattern is the Split pattern of the Qwen2, Qwen2.5 and Qwen3
	// tokenizers: numbers are split into single digits.
	QwenPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	// WordPattern splits text into runs of letters, single digits, runs of
	// other symbols and runs of white space, so that a word is the same
	// token whatever precedes it: "Zack" in " Zack", "=Zack" and "(Zack"
	// (QwenPattern makes three tokens of them, " Zack", "=Zack" and
	// "Zack"). A small model trained from scratch copies a value from its
	// prompt into a call (name=Zack) by attending to the same token, which
	// it learns far sooner than an association between two. It costs a
	// token per space.
	WordPattern = `\p{L}+|\p{N}|[^\s\p{L}\p{N}]+|\s+`
	// CL100KPattern is the same pattern with numbers split into groups of up
	// to three digits (OpenAI cl100k_base, Llama 3).
	CL100KPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	// GPT2Pattern is the pattern of the ByteLevel pre-tokenizer when its
	// use_regex option is set.
	GPT2Pattern = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`
)

// Character classes of the Qwen pattern. Whitespace is Unicode White_Space
// (what \s means to the Oniguruma engine of the Hugging Face tokenizers),
// split into CR/LF and the rest because the pattern treats them differently.
const (
	classOther   = iota // neither letter, number nor whitespace
	classLetter         // \p{L}
	classNumber         // \p{N}
	classSpace          // \s except \r and \n
	classNewline        // \r or \n
)

// asciiClass is runeClass for an ASCII byte, without table lookups.
func asciiClass(c byte) uint8 {
	switch {
	case c|0x20 >= 'a' && c|0x20 <= 'z':
		return classLetter
	case c >= '0' && c <= '9':
		return classNumber
	case c == '\r' || c == '\n':
		return classNewline
	case c == ' ' || (c >= '\t' && c <= '\f'):
		return classSpace
	}
	return classOther
}

func runeClass(r rune) uint8 {
	switch {
	case r == '\r' || r == '\n':
		return classNewline
	case unicode.IsLetter(r):
		return classLetter
	case unicode.IsNumber(r):
		return classNumber
	case unicode.IsSpace(r):
		return classSpace
	}
	return classOther
}

// classAt returns the class and byte length of the rune at s[i]. An invalid
// UTF-8 byte is one rune of class other, so that no byte is ever lost.
func classAt(s string, i int) (class uint8, size int) {
	if c := s[i]; c < utf8.RuneSelf {
		return asciiClass(c), 1
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && size == 1 {
		return classOther, 1
	}
	return runeClass(r), size
}

// qwenSplitter matches QwenPattern (maxDigits 1) or CL100KPattern (maxDigits
// 3) by hand: it takes, at each position, the first alternative of the
// pattern that matches there, exactly as a backtracking engine would, in one
// pass without backtracking.
//
// The contractions are matched case-insensitively with Unicode simple case
// folding, as Oniguruma does, so "'ſ" (long s) counts as "'s"; the JavaScript
// port spells the group as [sS] and differs on that one letter.
type qwenSplitter struct {
	maxDigits int
}

func (q qwenSplitter) split(s string, dst []string) []string {
	for i := 0; i < len(s); {
		end := q.next(s, i)
		dst = append(dst, s[i:end])
		i = end
	}
	return dst
}

// next returns the end of the pre-token that starts at s[i].
func (q qwenSplitter) next(s string, i int) int {
	c, n := classAt(s, i)
	// (?i:'s|'t|'re|'ve|'m|'ll|'d)
	if s[i] == '\'' {
		if k := contraction(s[i+1:]); k > 0 {
			return i + 1 + k
		}
	}
	switch c {
	case classLetter:
		// [^\r\n\p{L}\p{N}]?\p{L}+ with the optional part empty.
		return scanClass(s, i+n, classLetter, -1)
	case classNumber:
		// \p{N}{1,maxDigits}
		return scanClass(s, i+n, classNumber, q.maxDigits-1)
	case classOther, classSpace:
		if i+n < len(s) {
			if c2, _ := classAt(s, i+n); c2 == classLetter {
				// [^\r\n\p{L}\p{N}]?\p{L}+ with one leading character.
				return scanClass(s, i+n, classLetter, -1)
			}
		}
	}
	// ` ?[^\s\p{L}\p{N}]+[\r\n]*`
	start := -1
	if c == classOther {
		start = i
	} else if s[i] == ' ' && i+1 < len(s) {
		if c2, _ := classAt(s, i+1); c2 == classOther {
			start = i + 1
		}
	}
	if start >= 0 {
		end := scanClass(s, start, classOther, -1)
		for end < len(s) && (s[end] == '\r' || s[end] == '\n') {
			end++
		}
		return end
	}
	// Whitespace: \s*[\r\n]+ ends after the last CR/LF of the run;
	// \s+(?!\S) leaves the run's last character to the next pre-token when
	// something follows; \s+ takes a lone character.
	end, lastNewline, lastStart := i, -1, i
	for end < len(s) {
		cl, size := classAt(s, end)
		if cl != classSpace && cl != classNewline {
			break
		}
		if cl == classNewline {
			lastNewline = end
		}
		lastStart = end
		end += size
	}
	switch {
	case lastNewline >= 0:
		return lastNewline + 1
	case end == len(s) || lastStart == i:
		return end
	default:
		return lastStart
	}
}

// scanClass returns the end of the run of class c that starts at s[i],
// counting at most limit more runes (no limit when limit < 0).
func scanClass(s string, i int, c uint8, limit int) int {
	for i < len(s) && limit != 0 {
		cl, size := classAt(s, i)
		if cl != c {
			break
		}
		i += size
		limit--
	}
	return i
}

// contraction returns the byte length of the contraction suffix ("s", "re",
// ...) that starts s, compared case-insensitively, or 0.
func contraction(s string) int {
	if len(s) == 0 {
		return 0
	}
	if len(s) > 1 && s[0] == 0xC5 && s[1] == 0xBF { // U+017F LATIN SMALL LETTER LONG S
		return 2
	}
	lower := func(b byte) byte { return b | 0x20 }
	switch lower(s[0]) {
	case 's', 't', 'm', 'd':
		return 1
	case 'r', 'v':
		if len(s) > 1 && lower(s[1]) == 'e' {
			return 2
		}
	case 'l':
		if len(s) > 1 && lower(s[1]) == 'l' {
			return 2
		}
	}
	return 0
}

// regexSplitter cuts text by the matches of a regular expression and keeps
// both the matches and the text between them (the "Isolated" behaviour).
type regexSplitter struct {
	re *regexp2.Regexp
}

func newRegexSplitter(pattern string) (*regexSplitter, error) {
	re, err := regexp2.Compile(pattern, regexp2.None)
	if err != nil {
		return nil, fmt.Errorf("%w: pre-tokenizer pattern %q: %v", ErrUnsupported, pattern, err)
	}
	return &regexSplitter{re: re}, nil
}

func (r *regexSplitter) split(s string, dst []string) []string {
	if s == "" {
		return dst
	}
	// regexp2 works on runes and reports rune offsets. Converting a string
	// to runes turns every invalid byte into one U+FFFD, so rune k is the
	// k-th step of utf8.DecodeRuneInString over s and maps back exactly.
	runes := []rune(s)
	offsets := make([]int, len(runes)+1)
	for k, b := 0, 0; k < len(runes); k++ {
		_, size := utf8.DecodeRuneInString(s[b:])
		b += size
		offsets[k+1] = b
	}
	done := 0
	m, err := r.re.FindRunesMatch(runes)
	for err == nil && m != nil {
		start, end := offsets[m.Index], offsets[m.Index+m.Length]
		if end > start {
			if done < start {
				dst = append(dst, s[done:start])
			}
			dst = append(dst, s[start:end])
			done = end
		}
		m, err = r.re.FindNextMatch(m)
	}
	// A regexp2 error is a match timeout, which is not set here; keep the
	// rest of the text as one piece rather than losing it.
	if done < len(s) {
		dst = append(dst, s[done:])
	}
	return dst
}

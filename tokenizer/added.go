package tokenizer

import (
	"sort"
	"unicode"
	"unicode/utf8"
)

// AddedToken is a token matched literally in the input before the text is
// normalised and pre-tokenised, such as "<|im_end|>". The flags mean what they
// mean in a Hugging Face tokenizer.json.
type AddedToken struct {
	// ID is the token id.
	ID int `json:"id"`
	// Content is the literal text of the token.
	Content string `json:"content"`
	// Special marks control tokens (end of turn, padding) as opposed to
	// ordinary added words such as "<think>".
	Special bool `json:"special"`
	// SingleWord matches the token only when it is not part of a longer word.
	SingleWord bool `json:"single_word"`
	// LStrip makes the token swallow the whitespace on its left.
	LStrip bool `json:"lstrip"`
	// RStrip makes the token swallow the whitespace on its right.
	RStrip bool `json:"rstrip"`
	// Normalized matches the token in the normalised text rather than in the
	// raw input.
	Normalized bool `json:"normalized"`
}

// addedMatcher finds added tokens in text: leftmost match first and, among
// the tokens that start there, the longest, as the Hugging Face
// implementation does.
type addedMatcher struct {
	tokens []AddedToken
	// byFirst[b] lists the indexes of the tokens whose content starts with
	// byte b, longest first.
	byFirst [256][]int
	// firsts holds the distinct first bytes, so a text without any of them
	// is skipped with one scan.
	firsts []byte
}

func newAddedMatcher(tokens []AddedToken) *addedMatcher {
	m := &addedMatcher{}
	for _, t := range tokens {
		if t.Content == "" {
			continue
		}
		m.tokens = append(m.tokens, t)
	}
	for i, t := range m.tokens {
		b := t.Content[0]
		if len(m.byFirst[b]) == 0 {
			m.firsts = append(m.firsts, b)
		}
		m.byFirst[b] = append(m.byFirst[b], i)
	}
	for b := range m.byFirst {
		list := m.byFirst[b]
		sort.SliceStable(list, func(i, j int) bool {
			return len(m.tokens[list[i]].Content) > len(m.tokens[list[j]].Content)
		})
	}
	return m
}

// indexFirst returns the first index at or after from whose byte starts some
// token, or -1.
func (m *addedMatcher) indexFirst(text string, from int) int {
	if len(m.firsts) == 1 {
		for i := from; i < len(text); i++ {
			if text[i] == m.firsts[0] {
				return i
			}
		}
		return -1
	}
	for i := from; i < len(text); i++ {
		if len(m.byFirst[text[i]]) > 0 {
			return i
		}
	}
	return -1
}

// split cuts text into the stretches between added tokens and the tokens
// themselves, calling emit for each in order: tok is nil for a stretch of
// ordinary text. Stretches are never empty.
func (m *addedMatcher) split(text string, emit func(seg string, tok *AddedToken)) {
	if m == nil || len(m.tokens) == 0 {
		if text != "" {
			emit(text, nil)
		}
		return
	}
	done := 0 // text[:done] has been emitted
	pos := 0  // where the search goes on
	for pos < len(text) {
		i := m.indexFirst(text, pos)
		if i < 0 {
			break
		}
		matched := -1
		for _, k := range m.byFirst[text[i]] {
			c := m.tokens[k].Content
			if len(text)-i >= len(c) && text[i:i+len(c)] == c {
				matched = k
				break
			}
		}
		if matched < 0 {
			pos = i + 1
			continue
		}
		tok := &m.tokens[matched]
		start, stop := i, i+len(tok.Content)
		// The longest token at the leftmost position is the only candidate
		// there; when it is refused the search resumes after it, as an
		// Aho-Corasick leftmost-longest scan does.
		pos = stop
		if tok.SingleWord && (endsWithWordChar(text[:start]) || startsWithWordChar(text[stop:])) {
			continue
		}
		if tok.LStrip {
			start = max(start-trailingSpace(text[:start]), done)
		}
		if tok.RStrip {
			stop += leadingSpace(text[stop:])
			pos = stop
		}
		if done < start {
			emit(text[done:start], nil)
		}
		emit(text[start:stop], tok)
		done = stop
	}
	if done < len(text) {
		emit(text[done:], nil)
	}
}

func isWordChar(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)
}

func endsWithWordChar(s string) bool {
	r, n := utf8.DecodeLastRuneInString(s)
	return n > 0 && isWordChar(r)
}

func startsWithWordChar(s string) bool {
	r, n := utf8.DecodeRuneInString(s)
	return n > 0 && isWordChar(r)
}

// trailingSpace is the byte length of the whitespace that ends s.
func trailingSpace(s string) int {
	n := 0
	for len(s) > n {
		r, size := utf8.DecodeLastRuneInString(s[:len(s)-n])
		if !unicode.IsSpace(r) {
			break
		}
		n += size
	}
	return n
}

// leadingSpace is the byte length of the whitespace that starts s.
func leadingSpace(s string) int {
	n := 0
	for n < len(s) {
		r, size := utf8.DecodeRuneInString(s[n:])
		if !unicode.IsSpace(r) {
			break
		}
		n += size
	}
	return n
}

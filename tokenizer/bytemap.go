package tokenizer

import "unicode/utf8"

// byteAlphabet is the GPT-2 byte-to-unicode map used by byte-level BPE
// vocabularies: printable Latin-1 bytes stand for themselves and the other 68
// bytes are shifted to U+0100 and up, so that every token is printable text.
type byteAlphabet struct {
	// char[b] is the rune that stands for byte b.
	char [256]rune
	// encoded[b] is char[b] as UTF-8.
	encoded [256]string
	// byteOf maps a rune of the alphabet back to its byte; ok is false for a
	// rune outside the alphabet.
	byteOf map[rune]byte
}

func newByteAlphabet() *byteAlphabet {
	a := &byteAlphabet{byteOf: make(map[rune]byte, 256)}
	printable := func(b int) bool {
		return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF)
	}
	next := rune(256)
	for b := 0; b < 256; b++ {
		r := rune(b)
		if !printable(b) {
			r = next
			next++
		}
		a.char[b] = r
		a.encoded[b] = string(r)
		a.byteOf[r] = byte(b)
	}
	return a
}

// decode maps a token written in the alphabet back to its bytes. ok is false
// when the token holds a rune outside the alphabet.
func (a *byteAlphabet) decode(token string) (b []byte, ok bool) {
	b = make([]byte, 0, len(token))
	for _, r := range token {
		c, found := a.byteOf[r]
		if !found {
			return nil, false
		}
		b = append(b, c)
	}
	return b, true
}

// encode writes s in the alphabet.
func (a *byteAlphabet) encode(s string) string {
	buf := make([]byte, 0, 2*len(s))
	for i := 0; i < len(s); i++ {
		buf = utf8.AppendRune(buf, a.char[s[i]])
	}
	return string(buf)
}

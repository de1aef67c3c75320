package mcp

import (
	"bufio"
	"fmt"
	"strconv"
)

// Bounds on what one message from a stdio or Dial server may hold once
// read. The frame bound (maxFrameBytes, 16 MiB) still applies to the raw
// line, but the line is never buffered whole: its string values are cut
// as it is read, so that a 15 MB tool result, of which the agent sees
// MaxObservationBytes and the checks maxRecordBytes, costs a few
// megabytes instead of about 13 copies of itself (the line, the SDK's
// decoding, the result's text and its renderings).
const (
	// maxStringBytes bounds one JSON string of a message: the most of a
	// tool result's text that a check can see (maxRecordBytes).
	maxStringBytes = maxRecordBytes
	// maxMessageStringBytes bounds the string bytes of one message kept
	// beyond minStringBytes per string.
	maxMessageStringBytes = 4 * maxStringBytes
	// minStringBytes is what every string keeps, whatever the message's
	// budget: keys, ids, types and names are never cut.
	minStringBytes = 1 << 10
	// maxJSONDepth is the nesting the shrinker follows; deeper messages
	// are passed on uncut (encoding/json refuses them anyway).
	maxJSONDepth = 10000
)

// truncatedNote ends a string value that was cut.
func truncatedNote(more int) string {
	return "… [truncated by the environment: " + strconv.Itoa(more) + " more bytes]"
}

// shrinker cuts the long string values of one JSON text streamed through
// it, keeping it valid JSON. A text string is cut on a character
// boundary and ends with truncatedNote; the value of a "data" or "blob"
// key (base64 images, audio and resources, which the agent sees only as
// placeholders) is cut to a multiple of four characters without a note,
// so that it still decodes. Its input need not be JSON: stray output is
// copied and cut the same way, for isMessage to drop.
type shrinker struct {
	out    []byte
	budget int // string bytes left above minStringBytes

	stack    []bool // open containers, true for an object
	deep     int    // nesting beyond maxJSONDepth
	wantKey  bool   // the next string in this object is a key
	key      string // the latest short key
	inString bool
	isKey    bool
	base64   bool
	escaped  bool // the previous byte was a backslash
	hex      int  // \u digits still to come
	start    int  // offset in out of the string's first content byte
	chars    int  // characters of the string kept
	limit    int  // the string's limit in bytes
	skipping bool
	skipped  int
}

func newShrinker() *shrinker { return &shrinker{budget: maxMessageStringBytes} }

// write processes the next bytes of the text.
func (s *shrinker) write(p []byte) {
	for _, b := range p {
		if s.inString {
			s.stringByte(b)
			continue
		}
		s.out = append(s.out, b)
		switch b {
		case '"':
			s.openString()
		case '{', '[':
			if len(s.stack) >= maxJSONDepth {
				s.deep++
				continue
			}
			s.stack = append(s.stack, b == '{')
			s.wantKey = b == '{'
		case '}', ']':
			if s.deep > 0 {
				s.deep--
			} else if len(s.stack) > 0 {
				s.stack = s.stack[:len(s.stack)-1]
			}
			s.wantKey = false
		case ',':
			s.wantKey = len(s.stack) > 0 && s.stack[len(s.stack)-1] && s.deep == 0
		case ':':
			s.wantKey = false
		}
	}
}

func (s *shrinker) openString() {
	s.inString, s.isKey = true, s.wantKey
	s.base64 = !s.isKey && (s.key == "data" || s.key == "blob")
	s.escaped, s.hex, s.chars, s.skipping, s.skipped = false, 0, 0, false, 0
	s.start = len(s.out)
	s.limit = minStringBytes + max(0, min(maxStringBytes-minStringBytes, s.budget))
	if s.deep > 0 {
		s.limit = maxFrameBytes // not followed: copied whole
	}
}

func (s *shrinker) stringByte(b byte) {
	if s.skipping {
		switch {
		case s.escaped:
			s.escaped = false
		case b == '\\':
			s.escaped = true
		case b == '"':
			if !s.base64 {
				s.out = append(s.out, truncatedNote(s.skipped)...)
			}
			s.closeString()
			return
		}
		s.skipped++
		return
	}
	boundary := !s.escaped && s.hex == 0 && b&0xC0 != 0x80
	if boundary && b != '"' && len(s.out)-s.start >= s.limit && (!s.base64 || s.chars%4 == 0) {
		s.skipping = true
		s.stringByte(b)
		return
	}
	s.out = append(s.out, b)
	switch {
	case s.escaped:
		s.escaped = false
		if b == 'u' {
			s.hex = 4
		}
	case s.hex > 0:
		s.hex--
	case b == '\\':
		s.escaped = true
		s.chars++
	case b == '"':
		s.closeString()
	case b&0xC0 != 0x80:
		s.chars++
	}
}

func (s *shrinker) closeString() {
	if !s.skipping {
		s.out = s.out[:len(s.out)-1] // the closing quote, appended below
	}
	n := len(s.out) - s.start
	if s.isKey {
		if n <= 16 {
			s.key = string(s.out[s.start:])
		} else {
			s.key = ""
		}
	}
	s.out = append(s.out, '"')
	s.budget -= max(0, n-minStringBytes)
	s.inString, s.wantKey = false, false
}

// readShrunkLine reads one line of r (at most limit bytes; at the end of
// r, the last unterminated one with io.EOF) and returns it with its long
// strings cut (see shrinker). The line is never held whole.
func readShrunkLine(r *bufio.Reader, limit int) ([]byte, error) {
	s := newShrinker()
	n := 0
	for {
		chunk, err := r.ReadSlice('\n')
		n += len(chunk)
		if n > limit {
			// An oversized message ends the connection, as it always did.
			return nil, fmt.Errorf("server message longer than %d bytes", limit)
		}
		s.write(chunk)
		if err == bufio.ErrBufferFull {
			continue
		}
		return s.out, err
	}
}

package experience

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// The helpers of ReMeClient's HTTP exchange. (OpenAIEmbedder goes through
// llm/openai; which failures are transient is internal/retry's, for
// both.)

// maxErrorBodyBytes bounds how much of an error response is read.
const maxErrorBodyBytes = 64 << 10

// maxMessageBytes bounds a server message kept in an error.
const maxMessageBytes = 2048

// errorMessage returns the message of an error response body in the
// common shapes: {"error": {"message"}}, {"error": "text"}, {"message"},
// {"detail": ...} (FastAPI); anything else is the message itself. It
// never fails.
func errorMessage(body []byte) string {
	body = bytes.TrimSpace(body)
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil || top == nil {
		return clip(string(body), maxMessageBytes)
	}
	fields := top
	if raw, ok := top["error"]; ok {
		var inner map[string]json.RawMessage
		if json.Unmarshal(raw, &inner) != nil || inner == nil {
			return clip(rawText(raw), maxMessageBytes)
		}
		fields = inner
	}
	if msg := clip(rawText(fields["message"]), maxMessageBytes); msg != "" {
		return msg
	}
	return clip(rawText(top["detail"]), maxMessageBytes)
}

// rawText renders a JSON value as text: a string as itself, null as "",
// anything else as its JSON.
func rawText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// clip cuts s to at most n bytes on a UTF-8 boundary, and makes it valid
// UTF-8.
func clip(s string, n int) string {
	s = strings.ToValidUTF8(strings.TrimSpace(s), "\uFFFD")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// boundedBody fails with tooLarge once more than remaining bytes have been
// read, instead of silently truncating like io.LimitReader.
type boundedBody struct {
	io.ReadCloser
	remaining int64
	tooLarge  error
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.remaining < 0 {
		return 0, b.tooLarge
	}
	if int64(len(p)) > b.remaining+1 {
		p = p[:b.remaining+1]
	}
	n, err := b.ReadCloser.Read(p)
	b.remaining -= int64(n)
	if b.remaining < 0 {
		return n + int(b.remaining), fmt.Errorf("%w: over the limit", b.tooLarge)
	}
	return n, err
}

package mcp

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"mime"
	"net/http"
)

// shrinkingTransport bounds what a streamable-HTTP server's responses
// cost, as lineFilter does for stdio and Dial servers: every response
// body is read through the shrinker, so that a 15 MB tool result is cut to
// what the agent and the checks can see while it arrives instead of being
// read whole (the SDK reads an application/json body with io.ReadAll,
// without a bound) and copied by each decoding.
type shrinkingTransport struct{ base http.RoundTripper }

func (t shrinkingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil || resp.Body == nil || resp.Body == http.NoBody {
		return resp, err
	}
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mediaType == "text/event-stream" {
		// An event stream may stay open: its lines are cut one by one as
		// they arrive. Each data line of the SDK's servers is one message;
		// a message split over several data lines is cut line by line,
		// which keeps each line's strings valid but may cut a string that
		// continues on the next line.
		resp.Body = &eventStreamBody{r: bufio.NewReaderSize(resp.Body, 64<<10), c: resp.Body}
	} else {
		resp.Body = &messageBody{r: resp.Body}
	}
	resp.ContentLength = -1
	resp.Header.Del("Content-Length")
	return resp, nil
}

// eventStreamBody passes on an event stream with each line's long strings
// cut (readShrunkLine); a line longer than maxFrameBytes ends the stream.
type eventStreamBody struct {
	r       *bufio.Reader
	c       io.Closer
	pending []byte
	err     error
}

func (b *eventStreamBody) Read(p []byte) (int, error) {
	for len(b.pending) == 0 {
		if b.err != nil {
			return 0, b.err
		}
		b.pending, b.err = readShrunkLine(b.r, maxFrameBytes)
	}
	n := copy(p, b.pending)
	b.pending = b.pending[n:]
	return n, nil
}

func (b *eventStreamBody) Close() error { return b.c.Close() }

// messageBody is a whole-message body (application/json, or an error's
// body) read through one shrinker on first use: its raw size is bounded by
// maxFrameBytes and what is kept by the shrinker's budget.
type messageBody struct {
	r    io.ReadCloser
	out  *bytes.Reader
	err  error
	read bool
}

func (b *messageBody) Read(p []byte) (int, error) {
	if !b.read {
		b.read = true
		b.out, b.err = shrinkMessage(b.r, maxFrameBytes)
	}
	if b.err != nil {
		return 0, b.err
	}
	return b.out.Read(p)
}

func (b *messageBody) Close() error { return b.r.Close() }

// shrinkMessage reads r to its end (at most limit bytes) through a
// shrinker and returns what the shrinker kept.
func shrinkMessage(r io.Reader, limit int) (*bytes.Reader, error) {
	s := newShrinker()
	buf := make([]byte, 64<<10)
	n := 0
	for {
		k, err := r.Read(buf)
		n += k
		if n > limit {
			return nil, fmt.Errorf("server message longer than %d bytes", limit)
		}
		s.write(buf[:k])
		if err == io.EOF {
			return bytes.NewReader(s.out), nil
		}
		if err != nil {
			return nil, err
		}
	}
}

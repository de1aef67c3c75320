package launcher

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"time"
)

// maxLine bounds the part of a log line kept while looking for a ready
// line; a longer line is searched in pieces of this size.
const maxLine = 64 << 10

// logScanner reads a growing log from where it stopped and looks for a
// ready line.
type logScanner struct {
	path    string
	want    string
	offset  int64
	partial []byte // the line being written
	found   string // the line that held want
}

// scan reads what the log gained and reports whether want has shown up.
func (s *logScanner) scan() (bool, error) {
	if s.found != "" {
		return true, nil
	}
	f, err := os.Open(s.path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	if _, err := f.Seek(s.offset, io.SeekStart); err != nil {
		return false, err
	}
	buf := make([]byte, 32<<10)
	for {
		n, err := f.Read(buf)
		s.offset += int64(n)
		data := buf[:n]
		for len(data) > 0 {
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				s.partial = append(s.partial, data...)
				data = nil
			} else {
				s.partial = append(s.partial, data[:i]...)
				data = data[i+1:]
			}
			if bytes.Contains(s.partial, []byte(s.want)) {
				s.found = string(s.partial)
				return true, nil
			}
			if i >= 0 {
				s.partial = s.partial[:0]
			} else if len(s.partial) > maxLine {
				// Keep enough to match want across the cut.
				keep := min(len(s.want), len(s.partial))
				s.partial = append(s.partial[:0], s.partial[len(s.partial)-keep:]...)
			}
		}
		if errors.Is(err, io.EOF) || n == 0 {
			return false, nil
		}
		if err != nil {
			return false, err
		}
	}
}

// urlPattern finds the URL a ready line announces.
var urlPattern = regexp.MustCompile(`https?://[^\s"'<>]+`)

// lineURL returns the first URL of line, "" for none.
func lineURL(line string) string {
	return strings.TrimRight(urlPattern.FindString(line), ".,;)")
}

// probe reports whether url answers with a 2xx or 3xx status.
func probe(ctx context.Context, client *http.Client, url string) bool {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	return resp.StatusCode >= 200 && resp.StatusCode < 400
}

// tailLines returns at most the last n lines of the file, from its last
// 4 KiB, for error messages.
func tailLines(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	const window = 4 << 10
	var start int64
	if fi, err := f.Stat(); err == nil && fi.Size() > window {
		start = fi.Size() - window
	}
	data, err := io.ReadAll(io.NewSectionReader(f, start, window))
	if err != nil || len(data) == 0 {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(bytes.ToValidUTF8(data, []byte("?"))), "\n"), "\n")
	if start > 0 && len(lines) > 1 {
		lines = lines[1:] // the first is cut
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// describe says what a readiness test waits for.
func (r Ready) describe() string {
	var parts []string
	if r.Line != "" {
		parts = append(parts, fmt.Sprintf("the line %q in its log", r.Line))
	}
	if r.URL != "" {
		parts = append(parts, "an answer from "+r.URL)
	}
	if len(parts) == 0 {
		return fmt.Sprintf("it to run for %v", minAlive)
	}
	return strings.Join(parts, " and ")
}

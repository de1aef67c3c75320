package jsonl

import (
	"bufio"
	"bytes"
	"io"
)

// Lines calls fn with each non-blank line of r, trimmed of surrounding
// white space, and its line number (from 1, counting blank lines). It
// stops at fn's first error and returns it unchanged. A line longer than
// maxLine bytes stops it with an error matching bufio.ErrTooLong, and a
// failing r with r's error. line is valid only during the call: fn must
// copy what it keeps (json.Unmarshal does).
func Lines(r io.Reader, maxLine int, fn func(n int, line []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, min(64<<10, maxLine)), maxLine)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if err := fn(n, line); err != nil {
			return err
		}
	}
	return sc.Err()
}

package runlog

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock advances by step on every reading.
type fakeClock struct {
	mu   sync.Mutex
	now  time.Time
	step time.Duration
}

func (c *fakeClock) read() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(c.step)
	return c.now
}

func newPlainProgress(buf *bytes.Buffer, total int64, opts ProgressOptions, step time.Duration) *Progress {
	clock := &fakeClock{now: t0, step: step}
	p := NewProgress(buf, total, opts)
	p.now = clock.read
	p.start = t0
	return p
}

func TestProgressPlainLines(t *testing.T) {
	tests := []struct {
		name  string
		total int64
		opts  ProgressOptions
		tick  time.Duration // clock advance per update
		adds  int
		want  string
	}{
		{"a line per interval and a final one", 10, ProgressOptions{Description: "train", PlainInterval: 3 * time.Second}, time.Second, 10,
			"train: 1/10 (10%) elapsed 1s\n" +
				"train: 4/10 (40%) elapsed 4s\n" +
				"train: 7/10 (70%) elapsed 7s\n" +
				"train: 10/10 (100%) elapsed 10s\n"},
		{"no duplicate final line", 3, ProgressOptions{PlainInterval: time.Nanosecond}, time.Second, 3,
			"1/3 (33%) elapsed 1s\n2/3 (66%) elapsed 2s\n3/3 (100%) elapsed 3s\n"},
		{"unknown total", 0, ProgressOptions{Description: "explore", PlainInterval: time.Hour}, time.Minute, 5,
			"explore: 1 elapsed 1m0s\nexplore: 5 elapsed 6m0s\n"},
		{"default interval is 30s", 100, ProgressOptions{}, 10 * time.Second, 7,
			"1/100 (1%) elapsed 10s\n4/100 (4%) elapsed 40s\n7/100 (7%) elapsed 1m10s\n"},
		{"negative interval is silent", 5, ProgressOptions{PlainInterval: -1}, time.Second, 5, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			p := newPlainProgress(&buf, tt.total, tt.opts, tt.tick)
			for range tt.adds {
				p.Add(1)
			}
			p.Finish()
			p.Finish()
			p.Add(1) // after Finish: ignored
			if got := buf.String(); got != tt.want {
				t.Errorf("output\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestProgressDescribe(t *testing.T) {
	var buf bytes.Buffer
	p := newPlainProgress(&buf, 2, ProgressOptions{Description: "warm-up", PlainInterval: time.Nanosecond}, time.Second)
	p.Add(1)
	p.Describe("rl")
	p.Add(1)
	want := "warm-up: 1/2 (50%) elapsed 1s\nrl: 2/2 (100%) elapsed 2s\n"
	if got := buf.String(); got != want {
		t.Errorf("output %q, want %q", got, want)
	}
}

// TestProgressNonTerminalFile checks a real file, which has an Fd but is not
// a terminal: plain lines only, without escape codes or carriage returns.
func TestProgressNonTerminalFile(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "log.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := NewProgress(f, 50, ProgressOptions{Description: "steps", PlainInterval: time.Nanosecond})
	if p.bar != nil {
		t.Fatal("a bar was made for a regular file")
	}
	for range 50 {
		p.Add(1)
	}
	p.Finish()
	data, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	if bytes.ContainsAny(data, "\x1b\r") {
		t.Errorf("escape code or carriage return written to a file: %q", data)
	}
	if !strings.HasSuffix(string(data), "steps: 50/50 (100%) elapsed 0s\n") {
		t.Errorf("output ends %q", data[max(0, len(data)-60):])
	}
}

func TestProgressNilAndZero(t *testing.T) {
	var nilProgress *Progress
	nilProgress.Add(1)
	nilProgress.Describe("x")
	nilProgress.Finish()
	var zero Progress
	zero.Add(1)
	zero.Describe("x")
	zero.Finish()
	silent := NewProgress(nil, 10, ProgressOptions{})
	silent.Add(3)
	silent.Finish()
}

func TestProgressConcurrent(t *testing.T) {
	var buf lockedBuffer
	p := NewProgress(&buf, 400, ProgressOptions{PlainInterval: time.Nanosecond})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				p.Add(1)
			}
		})
	}
	wg.Wait()
	p.Finish()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "400/400 (100%)") {
		t.Errorf("last line %q, want the full count", last)
	}
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

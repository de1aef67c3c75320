package episodelog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// FileName is the episode log's name in a run directory.
const FileName = "episodes.jsonl"

// Writer appends episodes to a log within its Config's bounds. It is safe
// for concurrent use.
type Writer struct {
	mu    sync.Mutex
	cfg   Config
	f     *os.File
	size  int64
	err   error
	count map[stepKey]int
}

type stepKey struct {
	phase  string
	step   int
	failed bool
}

// Create starts a new log at path, replacing any old one.
func Create(path string, cfg Config) (*Writer, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("episodelog: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("episodelog: %w", err)
	}
	return &Writer{cfg: cfg, f: f, count: map[stepKey]int{}}, nil
}

// OpenForResume reopens the log at path for a run resumed after the
// checkpoint of lastStep: episodes of later steps (which the run records
// again) and a final line without its newline are removed first, by an
// atomic rewrite. A missing file is created.
func OpenForResume(path string, lastStep int, cfg Config) (*Writer, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return Create(path, cfg)
	}
	if err != nil {
		return nil, fmt.Errorf("episodelog: %w", err)
	}
	var kept bytes.Buffer
	rewrite := false
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			rewrite = true // a torn final line
			break
		}
		line := data[:i+1]
		data = data[i+1:]
		var head struct {
			Step int `json:"step"`
		}
		if json.Unmarshal(line, &head) != nil || head.Step > lastStep {
			rewrite = true
			continue
		}
		kept.Write(line)
	}
	if rewrite {
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, kept.Bytes(), 0o644); err != nil {
			return nil, fmt.Errorf("episodelog: rewrite: %w", err)
		}
		if err := os.Rename(tmp, path); err != nil {
			return nil, fmt.Errorf("episodelog: rewrite: %w", err)
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("episodelog: %w", err)
	}
	return &Writer{cfg: cfg, f: f, size: int64(kept.Len()), count: map[stepKey]int{}}, nil
}

// Write appends ep unless its step and phase already have MaxPerStep
// episodes of its kind (finished or failed); it reports whether ep was
// written. Once the log would pass MaxBytes, Write returns ErrFull and
// records nothing more. Sampling (Config.Sampled) is the caller's: Write
// records what it is given.
func (w *Writer) Write(ep Episode) (bool, error) {
	if w.cfg.NoTokens {
		ep.Samples = nil
	}
	line, err := json.Marshal(ep)
	if err != nil {
		return false, fmt.Errorf("episodelog: %w", err)
	}
	line = append(line, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return false, w.err
	}
	key := stepKey{ep.Phase, ep.Step, ep.Failed()}
	if limit := w.cfg.maxPerStep(); limit > 0 && w.count[key] >= limit {
		return false, nil
	}
	if limit := w.cfg.maxBytes(); limit > 0 && w.size+int64(len(line)) > limit {
		w.err = ErrFull
		return false, w.err
	}
	if _, err := w.f.Write(line); err != nil {
		w.err = fmt.Errorf("episodelog: %w", err)
		return false, w.err
	}
	w.size += int64(len(line))
	w.count[key]++
	return true, nil
}

// Close closes the log.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	if w.err == nil {
		w.err = errors.New("episodelog: closed")
	}
	if err != nil {
		return fmt.Errorf("episodelog: %w", err)
	}
	return nil
}

// MaxLineBytes bounds one line Scan and ReadAt accept: an episode of a
// 32k-token context with its token view is well under it.
const MaxLineBytes = 32 << 20

// ErrLine reports a line that is not an episode.
var ErrLine = errors.New("episodelog: bad episode line")

// Scan calls fn for every complete line of r with its byte offset, and
// returns end, the offset just past the last complete line: where a later
// Scan of a growing file resumes. A final line without its newline (being
// written, or torn by a crash) is not passed. Blank lines and lines longer
// than MaxLineBytes are skipped and counted in skipped. line is valid only
// during the call.
func Scan(r io.Reader, fn func(offset int64, line []byte) error) (end int64, skipped int, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var off int64
	var long []byte
	tooLong := false
	for {
		chunk, err := br.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			if !tooLong {
				long = append(long, chunk...)
				if len(long) > MaxLineBytes {
					tooLong, long = true, nil
				}
			}
			off += int64(len(chunk))
			continue
		case err == io.EOF:
			return end, skipped, nil // a final line without newline: not yet written
		case err != nil:
			return end, skipped, fmt.Errorf("episodelog: %w", err)
		}
		off += int64(len(chunk))
		start := end
		end = off
		line := chunk
		if len(long) > 0 {
			line = append(long, chunk...)
		}
		long = long[:0]
		if tooLong || len(line)-1 > MaxLineBytes || len(bytes.TrimSpace(line)) == 0 {
			tooLong = false
			skipped++
			continue
		}
		if err := fn(start, line[:len(line)-1]); err != nil {
			return start, skipped, err
		}
	}
}

// ReadAt decodes the episode whose line starts at offset in f, which must
// be the start of a complete line (an offset Scan gave).
func ReadAt(f io.ReaderAt, offset int64) (Episode, error) {
	if offset < 0 {
		return Episode{}, fmt.Errorf("%w: offset %d", ErrLine, offset)
	}
	if offset > 0 {
		var prev [1]byte
		if _, err := f.ReadAt(prev[:], offset-1); err != nil || prev[0] != '\n' {
			return Episode{}, fmt.Errorf("%w: offset %d is not the start of a line", ErrLine, offset)
		}
	}
	r := bufio.NewReaderSize(io.NewSectionReader(f, offset, MaxLineBytes+1), 64<<10)
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			return Episode{}, fmt.Errorf("%w: offset %d: no complete line", ErrLine, offset)
		}
		break
	}
	return Decode(line)
}

// Decode parses one line.
func Decode(line []byte) (Episode, error) {
	var ep Episode
	if err := json.Unmarshal(line, &ep); err != nil {
		return Episode{}, fmt.Errorf("%w: %w", ErrLine, err)
	}
	if ep.Phase == "" {
		return Episode{}, fmt.Errorf("%w: no phase", ErrLine)
	}
	return ep, nil
}

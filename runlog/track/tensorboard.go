package track

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/org/agentevolver/runlog"
)

// TensorBoardOptions tune a TensorBoard tracker. The zero value starts a
// fresh run.
type TensorBoardOptions struct {
	// Resume marks a run that continues after the checkpoint of
	// ResumeStep: the new event file starts with a session-start event at
	// ResumeStep+1, on which TensorBoard drops the earlier files' events
	// of later steps (the steps the resumed run writes again), as it does
	// for TensorFlow's own restarts.
	Resume     bool
	ResumeStep int64
	// Now is the clock of the file name and the first event; nil means
	// time.Now.
	Now func() time.Time
}

// TensorBoard writes every record as a TensorBoard event of scalar
// summaries (one simple_value per metric, tagged with the metric's name)
// to a new event file in a directory, the file name TensorBoard looks for:
// events.out.tfevents.<unix seconds>.<host>.<pid>.<n>. Values are stored as
// float32, as TensorBoard's scalars are; NaN and infinities are written as
// they are.
//
// Each event is written with a single write call and no buffering, so a
// crash loses nothing already written; [TensorBoard.Sync] makes it durable
// against power loss. A TensorBoard is safe for concurrent use.
type TensorBoard struct {
	mu   sync.Mutex
	f    *os.File
	path string
	err  error
	buf  []byte
	ev   []byte
}

// NewTensorBoard creates dir (and its parents) and a new event file in it,
// and writes the file-version event (and, when resuming, the
// session-start event).
func NewTensorBoard(dir string, opts TensorBoardOptions) (*TensorBoard, error) {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("track: tensorboard: %w", err)
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	t0 := now()
	var f *os.File
	var path string
	for n := 0; ; n++ {
		path = filepath.Join(dir, "events.out.tfevents."+strconv.FormatInt(t0.Unix(), 10)+"."+host+"."+strconv.Itoa(os.Getpid())+"."+strconv.Itoa(n))
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
		if err == nil {
			break
		}
		if !errors.Is(err, os.ErrExist) || n >= 1000 {
			return nil, fmt.Errorf("track: tensorboard: %w", err)
		}
	}
	tb := &TensorBoard{f: f, path: path}
	ev := appendEventHeader(nil, t0, 0)
	ev = protowire.AppendTag(ev, eventFileVersion, protowire.BytesType)
	ev = protowire.AppendString(ev, FileVersion)
	err = tb.write(ev)
	if err == nil && opts.Resume {
		var sl []byte
		sl = protowire.AppendTag(sl, sessionLogStatus, protowire.VarintType)
		sl = protowire.AppendVarint(sl, SessionStart)
		ev = appendEventHeader(ev[:0], t0, opts.ResumeStep+1)
		ev = protowire.AppendTag(ev, eventSessionLog, protowire.BytesType)
		ev = protowire.AppendBytes(ev, sl)
		err = tb.write(ev)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return tb, nil
}

// Path is the event file's path.
func (tb *TensorBoard) Path() string { return tb.path }

// WriteRecord writes rec as one event whose summary holds a scalar per
// metric, sorted by name. A record without metrics writes nothing.
func (tb *TensorBoard) WriteRecord(rec runlog.Record) error {
	if len(rec.Values) == 0 {
		return nil
	}
	names := make([]string, 0, len(rec.Values))
	for k := range rec.Values {
		names = append(names, k)
	}
	slices.Sort(names)
	tb.mu.Lock()
	defer tb.mu.Unlock()
	scalars := make([]Scalar, len(names))
	for i, k := range names {
		scalars[i] = Scalar{Tag: k, Value: toFloat32(rec.Values[k])}
	}
	ev := appendSummaryEvent(tb.ev[:0], rec.Time, rec.Step, scalars)
	tb.ev = ev
	return tb.writeLocked(ev)
}

// toFloat32 rounds v to float32, keeping a finite value that overflows
// float32 as the largest finite float32 of its sign rather than an
// infinity.
func toFloat32(v float64) float32 {
	if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) <= math.MaxFloat32 {
		return float32(v)
	}
	return float32(math.Copysign(math.MaxFloat32, v))
}

func (tb *TensorBoard) write(ev []byte) error {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return tb.writeLocked(ev)
}

func (tb *TensorBoard) writeLocked(ev []byte) error {
	if tb.err != nil {
		return tb.err
	}
	tb.buf = appendRecord(tb.buf[:0], ev)
	if _, err := tb.f.Write(tb.buf); err != nil {
		tb.err = fmt.Errorf("track: tensorboard: %w", err)
		return tb.err
	}
	return nil
}

// Sync commits the event file to stable storage.
func (tb *TensorBoard) Sync() error {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if tb.f == nil {
		return nil
	}
	if err := tb.f.Sync(); err != nil {
		return fmt.Errorf("track: tensorboard: %w", err)
	}
	return nil
}

// Close syncs and closes the event file. Writes after Close fail.
func (tb *TensorBoard) Close() error {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if tb.f == nil {
		return nil
	}
	f := tb.f
	tb.f = nil
	if tb.err == nil {
		tb.err = errors.New("track: tensorboard: closed")
	}
	syncErr := f.Sync()
	if err := f.Close(); err != nil {
		return fmt.Errorf("track: tensorboard: %w", err)
	}
	if syncErr != nil {
		return fmt.Errorf("track: tensorboard: %w", syncErr)
	}
	return nil
}

var (
	_ Tracker = (*TensorBoard)(nil)
	_ Syncer  = (*TensorBoard)(nil)
)

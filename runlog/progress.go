package runlog

import (
	"cmp"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// defaultPlainInterval spaces plain progress lines in logs: often enough to
// see a job is alive, rarely enough not to flood the log.
const defaultPlainInterval = 30 * time.Second

// ProgressOptions configures [NewProgress].
type ProgressOptions struct {
	// Description is shown before the bar or at the start of each plain line.
	Description string
	// PlainInterval is the least time between two plain lines when the
	// output is not a terminal; 0 means 30 seconds and a negative value
	// turns plain lines off.
	PlainInterval time.Duration
}

// Progress shows the progress of long work. On a terminal it draws a
// progress bar (github.com/schollz/progressbar/v3); on anything else (a log
// file, a pipe, a buffer) it writes a plain line such as
//
//	training: 40/100 (40%) elapsed 2m0s
//
// at most once per [ProgressOptions.PlainInterval] and at [Progress.Finish],
// and never an escape code or carriage return. Output errors are ignored:
// progress is a courtesy and must not stop the work. A nil *Progress and the
// zero value do nothing. A Progress is safe for concurrent use.
type Progress struct {
	mu        sync.Mutex
	bar       *progressbar.ProgressBar // terminal mode
	out       io.Writer                // plain mode; nil when silent
	total     int64
	current   int64
	desc      string
	interval  time.Duration
	start     time.Time
	lastLine  time.Time
	lastShown int64
	finished  bool
	now       func() time.Time
}

// NewProgress returns a Progress for total units of work written to out; a
// total <= 0 means unknown. The bar is drawn only when out is a terminal,
// that is when it has an Fd method (as *os.File has) whose descriptor
// golang.org/x/term reports as a terminal. A nil out shows nothing.
func NewProgress(out io.Writer, total int64, opts ProgressOptions) *Progress {
	p := &Progress{total: total, desc: opts.Description, now: time.Now}
	p.start = p.now()
	if out == nil {
		return p
	}
	if isTerminal(out) {
		p.bar = newBar(out, total, opts.Description)
		return p
	}
	if opts.PlainInterval >= 0 {
		p.out = out
		p.interval = cmp.Or(opts.PlainInterval, defaultPlainInterval)
	}
	return p
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}

func newBar(out io.Writer, total int64, desc string) *progressbar.ProgressBar {
	if total <= 0 {
		total = -1 // progressbar's unknown length: a spinner with a count
	}
	return progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(out),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionSetWidth(30),
		progressbar.OptionShowCount(),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(100*time.Millisecond),
		// Without this the bar starts a goroutine that redraws the
		// spinner until Finish; redrawing on updates is enough.
		progressbar.OptionSetSpinnerChangeInterval(0),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(out) }),
	)
}

// Add records n more units of finished work.
func (p *Progress) Add(n int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished {
		return
	}
	p.current += n
	if p.bar != nil {
		p.bar.Add64(n)
		return
	}
	if p.out == nil {
		return
	}
	if now := p.now(); now.Sub(p.lastLine) >= p.interval {
		p.writeLine(now)
	}
}

// Describe changes the description, e.g. to show the current phase.
func (p *Progress) Describe(desc string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.desc = desc
	if p.bar != nil && !p.finished {
		p.bar.Describe(desc)
	}
}

// Finish marks the work done: the bar is completed and ends its line, and in
// plain mode a final line is written unless the last one already showed the
// same count. Later calls do nothing.
func (p *Progress) Finish() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished {
		return
	}
	p.finished = true
	if p.bar != nil {
		p.bar.Finish()
		return
	}
	if p.out != nil && (p.lastLine.IsZero() || p.lastShown != p.current) {
		p.writeLine(p.now())
	}
}

// writeLine writes one plain progress line; p.mu is held.
func (p *Progress) writeLine(now time.Time) {
	p.lastLine, p.lastShown = now, p.current
	desc := p.desc
	if desc != "" {
		desc += ": "
	}
	elapsed := now.Sub(p.start).Round(time.Second)
	if p.total > 0 {
		fmt.Fprintf(p.out, "%s%d/%d (%d%%) elapsed %s\n", desc, p.current, p.total, 100*p.current/p.total, elapsed)
		return
	}
	fmt.Fprintf(p.out, "%s%d elapsed %s\n", desc, p.current, elapsed)
}

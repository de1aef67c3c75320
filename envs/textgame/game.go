package textgame

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"

	"github.com/org/agentevolver/envservice"
)

// prompt is what the game prints, after a blank line, when it waits for a
// line of input (a command or the answer to a yes/no question).
var prompt = []byte("\n> ")

// maxRawBytes bounds what one command's output may hold before the game is
// taken for runaway: far above any real answer of the game (its longest
// texts are a few kilobytes).
const maxRawBytes = 1 << 20

// game is one advent process on its own pseudo-terminal, in its own
// session and so its own process group. A reader goroutine copies the
// terminal's output to chunks; a waiter goroutine reaps the process.
type game struct {
	cmd  *exec.Cmd
	tty  *os.File
	dir  string
	data chan []byte // output chunks; closed when the terminal reads EOF or fails

	exited  chan struct{} // closed once the process has been reaped
	waitErr error         // the process's exit status; read after exited

	pending []byte // output read but not yet returned
	eof     bool   // data has been closed

	killOnce sync.Once
}

// Prefixes of the temporary directories of games and replays, made with
// envservice.MkdirOwned so that New can sweep those of a process that was
// killed before it could remove them.
const (
	gameDirPrefix   = "textgame-"
	replayDirPrefix = "textgame-replay-"
)

// startGame starts binary on a new pseudo-terminal in a fresh temporary
// directory, with the environment of gameEnv.
func startGame(binary string) (*game, error) {
	dir, err := envservice.MkdirOwned("", gameDirPrefix)
	if err != nil {
		return nil, fmt.Errorf("textgame: %w", err)
	}
	cmd := exec.Command(binary)
	cmd.Dir = dir
	cmd.Env = gameEnv(dir)
	// pty.Start makes the child a session leader (Setsid) with the
	// terminal as its controlling terminal: its process id is its process
	// group id, which kill signals as a whole.
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: 200})
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("textgame: start %s: %w", binary, err)
	}
	g := &game{cmd: cmd, tty: tty, dir: dir, data: make(chan []byte, 64), exited: make(chan struct{})}
	go g.read()
	go func() {
		g.waitErr = cmd.Wait()
		close(g.exited)
	}()
	return g, nil
}

func (g *game) read() {
	defer close(g.data)
	for {
		buf := make([]byte, 4096)
		n, err := g.tty.Read(buf)
		if n > 0 {
			g.data <- buf[:n]
		}
		if err != nil {
			return
		}
	}
}

func (g *game) pid() int { return g.cmd.Process.Pid }

// errNoPrompt reports output that did not end in the prompt in time.
var errNoPrompt = errors.New("no prompt")

// readReply reads until the game prompts for input again and returns the
// output before the prompt. ended reports that the terminal closed first
// (the game exited); out then holds everything it printed. A reply that
// does not come within timeout, or a ctx that ends, is an error; the game
// is then in an unknown state and must be killed.
func (g *game) readReply(ctx context.Context, timeout time.Duration) (out []byte, ended bool, err error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		// Only the tail can hold the prompt; it may end in "\r\n> ".
		tail := g.pending[max(0, len(g.pending)-16):]
		if bytes.HasSuffix(bytes.ReplaceAll(tail, []byte("\r"), nil), prompt) || g.eof {
			norm := bytes.ReplaceAll(g.pending, []byte("\r"), nil)
			g.pending = nil
			if g.eof && !bytes.HasSuffix(norm, prompt) {
				return norm, true, nil
			}
			return norm[:len(norm)-len(prompt)], false, nil
		}
		if len(g.pending) > maxRawBytes {
			return nil, false, fmt.Errorf("game printed over %d bytes without prompting", maxRawBytes)
		}
		select {
		case chunk, ok := <-g.data:
			if !ok {
				g.eof = true
				continue
			}
			g.pending = append(g.pending, chunk...)
		case <-timer.C:
			return nil, false, fmt.Errorf("%w within %v (output so far %q)", errNoPrompt, timeout, clip(string(g.pending)))
		case <-ctx.Done():
			return nil, false, ctx.Err()
		}
	}
}

// send writes one line of input.
func (g *game) send(line string) error {
	_, err := io.WriteString(g.tty, line+"\n")
	return err
}

// waitExit waits up to d for the process to be reaped and returns its
// exit status; ok is false when it is still running.
func (g *game) waitExit(d time.Duration) (err error, ok bool) {
	select {
	case <-g.exited:
		return g.waitErr, true
	case <-time.After(d):
		return nil, false
	}
}

// kill ends the game's whole process group with SIGKILL, closes the
// terminal, waits for the process to be reaped and removes its directory.
// It is safe to call more than once and from any goroutine.
func (g *game) kill() {
	g.killOnce.Do(func() {
		select {
		case <-g.exited:
		default:
			_ = syscall.Kill(-g.pid(), syscall.SIGKILL)
			_ = g.cmd.Process.Kill()
		}
		_ = g.tty.Close()
		<-g.exited // SIGKILL cannot be ignored; Wait returns promptly
		// Drain the reader so that its goroutine ends.
		go func() {
			for range g.data {
			}
		}()
		_ = os.RemoveAll(g.dir)
	})
}

// gameEnv is the environment of every game process: a dumb terminal (so
// that readline draws nothing but the line), no readline init file, and a
// private home directory.
func gameEnv(dir string) []string {
	return []string{"TERM=dumb", "INPUTRC=/dev/null", "HOME=" + dir, "PATH=/usr/bin:/bin", "LC_ALL=C"}
}

// clip shortens s for an error message.
func clip(s string) string {
	const n = 160
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// sweepStaleDirs removes the game and replay directories, in the system's
// temporary directory, of processes that are gone (a server killed with
// SIGKILL removes nothing); those of live processes stay.
func sweepStaleDirs(log *slog.Logger) {
	for _, prefix := range []string{gameDirPrefix, replayDirPrefix} {
		if _, err := envservice.SweepStaleDirs("", prefix, log); err != nil {
			log.Warn("textgame: removing stale game directories", "err", err)
		}
	}
}

package mcp

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/org/agentevolver/envservice"
)

// InstanceDirPlaceholder, written in Server.Args, Server.Env or Server.Dir,
// stands for a fresh temporary directory made for each server process and
// removed with it: the root of the filesystem server, the file of the
// memory server (MEMORY_FILE_PATH={instance_dir}/memory.jsonl), so that no
// two episodes share state.
const InstanceDirPlaceholder = "{instance_dir}"

// instanceDirPrefix starts the names of instance directories, made with
// envservice.MkdirOwned so that New can sweep those of a process that was
// killed before it could remove them.
const instanceDirPrefix = "agentevolver-mcp-"

// closeTimeout bounds how long closing waits for a killed server to be
// reaped. (The SDK bounds an HTTP session's DELETE, also to 5s.)
const closeTimeout = 5 * time.Second

// stderrTail is how much of a server's standard error is kept for error
// messages.
const stderrTail = 2 << 10

// process is one running stdio server.
type process struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	stderr *tailBuffer
	dir    string // the instance directory, "" when none

	done    chan struct{} // closed once the process has been reaped
	waitErr error         // set before done is closed
	once    sync.Once
}

// startProcess starts srv's command, with InstanceDirPlaceholder replaced
// by a new temporary directory when srv uses it. The process is not tied
// to any context: it lives until kill.
func startProcess(srv Server) (_ *process, err error) {
	p := &process{stderr: &tailBuffer{max: stderrTail}, done: make(chan struct{})}
	if srv.usesInstanceDir() {
		p.dir, err = envservice.MkdirOwned("", instanceDirPrefix)
		if err != nil {
			return nil, fmt.Errorf("instance directory: %w", err)
		}
		defer func() {
			if err != nil {
				_ = os.RemoveAll(p.dir)
			}
		}()
	}
	expand := func(s string) string { return strings.ReplaceAll(s, InstanceDirPlaceholder, p.dir) }
	args := make([]string, len(srv.Args))
	for i, a := range srv.Args {
		args[i] = expand(a)
	}
	cmd := exec.Command(srv.Command, args...)
	cmd.Dir = expand(srv.Dir)
	cmd.Env = os.Environ()
	for _, kv := range srv.Env {
		cmd.Env = append(cmd.Env, expand(kv))
	}
	cmd.Stderr = p.stderr
	cmd.SysProcAttr = sysProcAttr()
	// Wait returns this long after the process exits even if a grandchild
	// still holds its stderr open.
	cmd.WaitDelay = time.Second
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if p.stdout, err = cmd.StdoutPipe(); err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", srv.Command, err)
	}
	p.cmd = cmd
	go func() {
		p.waitErr = cmd.Wait()
		// The leader is gone: whatever it spawned goes with it.
		killGroup(cmd.Process)
		close(p.done)
	}()
	return p, nil
}

// exited reports whether the process has ended.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// describe says how the process ended, with the tail of its stderr.
func (p *process) describe() string {
	var b strings.Builder
	if p.exited() {
		if p.waitErr != nil {
			fmt.Fprintf(&b, "server process exited: %v", p.waitErr)
		} else {
			b.WriteString("server process exited")
		}
	} else {
		b.WriteString("server process is running")
	}
	if tail := strings.TrimSpace(p.stderr.String()); tail != "" {
		fmt.Fprintf(&b, "; stderr: %s", tail)
	}
	return b.String()
}

// kill kills the process group, waits for the process to be reaped and
// removes the instance directory. It is idempotent and safe for
// concurrent use.
func (p *process) kill() error {
	var err error
	p.once.Do(func() {
		killGroup(p.cmd.Process)
		_ = p.stdin.Close()
		select {
		case <-p.done:
		case <-time.After(closeTimeout):
			err = errors.New("server process not reaped after SIGKILL")
		}
		if p.dir != "" {
			if rerr := os.RemoveAll(p.dir); rerr != nil && err == nil {
				err = rerr
			}
		}
	})
	return err
}

// pid returns the process id.
func (p *process) pid() int { return p.cmd.Process.Pid }

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(b), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

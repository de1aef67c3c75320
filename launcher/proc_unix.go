//go:build unix

package launcher

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// detach makes the command the leader of a new session and process group
// (the original's start_new_session): it outlives the launcher, the
// terminal's Ctrl-C and hang-up do not reach it, and its whole group can
// be signalled at once.
func detach(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return nil
}

// groupExists reports whether any process has process group pgid.
func groupExists(pgid int) bool {
	err := syscall.Kill(-pgid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// signalGroup sends sig to every process of group pgid; a group already
// gone is no error.
func signalGroup(pgid int, sig signal) error {
	if pgid <= 1 {
		return fmt.Errorf("launcher: refusing to signal process group %d", pgid)
	}
	if err := syscall.Kill(-pgid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("launcher: signal process group %d: %w", pgid, err)
	}
	return nil
}

// signal is a Unix signal.
type signal = syscall.Signal

// terminate and kill are the signals Stop sends.
const (
	terminate = syscall.SIGTERM
	kill      = syscall.SIGKILL
)

// lockFile takes an exclusive lock on path (created if absent), waiting
// until it is free or ctx ends. Two launchers starting the same service
// at once thus start it once.
func lockFile(ctx context.Context, path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("launcher: %w", err)
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("launcher: lock %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

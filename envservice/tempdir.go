package envservice

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ownerTag introduces the owner's process id in the name of a directory
// made by MkdirOwned: prefix + "pid" + <pid> + "-" + <random>.
const ownerTag = "pid"

// MkdirOwned creates a new, private (0700) directory in dir (os.TempDir()
// when empty) whose name records the calling process as its owner:
// prefix, "pid", the process id, "-" and a random part. Environments that
// make a temporary directory per instance use it, and call
// SweepStaleDirs with the same prefix when they start, so that the
// directories of a server killed with SIGKILL (which removes nothing) do
// not pile up. The owner is recorded in the name rather than in a file
// inside, so that the directory's contents are the instance's alone (an
// MCP filesystem server shows the agent its root).
func MkdirOwned(dir, prefix string) (string, error) {
	if strings.ContainsRune(prefix, filepath.Separator) || strings.Contains(prefix, "*") {
		return "", fmt.Errorf("envservice: MkdirOwned: bad prefix %q", prefix)
	}
	return os.MkdirTemp(dir, prefix+ownerTag+strconv.Itoa(os.Getpid())+"-*")
}

// dirOwner returns the owner's pid recorded in name by MkdirOwned with
// prefix, or false when name is not such a directory's name.
func dirOwner(name, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(name, prefix+ownerTag)
	if !ok {
		return 0, false
	}
	digits, _, ok := strings.Cut(rest, "-")
	if !ok || digits == "" || len(digits) > 10 || strings.TrimLeft(digits, "0123456789") != "" {
		return 0, false
	}
	pid, err := strconv.Atoi(digits)
	if err != nil || pid <= 0 {
		return 0, false
	}
	return pid, true
}

// SweepStaleDirs removes the directories of dir (os.TempDir() when empty)
// that MkdirOwned made with prefix for a process that is no longer
// running, and returns how many it removed. It never removes the
// directory of a live process (its own included); directories it cannot
// attribute (made before owners were recorded, or by another user) are
// left alone, as are symbolic links. A process id reused by an unrelated
// live process keeps its directory, the safe mistake. Where liveness
// cannot be checked (outside Unix) it removes nothing. Errors removing
// one directory are joined and the sweep goes on; log, when not nil,
// receives one record per directory removed.
func SweepStaleDirs(dir, prefix string, log *slog.Logger) (int, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, fmt.Errorf("envservice: sweep %s: %w", dir, err)
	}
	removed := 0
	var errs []error
	for _, de := range entries {
		pid, ok := dirOwner(de.Name(), prefix)
		if !ok || de.Type()&fs.ModeType != fs.ModeDir {
			continue
		}
		path := filepath.Join(dir, de.Name())
		info, err := os.Lstat(path)
		if err != nil || !info.IsDir() || !ownedByMe(info) || processAlive(pid) {
			continue
		}
		if err := os.RemoveAll(path); err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
			continue
		}
		removed++
		log.Info("removed the instance directory of a process that is gone", "dir", path, "owner_pid", pid)
	}
	return removed, errors.Join(errs...)
}

//go:build unix

package envservice

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// processAlive reports whether a process with id pid exists (signal 0:
// EPERM means it exists but belongs to someone else).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// ownedByMe reports whether the file belongs to this process's user.
func ownedByMe(info fs.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

//go:build windows

package experience

import (
	"errors"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// lockShared takes a shared lock on f as bbolt does for a read-only
// database (LockFileEx on the byte range bbolt uses), waiting up to
// timeout for a writer to let go, and returns its release.
// errLockTimeout reports a file still held.
func lockShared(f *os.File, timeout time.Duration) (unlock func(), err error) {
	const m1 = 1<<32 - 1 // bbolt locks the byte at offset -1
	h := windows.Handle(f.Fd())
	deadline := time.Now().Add(timeout)
	for {
		err := windows.LockFileEx(h, windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &windows.Overlapped{Offset: m1, OffsetHigh: m1})
		switch {
		case err == nil:
			return func() { _ = windows.UnlockFileEx(h, 0, 1, 0, &windows.Overlapped{Offset: m1, OffsetHigh: m1}) }, nil
		case !errors.Is(err, windows.ERROR_LOCK_VIOLATION):
			return nil, err
		case time.Now().After(deadline):
			return nil, errLockTimeout
		}
		time.Sleep(lockRetry)
	}
}

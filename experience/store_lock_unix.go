//go:build !windows && !plan9 && !solaris && !aix && !android

package experience

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// lockShared takes a shared lock on f as bbolt does for a read-only
// database (flock), waiting up to timeout for a writer to let go, and
// returns its release. errLockTimeout reports a file still held.
func lockShared(f *os.File, timeout time.Duration) (unlock func(), err error) {
	deadline := time.Now().Add(timeout)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
		switch {
		case err == nil:
			return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }, nil
		case !errors.Is(err, syscall.EWOULDBLOCK):
			return nil, err
		case time.Now().After(deadline):
			return nil, errLockTimeout
		}
		time.Sleep(lockRetry)
	}
}

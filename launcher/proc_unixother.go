//go:build unix && !linux

package launcher

import (
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// processStart returns the start time of process pid as ps prints it,
// which tells a process from a later one with the same pid.
func processStart(pid int) (string, error) {
	out, err := exec.Command("ps", "-o", "lstart=", "-p", strconv.Itoa(pid)).Output()
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// groupMembers returns rec's group leader while it lives, in its group,
// with its recorded start time. Without /proc the children of a leader
// that has exited cannot be told from strangers: the service then counts
// as gone and Stop leaves them alone.
func groupMembers(rec Record) []int {
	if pgid, err := syscall.Getpgid(rec.PID); err != nil || pgid != rec.PGID {
		return nil
	}
	if start, err := processStart(rec.PID); err != nil || start == "" || start != rec.StartedAt {
		return nil
	}
	return []int{rec.PID}
}

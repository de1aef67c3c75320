package textgame

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// isZombie reports whether pid has exited and waits for its parent (an
// orphan reparented to init is reaped by it soon after).
func isZombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	f := strings.Fields(s[i+1:])
	return len(f) > 0 && f[0] == "Z"
}

func processExists(pid int) bool { return syscall.Kill(pid, 0) == nil }

func killProcess(t testing.TB, pid int) {
	t.Helper()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
}

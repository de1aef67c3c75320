package proctest

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// LiveChildren returns the live (not zombie) children of this process as
// "pid command", read from /proc; nil where there is no /proc.
func LiveChildren() []string {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	me := strconv.Itoa(os.Getpid())
	var out []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid ...: comm may hold spaces, so cut at the last ')'.
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 1 && f[0] != "Z" && f[1] == me {
			out = append(out, e.Name()+" "+s[strings.IndexByte(s, '(')+1:i])
		}
	}
	return out
}

// Main runs the tests and fails the suite (exit code 1) when, on Linux,
// any child process is still running 5 s after they ended. Call it from
// TestMain: os.Exit(proctest.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	if runtime.GOOS != "linux" {
		return code
	}
	left := LiveChildren()
	for deadline := time.Now().Add(5 * time.Second); len(left) > 0 && time.Now().Before(deadline); left = LiveChildren() {
		time.Sleep(50 * time.Millisecond)
	}
	if len(left) > 0 {
		fmt.Fprintf(os.Stderr, "processes left running after the suite: %v\n", left)
		return 1
	}
	return code
}

package textgame

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMain fails the suite when any process the tests started outlives
// it: every instance must take its processes with it, whatever the test
// did to it.
func TestMain(m *testing.M) {
	code := m.Run()
	if runtime.GOOS == "linux" {
		left := liveChildren()
		for deadline := time.Now().Add(5 * time.Second); len(left) > 0 && time.Now().Before(deadline); left = liveChildren() {
			time.Sleep(50 * time.Millisecond)
		}
		if len(left) > 0 {
			fmt.Fprintf(os.Stderr, "processes left running after the suite: %v\n", left)
			code = 1
		}
	}
	os.Exit(code)
}

// liveChildren returns the live (not zombie) children of this process and
// their commands, read from /proc.
func liveChildren() []string {
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
			continue
		}
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

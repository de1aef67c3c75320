//go:build unix

package envservice

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// deadPid returns the id of a process that has exited and been reaped.
func deadPid(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run true: %v", err)
	}
	return cmd.Process.Pid
}

func TestSweepStaleDirs(t *testing.T) {
	dir := t.TempDir()
	const prefix = "someenv-"
	mine, err := MkdirOwned(dir, prefix)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(mine), prefix+"pid"+strconv.Itoa(os.Getpid())+"-") {
		t.Fatalf("name %s does not record the owner", mine)
	}
	if err := os.WriteFile(filepath.Join(mine, "state"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	dead := filepath.Join(dir, prefix+"pid"+strconv.Itoa(deadPid(t))+"-123")
	if err := os.MkdirAll(filepath.Join(dead, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	// The parent of this test (go test) is alive, and not this process.
	live := filepath.Join(dir, prefix+"pid"+strconv.Itoa(os.Getppid())+"-456")
	keep := []string{
		mine, live,
		filepath.Join(dir, prefix+"123456"),             // old format: no owner recorded
		filepath.Join(dir, "other-pid1-1"),              // another prefix
		filepath.Join(dir, prefix+"pidx-1"),             // not a pid
		filepath.Join(dir, prefix+"replay-pid999999-1"), // a longer prefix's
	}
	for _, d := range keep[1:] {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// A symbolic link named like a stale directory is not followed.
	target := t.TempDir()
	if err := os.WriteFile(filepath.Join(target, "precious"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, prefix+"pid"+strconv.Itoa(deadPid(t))+"-link")); err != nil {
		t.Fatal(err)
	}

	n, err := SweepStaleDirs(dir, prefix, nil)
	if err != nil || n != 1 {
		t.Fatalf("SweepStaleDirs = %d, %v; want 1 removed", n, err)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("the dead owner's directory is still there: %v", err)
	}
	for _, d := range keep {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was removed: %v", filepath.Base(d), err)
		}
	}
	if _, err := os.Stat(filepath.Join(mine, "state")); err != nil {
		t.Errorf("the live owner's file was removed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(target, "precious")); err != nil {
		t.Errorf("the sweep followed a link: %v", err)
	}
	// A second sweep finds nothing.
	if n, err := SweepStaleDirs(dir, prefix, nil); n != 0 || err != nil {
		t.Fatalf("second sweep = %d, %v", n, err)
	}
	if _, err := MkdirOwned(dir, "bad/prefix"); err == nil {
		t.Error("MkdirOwned accepted a prefix with a separator")
	}
}

func TestDirOwner(t *testing.T) {
	for name, want := range map[string]int{
		"p-pid42-1":          42,
		"p-pid42-":           42,
		"p-pid-1":            0,
		"p-pid42":            0,
		"p-pid0-1":           0,
		"p-pid99999999999-1": 0,
		"p-42-1":             0,
		"q-pid42-1":          0,
	} {
		got, ok := dirOwner(name, "p-")
		if got != want || ok != (want != 0) {
			t.Errorf("dirOwner(%q) = %d, %v; want %d", name, got, ok, want)
		}
	}
}

package textgame

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNewSweepsStaleDirs: the game directories of a server that was
// killed (its pid gone) are removed when an Env starts; those of live
// processes, this one's included, are not.
func TestNewSweepsStaleDirs(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip(err)
	}
	dead := strconv.Itoa(cmd.Process.Pid)
	stale := []string{"textgame-pid" + dead + "-1", "textgame-replay-pid" + dead + "-2"}
	kept := []string{"textgame-pid" + strconv.Itoa(os.Getppid()) + "-3", "textgame-4"}
	for _, d := range append(append([]string{}, stale...), kept...) {
		if err := os.MkdirAll(filepath.Join(tmp, d, "sub"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	e := newTestEnv(t, Config{})
	for _, d := range stale {
		if _, err := os.Stat(filepath.Join(tmp, d)); !os.IsNotExist(err) {
			t.Errorf("stale %s not removed: %v", d, err)
		}
	}
	for _, d := range kept {
		if _, err := os.Stat(filepath.Join(tmp, d)); err != nil {
			t.Errorf("%s removed: %v", d, err)
		}
	}
	// An instance's directory names this process; a second Env leaves it.
	ctx := context.Background()
	ids, err := e.TaskIDs(ctx, "train", nil)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := e.New(ctx, ids[0], "i1", nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := inst.(*Instance).game.dir
	if !strings.HasPrefix(dir, filepath.Join(tmp, "textgame-pid"+strconv.Itoa(os.Getpid())+"-")) {
		t.Fatalf("instance directory %s does not record its owner", dir)
	}
	newTestEnv(t, Config{})
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("a live instance's directory was swept: %v", err)
	}
	if err := inst.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("Close left %s: %v", dir, err)
	}
}

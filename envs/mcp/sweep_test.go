package mcp_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// TestNewSweepsStaleInstanceDirs: the instance directories of a server
// that was killed (its pid gone) are removed when an Env starts; those of
// live processes, this one's included, are not.
func TestNewSweepsStaleInstanceDirs(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip(err)
	}
	stale := "agentevolver-mcp-pid" + strconv.Itoa(cmd.Process.Pid) + "-1"
	kept := []string{"agentevolver-mcp-pid" + strconv.Itoa(os.Getppid()) + "-2", "agentevolver-mcp-3"}
	for _, d := range append([]string{stale}, kept...) {
		if err := os.MkdirAll(filepath.Join(tmp, d, "sub"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	env := newNPMEnv(t, "memory", nil)
	if _, err := os.Stat(filepath.Join(tmp, stale)); !os.IsNotExist(err) {
		t.Errorf("stale %s not removed: %v", stale, err)
	}
	for _, d := range kept {
		if _, err := os.Stat(filepath.Join(tmp, d)); err != nil {
			t.Errorf("%s removed: %v", d, err)
		}
	}
	// An instance's directory names this process; a second Env leaves it.
	ctx := context.Background()
	ids, err := env.TaskIDs(ctx, "train", nil)
	if err != nil || len(ids) == 0 {
		t.Fatalf("TaskIDs = %v, %v", ids, err)
	}
	inst, err := env.New(ctx, ids[0], "i1", nil)
	if err != nil {
		t.Fatal(err)
	}
	mine, err := filepath.Glob(filepath.Join(tmp, "agentevolver-mcp-pid"+strconv.Itoa(os.Getpid())+"-*"))
	if err != nil || len(mine) != 1 {
		t.Fatalf("instance directories of this process: %v, %v", mine, err)
	}
	newNPMEnv(t, "memory", nil)
	if _, err := os.Stat(mine[0]); err != nil {
		t.Fatalf("a live instance's directory was swept: %v", err)
	}
	if err := inst.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(mine[0]); !os.IsNotExist(err) {
		t.Fatalf("Close left %s: %v", mine[0], err)
	}
}

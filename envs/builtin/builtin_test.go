package builtin_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/org/agentevolver/arena/avalon"
	"github.com/org/agentevolver/envs/builtin"
	"github.com/org/agentevolver/envs/mcp"
	"github.com/org/agentevolver/envs/textgame"
	"github.com/org/agentevolver/envs/toolworld"
	"github.com/org/agentevolver/envservice"
)

func TestNamesAndEnvironments(t *testing.T) {
	names := builtin.Names()
	if !slices.IsSorted(names) || !slices.Contains(names, toolworld.Name) {
		t.Fatalf("Names() = %v", names)
	}
	envs := builtin.Environments()
	if len(envs) != len(names) {
		t.Fatalf("Environments() has %d entries, Names() %d", len(envs), len(names))
	}
	for _, name := range names {
		if envs[name] == nil {
			t.Errorf("no factory for %s", name)
		}
	}
	// Each call returns a fresh map: changing one changes no other.
	delete(envs, toolworld.Name)
	envs["mine"] = nil
	again := builtin.Environments()
	if _, ok := again[toolworld.Name]; !ok || len(again) != len(names) {
		t.Errorf("Environments() after a caller's edit = %v", again)
	}
}

func TestEveryNameOpens(t *testing.T) {
	ctx := context.Background()
	for _, name := range builtin.Names() {
		t.Run(name, func(t *testing.T) {
			cfg := builtin.Config{}
			if name == mcp.Name {
				// An MCP environment is a server and a task file: the
				// memory server the envs/mcp tests use.
				server, err := filepath.Abs(filepath.Join("..", "..", "node_modules", ".bin", "mcp-server-memory"))
				if err != nil {
					t.Fatal(err)
				}
				if _, err := os.Stat(server); err != nil {
					t.Skipf("the MCP memory server is not installed (run npm ci): %v", err)
				}
				if _, err := exec.LookPath("node"); err != nil {
					t.Skipf("node is not installed: %v", err)
				}
				cfg.MCP = mcp.Config{Server: mcp.Server{Command: server, Env: []string{"MEMORY_FILE_PATH={instance_dir}/memory.jsonl"}},
					TaskFile: filepath.Join("..", "mcp", "testdata", "memory.jsonl")}
			}
			env, err := builtin.Open(ctx, name, cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			ids, err := env.TaskIDs(ctx, "train", nil)
			if err != nil || len(ids) == 0 {
				t.Fatalf("TaskIDs(train) = %d ids, %v", len(ids), err)
			}
			inst, err := env.New(ctx, ids[0], "open-test", nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := inst.Close(); err != nil {
				t.Fatal(err)
			}
			// Environments that start a process per instance say so, so
			// that serve-env holds them to the lower process limit.
			pb, ok := env.(envservice.ProcessBacked)
			wantProc := name == textgame.Name || name == mcp.Name
			if got := ok && pb.ProcessBacked(); got != wantProc {
				t.Errorf("ProcessBacked = %v, want %v", got, wantProc)
			}
			// The same through the factory map the trainer is handed.
			if _, err := builtin.Environments()[name](ctx, cfg, nil); err != nil {
				t.Fatalf("factory: %v", err)
			}
		})
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	_, err := builtin.Open(ctx, "appworld", builtin.Config{}, nil)
	if !errors.Is(err, builtin.ErrUnknownEnvironment) {
		t.Fatalf("unknown name: %v", err)
	}
	for _, want := range append([]string{`"appworld"`}, builtin.Names()...) {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
	bad := builtin.Config{Toolworld: toolworld.Config{MaxLevel: 4}}
	env, err := builtin.Open(ctx, toolworld.Name, bad, nil)
	if err == nil || env != nil || !strings.Contains(err.Error(), "builtin: open toolworld") {
		t.Errorf("bad toolworld config: %v, %v", env, err)
	}
	if env, err := builtin.Environments()[toolworld.Name](ctx, bad, nil); err == nil || env != nil {
		t.Errorf("factory with a bad config returned %v (a nil *Env must not hide in the interface), %v", env, err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := builtin.Open(cctx, toolworld.Name, builtin.Config{}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}

func TestToolworldConfigMapping(t *testing.T) {
	ctx := context.Background()
	const prompt = "Solve it."
	cfg := builtin.Config{Toolworld: toolworld.Config{
		Seed: 9, TrainSize: 12, ValSize: 5, TestSize: 4, SystemPrompt: prompt,
	}}
	open := func(cfg builtin.Config) envservice.Environment {
		t.Helper()
		env, err := builtin.Open(ctx, toolworld.Name, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		return env
	}
	env := open(cfg)
	tw, ok := env.(*toolworld.Env)
	if !ok {
		t.Fatalf("toolworld opens as %T", env)
	}
	want, err := toolworld.New(toolworld.Config{Seed: 9, TrainSize: 12, ValSize: 5, TestSize: 4, SystemPrompt: prompt})
	if err != nil {
		t.Fatal(err)
	}
	for split, n := range map[string]int{"train": 12, "val": 5, "test": 4} {
		ids, err := env.TaskIDs(ctx, split, nil)
		if err != nil || len(ids) != n {
			t.Fatalf("%s: %d ids, %v; want %d", split, len(ids), err, n)
		}
		for _, id := range ids { // the seed is honoured: the same tasks
			a, _ := tw.Task(id)
			b, _ := want.Task(id)
			if a != b {
				t.Fatalf("Task(%s) = %+v, want %+v", id, a, b)
			}
		}
	}
	inst, err := env.New(ctx, "tw-train-0000", "mapping", nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := inst.InitState(ctx, nil)
	inst.Close()
	if err != nil || st.State[0].Content != prompt {
		t.Fatalf("system prompt = %q, %v", st.State[0].Content, err)
	}

	// MaxLevel 1 lists only level-1 tasks: a third of TrainSize.
	cfg.Toolworld.MaxLevel = 1
	meta := open(cfg).(envservice.TaskMetadataProvider)
	ids, err := meta.(envservice.Environment).TaskIDs(ctx, "train", nil)
	if err != nil || len(ids) != 4 {
		t.Fatalf("max level 1: %v, %v", ids, err)
	}
	for _, id := range ids {
		if md, err := meta.TaskMetadata(ctx, id); err != nil || md.Difficulty != 1 {
			t.Fatalf("TaskMetadata(%s) = %+v, %v", id, md, err)
		}
	}

	// Compact selects the compact prompt (when SystemPrompt is empty).
	full, compact := systemPrompt(t, open(builtin.Config{})), systemPrompt(t, open(builtin.Config{Toolworld: toolworld.Config{Compact: true}}))
	if len(compact) >= len(full) {
		t.Errorf("compact prompt (%d bytes) is not shorter than the full one (%d)", len(compact), len(full))
	}
}

func systemPrompt(t *testing.T, env envservice.Environment) string {
	t.Helper()
	ctx := context.Background()
	inst, err := env.New(ctx, "tw-train-0000", "prompt", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	st, err := inst.InitState(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	return st.State[0].Content
}

func TestOpenAvalonSection(t *testing.T) {
	ctx := context.Background()
	cfg := builtin.Config{Avalon: avalon.EnvConfig{Game: avalon.Config{Players: 6, Roles: avalon.Roles{Percival: true}}, Role: "Merlin", Opponents: []string{"random"}, TrainTasks: 3}}
	env, err := builtin.Open(ctx, "avalon", cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := env.TaskIDs(ctx, "train", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 3 || !strings.Contains(ids[0], "players=6,role=Merlin,opponents=random") {
		t.Fatalf("task ids %v", ids)
	}
	if _, ok := env.(envservice.Expert); !ok {
		t.Error("avalon offers no demonstrations")
	}
	cfg.Avalon.Opponents = []string{"gpt-9"}
	if _, err := builtin.Open(ctx, "avalon", cfg, nil); err == nil {
		t.Error("an unknown opponent model opened")
	}
}

package experiment

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestUnsafeNamesRejected(t *testing.T) {
	// Names become directories under the output root; anything but one
	// safe path element is refused when the file is parsed.
	bad := []string{"", ".", "..", "../x", "a/../../x", "a/b", `a\b`, "/abs", "/", "~", "x/", "-x", ".hidden",
		"a.", "a..", "nul", "CON", "com1", "Lpt9.txt", "aux.yaml", "a b", "é", strings.Repeat("a", 65)}
	for _, name := range bad {
		for _, doc := range []string{
			"name: " + quote(name) + "\nseeds: [1]\narms: [{name: a}]\n",
			"name: x\nseeds: [1]\narms: [{name: " + quote(name) + "}]\n",
		} {
			_, err := Parse([]byte(doc), ".")
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "name") {
				t.Errorf("Parse(%q) = %v, want ErrInvalid naming the name", doc, err)
			}
		}
	}
	for _, name := range []string{"a", "grpo-std", "v1.0", "A_b.c-d", "nullable", "console", strings.Repeat("a", 64)} {
		if err := checkName("name", name); err != nil {
			t.Errorf("checkName(%q) = %v", name, err)
		}
	}
}

// quote writes s as a YAML double-quoted scalar.
func quote(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
}

func TestPlanDirsInsideRoot(t *testing.T) {
	f := mustParse(t, twoArms)
	abs := t.TempDir()
	for _, root := range []string{"", ".", "out", "../out", "a/../b", abs, abs + "/"} {
		for _, quick := range []bool{false, true} {
			p, err := NewPlan(f, Options{OutputRoot: root, Quick: quick})
			if err != nil {
				t.Fatalf("NewPlan(root %q): %v", root, err)
			}
			clean := filepath.Clean(root)
			if root == "" {
				clean = DefaultOutputRoot
			}
			if filepath.Dir(p.Dir) != clean {
				t.Errorf("root %q: plan dir %s is not a child of %s", root, p.Dir, clean)
			}
			for _, j := range p.Jobs {
				rel, err := filepath.Rel(p.Dir, j.Config.Trainer.OutputDir)
				if err != nil || !filepath.IsLocal(rel) || strings.Count(rel, string(filepath.Separator)) != 1 {
					t.Errorf("root %q: run dir %s is not <dir>/<arm>/<seed> under %s", root, j.Config.Trainer.OutputDir, p.Dir)
				}
			}
		}
	}
	// A File built in code, not parsed, is checked the same way.
	for _, name := range []string{"../escape", "/abs", "."} {
		g := f
		g.Name = name
		if _, err := NewPlan(g, Options{OutputRoot: t.TempDir()}); !errors.Is(err, ErrInvalid) {
			t.Errorf("NewPlan(name %q) = %v, want ErrInvalid", name, err)
		}
		g = f
		g.Arms = append([]Arm{{Name: name}}, f.Arms[1:]...)
		if _, err := NewPlan(g, Options{OutputRoot: t.TempDir()}); !errors.Is(err, ErrInvalid) {
			t.Errorf("NewPlan(arm %q) = %v, want ErrInvalid", name, err)
		}
	}
}

func TestInside(t *testing.T) {
	tests := []struct {
		root  string
		elems []string
		ok    bool
	}{
		{"runs", []string{"demo"}, true},
		{"runs", []string{"demo", "a", "seed-1"}, true},
		{"/", []string{"demo"}, true},
		{"../out", []string{"demo"}, true},
		{"runs", []string{".."}, false},
		{"runs", []string{"demo", "..", ".."}, false},
		{"runs", []string{"."}, false},
		{"runs", []string{""}, false},
		{"runs", []string{"/etc"}, true}, // Join makes it runs/etc
		{"runs", []string{"a/../../x"}, false},
	}
	for _, tt := range tests {
		got, err := inside(tt.root, tt.elems...)
		if (err == nil) != tt.ok {
			t.Errorf("inside(%q, %q) = %q, %v; want ok %v", tt.root, tt.elems, got, err, tt.ok)
		}
		if err != nil && !errors.Is(err, ErrInvalid) {
			t.Errorf("inside error %v does not wrap ErrInvalid", err)
		}
	}
}

func TestRunRefusesJobsOutsideItsDir(t *testing.T) {
	// Run empties each job's output directory; a plan edited to point one
	// elsewhere runs nothing and deletes nothing.
	root := t.TempDir()
	p, err := NewPlan(mustParse(t, twoArms), Options{OutputRoot: filepath.Join(root, "runs")})
	if err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(root, "victim")
	if err := os.MkdirAll(filepath.Join(victim, "keep"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{victim, p.Dir, filepath.Join(p.Dir, "..", "victim"), filepath.Join(p.Dir, "grpo", "..", ".."), "", "relative"} {
		q := p
		q.Jobs = append([]Job(nil), p.Jobs...)
		q.Jobs[len(q.Jobs)-1].Config.Trainer.OutputDir = dir
		fake := &fakeTrainer{t: t}
		_, err := q.Run(context.Background(), Options{Train: fake.train})
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "not inside") || len(fake.runs) != 0 {
			t.Errorf("Run with a job in %q: %v after %d runs", dir, err, len(fake.runs))
		}
		if _, err := os.Stat(filepath.Join(victim, "keep")); err != nil {
			t.Fatalf("Run with a job in %q removed files outside the experiment: %v", dir, err)
		}
	}
	q := p
	q.Jobs = append([]Job(nil), p.Jobs...)
	q.Jobs[0].Arm = "other"
	if _, err := q.Run(context.Background(), Options{Train: (&fakeTrainer{t: t}).train}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "does not have") {
		t.Errorf("Run with a job of an unknown arm: %v", err)
	}
	if _, err := os.Stat(p.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused plan created its directory: %v", err)
	}
}

func TestParseAliasBomb(t *testing.T) {
	// An alias bomb in the inline configuration would be written out
	// expanded when the runs are planned; Parse rejects it at once.
	var b strings.Builder
	b.WriteString("name: x\nseeds: [1]\narms:\n  - name: a\n    config:\n      l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i < 9; i++ {
		b.WriteString("      l" + string(rune('0'+i)) + ": &l" + string(rune('0'+i)) + " [")
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*l" + string(rune('0'+i-1)))
		}
		b.WriteString("]\n")
	}
	_, err := Parse([]byte(b.String()), ".")
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "alias") {
		t.Fatalf("Parse(alias bomb) = %v, want ErrInvalid about aliases", err)
	}
	// Small aliases keep working.
	f, err := Parse([]byte("name: x\nseeds: [1]\nbase: {set: &s [rollout.n=2]}\narms: [{name: a, set: *s}]\n"), ".")
	if err != nil || len(f.Arms[0].Set) != 1 || f.Arms[0].Set[0] != "rollout.n=2" {
		t.Fatalf("Parse with a small alias: %+v, %v", f, err)
	}
}

// TestInputPathsRelativeToFile resolves the task files an inline config
// names against the experiment file's directory, like its config files.
func TestInputPathsRelativeToFile(t *testing.T) {
	f, err := Parse([]byte(`
name: paths
seeds: [1]
arms:
  - name: a
    config:
      data: {train_files: [data/original.jsonl, /abs/x.parquet]}
      task_manager: {train_data_path: data/tasks.jsonl}
`), "/exp")
	if err != nil {
		t.Fatal(err)
	}
	cfg := f.Arms[0].Config
	files := cfg["data"].(map[string]any)["train_files"].([]any)
	if files[0] != filepath.Join("/exp", "data/original.jsonl") || files[1] != "/abs/x.parquet" {
		t.Errorf("train_files %v", files)
	}
	if got := cfg["task_manager"].(map[string]any)["train_data_path"]; got != filepath.Join("/exp", "data/tasks.jsonl") {
		t.Errorf("train_data_path %v", got)
	}
}

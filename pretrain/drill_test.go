package pretrain

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDrillsCopyFromThePrompt: every drill's answer is a tool call whose
// values all appear in its instruction (only copying solves it), drills are
// a pure function of their seed, both kinds occur, and a run with drills
// counts them and trains on them.
func TestDrillsCopyFromThePrompt(t *testing.T) {
	ctx := context.Background()
	cfg := DefaultConfig().Corpus
	cfg.Worlds, cfg.TasksPerSplit, cfg.DrillShare = 10, 120, 0.5
	c, err := newCorpus(ctx, cfg, 3, DefaultSystemPrompt, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := newDrillMaker(c)
	if err != nil {
		t.Fatal(err)
	}
	call := regexp.MustCompile("^```tool\n([A-Za-z]+\\.[A-Za-z]+)((?: [A-Za-z]+=(?:\"[^\"]*\"|[A-Za-z0-9-]+))+)\n```$")
	kinds := map[string]int{}
	for seed := range uint64(300) {
		instr, answer := d.drill(seed)
		if i2, a2 := d.drill(seed); i2 != instr || a2 != answer {
			t.Fatalf("drill %d differs between two draws", seed)
		}
		m := call.FindStringSubmatch(answer)
		if m == nil {
			t.Fatalf("drill %d: answer %q is not one call", seed, answer)
		}
		kind := strings.Fields(instr)[0]
		kinds[kind]++
		for _, arg := range strings.Fields(strings.ReplaceAll(m[2], `"`, "")) {
			if k, v, ok := strings.Cut(arg, "="); ok {
				if kind == "Pairs:" && !strings.Contains(instr, k+" "+v) {
					t.Fatalf("drill %d: %s=%s is not a pair of %q", seed, k, v, instr)
				}
				arg = v
			}
			if !strings.Contains(instr, arg) {
				t.Fatalf("drill %d: %q is not in %q", seed, arg, instr)
			}
		}
		if kind == "Pairs:" && !strings.Contains(instr, "Call "+m[1]+" with") {
			t.Fatalf("drill %d: calls %s, not the tool %q names", seed, m[1], instr)
		}
	}
	if kinds["Repeat:"] < 50 || kinds["Pairs:"] < 100 || len(kinds) != 2 {
		t.Fatalf("drill kinds %v", kinds)
	}
	drills := 0
	for i := range int64(200) {
		sp, err := c.spec(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		if sp.drill {
			drills++
		}
	}
	if drills < 70 || drills > 130 {
		t.Fatalf("%d drills in 200 episodes at share 0.5", drills)
	}

	if testing.Short() {
		return
	}
	run := tinyConfig(t)
	run.Corpus.DrillShare = 0.5
	run.Train.EvalEvery, run.Train.SaveEvery = 0, 0
	res, err := Run(ctx, run, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Card.Corpus.Drills == 0 || res.Card.Corpus.Drills >= res.Card.Corpus.Episodes {
		t.Fatalf("%d drills of %d episodes", res.Card.Corpus.Drills, res.Card.Corpus.Episodes)
	}
	if !strings.Contains(res.Card.Markdown(), "copy drills") {
		t.Fatal("the card does not mention the drills")
	}
}

// TestExampleConfigs: every pretraining configuration shipped in
// examples/pretrain loads and validates (the recipes of the shipped bases).
func TestExampleConfigs(t *testing.T) {
	files, err := filepath.Glob("../examples/pretrain/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example configurations: %v", err)
	}
	for _, f := range files {
		cfg, err := LoadConfig([]string{f}, nil)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		// Every recipe trains with drills; a file of 0 steps only measures.
		if cfg.Train.Steps > 0 && cfg.Corpus.DrillShare == 0 {
			t.Fatalf("%s: no copy drills", f)
		}
	}
}

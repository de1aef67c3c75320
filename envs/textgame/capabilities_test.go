package textgame

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestCapabilities(t *testing.T) {
	e := newTestEnv(t, Config{})
	ctx := context.Background()
	p := e.Profile()
	if p.Name != Name || len(p.Entities) != 2 || len(p.Entities[1].Opts) == 0 {
		t.Errorf("profile %+v", p)
	}
	tests := []struct {
		id   string
		diff int
	}{{"advent-train-0000", 1}, {"advent-train-0002", 2}, {"advent-val-0001", 3}}
	for _, tc := range tests {
		md, err := e.TaskMetadata(ctx, tc.id)
		if err != nil || md.Difficulty != tc.diff {
			t.Errorf("TaskMetadata(%s) = %+v, %v; want difficulty %d", tc.id, md, err, tc.diff)
		}
	}
	if _, err := e.TaskMetadata(ctx, "nope"); !errors.Is(err, ErrUnknownTask) {
		t.Errorf("TaskMetadata(nope): %v", err)
	}
	docs, err := e.Corpus(ctx, SplitVal)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(docs, "\n")
	for _, want := range []string{systemPrompt, "Goal: Reach the bird chamber", "light lamp", "MAGIC WORD XYZZY", "cheerful little bird"} {
		if !strings.Contains(text, want) {
			t.Errorf("val corpus lacks %q", want)
		}
	}
	again, _ := e.Corpus(ctx, SplitVal)
	if strings.Join(again, "\n") != text {
		t.Error("Corpus is not deterministic")
	}
	if _, err := e.Corpus(ctx, "dev"); !errors.Is(err, ErrUnknownSplit) {
		t.Errorf("Corpus(dev): %v", err)
	}
}

func TestInfoAndSparse(t *testing.T) {
	e := newTestEnv(t, Config{})
	ctx := context.Background()
	in, err := e.newInstance(ctx, "advent-train-0004", "t", map[string]any{"sparse": true})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	st, err := in.InitState(ctx, nil)
	if err != nil || len(st.State) != 2 || st.Info["task_id"] != "advent-train-0004" {
		t.Fatalf("InitState = %+v, %v", st, err)
	}
	if !strings.Contains(st.State[1].Content, "You are standing at the end of a road") {
		t.Errorf("initial observation %q", st.State[1].Content)
	}
	info, err := in.Info(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := info.(map[string]any)
	if m["score"] != 32 || m["steps"] != 0 {
		t.Errorf("Info = %+v, want score 32 at step 0", m)
	}
	if _, err := in.Step(ctx, act("in"), map[string]any{"sparse": "maybe"}); !errors.Is(err, ErrBadParams) {
		t.Errorf("Step with sparse=maybe: %v", err)
	}
}

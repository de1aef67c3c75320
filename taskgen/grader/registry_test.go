package grader

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/llm"
)

func TestNames(t *testing.T) {
	want := []string{"avg-llm", "avg-llm-binary-gt", "env", "llm", "llm-binary", "llm-binary-gt",
		"llm-binary-gt-no_constraint", "llm-binary-no_constraint", "llm-gt"}
	if got := Names(); !slices.Equal(got, want) {
		t.Errorf("Names() = %q, want %q", got, want)
	}
}

func TestNew(t *testing.T) {
	model := replying("<reward>60</reward>")
	tests := []struct {
		name     string
		cfg      Config
		wantErr  error
		wantName string // of the *Judge, "" for the env grader
	}{
		{NameEnv, Config{}, nil, ""},
		{"", Config{}, ErrUnknownGrader, ""},
		{"nope", Config{Model: model}, ErrUnknownGrader, ""},
		{NameLLM, Config{}, ErrNoModel, ""},
		{NameLLMBinaryGT, Config{Model: model}, nil, NameLLMBinaryGT},
		{NameLLMGT, Config{Models: map[string]llm.ChatModel{NameLLMGT: model}}, nil, NameLLMGT},
		{NameLLM, Config{Models: map[string]llm.ChatModel{NameLLMGT: model}}, ErrNoModel, ""},
		{agentevolver.EvaluatorSynthetic, Config{Model: model}, nil, DefaultSyntheticGrader},
		{agentevolver.EvaluatorSynthetic, Config{Model: model, SyntheticGrader: NameAvgLLM}, nil, NameAvgLLM},
		{agentevolver.EvaluatorSynthetic, Config{Model: model, SyntheticGrader: "bogus"}, ErrUnknownGrader, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := New(tt.name, tt.cfg)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("New(%q) err = %v, want %v", tt.name, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantName == "" {
				if g != (agentflow.EnvEvaluator{Sparse: true}) {
					t.Errorf("New(%q) = %#v, want EnvEvaluator{Sparse: true}", tt.name, g)
				}
				return
			}
			if j, ok := g.(*Judge); !ok || j.Name() != tt.wantName {
				t.Errorf("New(%q) = %#v, want the %s judge", tt.name, g, tt.wantName)
			}
		})
	}
}

func TestUnknownGraderListsNames(t *testing.T) {
	_, err := New("llm-binary-gt-typo", Config{})
	for _, n := range Names() {
		if !strings.Contains(err.Error(), n) {
			t.Errorf("error %q does not list %q", err, n)
		}
	}
}

func TestNewOptions(t *testing.T) {
	temp := 0.0
	model := replying("<reward>60</reward>")
	tests := []struct {
		name      string
		cfg       Config
		temp      float64
		maxTokens int
	}{
		{NameLLM, Config{Model: model}, DefaultTemperature, DefaultJudgeMaxTokens},
		{NameLLMBinary, Config{Model: model}, DefaultTemperature, DefaultBandedMaxTokens},
		{NameLLMBinary, Config{Model: model, Temperature: &temp, MaxTokens: 100}, 0, 100},
		{NameLLMBinary, Config{Model: model, MaxTokens: -1}, DefaultTemperature, 0},
	}
	for _, tt := range tests {
		g, err := New(tt.name, tt.cfg)
		if err != nil {
			t.Fatal(err)
		}
		opts := g.(*Judge).opts
		if *opts.Temperature != tt.temp || opts.MaxTokens != tt.maxTokens {
			t.Errorf("%s %+v: options %+v, want temperature %v, max tokens %d", tt.name, tt.cfg, opts, tt.temp, tt.maxTokens)
		}
	}
}

func TestByEvaluator(t *testing.T) {
	judge := replying("<reward>90</reward>")
	env := &scoreEnv{score: 1}
	by := NewByEvaluator(Config{Model: judge})
	tests := []struct {
		evaluator string
		want      float64
		judged    bool
		wantErr   error
	}{
		{"", 1, false, nil},
		{NameEnv, 1, false, nil},
		{NameLLMBinaryGTNoConstraint, 0.9, true, nil},
		{agentevolver.EvaluatorSynthetic, 0.9, true, nil},
		{NameLLM, 0.9, true, nil},
		{"unknown", 0, false, ErrUnknownGrader},
	}
	for _, tt := range tests {
		t.Run(tt.evaluator, func(t *testing.T) {
			in := episode(tt.evaluator, testGroundTruth)
			in.Env = env
			before := judge.calls.Load()
			score, _, err := by.CalculateReward(context.Background(), in)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil || score != tt.want {
				t.Fatalf("CalculateReward = %v, %v; want %v", score, err, tt.want)
			}
			if judged := judge.calls.Load() > before; judged != tt.judged {
				t.Errorf("judge called: %v, want %v", judged, tt.judged)
			}
			if !tt.judged && env.params["sparse"] != true {
				t.Errorf("env evaluated with %v, want sparse", env.params)
			}
		})
	}
	// Graders are built once; "synthetic" is its grader.
	a, _ := by.Grader(agentevolver.EvaluatorSynthetic)
	b, _ := by.Grader(DefaultSyntheticGrader)
	c, _ := by.Grader(DefaultSyntheticGrader)
	if a != b || b != c {
		t.Errorf("Grader built %p, %p, %p; want one grader", a, b, c)
	}
}

// TestByEvaluatorLazy: env tasks need no model, and a missing model fails
// only the episodes that need it.
func TestByEvaluatorLazy(t *testing.T) {
	by := NewByEvaluator(Config{})
	in := episode("", "")
	in.Env = &scoreEnv{score: 0}
	if _, _, err := by.CalculateReward(context.Background(), in); err != nil {
		t.Fatalf("env task: %v", err)
	}
	in.Task.Evaluator = NameLLMBinaryGT
	if _, _, err := by.CalculateReward(context.Background(), in); !errors.Is(err, ErrNoModel) {
		t.Fatalf("judge task without model: err = %v, want ErrNoModel", err)
	}
	if _, err := by.Grader("x"); !errors.Is(err, ErrUnknownGrader) {
		t.Errorf("Grader(x) err = %v", err)
	}
}

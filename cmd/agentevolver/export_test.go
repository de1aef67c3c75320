package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/org/agentevolver/model"
	"github.com/org/agentevolver/tokenizer"
)

// savedTinyPolicy writes a tiny random policy with a learned tokenizer
// as a trainer checkpoint does (DIR/model/) and returns DIR.
func savedTinyPolicy(t *testing.T) (string, *tokenizer.BPE) {
	t.Helper()
	corpus := []string{"<|im_start|>user\nopen the door<|im_end|>\n", "<|im_start|>assistant\nthe door is open<|im_end|>\n"}
	tok, err := tokenizer.TrainBPE(corpus, tokenizer.TrainOptions{VocabSize: 300})
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.New(model.Config{VocabSize: tok.VocabSize(), HiddenSize: 16, NumHiddenLayers: 2,
		NumAttentionHeads: 4, NumKeyValueHeads: 2, IntermediateSize: 24, InitializerRange: 0.5}, 5, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := m.Export(context.Background(), filepath.Join(dir, "model"), model.ExportOptions{Tokenizer: tok}); err != nil {
		t.Fatal(err)
	}
	return dir, tok
}

func score(t *testing.T, dir, ids string) []float64 {
	t.Helper()
	var out, errOut bytes.Buffer
	if err := runScore(context.Background(), []string{"--checkpoint", dir}, strings.NewReader(ids), &out, &errOut); err != nil {
		t.Fatalf("score %s: %v (stderr %s)", dir, err, errOut.String())
	}
	var got scoreOutput
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("score printed %q: %v", out.String(), err)
	}
	return got.LogProbs
}

func TestExportAndScoreCommands(t *testing.T) {
	ckpt, tok := savedTinyPolicy(t)
	ids, _ := json.Marshal(tok.Encode("<|im_start|>assistant\nthe door is open<|im_end|>"))
	want := score(t, ckpt, string(ids))
	if n := len(tok.Encode("<|im_start|>assistant\nthe door is open<|im_end|>")) - 1; len(want) != n {
		t.Fatalf("%d log-probs, want %d", len(want), n)
	}
	for _, tc := range []struct {
		dtype string
		tol   float64
	}{{"f32", 0}, {"bf16", 0.05}} {
		t.Run(tc.dtype, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "hf")
			var stdout, stderr bytes.Buffer
			args := []string{"--checkpoint", ckpt, "--out", out, "--dtype", tc.dtype, "--shard-size", "4kB"}
			if err := runExport(context.Background(), args, nil, &stdout, &stderr); err != nil {
				t.Fatalf("%v (stderr %s)", err, stderr.String())
			}
			if !strings.Contains(stdout.String(), "safetensors file(s)") {
				t.Errorf("export printed %q", stdout.String())
			}
			for _, f := range []string{"config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json", model.WeightIndexFile} {
				if _, err := os.Stat(filepath.Join(out, f)); err != nil {
					t.Errorf("the export lacks %s: %v", f, err)
				}
			}
			got := score(t, out, string(ids))
			for i := range want {
				if math.Abs(got[i]-want[i]) > tc.tol*(1+math.Abs(want[i])) {
					t.Errorf("token %d: log-prob %g after a %s export, %g before", i+1, got[i], tc.dtype, want[i])
				}
			}
		})
	}
}

func TestExportCommandErrors(t *testing.T) {
	ckpt, _ := savedTinyPolicy(t)
	noTok := t.TempDir()
	m, err := model.New(model.Config{VocabSize: 300, HiddenSize: 8, NumHiddenLayers: 1, NumAttentionHeads: 2, IntermediateSize: 8}, 1, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Save(context.Background(), noTok); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no flags", nil, "required"},
		{"dtype", []string{"--checkpoint", ckpt, "--out", t.TempDir(), "--dtype", "f16"}, "dtype"},
		{"shard size", []string{"--checkpoint", ckpt, "--out", t.TempDir(), "--shard-size", "5XB"}, "unit"},
		{"not a policy", []string{"--checkpoint", t.TempDir(), "--out", t.TempDir()}, "no config.json"},
		{"onto itself", []string{"--checkpoint", ckpt, "--out", filepath.Join(ckpt, "model")}, "checkpoint itself"},
		{"no tokenizer", []string{"--checkpoint", noTok, "--out", t.TempDir()}, "--tokenizer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := runExport(context.Background(), tc.args, nil, &stdout, &stderr)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want one mentioning %q", err, tc.want)
			}
		})
	}
	// --no-tokenizer exports what has none.
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := runExport(context.Background(), []string{"--checkpoint", noTok, "--out", out, "--no-tokenizer"}, nil, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if _, err := model.Load(context.Background(), out, model.Options{}); err != nil {
		t.Fatal(err)
	}
}

func TestScoreCommandErrors(t *testing.T) {
	ckpt, _ := savedTinyPolicy(t)
	for _, tc := range []struct {
		name, stdin string
		want        string
	}{
		{"not json", "hello", "JSON list"},
		{"one id", "[3]", "at least 2"},
		{"negative", "[3, -1]", "not an id"},
		{"two lists", "[1,2] [3,4]", "more after it"},
		{"outside the vocabulary", "[1, 100000]", "outside [0, "},
		{"too large", "[" + strings.Repeat("1,", maxScoreInput/2) + "1]", "over"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := runScore(context.Background(), []string{"--checkpoint", ckpt}, strings.NewReader(tc.stdin), &out, &errOut)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

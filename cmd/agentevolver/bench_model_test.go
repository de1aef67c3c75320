package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestBenchShapesMatchShared keeps the built-in shapes equal to the
// benchmark shapes of testdata/bench/models.json (a copy of the team's
// shared benchmark definitions kept in the module).
func TestBenchShapesMatchShared(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "bench", "models.json"))
	if err != nil {
		t.Fatal(err)
	}
	var shared map[string]struct {
		VocabSize        int     `json:"vocab_size"`
		HiddenSize       int     `json:"hidden_size"`
		NumLayers        int     `json:"num_layers"`
		NumHeads         int     `json:"num_heads"`
		NumKVHeads       int     `json:"num_kv_heads"`
		IntermediateSize int     `json:"intermediate_size"`
		RMSNormEps       float64 `json:"rms_norm_eps"`
		RopeTheta        float64 `json:"rope_theta"`
		BatchSize        int     `json:"batch_size"`
		SeqLen           int     `json:"seq_len"`
		PromptLen        int     `json:"prompt_len"`
		GenTokens        int     `json:"gen_tokens"`
	}
	if err := json.Unmarshal(raw, &shared); err != nil {
		t.Fatal(err)
	}
	shapes := benchShapes()
	for name, want := range shared {
		got, ok := shapes[name]
		m := got.Model
		if !ok || m.VocabSize != want.VocabSize || m.HiddenSize != want.HiddenSize || m.NumHiddenLayers != want.NumLayers ||
			m.NumAttentionHeads != want.NumHeads || m.NumKeyValueHeads != want.NumKVHeads || m.IntermediateSize != want.IntermediateSize ||
			m.RMSNormEps != want.RMSNormEps || m.RopeTheta != want.RopeTheta || m.TieWordEmbeddings ||
			got.BatchSize != want.BatchSize || got.SeqLen != want.SeqLen || got.PromptLen != want.PromptLen || got.GenTokens != want.GenTokens {
			t.Errorf("%s: built-in %+v, models.json %+v", name, got, want)
		}
	}
}

// TestBenchModel runs the logprob and generate benchmarks for one step each
// and checks the JSON line they print.
func TestBenchModel(t *testing.T) {
	for _, what := range []string{"logprob", "generate"} {
		var out, errOut bytes.Buffer
		if code := run(context.Background(), []string{"bench", what, "--model", "tiny", "--steps", "1", "--warmup", "0"}, nil, &out, &errOut); code != 0 {
			t.Fatalf("bench %s: exit %d: %s", what, code, errOut.String())
		}
		var res benchResult
		if err := json.Unmarshal(out.Bytes(), &res); err != nil {
			t.Fatalf("bench %s printed %q: %v", what, out.String(), err)
		}
		if res.Model != "tiny" || res.What != what || !(res.TokensPerSec > 0) {
			t.Errorf("bench %s: %+v", what, res)
		}
	}
}

// TestBenchOpProfile checks --op-profile: the table of the timed steps'
// ops on stderr beside the usual JSON line, and a clear error for a
// backend without an op profile.
func TestBenchOpProfile(t *testing.T) {
	var out, errOut bytes.Buffer
	args := []string{"bench", "logprob", "--model", "tiny", "--steps", "1", "--warmup", "1", "--op-profile", "3", "--backend", "gofast:ops_sequential"}
	if code := run(context.Background(), args, nil, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	table := errOut.String()
	// Which ops are the three slowest depends on the CPU (AVX2 or
	// AVX-512 kernels), so the test checks the table's shape only.
	if !strings.Contains(table, "ops of 1 timed steps:") || !strings.Contains(table, "\ntotal ") {
		t.Errorf("stderr has no op table:\n%s", table)
	}
	row := regexp.MustCompile(`(?m)^\s*[0-9.]+%\s+\S+\s+[0-9]+\s+[A-Z]\S* .* -> `)
	if rows := len(row.FindAllString(table, -1)); rows != 3 {
		t.Errorf("%d op rows, want 3:\n%s", rows, table)
	}
	var res benchResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || res.What != "logprob" {
		t.Errorf("JSON line %q: %v", out.String(), err)
	}
	if _, err := withOpProfile("xla:cuda"); err == nil || !strings.Contains(err.Error(), "gofast") {
		t.Errorf("withOpProfile(xla): %v, want an error naming gofast", err)
	}
	for config, want := range map[string]string{"gofast": "gofast:opprofile", "gofast:ops_parallel": "gofast:ops_parallel,opprofile"} {
		if got, err := withOpProfile(config); err != nil || got != want {
			t.Errorf("withOpProfile(%q) = %q, %v; want %q", config, got, err, want)
		}
	}
}

// TestBenchShapeFlags runs the main job's shape with its rows and lengths
// overridden, and refuses bad sizes and unknown shapes.
func TestBenchShapeFlags(t *testing.T) {
	var out, errOut bytes.Buffer
	args := []string{"bench", "generate", "--model", "mainjob", "--batch", "2", "--prompt-len", "8", "--gen-tokens", "4", "--steps", "1", "--warmup", "0"}
	if code := run(context.Background(), args, nil, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var res benchResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if res.Model != "mainjob" || res.Batch != 2 || res.PromptLen != 8 || res.GenTokens != 4 || res.SeqLen != 0 || !(res.TokensPerSec > 0) {
		t.Errorf("%+v", res)
	}
	// The decode rate needs the prefill step's time (it is left out when
	// noise makes the difference of one-step medians non-positive).
	if !(res.PrefillStepS > 0) || res.DecodeTokensPerSec < 0 {
		t.Errorf("prefill step %v s, decode rate %v tokens/s", res.PrefillStepS, res.DecodeTokensPerSec)
	}
	for _, bad := range [][]string{
		{"--model", "huge"},
		{"--model", "tiny", "--batch", "-1"},
	} {
		out.Reset()
		errOut.Reset()
		if code := run(context.Background(), append([]string{"bench", "logprob", "--steps", "1"}, bad...), nil, &out, &errOut); code == 0 {
			t.Errorf("%v: exit 0", bad)
		}
	}
	out.Reset()
	errOut.Reset()
	if code := run(context.Background(), []string{"bench", "logprob", "--model", "tiny", "--prompt-len", "200", "--steps", "1"}, nil, &out, &errOut); code == 0 || !strings.Contains(errOut.String(), "sequence length") {
		t.Errorf("prompt longer than the sequence: exit %d, %s", code, errOut.String())
	}
}

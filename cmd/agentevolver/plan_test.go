package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/org/agentevolver/model"
)

const gpu7BConfig = "../../examples/configs/gpu-qwen2.5-7b.yaml"

func runPlanLines(t *testing.T, args ...string) []string {
	t.Helper()
	var out, errOut bytes.Buffer
	if err := runPlan(context.Background(), args, nil, &out, &errOut); err != nil {
		t.Fatalf("plan %v: %v (stderr %s)", args, err, errOut.String())
	}
	return strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
}

// planRow returns the memory column of the row named name.
func planRow(t *testing.T, lines []string, name string) string {
	t.Helper()
	for _, l := range lines {
		if f := strings.Fields(l); strings.HasPrefix(l, name+" ") && len(f) >= 3 {
			return strings.Join(f[len(strings.Fields(name)):len(strings.Fields(name))+2], " ")
		}
	}
	t.Fatalf("no %q row in\n%s", name, strings.Join(lines, "\n"))
	return ""
}

func TestPlan7BConfig(t *testing.T) {
	// The example config as it is: bf16 compute, LoRA r=16, rollouts on vLLM servers, 4096 tokens.
	lines := runPlanLines(t, "--config", gpu7BConfig, "--device-memory", "141GB")
	if !strings.Contains(lines[0], "7.62 B parameters") {
		t.Errorf("first line %q, want Qwen2.5-7B's 7.62 B parameters", lines[0])
	}
	for name, want := range map[string]string{
		"parameters": "30.6 GB", "master weights": "0 B", "optimizer": "323.0 MB", "reference": "0 B",
		"gradients": "161.5 MB", "compute copies": "15.2 GB", "kv-cache": "0 B", "reserve": "2.0 GB",
	} {
		if got := planRow(t, lines, name); got != want {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	}
	if last := lines[len(lines)-1]; last != "fits" {
		t.Errorf("last line %q, want fits: the example config is sized for one H200", last)
	}
	// The reference's settings: full fine-tuning in float32, 25580-token sequences, rollouts in process.
	lines = runPlanLines(t, "--config", gpu7BConfig, "--device-memory", "141GB", "--dtype", "f32", "--lora-r", "0",
		"--set", "data.max_prompt_length=4000", "--set", "data.max_response_length=21580", "--set", "rollout.max_model_len=25580",
		"--set", "rollout.engine=local")
	for name, want := range map[string]string{"parameters": "30.5 GB", "optimizer": "60.9 GB", "reference": "30.5 GB", "gradients": "30.5 GB", "kv-cache": "93.9 GB"} {
		if got := planRow(t, lines, name); got != want {
			t.Errorf("reference settings, %s: %s, want %s", name, got, want)
		}
	}
	if last := lines[len(lines)-1]; last != "does not fit" {
		t.Errorf("last line %q, want does not fit: everything float32 with 25580-token sequences", last)
	}
	text := strings.Join(lines, "\n")
	for _, want := range []string{"f32, full fine-tuning    nothing fits", "bf16 compute, LoRA r=16  sequences up to 4352 tokens"} {
		if !strings.Contains(text, want) {
			t.Errorf("the plan does not say %q:\n%s", want, text)
		}
	}
	// Two devices shard the moments and split the micro-batch's rows.
	lines = runPlanLines(t, "--config", gpu7BConfig, "--device-memory", "141GB", "--devices", "2", "--lora-r", "0", "--set", "actor.micro_batch_size=2")
	for name, want := range map[string]string{"optimizer": "30.5 GB", "parameters": "15.2 GB", "gathered weights": "15.2 GB"} {
		if got := planRow(t, lines, name); got != want {
			t.Errorf("two devices, full fine-tuning: %s %s, want %s (sharded in two)", name, got, want)
		}
	}
}

func TestComputePlanFormulas(t *testing.T) {
	c := withConfigDefaults(model.Config{VocabSize: 100, HiddenSize: 8, NumHiddenLayers: 2, NumAttentionHeads: 2,
		NumKeyValueHeads: 1, IntermediateSize: 16})
	P := float64(c.NumParameters())
	base := planSettings{dtype: model.ExportFloat32, useKL: true, microBatch: 2, trainLen: 10, concurrency: 3, rolloutLen: 20, devices: 1}
	bytesOf := func(p memoryPlan) map[string]float64 {
		m := make(map[string]float64)
		for _, l := range p.lines {
			m[l.name] = l.bytes
		}
		return m
	}
	// hd 4, KV·hd 4: activations 4·b·T·L·(8D + 3·4 + 4I + 2HT) + 8·b·T·V.
	act := 4.0*2*10*2*(8*8+3*4+4*16+2*2*10) + 8*2*10*100
	for _, tc := range []struct {
		name string
		s    planSettings
		want map[string]float64
	}{
		{"f32 full", base, map[string]float64{"parameters": 4 * P, "master weights": 0, "optimizer": 8 * P, "reference": 4 * P,
			"gradients": 4 * P, "activations": act, "compute copies": 0, "kv-cache": 4 * 3 * 20 * 2 * 2 * 4, "prefill attention": 4 * 3 * 2 * 20 * 20}},
		{"bf16 compute", func() planSettings { s := base; s.dtype = model.ExportBFloat16; return s }(),
			map[string]float64{"parameters": 4 * P, "master weights": 0, "optimizer": 8 * P, "reference": 4 * P, "gradients": 4 * P,
				"activations": 2.0*2*10*2*(8*8+3*4+4*16+2*2*10) + 8*2*10*100, "compute copies": 2 * P, "kv-cache": 2 * 3 * 20 * 2 * 2 * 4}},
		{"f32 full, two devices", func() planSettings { s := base; s.devices = 2; return s }(),
			map[string]float64{"parameters": 2 * P, "optimizer": 4 * P, "reference": 4 * P, "gradients": 4 * P, "gathered weights": 2 * P,
				"activations": 4.0*1*10*2*(8*8+3*4+4*16+2*2*10) + 8*1*10*100,
				"kv-cache":    4 * 3 * 20 * 2 * 2 * 4}}, // one of the two rows per device; rollouts on the first
		{"remote rollouts", func() planSettings { s := base; s.remote = true; return s }(),
			map[string]float64{"kv-cache": 0, "prefill attention": 0}},
		{"LoRA r=2 on q and down", func() planSettings {
			s := base
			s.loraR, s.loraTargets = 2, []string{"q_proj", "down_proj"}
			return s
		}(), map[string]float64{
			// r·(in+out)·L: q 8+8, down 16+8.
			"parameters": 4*P + 4*2*(16+24)*2, "optimizer": 8 * 2 * (16 + 24) * 2, "reference": 0, "gradients": 4 * 2 * (16 + 24) * 2,
			"activations": act + 4*2*10*2*(2*2*2)}},
		{"no KL", func() planSettings { s := base; s.useKL = false; return s }(), map[string]float64{"reference": 0}},
		// Projections q 8·8, k and v 4·8, o 8·8, gate, up and down 16·8
		// per layer and the untied head 100·8: W = 2·576 + 800 = 1,952;
		// int8 adds 4 B per output (2·(8+4+4+8+16+16+8) + 100 = 228).
		{"int8 sampler", func() planSettings { s := base; s.sampler = model.SamplerInt8; return s }(),
			map[string]float64{"sampler copies": 1952 + 4*228}},
		{"small float32 sampler", base, map[string]float64{"sampler copies": 4 * 1952}},
		{"remote rollouts, int8", func() planSettings { s := base; s.remote, s.sampler = true, model.SamplerInt8; return s }(),
			map[string]float64{"sampler copies": 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := bytesOf(computePlan(c, tc.s))
			for name, want := range tc.want {
				if got[name] != want {
					t.Errorf("%s: %g, want %g", name, got[name], want)
				}
			}
			state := got["parameters"] + got["master weights"] + got["optimizer"] + got["reference"] + got["sampler copies"]
			rollout := got["kv-cache"] + got["prefill attention"] + got["compute copies"]
			if tc.s.remote {
				rollout = 0
			}
			peak := state + max(got["gradients"]+got["gathered weights"]+got["activations"]+got["compute copies"], rollout)
			if got["peak"] != peak {
				t.Errorf("peak %g, want %g", got["peak"], peak)
			}
		})
	}
}

func TestMaxFittingLength(t *testing.T) {
	c := withConfigDefaults(model.Config{VocabSize: 1000, HiddenSize: 64, NumHiddenLayers: 4, NumAttentionHeads: 4, IntermediateSize: 128})
	s := planSettings{dtype: model.ExportFloat32, useKL: true, microBatch: 4, trainLen: 8192, concurrency: 8, rolloutLen: 8192, devices: 1}
	const mem = 2e9
	n := maxFittingLength(c, s, mem)
	if n <= 0 || n%256 != 0 || n >= 8192 {
		t.Fatalf("maxFittingLength = %d", n)
	}
	at := func(t int) planSettings { s2 := s; s2.trainLen, s2.rolloutLen = t, t; return s2 }
	if !computePlan(c, at(n)).fits(mem) || computePlan(c, at(n+256)).fits(mem) {
		t.Errorf("%d fits but %d does not: not the boundary", n, n+256)
	}
}

func TestParseByteSize(t *testing.T) {
	for in, want := range map[string]int64{"141GB": 141e9, "141 GB": 141e9, "2GiB": 2 << 30, "500MB": 500e6, "4kB": 4000,
		"5e9": 5e9, "1024": 1024, "1.5TB": 1.5e12, "80g": 80e9} {
		if got, err := parseByteSize(in); err != nil || got != want {
			t.Errorf("parseByteSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "GB", "-1GB", "5XB", "1e400"} {
		if _, err := parseByteSize(bad); err == nil {
			t.Errorf("parseByteSize(%q) succeeded", bad)
		}
	}
}

func TestPlanErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--config", gpu7BConfig},
		{"--config", gpu7BConfig, "--device-memory", "lots"},
		{"--config", gpu7BConfig, "--device-memory", "80GB", "--devices", "-1"},
		{"--config", gpu7BConfig, "--device-memory", "80GB", "--lora-r", "-2"},
		{"--config", gpu7BConfig, "--device-memory", "80GB", "--dtype", "f8"},
		{"--config", gpu7BConfig, "--device-memory", "80GB", "--lora-targets", "q_proj,lm_head"},
		{"--config", "no-such.yaml", "--device-memory", "80GB"},
	} {
		var out, errOut bytes.Buffer
		if err := runPlan(context.Background(), args, nil, &out, &errOut); err == nil {
			t.Errorf("plan %v succeeded", args)
		}
	}
}

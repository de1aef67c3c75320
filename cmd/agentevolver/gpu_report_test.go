package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/org/agentevolver/model"
)

// writeFile writes data under dir.
func writeFile(t *testing.T, dir, name string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// ciBenchSettings are the dry-run's bench-gpu settings, smaller still.
func ciBenchSettings() gpuBenchSettings {
	return gpuBenchSettings{Shape: "ci", Backend: model.DefaultBackend, DType: "bf16", LoRAR: 4, Batch: 2, SeqLen: 16, PromptLen: 8,
		Steps: 1, GenBatches: []int{1, 2}, GenPrompt: 4, GenTokens: 4, GenSteps: 1}
}

// TestGPUReportDryRunFormat builds a stage directory as the dry-run does
// (bench-gpu run for real at CI size on the pure-Go backend, the test
// logs, parity records, the anchor skipped), assembles the report through
// the gpu-report command, and decodes it strictly.
func TestGPUReportDryRunFormat(t *testing.T) {
	if testing.Short() {
		t.Skip("runs bench-gpu at CI size")
	}
	dir := t.TempDir()
	saves := 0
	bench, err := benchGPU(context.Background(), ciBenchSettings(), func(r gpuBenchResult) error {
		saves++
		if r.Complete {
			t.Error("a partial save says complete")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if saves != 3 || !bench.Complete {
		t.Errorf("%d partial saves (want 3), complete %v", saves, bench.Complete)
	}
	writeFile(t, dir, "bench.json", mustJSON(t, bench))
	writeFile(t, dir, "env.json", mustJSON(t, gpuHost{Hostname: "ci", Backend: "go"}))
	writeFile(t, dir, "model.log", []byte("=== RUN   TestXLAParityLogProbs\n=== RUN   TestXLAParityLogProbs/f32\n    --- PASS: TestXLAParityLogProbs/f32 (0.01s)\n--- PASS: TestXLAParityLogProbs (0.02s)\nPASS\n"))
	writeFile(t, dir, "optim.log", []byte("--- SKIP: TestDataParallelXLA (0.00s)\n--- PASS: TestXLAParityUpdate (1.50s)\nPASS\n"))
	writeFile(t, dir, "parity.jsonl", append(mustJSON(t, gpuParity{Package: "model", Check: "logprobs/f32", Backend: "go",
		MaxDiff: 1e-6, Tolerance: 2e-3, Pass: true, DiffMetric: "max_abs_diff"}), '\n'))
	writeFile(t, dir, "anchor.json", []byte(`{"status": "skipped", "reason": "PyTorch + PEFT not installed"}`))
	writeFile(t, dir, "mainjob/metrics.jsonl", []byte(`{"step":1,"time/step_s":2.5,"time/rollout_s":1.5,"time/update_s":0.5}`+"\n"+`{"val/score":0.7}`+"\n"))
	writeFile(t, dir, "stages.jsonl", []byte(strings.Join([]string{
		`{"name":"env","rc":0,"seconds":0.1,"timeout_s":20,"log":"env.log"}`,
		`{"name":"model-xla","rc":0,"seconds":3,"timeout_s":60,"log":"model.log"}`,
		`{"name":"optim-xla","rc":0,"seconds":3,"timeout_s":60,"log":"optim.log"}`,
		`{"name":"bench","rc":0,"seconds":1,"timeout_s":150,"log":"bench.log"}`,
		`{"name":"anchor","rc":0,"seconds":0,"timeout_s":0,"log":"","skip":"no torch"}`,
	}, "\n")+"\n"))
	writeFile(t, dir, "env.log", nil)
	writeFile(t, dir, "bench.log", nil)

	out := filepath.Join(dir, "report.json")
	var stderr bytes.Buffer
	if err := runGPUReport(context.Background(), []string{"--dir", dir, "--mode", "dry-run", "--out", out}, nil, nil, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep gpuReport
	if err := decodeStrict(data, &rep); err != nil {
		t.Fatalf("report does not decode strictly: %v", err)
	}
	if rep.Schema != gpuReportSchema || rep.Mode != "dry-run" || rep.Status != "pass" || rep.Host.Backend != "go" {
		t.Errorf("report header %+v", rep)
	}
	want := map[string]string{"env": "pass", "model-xla": "pass", "optim-xla": "pass", "bench": "pass", "anchor": "skip"}
	for _, st := range rep.Stages {
		if want[st.Name] != st.Status {
			t.Errorf("stage %s: %s, want %s (%s)", st.Name, st.Status, want[st.Name], st.Error)
		}
		delete(want, st.Name)
	}
	if len(want) != 0 {
		t.Errorf("stages missing: %v", want)
	}
	if rep.Stages[1].Tests[0] != (gpuTestResult{Name: "TestXLAParityLogProbs/f32", Status: "pass", Seconds: 0.01}) || len(rep.Stages[2].Tests) != 2 {
		t.Errorf("tests %+v %+v", rep.Stages[1].Tests, rep.Stages[2].Tests)
	}
	if rep.Bench == nil || !(rep.Bench.Train.TokensPerS > 0) || len(rep.Bench.Generate) != 2 || rep.Bench.Plan.PredictedPeak <= 0 ||
		rep.Bench.Memory.Peak <= 0 || rep.Bench.TrainableParams <= 0 || rep.Bench.TrainableParams >= rep.Bench.Params {
		t.Errorf("bench %+v", rep.Bench)
	}
	if rep.MainJob == nil || rep.MainJob.Steps != 1 || rep.MainJob.MedianStepS != 2.5 || rep.MainJob.MedianUpdate != 0.5 {
		t.Errorf("main job %+v", rep.MainJob)
	}
	if rep.Anchor == nil || rep.Anchor.Status != "skipped" || rep.Comparison != nil {
		t.Errorf("anchor %+v, comparison %+v", rep.Anchor, rep.Comparison)
	}
	if len(rep.Parity) != 1 || !rep.Parity[0].Pass {
		t.Errorf("parity %+v", rep.Parity)
	}
}

// TestGPUReportFailures checks that failures and timeouts fail the report
// and keep the log's end, that a failed parity check fails it, and that a
// result file with an unknown field is reported, not lost.
func TestGPUReportFailures(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "stages.jsonl", []byte(`{"name":"model-xla","rc":1,"seconds":3,"timeout_s":60,"log":"model.log"}
{"name":"bench","rc":124,"seconds":150,"timeout_s":150,"log":"bench.log"}
{"name":"optim-xla","rc":0,"seconds":1,"timeout_s":60,"log":"optim.log"}
`))
	writeFile(t, dir, "model.log", []byte("--- FAIL: TestXLAParityGradients (0.10s)\nFAIL\n"))
	writeFile(t, dir, "bench.log", []byte("compiling...\n"))
	writeFile(t, dir, "optim.log", []byte("--- SKIP: TestXLAParityUpdate (0.00s)\n--- SKIP: TestDataParallelXLA (0.00s)\n"))
	writeFile(t, dir, "parity.jsonl", []byte(`{"package":"model","check":"gradients/f32","backend":"xla:cuda","max_diff":0.5,"tolerance":0.01,"pass":false,"diff_metric":"max_rel_l2_error"}`+"\n"))
	writeFile(t, dir, "bench.json", []byte(`{"backend":"xla:cuda","surprise":1}`))
	rep, err := assembleGPUReport(dir, "run")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != "fail" || rep.Bench != nil || rep.Host.Error == "" {
		t.Errorf("status %s, bench %v, host error %q", rep.Status, rep.Bench, rep.Host.Error)
	}
	got := map[string]gpuStage{}
	for _, st := range rep.Stages {
		got[st.Name] = st
	}
	if s := got["model-xla"]; s.Status != "fail" || !strings.Contains(s.LogTail, "FAIL: TestXLAParityGradients") {
		t.Errorf("model-xla %+v", s)
	}
	if s := got["bench"]; s.Status != "timeout" || s.LogTail != "compiling...\n" {
		t.Errorf("bench %+v", s)
	}
	if s := got["optim-xla"]; s.Status != "skip" {
		t.Errorf("optim-xla %+v", s)
	}
	if s := got["bench-result"]; s.Status != "fail" || !strings.Contains(s.Error, "surprise") {
		t.Errorf("bench-result %+v", s)
	}
	writeFile(t, dir, "stages.jsonl", []byte(`{"name":"optim-xla","rc":0,"seconds":1,"timeout_s":60,"log":"optim.log"}`+"\n"))
	for _, name := range []string{"parity.jsonl", "bench.json"} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	for mode, want := range map[string]string{"run": "fail", "dry-run": "pass"} {
		if rep, err := assembleGPUReport(dir, mode); err != nil || rep.Status != want {
			t.Errorf("%s with every test skipped: %v, want %s", mode, err, want)
		}
	}
	for _, bad := range []string{"", `{"name":"x","rc":0,"extra":1}`, `{"rc":0}`, `not json`} {
		writeFile(t, dir, "stages.jsonl", []byte(bad))
		if _, err := assembleGPUReport(dir, "run"); err == nil && bad != "" {
			t.Errorf("stages.jsonl %q: no error", bad)
		}
	}
	if err := runGPUReport(context.Background(), []string{"--mode", "run"}, nil, nil, &bytes.Buffer{}); err == nil {
		t.Error("gpu-report without --dir: no error")
	}
	if err := runGPUReport(context.Background(), []string{"--dir", dir, "--mode", "fast"}, nil, nil, &bytes.Buffer{}); err == nil {
		t.Error("gpu-report --mode fast: no error")
	}
}

// TestGPUReportComparison checks the ratios ours/PyTorch.
func TestGPUReportComparison(t *testing.T) {
	b := &gpuBenchResult{Params: 10, Train: gpuTrainResult{TokensPerS: 50, MedianStepS: 2, FirstStepS: 30},
		Generate: []gpuGenResult{{Batch: 1, TokensPerS: 20}, {Batch: 64, TokensPerS: 640}},
		Memory:   gpuMemoryResult{BaselineBytes: 100, Peak: 1100}}
	a := &gpuAnchor{Status: "ok", Params: 10, Train: gpuTrainResult{TokensPerS: 100, MedianStepS: 1},
		Generate: []gpuGenResult{{Batch: 1, TokensPerS: 10}, {Batch: 64, TokensPerS: 1280}}, PeakBytes: 500}
	c := compareWithAnchor(b, a)
	if c == nil || c.TrainRatio != 0.5 || c.MemoryRatio != 2 || len(c.Notes) != 1 ||
		len(c.GenerateRatio) != 2 || c.GenerateRatio[0] != (gpuGenerateRatio{1, 2}) || c.GenerateRatio[1] != (gpuGenerateRatio{64, 0.5}) {
		t.Errorf("comparison %+v", c)
	}
	if compareWithAnchor(b, &gpuAnchor{Status: "skipped"}) != nil || compareWithAnchor(nil, a) != nil {
		t.Error("comparison without both results")
	}
}

// TestGPUPythonHelpersFormat runs the Python helpers of the check as the
// dry-run does (scripts/gpu_env.py on a fake JAX layout; the anchor where
// torch is missing writes "skipped") and decodes their JSON strictly into
// the report's types, so the two languages keep one format.
func TestGPUPythonHelpersFormat(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	dir := t.TempDir()
	site := filepath.Join(dir, "site")
	for _, d := range []string{"jax_plugins/xla_cuda13", "nvidia/cu13/lib", "nvidia/cu13/nvvm/libdevice", "nvidia/cudnn/lib"} {
		if err := os.MkdirAll(filepath.Join(site, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, site, "jax_plugins/xla_cuda13/xla_cuda_plugin.so", nil)
	envJSON := filepath.Join(dir, "env.json")
	cmd := exec.Command(py, "../../scripts/gpu_env.py", "--workdir", filepath.Join(dir, "pjrt"), "--env-json", envJSON)
	cmd.Env = append(os.Environ(), "PYTHONPATH="+site, "XLA_FLAGS=", "LD_LIBRARY_PATH=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gpu_env.py: %v\n%s", err, out)
	}
	var host gpuHost
	if err := readStrictJSON(envJSON, &host); err != nil {
		t.Fatal(err)
	}
	if host.Backend != "xla:cuda" || host.Error != "" || len(host.NvidiaLibDirs) != 2 || !strings.HasSuffix(host.CUDADataDir, "nvidia/cu13") {
		t.Errorf("host %+v", host)
	}
	target, err := os.Readlink(filepath.Join(dir, "pjrt", "lib", "pjrt_c_api_cuda_plugin.so"))
	if err != nil || target != filepath.Join(site, "jax_plugins/xla_cuda13/xla_cuda_plugin.so") {
		t.Errorf("plugin link -> %q, %v", target, err)
	}
	for _, want := range []string{"export PJRT_PLUGIN_LIBRARY_PATH=" + filepath.Join(dir, "pjrt", "lib"), "--xla_gpu_cuda_data_dir=", "export GOPJRT_CUDA_CHECKS=0"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("exports lack %q:\n%s", want, out)
		}
	}

	if exec.Command(py, "-c", "import torch").Run() == nil {
		return // the anchor would run for real; the GPU check covers it
	}
	anchorJSON := filepath.Join(dir, "anchor.json")
	if out, err := exec.Command(py, "../../scripts/gpu_anchor.py", "--shape", "ci", "--out", anchorJSON).CombinedOutput(); err != nil {
		t.Fatalf("gpu_anchor.py: %v\n%s", err, out)
	}
	var anchor gpuAnchor
	if err := readStrictJSON(anchorJSON, &anchor); err != nil || anchor.Status != "skipped" || anchor.Reason == "" {
		t.Errorf("anchor %+v, %v", anchor, err)
	}
}

// TestBenchGPUCommand runs bench-gpu through its flags at the smallest
// size and checks its errors.
func TestBenchGPUCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the CI-sized model")
	}
	var out, errOut bytes.Buffer
	args := []string{"--shape", "ci", "--backend", model.DefaultBackend, "--dtype", "f32", "--lora-r", "0", "--batch", "1", "--seq-len", "8",
		"--prompt-len", "4", "--steps", "1", "--gen-batch", "2", "--gen-prompt", "3", "--gen-tokens", "2", "--gen-steps", "1", "--reserve", "0"}
	if err := runBenchGPU(context.Background(), args, nil, &out, &errOut); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	var res gpuBenchResult
	if err := decodeStrict(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if res.TrainableParams != res.Params || res.LoRAR != 0 || res.Generate[0].Batch != 2 || res.Plan.ReserveBytes != 0 ||
		!(res.Plan.Ratio > 0) || res.Memory.Source == "" || res.Train.TokensPerStep != 8 {
		t.Errorf("result %+v", res)
	}
	for _, bad := range [][]string{
		{"--shape", "huge"}, {"--dtype", "f16"}, {"--lora-r", "-1"}, {"--prompt-len", "600"},
		{"--gen-batch", "0"}, {"--gen-batch", "a"}, {"--steps", "0"}, {"--reserve", "lots"},
	} {
		if err := runBenchGPU(context.Background(), append([]string{"--shape", "ci"}, bad...), nil, &bytes.Buffer{}, &bytes.Buffer{}); err == nil {
			t.Errorf("bench-gpu %v: no error", bad)
		}
	}
}

func TestParseSMIApps(t *testing.T) {
	out := "1234, 512\n42, 80000\n"
	if mib, ok := parseSMIApps(out, 42); !ok || mib != 80000 {
		t.Errorf("pid 42: %d %v", mib, ok)
	}
	for _, bad := range []string{"", "42", "42, x", "42, -3", "[N/A]"} {
		if _, ok := parseSMIApps(bad, 42); ok {
			t.Errorf("%q parsed", bad)
		}
	}
	if _, ok := parseSMIApps(out, 7); ok {
		t.Error("pid 7 found")
	}
}

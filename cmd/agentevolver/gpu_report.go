package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

func init() {
	register(command{
		name:    "gpu-report",
		summary: "assemble the JSON report of scripts/gpu-check.sh from its stage directory (docs/gpu.md)",
		run:     runGPUReport,
	})
}

// gpuReportSchema is the version of the report's format.
const gpuReportSchema = 1

// Bounds on what the assembler reads from a stage directory.
const (
	maxStageFile = 8 << 20 // bytes of one JSON file or log read
	maxLogTail   = 2000    // characters of a failed stage's log kept
)

// gpuReport is the JSON report scripts/gpu-check.sh writes.
type gpuReport struct {
	Schema     int             `json:"schema"`
	Mode       string          `json:"mode"` // "run" (GPU) or "dry-run" (pure Go, CI size)
	Created    string          `json:"created"`
	Status     string          `json:"status"` // "pass" when no stage failed or timed out, else "fail"
	Host       gpuHost         `json:"host"`
	Stages     []gpuStage      `json:"stages"`
	Parity     []gpuParity     `json:"parity"`
	MainJob    *gpuMainJob     `json:"main_job"`
	Bench      *gpuBenchResult `json:"bench"`
	Anchor     *gpuAnchor      `json:"anchor"`
	Comparison *gpuComparison  `json:"comparison"`
}

// gpuHost describes the machine and what the launcher found (env.json).
type gpuHost struct {
	Hostname      string   `json:"hostname"`
	GPU           string   `json:"gpu"`
	Driver        string   `json:"driver"`
	Backend       string   `json:"backend"`
	PluginPath    string   `json:"plugin_path"`
	PluginTarget  string   `json:"plugin_target"`
	NvidiaLibDirs []string `json:"nvidia_lib_dirs"`
	CUDADataDir   string   `json:"cuda_data_dir"`
	XLAFlags      string   `json:"xla_flags"`
	JAXVersion    string   `json:"jax_version"`
	TorchVersion  string   `json:"torch_version"`
	PEFTVersion   string   `json:"peft_version"`
	Error         string   `json:"error,omitempty"`
}

// gpuStage is one step of the check.
type gpuStage struct {
	Name     string          `json:"name"`
	Status   string          `json:"status"` // pass, fail, timeout or skip
	RC       int             `json:"rc"`
	Seconds  float64         `json:"seconds"`
	TimeoutS int             `json:"timeout_s"`
	Tests    []gpuTestResult `json:"tests,omitempty"`
	Error    string          `json:"error,omitempty"`
	LogTail  string          `json:"log_tail,omitempty"`
}

// gpuTestResult is one Go test's outcome in a test binary's log.
type gpuTestResult struct {
	Name    string  `json:"name"`
	Status  string  `json:"status"` // pass, fail or skip
	Seconds float64 `json:"seconds"`
}

// gpuParity is one parity check the XLA tests recorded
// ($AGENTEVOLVER_PARITY_OUT).
type gpuParity struct {
	Package    string  `json:"package"`
	Check      string  `json:"check"`
	Backend    string  `json:"backend"`
	MaxDiff    float64 `json:"max_diff"`
	Tolerance  float64 `json:"tolerance"`
	Pass       bool    `json:"pass"`
	DiffMetric string  `json:"diff_metric"`
}

// gpuMainJob is the main job's few RL steps, from its metrics.jsonl.
type gpuMainJob struct {
	Steps         int       `json:"steps"`
	StepS         []float64 `json:"step_s"`
	MedianStepS   float64   `json:"median_step_s"`
	MedianRollout float64   `json:"median_rollout_s"`
	MedianUpdate  float64   `json:"median_update_s"`
}

// gpuAnchor is scripts/gpu_anchor.py's result: the same LoRA train step
// and generation in PyTorch + PEFT.
type gpuAnchor struct {
	Status          string         `json:"status"` // ok, partial (stopped during generation), skipped or error
	Reason          string         `json:"reason,omitempty"`
	Device          string         `json:"device"`
	TorchVersion    string         `json:"torch_version"`
	PEFTVersion     string         `json:"peft_version"`
	Params          int64          `json:"params"`
	TrainableParams int64          `json:"trainable_params"`
	Train           gpuTrainResult `json:"train"`
	Generate        []gpuGenResult `json:"generate"`
	PeakBytes       int64          `json:"peak_bytes"`
}

// gpuComparison sets ours against the anchor: ratios ours/PyTorch of
// tokens/s (the goal is >= 1.0 for training).
type gpuComparison struct {
	TrainRatio    float64            `json:"train_ratio"`
	GenerateRatio []gpuGenerateRatio `json:"generate_ratio"`
	MemoryRatio   float64            `json:"memory_ratio"` // our peak / PyTorch's
	Notes         []string           `json:"notes"`
}

// gpuGenerateRatio is the generation ratio at one batch size.
type gpuGenerateRatio struct {
	Batch int     `json:"batch"`
	Ratio float64 `json:"ratio"`
}

// gpuStageLine is one line of stages.jsonl, written by the script as each
// stage ends.
type gpuStageLine struct {
	Name     string  `json:"name"`
	RC       int     `json:"rc"`
	Seconds  float64 `json:"seconds"`
	TimeoutS int     `json:"timeout_s"`
	Log      string  `json:"log"`
	Skip     string  `json:"skip"` // why the stage did not run; empty when it ran
}

func runGPUReport(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("gpu-report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, `Usage: agentevolver gpu-report --dir STAGES --mode run|dry-run [--out FILE]

Reads the stage directory scripts/gpu-check.sh fills (stages.jsonl,
env.json, the test logs, parity.jsonl, bench.json, anchor.json, the main
job's metrics.jsonl) and writes the check's JSON report (docs/gpu.md).

Flags:`)
		fs.PrintDefaults()
	}
	dir := fs.String("dir", "", "the stage directory (required)")
	mode := fs.String("mode", "run", "run (GPU) or dry-run (pure Go, CI size)")
	out := fs.String("out", "", "write the report here instead of stdout")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *dir == "" {
		fs.Usage()
		return errors.New("gpu-report: --dir is required")
	}
	if *mode != "run" && *mode != "dry-run" {
		return fmt.Errorf("gpu-report: --mode %q: want run or dry-run", *mode)
	}
	rep, err := assembleGPUReport(*dir, *mode)
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if *out == "" {
		_, err = stdout.Write(data)
		return err
	}
	return os.WriteFile(*out, data, 0o644)
}

// assembleGPUReport reads a stage directory into a report. Missing or
// broken parts become a failed stage's error, never a lost report.
func assembleGPUReport(dir, mode string) (*gpuReport, error) {
	lines, err := readStageLines(filepath.Join(dir, "stages.jsonl"))
	if err != nil {
		return nil, err
	}
	rep := &gpuReport{Schema: gpuReportSchema, Mode: mode, Created: time.Now().UTC().Format(time.RFC3339), Status: "pass"}
	if err := readStrictJSON(filepath.Join(dir, "env.json"), &rep.Host); err != nil {
		rep.Host.Error = err.Error()
	}
	for _, l := range lines {
		st := gpuStage{Name: l.Name, RC: l.RC, Seconds: l.Seconds, TimeoutS: l.TimeoutS}
		var log []byte
		if l.Log != "" {
			log, err = readBounded(filepath.Join(dir, filepath.Base(l.Log)))
			if err != nil {
				st.Error = err.Error()
			}
		}
		st.Tests = parseGoTestLog(log)
		switch {
		case l.Skip != "":
			st.Status, st.Error = "skip", l.Skip
		case l.RC == 124 || l.RC == 137:
			st.Status, st.Error = "timeout", fmt.Sprintf("stopped after %d s", l.TimeoutS)
		case l.RC != 0:
			st.Status = "fail"
		case len(st.Tests) > 0 && !slices.ContainsFunc(st.Tests, func(t gpuTestResult) bool { return t.Status != "skip" }):
			st.Status, st.Error = "skip", "every test skipped"
		default:
			st.Status = "pass"
		}
		if st.Status == "fail" || st.Status == "timeout" {
			st.LogTail = tail(string(log), maxLogTail)
		}
		rep.Stages = append(rep.Stages, st)
	}
	if rep.Parity, err = readParity(filepath.Join(dir, "parity.jsonl")); err != nil {
		rep.Stages = append(rep.Stages, gpuStage{Name: "parity-records", Status: "fail", Error: err.Error()})
	}
	var bench gpuBenchResult
	if err := readStrictJSON(filepath.Join(dir, "bench.json"), &bench); err == nil {
		rep.Bench = &bench
	} else if !errors.Is(err, os.ErrNotExist) {
		rep.Stages = append(rep.Stages, gpuStage{Name: "bench-result", Status: "fail", Error: err.Error()})
	}
	var anchor gpuAnchor
	if err := readStrictJSON(filepath.Join(dir, "anchor.json"), &anchor); err == nil {
		rep.Anchor = &anchor
	} else if !errors.Is(err, os.ErrNotExist) {
		rep.Stages = append(rep.Stages, gpuStage{Name: "anchor-result", Status: "fail", Error: err.Error()})
	}
	if mj, err := readMainJob(filepath.Join(dir, "mainjob", "metrics.jsonl")); err == nil {
		rep.MainJob = mj
	} else if !errors.Is(err, os.ErrNotExist) {
		rep.Stages = append(rep.Stages, gpuStage{Name: "mainjob-metrics", Status: "fail", Error: err.Error()})
	}
	rep.Comparison = compareWithAnchor(rep.Bench, rep.Anchor)
	for _, st := range rep.Stages {
		// On the GPU a test stage whose every test skipped proved nothing
		// (no plugin found): that fails the run.
		if st.Status == "fail" || st.Status == "timeout" || (mode == "run" && st.Status == "skip" && len(st.Tests) > 0) {
			rep.Status = "fail"
		}
	}
	for _, p := range rep.Parity {
		if !p.Pass {
			rep.Status = "fail"
		}
	}
	return rep, nil
}

// readBounded reads at most maxStageFile bytes of a file.
func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxStageFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxStageFile {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, maxStageFile)
	}
	return data, nil
}

// readStrictJSON decodes one JSON value of a file into v, refusing
// unknown fields and trailing data.
func readStrictJSON(path string, v any) error {
	data, err := readBounded(path)
	if err != nil {
		return err
	}
	if err := decodeStrict(data, v); err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return nil
}

// decodeStrict decodes exactly one JSON value, refusing unknown fields.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

// readStageLines reads stages.jsonl.
func readStageLines(path string) ([]gpuStageLine, error) {
	data, err := readBounded(path)
	if err != nil {
		return nil, fmt.Errorf("gpu-report: %w", err)
	}
	var out []gpuStageLine
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var l gpuStageLine
		if err := decodeStrict(line, &l); err != nil {
			return nil, fmt.Errorf("gpu-report: stages.jsonl line %d: %w", i+1, err)
		}
		if l.Name == "" {
			return nil, fmt.Errorf("gpu-report: stages.jsonl line %d: no name", i+1)
		}
		out = append(out, l)
	}
	return out, nil
}

// readParity reads the parity records; a missing file is none.
func readParity(path string) ([]gpuParity, error) {
	data, err := readBounded(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []gpuParity
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var p gpuParity
		if err := decodeStrict(line, &p); err != nil {
			return out, fmt.Errorf("parity.jsonl line %d: %w", i+1, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// goTestLine matches the verdict lines of "go test -v" output.
var goTestLine = regexp.MustCompile(`^\s*--- (PASS|FAIL|SKIP): (\S+) \(([0-9.]+)s\)`)

// parseGoTestLog returns the verdicts of a test binary's -test.v log.
func parseGoTestLog(log []byte) []gpuTestResult {
	var out []gpuTestResult
	sc := bufio.NewScanner(bytes.NewReader(log))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		m := goTestLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		secs, _ := strconv.ParseFloat(m[3], 64)
		out = append(out, gpuTestResult{Name: m[2], Status: strings.ToLower(m[1]), Seconds: secs})
	}
	return out
}

// readMainJob summarises the RL steps of a metrics.jsonl: the lines with
// time/step_s.
func readMainJob(path string) (*gpuMainJob, error) {
	data, err := readBounded(path)
	if err != nil {
		return nil, err
	}
	var steps, rollouts, updates []float64
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var m map[string]json.RawMessage // metrics.jsonl's lines are open-ended by design
		if err := json.Unmarshal(line, &m); err != nil {
			return nil, fmt.Errorf("metrics.jsonl: %w", err)
		}
		step, ok := jsonNumber(m, "time/step_s")
		if !ok {
			continue
		}
		steps = append(steps, step)
		if v, ok := jsonNumber(m, "time/rollout_s"); ok {
			rollouts = append(rollouts, v)
		}
		if v, ok := jsonNumber(m, "time/update_s"); ok {
			updates = append(updates, v)
		}
	}
	if len(steps) == 0 {
		return nil, errors.New("metrics.jsonl: no RL step (time/step_s)")
	}
	return &gpuMainJob{Steps: len(steps), StepS: steps, MedianStepS: median(steps),
		MedianRollout: median(rollouts), MedianUpdate: median(updates)}, nil
}

// jsonNumber returns m[key] as a number.
func jsonNumber(m map[string]json.RawMessage, key string) (float64, bool) {
	raw, ok := m[key]
	if !ok {
		return 0, false
	}
	var v float64
	if err := json.Unmarshal(raw, &v); err != nil {
		return 0, false
	}
	return v, true
}

// median returns the median of xs, 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// tail returns the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// compareWithAnchor sets the bench against the PyTorch anchor when both
// ran.
func compareWithAnchor(b *gpuBenchResult, a *gpuAnchor) *gpuComparison {
	if b == nil || a == nil || (a.Status != "ok" && a.Status != "partial") || !(a.Train.TokensPerS > 0) {
		return nil
	}
	c := &gpuComparison{TrainRatio: b.Train.TokensPerS / a.Train.TokensPerS}
	for _, g := range b.Generate {
		for _, ag := range a.Generate {
			if ag.Batch == g.Batch && ag.TokensPerS > 0 {
				c.GenerateRatio = append(c.GenerateRatio, gpuGenerateRatio{Batch: g.Batch, Ratio: g.TokensPerS / ag.TokensPerS})
			}
		}
	}
	if a.PeakBytes > 0 && b.Memory.Peak > 0 {
		c.MemoryRatio = float64(b.Memory.Peak-b.Memory.BaselineBytes) / float64(a.PeakBytes)
	}
	if c.TrainRatio < 1 {
		c.Notes = append(c.Notes, fmt.Sprintf("training is %.2fx PyTorch's tokens/s (goal >= 1.0): our step %.3f s (first, with compilation, %.1f s) against %.3f s; bench.train and the main job's time split say where the time goes",
			c.TrainRatio, b.Train.MedianStepS, b.Train.FirstStepS, a.Train.MedianStepS))
	}
	if b.Params != a.Params && a.Params > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("parameter counts differ: ours %d, PyTorch %d", b.Params, a.Params))
	}
	return c
}

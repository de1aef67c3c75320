package runlog

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func sampleSummary() Summary {
	return Summary{
		Seed:                7,
		ValSuccessWarmStart: 0.25,
		ValSuccessFinal:     0.625,
		RLSteps:             40,
		WallSeconds:         112.4,
		Phases: []Phase{
			{Name: "warm start", Stats: ValidationStats{Tasks: 16, Rollouts: 64, K: 4, Success: 0.25, AvgAtK: 0.25, BestAtK: 0.4375, PassAtK: 0.4375}},
			{Name: "final", Stats: ValidationStats{Tasks: 16, Rollouts: 64, K: 4, Success: 0.625, AvgAtK: 0.625, BestAtK: 0.8125, PassAtK: 0.8125}},
		},
		Extras: map[string]any{"model": "qwen2-tiny", "lr": 1e-5},
	}
}

func TestSummaryFileRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run", "summary.json")
	s := sampleSummary()
	s.FailedEpisodes, s.SkippedEpisodes, s.Outages, s.OutageWaitSeconds = 3, 8, 1, 42.5
	if err := s.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"seed": 7`, `"val_success_warm_start": 0.25`, `"val_success_final": 0.625`,
		`"rl_steps": 40`, `"wall_seconds": 112.4`, `"pass_at_k": 0.8125`, `"model": "qwen2-tiny"`,
		`"failed_episodes": 3`, `"skipped_episodes": 8`, `"outages": 1`, `"outage_wait_seconds": 42.5`} {
		if !bytes.Contains(data, []byte(key)) {
			t.Errorf("summary.json lacks %s:\n%s", key, data)
		}
	}
	got, err := ReadSummary(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, s) {
		t.Errorf("read back %+v\nwant %+v", got, s)
	}
	// Rewriting replaces the file whole and leaves no temporary file.
	s.RLSteps = 41
	if err := s.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	if got, _ := ReadSummary(path); got.RLSteps != 41 {
		t.Errorf("rewritten rl_steps = %d, want 41", got.RLSteps)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("directory holds %d entries, want 1", len(entries))
	}
}

func TestSummaryRejectsNonFinite(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*Summary)
		field  string
	}{
		{"warm start", func(s *Summary) { s.ValSuccessWarmStart = math.NaN() }, "val_success_warm_start"},
		{"wall", func(s *Summary) { s.WallSeconds = math.Inf(1) }, "wall_seconds"},
		{"phase", func(s *Summary) { s.Phases[1].Stats.PassAtK = math.NaN() }, `phase "final" pass_at_k`},
		{"outage wait", func(s *Summary) { s.OutageWaitSeconds = math.NaN() }, "outage_wait_seconds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "summary.json")
			s := sampleSummary()
			tt.modify(&s)
			err := s.WriteFile(path)
			if !errors.Is(err, ErrNonFinite) || !strings.Contains(err.Error(), tt.field) {
				t.Errorf("error %v, want ErrNonFinite naming %s", err, tt.field)
			}
			if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("summary written despite the error")
			}
		})
	}
	s := sampleSummary()
	s.Extras["bad"] = math.NaN()
	if err := s.WriteFile(filepath.Join(t.TempDir(), "summary.json")); err == nil {
		t.Error("NaN in extras was written")
	}
}

func TestReadSummaryRejects(t *testing.T) {
	tests := []struct{ name, content string }{
		{"unknown field", `{"seed":1,"surprise":2}`},
		{"trailing data", `{"seed":1} {"seed":2}`},
		{"wrong type", `{"seed":"one"}`},
		{"not JSON", `seed: 1`},
		{"too large", `{"extras":{"x":"` + strings.Repeat("a", MaxSummaryBytes) + `"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "summary.json")
			os.WriteFile(path, []byte(tt.content), 0o644)
			if _, err := ReadSummary(path); err == nil {
				t.Errorf("ReadSummary(%.40q) succeeded", tt.content)
			}
		})
	}
}

func TestSummaryWriteTable(t *testing.T) {
	tests := []struct {
		name    string
		summary Summary
		want    string
	}{
		{"phases", sampleSummary(), `seed 7   rl steps 40   wall 1m52s

phase       tasks  val success  avg@4  best@4  pass@4
warm start  16     25.0%        25.0%  43.8%   43.8%
final       16     62.5%        62.5%  81.2%   81.2%
`},
		{"no phases", Summary{Seed: 1, ValSuccessWarmStart: 0.1, ValSuccessFinal: 0.3, RLSteps: 3, WallSeconds: 4.25}, `seed 1   rl steps 3   wall 4.2s

phase       val success
warm start  10.0%
final       30.0%
`},
		{"failures and outages", Summary{Seed: 1, RLSteps: 3, WallSeconds: 70, FailedEpisodes: 3, SkippedEpisodes: 8, Outages: 1, OutageWaitSeconds: 42.4}, `seed 1   rl steps 3   wall 1m10s
failed episodes 3   skipped episodes 8   outages 1 (waited 42s)

phase       val success
warm start  0.0%
final       0.0%
`},
		{"mixed k and hours", Summary{WallSeconds: 3725, Phases: []Phase{
			{Name: "a", Stats: ValidationStats{Tasks: 2, K: 8}},
			{Name: "b", Stats: ValidationStats{Tasks: 2, K: 1, PassAtK: 1}},
		}}, `seed 0   rl steps 0   wall 1h02m05s

phase    tasks  val success  avg@8  best@8  pass@8
a        2      0.0%         0.0%   0.0%    0.0%
b (k=1)  2      0.0%         0.0%   0.0%    100.0%
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := tt.summary.WriteTable(&buf); err != nil {
				t.Fatal(err)
			}
			if buf.String() != tt.want {
				t.Errorf("table\n%s\nwant\n%s", buf.String(), tt.want)
			}
		})
	}
}

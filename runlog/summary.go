package runlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"text/tabwriter"
)

// MaxSummaryBytes bounds a summary.json read by [ReadSummary].
const MaxSummaryBytes = 16 << 20

// Summary is the outcome of a training run, written as summary.json.
type Summary struct {
	// Seed is the run's random seed.
	Seed int64 `json:"seed"`
	// ValSuccessWarmStart is the validation success before RL, after any
	// warm start.
	ValSuccessWarmStart float64 `json:"val_success_warm_start"`
	// ValSuccessFinal is the validation success after the last RL step.
	ValSuccessFinal float64 `json:"val_success_final"`
	// RLSteps is the number of RL steps taken: steps that trained the
	// policy, never an attempt an outage discarded.
	RLSteps int `json:"rl_steps"`
	// WallSeconds is the run's wall-clock duration.
	WallSeconds float64 `json:"wall_seconds"`
	// FailedEpisodes counts the training episodes that failed in the
	// environment or policy and were excluded from training (the sum of
	// the steps' rollout/failed).
	FailedEpisodes int `json:"failed_episodes"`
	// SkippedEpisodes counts the episodes of RL-step and validation
	// attempts discarded because a service was unreachable; each such
	// step or validation was run again after the outage.
	SkippedEpisodes int `json:"skipped_episodes"`
	// Outages counts the outages waited out (the service came back and
	// the run continued).
	Outages int `json:"outages"`
	// OutageWaitSeconds is the total time spent waiting for unreachable
	// services.
	OutageWaitSeconds float64 `json:"outage_wait_seconds"`
	// Phases holds validation results to show in the final table, in order
	// (e.g. "warm start", "final").
	Phases []Phase `json:"phases,omitempty"`
	// Extras holds anything else worth keeping; values must marshal to JSON
	// (no NaN or infinite floats).
	Extras map[string]any `json:"extras,omitempty"`
}

// Phase is one row of the final table: validation at one point of the run.
type Phase struct {
	// Name names the point, e.g. "warm start" or "final".
	Name string `json:"name"`
	// Stats are the validation statistics measured there.
	Stats ValidationStats `json:"stats"`
}

// MarshalJSON writes ValidationStats with snake_case keys.
func (s ValidationStats) MarshalJSON() ([]byte, error) {
	return json.Marshal(validationStatsJSON(s))
}

// UnmarshalJSON reads what MarshalJSON writes.
func (s *ValidationStats) UnmarshalJSON(b []byte) error {
	var v validationStatsJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*s = ValidationStats(v)
	return nil
}

type validationStatsJSON struct {
	Tasks    int     `json:"tasks"`
	Rollouts int     `json:"rollouts"`
	K        int     `json:"k"`
	Success  float64 `json:"success"`
	AvgAtK   float64 `json:"avg_at_k"`
	BestAtK  float64 `json:"best_at_k"`
	PassAtK  float64 `json:"pass_at_k"`
	Failed   int     `json:"failed"`
}

// WriteFile writes s as indented JSON to path atomically, creating parent
// directories. JSON cannot hold NaN or infinities: a non-finite field is an
// error wrapping [ErrNonFinite] that names it, and nothing is written.
func (s Summary) WriteFile(path string) error {
	if err := s.checkFinite(); err != nil {
		return err
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("runlog: encode summary: %w", err)
	}
	data = append(data, '\n')
	return writeFileAtomic(path, func(w io.Writer) error {
		if _, err := w.Write(data); err != nil {
			return fmt.Errorf("runlog: write summary: %w", err)
		}
		return nil
	})
}

func (s Summary) checkFinite() error {
	type field struct {
		name string
		v    float64
	}
	fields := []field{
		{"val_success_warm_start", s.ValSuccessWarmStart},
		{"val_success_final", s.ValSuccessFinal},
		{"wall_seconds", s.WallSeconds},
		{"outage_wait_seconds", s.OutageWaitSeconds},
	}
	for _, p := range s.Phases {
		prefix := "phase " + strconv.Quote(p.Name) + " "
		fields = append(fields,
			field{prefix + "success", p.Stats.Success},
			field{prefix + "avg_at_k", p.Stats.AvgAtK},
			field{prefix + "best_at_k", p.Stats.BestAtK},
			field{prefix + "pass_at_k", p.Stats.PassAtK})
	}
	for _, f := range fields {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return fmt.Errorf("runlog: summary %s: %w: %v", f.name, ErrNonFinite, f.v)
		}
	}
	return nil
}

// ReadSummary reads a summary.json written by [Summary.WriteFile]; files
// over [MaxSummaryBytes] and unknown fields are errors.
func ReadSummary(path string) (Summary, error) {
	f, err := os.Open(path)
	if err != nil {
		return Summary{}, fmt.Errorf("runlog: open summary: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxSummaryBytes+1))
	if err != nil {
		return Summary{}, fmt.Errorf("runlog: read summary: %w", err)
	}
	if len(data) > MaxSummaryBytes {
		return Summary{}, fmt.Errorf("runlog: summary %s is larger than %d bytes", path, MaxSummaryBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s Summary
	if err := dec.Decode(&s); err != nil {
		return Summary{}, fmt.Errorf("runlog: decode summary %s: %w", path, err)
	}
	if dec.More() {
		return Summary{}, fmt.Errorf("runlog: summary %s: data after the JSON object", path)
	}
	return s, nil
}

// WriteTable writes the human-readable final table of s: a header with the
// seed, RL steps and wall time, a line of failed and skipped episodes and
// outages when there were any, then one row per phase. Rates are shown in
// percent with one decimal.
//
//	seed 7   rl steps 40   wall 1m52s
//	failed episodes 3   skipped episodes 8   outages 1 (waited 42s)
//
//	phase       tasks  val success  avg@4  best@4  pass@4
//	warm start  16     25.0%        25.0%  43.8%   43.8%
//	final       16     62.5%        62.5%  81.2%   81.2%
//
// Without phases it shows the warm-start and final validation success alone.
func (s Summary) WriteTable(w io.Writer) error {
	wall := formatSeconds(s.WallSeconds)
	if _, err := fmt.Fprintf(w, "seed %d   rl steps %d   wall %s\n", s.Seed, s.RLSteps, wall); err != nil {
		return fmt.Errorf("runlog: write table: %w", err)
	}
	if s.FailedEpisodes != 0 || s.SkippedEpisodes != 0 || s.Outages != 0 {
		if _, err := fmt.Fprintf(w, "failed episodes %d   skipped episodes %d   outages %d (waited %s)\n",
			s.FailedEpisodes, s.SkippedEpisodes, s.Outages, formatSeconds(s.OutageWaitSeconds)); err != nil {
			return fmt.Errorf("runlog: write table: %w", err)
		}
	}
	if _, err := fmt.Fprintln(w); err != nil {
		return fmt.Errorf("runlog: write table: %w", err)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if len(s.Phases) == 0 {
		fmt.Fprintf(tw, "phase\tval success\n")
		fmt.Fprintf(tw, "warm start\t%s\n", percent(s.ValSuccessWarmStart))
		fmt.Fprintf(tw, "final\t%s\n", percent(s.ValSuccessFinal))
	} else {
		// Phases may differ in k; label columns by the first phase's k and
		// spell out any other in its row.
		k := s.Phases[0].Stats.K
		fmt.Fprintf(tw, "phase\ttasks\tval success\tavg@%d\tbest@%d\tpass@%d\n", k, k, k)
		for _, p := range s.Phases {
			name := p.Name
			if p.Stats.K != k {
				name += " (k=" + strconv.Itoa(p.Stats.K) + ")"
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\n", name, p.Stats.Tasks,
				percent(p.Stats.Success), percent(p.Stats.AvgAtK),
				percent(p.Stats.BestAtK), percent(p.Stats.PassAtK))
		}
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("runlog: write table: %w", err)
	}
	return nil
}

func percent(v float64) string { return strconv.FormatFloat(100*v, 'f', 1, 64) + "%" }

// formatSeconds renders a duration in seconds compactly, e.g. "1m52s".
func formatSeconds(sec float64) string {
	if math.IsNaN(sec) || math.IsInf(sec, 0) || sec < 0 {
		return strconv.FormatFloat(sec, 'g', -1, 64) + "s"
	}
	total := int64(math.Round(sec))
	h, m, s := total/3600, total/60%60, total%60
	switch {
	case h > 0:
		return fmt.Sprintf("%dh%02dm%02ds", h, m, s)
	case m > 0:
		return fmt.Sprintf("%dm%02ds", m, s)
	case sec < 10:
		return strconv.FormatFloat(sec, 'f', 1, 64) + "s"
	}
	return fmt.Sprintf("%ds", s)
}

package experiment

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/org/agentevolver/internal/fsutil"
	"github.com/org/agentevolver/runlog"
)

// File names under Plan.Dir.
const (
	// ComparisonFile holds the Comparison as JSON.
	ComparisonFile = "comparison.json"
	// PlotFile holds each arm's mean validation curve and its spread.
	PlotFile = "comparison.png"
)

// ValSuccessMetric is the metric of a run's metrics log that the
// comparison reads: the validation success rate, logged at every
// validation step.
const ValSuccessMetric = runlog.ValSuccessMetric

// Comparison is the result of an experiment, as written to
// comparison.json:
//
//	{"name": "grpo-seeds", "quick": false, "steps": 60,
//	 "arms": [{"name": "grpo",
//	           "seeds": [{"seed": 1, "val_success": [[0, 0.31], [20, 0.4]],
//	                      "final": 0.4, "wall_seconds": 312.5}],
//	           "final_mean": 0.4, "final_std": 0}]}
//
// Numbers are never NaN: a missing value is null.
type Comparison struct {
	// Name is the experiment's name (with QuickSuffix in a quick run).
	Name string `json:"name"`
	// Quick reports a quick (CI-sized) run, whose numbers measure nothing.
	Quick bool `json:"quick"`
	// Steps is the RL-step budget every run had.
	Steps int `json:"steps"`
	// Arms are the arms in file order.
	Arms []ArmResult `json:"arms"`
	// Starts are the start runs, one per seed in run order, of an
	// experiment with a start layer (File.Start): every arm of a seed
	// starts from its final policy, and its validation success (Final,
	// when it validated) is where they all begin.
	Starts []SeedResult `json:"starts,omitempty"`
	// WallSeconds is the experiment's wall-clock time so far, measured
	// around all its runs.
	WallSeconds float64 `json:"wall_seconds"`
}

// ArmResult is one arm's runs and the spread of their final validation
// success.
type ArmResult struct {
	// Name is the arm's name.
	Name string `json:"name"`
	// Seeds are the arm's runs that finished or failed, in run order.
	// Runs an interrupted experiment never started are absent.
	Seeds []SeedResult `json:"seeds"`
	// FinalMean is the mean of Final over the successful runs; null when
	// there are none.
	FinalMean *float64 `json:"final_mean"`
	// FinalStd is the sample standard deviation (n-1) of Final over the
	// successful runs; 0 for one run, null for none.
	FinalStd *float64 `json:"final_std"`
	// K is the number of validation rollouts per task of the runs (the k
	// of avg@k and best@k); 0 when no run reported it.
	K int `json:"k,omitempty"`
	// AvgAtK and BestAtK are the mean and sample standard deviation over
	// the successful runs of their final avg@k and best@k; absent when no
	// run reported them.
	AvgAtK  *Spread `json:"avg_at_k,omitempty"`
	BestAtK *Spread `json:"best_at_k,omitempty"`
	// Base is the arm this one adds a mechanism to (Arm.Base); empty for
	// none.
	Base string `json:"base,omitempty"`
	// DiffFromBase is Final minus the base arm's Final, paired by seed
	// over the seeds both ran successfully, with its 95% confidence
	// interval; absent without a base or a pair.
	DiffFromBase *Paired `json:"diff_from_base,omitempty"`
	// StepsToBase is the spread, over the seeds that got there, of the
	// first RL step at which the arm's validation success reached its base
	// arm's final success in the same seed (a claim about speed: the same
	// result in fewer steps); ReachedBase counts those seeds. Absent
	// without a base.
	StepsToBase *Spread `json:"steps_to_base,omitempty"`
	ReachedBase int     `json:"reached_base,omitempty"`
	// TurnsPerSuccess is the spread over the successful runs of their
	// final val/turns_per_success (policy turns per successful validation
	// episode); absent when no run logged it.
	TurnsPerSuccess *Spread `json:"turns_per_success,omitempty"`
}

// Paired is an arm's difference from its base arm, seed by seed: the mean
// and sample standard deviation of the per-seed differences, and the 95%
// confidence interval of their mean (Student's t with N-1 degrees of
// freedom), which excludes 0 when the effect is shown at that level.
type Paired struct {
	Mean float64 `json:"mean"`
	Std  float64 `json:"std"`
	N    int     `json:"n"`
	// CILow and CIHigh bound the 95% interval; null for fewer than two
	// pairs.
	CILow  *float64 `json:"ci95_low"`
	CIHigh *float64 `json:"ci95_high"`
	// Seeds and Diffs are the pairs' seeds and differences in run order.
	Seeds []int64   `json:"seeds"`
	Diffs []float64 `json:"diffs"`
}

// pairedOf returns the paired statistics of diffs (nil for none).
func pairedOf(seeds []int64, diffs []float64) *Paired {
	if len(diffs) == 0 {
		return nil
	}
	m, s := meanStd(diffs)
	p := &Paired{Mean: m, Std: s, N: len(diffs), Seeds: seeds, Diffs: diffs}
	if len(diffs) >= 2 {
		half := tCritical95(len(diffs)-1) * s / math.Sqrt(float64(len(diffs)))
		lo, hi := m-half, m+half
		p.CILow, p.CIHigh = &lo, &hi
	}
	return p
}

// Excludes0 reports whether the 95% interval lies wholly above or below 0.
func (p *Paired) Excludes0() bool {
	return p != nil && p.CILow != nil && p.CIHigh != nil && (*p.CILow > 0 || *p.CIHigh < 0)
}

// tCritical95 is the two-sided 95% critical value of Student's t
// distribution with df degrees of freedom (df >= 1).
func tCritical95(df int) float64 {
	table := [...]float64{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
		2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}
	switch {
	case df < 1:
		return math.NaN()
	case df <= len(table):
		return table[df-1]
	case df <= 60:
		return 2.042 - (2.042-2.000)*float64(df-30)/30
	case df <= 120:
		return 2.000 - (2.000-1.980)*float64(df-60)/60
	}
	return 1.960
}

// Spread is the mean and sample standard deviation (n-1; 0 for one value)
// of N values.
type Spread struct {
	Mean float64 `json:"mean"`
	Std  float64 `json:"std"`
	N    int     `json:"n"`
}

// spreadOf returns the spread of xs; nil for none.
func spreadOf(xs []float64) *Spread {
	if len(xs) == 0 {
		return nil
	}
	m, s := meanStd(xs)
	return &Spread{Mean: m, Std: s, N: len(xs)}
}

// SeedResult is one arm × seed run.
type SeedResult struct {
	// Seed is the run's seed.
	Seed int64 `json:"seed"`
	// ValSuccess is the validation success curve, [step, value] pairs in
	// step order (the last value logged for a step wins; non-finite
	// values are left out). A failed run keeps what it logged.
	ValSuccess []Point `json:"val_success"`
	// Final is the last validation success of a successful run; null for
	// a failed one.
	Final *float64 `json:"final"`
	// WallSeconds is the run's wall-clock time, measured around it.
	WallSeconds float64 `json:"wall_seconds"`
	// K is the run's validation rollouts per task at its last validation
	// (0 when its log has no avg@k); AvgAtK and BestAtK are its avg@k and
	// best@k there (null when absent).
	K       int      `json:"k,omitempty"`
	AvgAtK  *float64 `json:"avg_at_k,omitempty"`
	BestAtK *float64 `json:"best_at_k,omitempty"`
	// TurnsPerSuccess is the run's val/turns_per_success at its last
	// validation that logged it (null when none did).
	TurnsPerSuccess *float64 `json:"turns_per_success,omitempty"`
	// StepsToBase is the first RL step at which the run's validation
	// success reached its base arm's final success in the same seed; null
	// when it never did or the arm has no base.
	StepsToBase *int64 `json:"steps_to_base,omitempty"`
	// Error is why the run failed; empty (and absent from JSON) when it
	// succeeded.
	Error string `json:"error,omitempty"`
}

// OK reports whether the run succeeded.
func (s SeedResult) OK() bool { return s.Error == "" && s.Final != nil }

// Point is a value at an RL step. Its JSON form is [step, value].
type Point struct {
	// Step is the RL step (0 is before RL, after the warm start).
	Step int64
	// Value is the metric's value at Step.
	Value float64
}

// MarshalJSON writes [step, value]; a non-finite value is an error.
func (p Point) MarshalJSON() ([]byte, error) {
	if math.IsNaN(p.Value) || math.IsInf(p.Value, 0) {
		return nil, fmt.Errorf("experiment: point at step %d: %w", p.Step, runlog.ErrNonFinite)
	}
	return json.Marshal([2]any{p.Step, p.Value})
}

// UnmarshalJSON reads [step, value].
func (p *Point) UnmarshalJSON(data []byte) error {
	var pair []json.Number
	if err := json.Unmarshal(data, &pair); err != nil {
		return fmt.Errorf("experiment: point: %w", err)
	}
	if len(pair) != 2 {
		return fmt.Errorf("experiment: point %s is not [step, value]", data)
	}
	step, err := pair[0].Int64()
	if err != nil {
		return fmt.Errorf("experiment: point step: %w", err)
	}
	v, err := pair[1].Float64()
	if err != nil {
		return fmt.Errorf("experiment: point value: %w", err)
	}
	*p = Point{Step: step, Value: v}
	return nil
}

// Finals returns the Final values of the arm's successful runs in run
// order.
func (a ArmResult) Finals() []float64 {
	var out []float64
	for _, s := range a.Seeds {
		if s.OK() {
			out = append(out, *s.Final)
		}
	}
	return out
}

// summarize sets FinalMean, FinalStd, K, AvgAtK and BestAtK from the
// seeds.
func (a *ArmResult) summarize() {
	a.FinalMean, a.FinalStd, a.K, a.AvgAtK, a.BestAtK, a.TurnsPerSuccess = nil, nil, 0, nil, nil, nil
	finals := a.Finals()
	if len(finals) == 0 {
		return
	}
	m, s := meanStd(finals)
	a.FinalMean, a.FinalStd = &m, &s
	var avg, best, turns []float64
	for _, r := range a.Seeds {
		if !r.OK() {
			continue
		}
		a.K = max(a.K, r.K)
		if r.AvgAtK != nil {
			avg = append(avg, *r.AvgAtK)
		}
		if r.BestAtK != nil {
			best = append(best, *r.BestAtK)
		}
		if r.TurnsPerSuccess != nil {
			turns = append(turns, *r.TurnsPerSuccess)
		}
	}
	a.AvgAtK, a.BestAtK, a.TurnsPerSuccess = spreadOf(avg), spreadOf(best), spreadOf(turns)
}

// summarize sets every arm's summary and its difference from its base
// arm, paired by seed.
func (c *Comparison) summarize() {
	byName := make(map[string]*ArmResult, len(c.Arms))
	for i := range c.Arms {
		c.Arms[i].summarize()
		byName[c.Arms[i].Name] = &c.Arms[i]
	}
	for i := range c.Arms {
		a := &c.Arms[i]
		a.DiffFromBase, a.StepsToBase, a.ReachedBase = nil, nil, 0
		for j := range a.Seeds {
			a.Seeds[j].StepsToBase = nil
		}
		base, ok := byName[a.Base]
		if !ok || a.Base == "" {
			continue
		}
		baseFinal := make(map[int64]float64, len(base.Seeds))
		for _, s := range base.Seeds {
			if s.OK() {
				baseFinal[s.Seed] = *s.Final
			}
		}
		var (
			seeds        []int64
			diffs, steps []float64
		)
		for j := range a.Seeds {
			s := &a.Seeds[j]
			b, paired := baseFinal[s.Seed]
			if !paired || !s.OK() {
				continue
			}
			seeds, diffs = append(seeds, s.Seed), append(diffs, *s.Final-b)
			for _, p := range s.ValSuccess {
				if p.Value >= b {
					step := p.Step
					s.StepsToBase = &step
					steps = append(steps, float64(step))
					break
				}
			}
		}
		a.DiffFromBase = pairedOf(seeds, diffs)
		a.StepsToBase, a.ReachedBase = spreadOf(steps), len(steps)
	}
}

// meanStd returns the mean and the sample standard deviation (n-1; 0 for
// one value) of xs, which must not be empty.
func meanStd(xs []float64) (mean, std float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if len(xs) < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(xs)-1))
}

// curvePoint is the spread over seeds of the values at one step.
type curvePoint struct {
	Step           int64
	Mean, Min, Max float64
	Std            float64
	N              int
}

// meanCurve aligns the curves of the arm's successful runs by step: at each
// step that any of them logged, the mean, minimum, maximum and sample
// standard deviation over the runs that have it.
func (a ArmResult) meanCurve() []curvePoint {
	byStep := map[int64][]float64{}
	for _, s := range a.Seeds {
		if !s.OK() {
			continue
		}
		for _, p := range s.ValSuccess {
			byStep[p.Step] = append(byStep[p.Step], p.Value)
		}
	}
	out := make([]curvePoint, 0, len(byStep))
	for step, vs := range byStep {
		m, sd := meanStd(vs)
		out = append(out, curvePoint{Step: step, Mean: m, Std: sd, Min: slices.Min(vs), Max: slices.Max(vs), N: len(vs)})
	}
	slices.SortFunc(out, func(x, y curvePoint) int { return cmp.Compare(x.Step, y.Step) })
	return out
}

// runMetrics is what a comparison reads from one run's metrics log.
type runMetrics struct {
	curve           []Point
	k               int
	avgAtK, bestAtK *float64
	turnsPerSuccess *float64
}

// TurnsPerSuccessMetric is the validation metric of policy turns per
// successful episode.
const TurnsPerSuccessMetric = "val/turns_per_success"

// readRun reads the validation success curve of a metrics log and the
// avg@k and best@k of its last validation.
func readRun(path string) (runMetrics, error) {
	records, err := runlog.ReadMetrics(path)
	if err != nil {
		return runMetrics{}, err
	}
	m := runMetrics{curve: curve(records)}
	m.k, m.avgAtK, m.bestAtK = lastAtK(records)
	for i := len(records) - 1; i >= 0 && m.turnsPerSuccess == nil; i-- {
		if v, ok := records[i].Values[TurnsPerSuccessMetric]; ok && finiteValue(v) {
			m.turnsPerSuccess = &v
		}
	}
	return m, nil
}

// lastAtK returns k, avg@k and best@k of the last record that has a
// finite avg@k (the validation metrics are "val/avg@<k>" and
// "val/best@<k>").
func lastAtK(records []runlog.Record) (k int, avg, best *float64) {
	for i := len(records) - 1; i >= 0; i-- {
		for name, v := range records[i].Values {
			rest, ok := strings.CutPrefix(name, avgAtKPrefix)
			n, err := strconv.Atoi(rest)
			if !ok || err != nil || n <= 0 || !finiteValue(v) {
				continue
			}
			a := v
			avg, k = &a, n
			if b, ok := records[i].Values[bestAtKPrefix+rest]; ok && finiteValue(b) {
				best = &b
			}
			return k, avg, best
		}
	}
	return 0, nil, nil
}

// Metric-name prefixes of the validation statistics at k (runlog).
const (
	avgAtKPrefix  = "val/avg@"
	bestAtKPrefix = "val/best@"
)

// curve extracts ValSuccessMetric from records: finite values, ordered by
// step, the last record of a step winning.
func curve(records []runlog.Record) []Point {
	last := map[int64]float64{}
	for _, r := range records {
		v, ok := r.Values[ValSuccessMetric]
		if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		last[r.Step] = v
	}
	out := make([]Point, 0, len(last))
	for step, v := range last {
		out = append(out, Point{Step: step, Value: v})
	}
	slices.SortFunc(out, func(x, y Point) int { return cmp.Compare(x.Step, y.Step) })
	return out
}

// finite replaces non-finite numbers the JSON cannot hold by null.
func (c *Comparison) finite() {
	fix := func(p **float64) {
		if *p != nil && (math.IsNaN(**p) || math.IsInf(**p, 0)) {
			*p = nil
		}
	}
	for i := range c.Arms {
		a := &c.Arms[i]
		fix(&a.FinalMean)
		fix(&a.FinalStd)
		for _, sp := range []**Spread{&a.AvgAtK, &a.BestAtK, &a.StepsToBase, &a.TurnsPerSuccess} {
			if *sp != nil && !(finiteValue((*sp).Mean) && finiteValue((*sp).Std)) {
				*sp = nil
			}
		}
		if d := a.DiffFromBase; d != nil {
			if !(finiteValue(d.Mean) && finiteValue(d.Std)) {
				a.DiffFromBase = nil
			} else {
				fix(&d.CILow)
				fix(&d.CIHigh)
			}
		}
		for j := range a.Seeds {
			s := &a.Seeds[j]
			fix(&s.Final)
			fix(&s.AvgAtK)
			fix(&s.BestAtK)
			fix(&s.TurnsPerSuccess)
			if math.IsNaN(s.WallSeconds) || math.IsInf(s.WallSeconds, 0) {
				s.WallSeconds = 0
			}
			s.ValSuccess = slices.DeleteFunc(s.ValSuccess, func(p Point) bool {
				return math.IsNaN(p.Value) || math.IsInf(p.Value, 0)
			})
			if s.ValSuccess == nil {
				s.ValSuccess = []Point{}
			}
		}
		if a.Seeds == nil {
			a.Seeds = []SeedResult{}
		}
	}
	if c.Arms == nil {
		c.Arms = []ArmResult{}
	}
}

// finiteValue reports whether v is neither NaN nor infinite.
func finiteValue(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// WriteJSON writes the comparison as indented JSON, non-finite numbers
// replaced by null.
func (c Comparison) WriteJSON(w io.Writer) error {
	c = c.clone()
	c.finite()
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(c); err != nil {
		return fmt.Errorf("experiment: encode comparison: %w", err)
	}
	return nil
}

// WriteFile writes the comparison as JSON to path atomically.
func (c Comparison) WriteFile(path string) error {
	if err := fsutil.WriteFileAtomic(path, c.WriteJSON); err != nil {
		return fmt.Errorf("experiment: write %s: %w", path, err)
	}
	return nil
}

// ReadComparison reads a comparison.json.
func ReadComparison(path string) (Comparison, error) {
	data, err := fsutil.ReadFile(path, 64<<20)
	if err != nil {
		return Comparison{}, fmt.Errorf("experiment: %w", err)
	}
	var c Comparison
	if err := json.Unmarshal(data, &c); err != nil {
		return Comparison{}, fmt.Errorf("experiment: %s: %w", path, err)
	}
	return c, nil
}

// clone deep-copies the parts finite may change.
func (c Comparison) clone() Comparison {
	c.Arms = slices.Clone(c.Arms)
	for i := range c.Arms {
		a := &c.Arms[i]
		a.Seeds = slices.Clone(a.Seeds)
		for j := range a.Seeds {
			a.Seeds[j].ValSuccess = slices.Clone(a.Seeds[j].ValSuccess)
		}
		if a.DiffFromBase != nil {
			d := *a.DiffFromBase
			d.Seeds, d.Diffs = slices.Clone(d.Seeds), slices.Clone(d.Diffs)
			a.DiffFromBase = &d
		}
	}
	return c
}

// errString is err's message, or a placeholder for a nil error.
func errString(err error) string {
	if err == nil {
		return ""
	}
	if msg := err.Error(); msg != "" {
		return msg
	}
	return "failed"
}

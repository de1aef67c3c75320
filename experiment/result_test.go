package experiment

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/org/agentevolver/runlog"
)

func TestMeanStd(t *testing.T) {
	tests := []struct {
		xs        []float64
		mean, std float64
	}{
		{[]float64{0.5}, 0.5, 0},
		{[]float64{1, 3}, 2, math.Sqrt2},
		{[]float64{0.2, 0.4, 0.6}, 0.4, 0.2},
		{[]float64{2, 4, 4, 4, 5, 5, 7, 9}, 5, math.Sqrt(32.0 / 7)},
		{[]float64{0.3, 0.3, 0.3}, 0.3, 0},
	}
	for _, tt := range tests {
		m, s := meanStd(tt.xs)
		if math.Abs(m-tt.mean) > 1e-12 || math.Abs(s-tt.std) > 1e-12 {
			t.Errorf("meanStd(%v) = %v, %v; want %v, %v", tt.xs, m, s, tt.mean, tt.std)
		}
	}
}

func fp(v float64) *float64 { return &v }

func TestSummarize(t *testing.T) {
	a := ArmResult{Name: "a", Seeds: []SeedResult{
		{Seed: 1, Final: fp(0.2)},
		{Seed: 2, Error: "broke"},
		{Seed: 3, Final: fp(0.6)},
		{Seed: 4, Final: fp(0.9), Error: "failed after validating"},
	}}
	a.summarize()
	if !closeTo(a.FinalMean, 0.4) || !closeTo(a.FinalStd, math.Sqrt(0.08)) {
		t.Errorf("final %v ± %v, want 0.4 ± %v over the successful seeds", deref(a.FinalMean), deref(a.FinalStd), math.Sqrt(0.08))
	}
	if got := a.Finals(); !reflect.DeepEqual(got, []float64{0.2, 0.6}) {
		t.Errorf("Finals %v", got)
	}
	one := ArmResult{Seeds: []SeedResult{{Final: fp(0.7)}}}
	one.summarize()
	if !closeTo(one.FinalMean, 0.7) || !closeTo(one.FinalStd, 0) {
		t.Errorf("one seed: %v ± %v, want 0.7 ± 0", deref(one.FinalMean), deref(one.FinalStd))
	}
	none := ArmResult{Seeds: []SeedResult{{Error: "x"}}, FinalMean: fp(1)}
	none.summarize()
	if none.FinalMean != nil || none.FinalStd != nil {
		t.Errorf("no successful seed: %v ± %v, want nil", deref(none.FinalMean), deref(none.FinalStd))
	}
}

func TestCurve(t *testing.T) {
	rec := func(step int64, vals ...float64) runlog.Record {
		r := runlog.Record{Step: step, Values: map[string]float64{"reward/mean": 1}}
		if len(vals) > 0 {
			r.Values[ValSuccessMetric] = vals[0]
		}
		return r
	}
	records := []runlog.Record{
		rec(0, 0.1), rec(1), rec(2, 0.3), rec(3, math.NaN()), rec(4, math.Inf(1)),
		rec(6, 0.5), rec(5, 0.4), rec(6, 0.6), // out of order; the later 6 wins
	}
	want := []Point{{0, 0.1}, {2, 0.3}, {5, 0.4}, {6, 0.6}}
	if got := curve(records); !reflect.DeepEqual(got, want) {
		t.Errorf("curve %v, want %v", got, want)
	}
	if got := curve(nil); got == nil || len(got) != 0 {
		t.Errorf("curve(nil) = %#v, want an empty slice", got)
	}

	path := filepath.Join(t.TempDir(), metricsFile)
	w, err := runlog.NewMetricsWriter(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range records[:3] {
		if err := w.Write(r.Step, r.Values); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := readRun(path)
	if err != nil || !reflect.DeepEqual(got.curve, []Point{{0, 0.1}, {2, 0.3}}) {
		t.Errorf("readRun = %v, %v", got, err)
	}
	if err := os.WriteFile(path, []byte("not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var le *runlog.LineError
	if _, err := readRun(path); !errors.As(err, &le) {
		t.Errorf("readRun of a broken log: %v, want a *runlog.LineError", err)
	}
}

func TestMeanCurve(t *testing.T) {
	a := ArmResult{Seeds: []SeedResult{
		{Seed: 1, Final: fp(0.4), ValSuccess: []Point{{0, 0.1}, {10, 0.3}, {20, 0.4}}},
		{Seed: 2, Final: fp(0.6), ValSuccess: []Point{{0, 0.3}, {20, 0.6}}}, // lacks step 10
		{Seed: 3, Error: "failed", ValSuccess: []Point{{0, 0.9}}},           // left out
	}}
	got := a.meanCurve()
	want := []curvePoint{
		{Step: 0, Mean: 0.2, Min: 0.1, Max: 0.3, Std: math.Sqrt(0.02), N: 2},
		{Step: 10, Mean: 0.3, Min: 0.3, Max: 0.3, Std: 0, N: 1},
		{Step: 20, Mean: 0.5, Min: 0.4, Max: 0.6, Std: math.Sqrt(0.02), N: 2},
	}
	if len(got) != len(want) {
		t.Fatalf("meanCurve %+v, want %+v", got, want)
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.Step != w.Step || g.N != w.N || math.Abs(g.Mean-w.Mean) > 1e-12 || math.Abs(g.Min-w.Min) > 1e-12 ||
			math.Abs(g.Max-w.Max) > 1e-12 || math.Abs(g.Std-w.Std) > 1e-12 {
			t.Errorf("meanCurve[%d] = %+v, want %+v", i, g, w)
		}
	}
}

func TestPointJSON(t *testing.T) {
	data, err := json.Marshal([]Point{{0, 0.25}, {60, 1}, {3, 1e-7}})
	if err != nil || string(data) != "[[0,0.25],[60,1],[3,1e-7]]" {
		t.Errorf("Marshal = %s, %v", data, err)
	}
	var back []Point
	if err := json.Unmarshal(data, &back); err != nil || !reflect.DeepEqual(back, []Point{{0, 0.25}, {60, 1}, {3, 1e-7}}) {
		t.Errorf("Unmarshal = %v, %v", back, err)
	}
	if _, err := json.Marshal(Point{1, math.NaN()}); !errors.Is(err, runlog.ErrNonFinite) {
		t.Errorf("Marshal NaN: %v, want ErrNonFinite", err)
	}
	for _, bad := range []string{`[1]`, `[1, 2, 3]`, `{"step": 1}`, `[1.5, 2]`, `["a", 1]`} {
		var p Point
		if err := json.Unmarshal([]byte(bad), &p); err == nil {
			t.Errorf("Unmarshal(%s) = %v, want an error", bad, p)
		}
	}
}

func TestWriteJSONNeverNaN(t *testing.T) {
	c := Comparison{Name: "n", Steps: 2, Arms: []ArmResult{
		{Name: "a", FinalMean: fp(math.NaN()), FinalStd: fp(math.Inf(1)), Seeds: []SeedResult{
			{Seed: 1, Final: fp(math.NaN()), WallSeconds: math.NaN(), ValSuccess: []Point{{0, math.NaN()}, {2, 0.5}}},
			{Seed: 2, Error: "x"},
		}},
		{Name: "b"},
	}}
	var buf bytes.Buffer
	if err := c.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, "NaN") || strings.Contains(out, "Inf") {
		t.Errorf("non-finite numbers written:\n%s", out)
	}
	var back Comparison
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	a := back.Arms[0]
	if a.FinalMean != nil || a.FinalStd != nil || a.Seeds[0].Final != nil || a.Seeds[0].WallSeconds != 0 ||
		!reflect.DeepEqual(a.Seeds[0].ValSuccess, []Point{{2, 0.5}}) {
		t.Errorf("read back %+v", a)
	}
	if back.Arms[1].Seeds == nil || a.Seeds[1].ValSuccess == nil {
		t.Errorf("empty lists must be [], not null:\n%s", out)
	}
	// The caller's comparison is left as it was.
	if !math.IsNaN(*c.Arms[0].FinalMean) || len(c.Arms[0].Seeds[0].ValSuccess) != 2 {
		t.Errorf("WriteJSON modified its receiver")
	}
}

func TestComparisonFileRoundTrip(t *testing.T) {
	c := Comparison{Name: "r", Quick: true, Steps: 3, Arms: []ArmResult{{Name: "a", FinalMean: fp(0.5), FinalStd: fp(0),
		Seeds: []SeedResult{{Seed: 4, Final: fp(0.5), WallSeconds: 1.5, ValSuccess: []Point{{0, 0.25}, {3, 0.5}}}}}}}
	path := filepath.Join(t.TempDir(), "sub", ComparisonFile)
	if err := c.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	back, err := ReadComparison(path)
	if err != nil || !reflect.DeepEqual(back, c) {
		t.Errorf("ReadComparison = %+v, %v; want %+v", back, err, c)
	}
}

func TestWriteTable(t *testing.T) {
	c := Comparison{Name: "demo", Steps: 60, Arms: []ArmResult{
		{Name: "grpo", Seeds: []SeedResult{
			{Seed: 1, Final: fp(0.4), WallSeconds: 300},
			{Seed: 2, Final: fp(0.5), WallSeconds: 320},
			{Seed: 3, Error: "env died", WallSeconds: 5},
		}},
		{Name: "grpo-std", Seeds: []SeedResult{{Seed: 1, Final: fp(0.45), WallSeconds: 2.5}}},
		{Name: "never-ran", Seeds: []SeedResult{}},
	}}
	for i := range c.Arms {
		c.Arms[i].summarize()
	}
	var buf bytes.Buffer
	if err := WriteTable(&buf, c); err != nil {
		t.Fatal(err)
	}
	want := `experiment demo: 60 RL steps per run; final = validation success (val/success) at the last step
arm        runs  final mean ± std  min    max    mean wall
grpo       2/3   0.450 ± 0.071     0.400  0.500  5m10s
grpo-std   1/1   0.450 ± 0.000     0.450  0.450  2.5s
never-ran  0/0   -                 -      -      -

grpo       finals: s1 0.400  s2 0.500  s3 failed
grpo-std   finals: s1 0.450
never-ran  finals: no runs
failed: grpo seed 3: env died
`
	if got := buf.String(); got != want {
		t.Errorf("table:\n%s\nwant:\n%s", got, want)
	}
	c.Quick = true
	buf.Reset()
	if err := WriteTable(&buf, c); err != nil || !strings.Contains(buf.String(), "quick run: a smoke test") {
		t.Errorf("quick table: %v\n%s", err, buf.String())
	}
}

func TestWritePlot(t *testing.T) {
	dir := t.TempDir()
	c := Comparison{Name: "p", Steps: 20, Arms: []ArmResult{
		{Name: "a", Seeds: []SeedResult{
			{Seed: 1, Final: fp(0.4), ValSuccess: []Point{{0, 0.1}, {10, 0.3}, {20, 0.4}}},
			{Seed: 2, Final: fp(0.6), ValSuccess: []Point{{0, 0.2}, {10, 0.5}, {20, 0.6}}},
		}},
		{Name: "one-point", Seeds: []SeedResult{{Seed: 1, Final: fp(0.5), ValSuccess: []Point{{20, 0.5}}}}},
		{Name: "failed", Seeds: []SeedResult{{Seed: 1, Error: "x", ValSuccess: []Point{{0, 0.2}}}}},
	}}
	path := filepath.Join(dir, PlotFile)
	if err := WritePlot(path, c); err != nil {
		t.Fatal(err)
	}
	checkPNG(t, path)

	empty := Comparison{Name: "e", Arms: []ArmResult{{Name: "failed", Seeds: c.Arms[2].Seeds}}}
	if err := WritePlot(filepath.Join(dir, "empty.png"), empty); !errors.Is(err, ErrNoData) {
		t.Errorf("WritePlot with no data: %v, want ErrNoData", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "empty.png")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a plot without data was written")
	}
}

func TestValueAxisTop(t *testing.T) {
	arm := func(vs ...float64) ArmResult {
		var pts []Point
		for i, v := range vs {
			pts = append(pts, Point{Step: int64(i), Value: v})
		}
		return ArmResult{Seeds: []SeedResult{{Seed: 1, Final: fp(vs[len(vs)-1]), ValSuccess: pts}}}
	}
	for _, tt := range []struct {
		vs   []float64
		want float64
	}{
		{[]float64{0.005, 0.008}, 0.01},
		{[]float64{0.01, 0.028}, 0.05},
		{[]float64{0.09}, 0.2},
		{[]float64{0.3, 0.45}, 1},
		{[]float64{0.7, 0.81}, 1},
		{[]float64{0, 0}, 0.01},
	} {
		if got := valueAxisTop(Comparison{Arms: []ArmResult{arm(tt.vs...)}}); got != tt.want {
			t.Errorf("valueAxisTop(%v) = %v, want %v", tt.vs, got, tt.want)
		}
	}
}

func TestPairedInterval(t *testing.T) {
	// Five seeds, all better: the interval excludes 0.
	p := pairedOf([]int64{1, 2, 3, 4, 5}, []float64{0.04, 0.05, 0.06, 0.05, 0.05})
	if p == nil || p.N != 5 || math.Abs(p.Mean-0.05) > 1e-12 || !p.Excludes0() {
		t.Fatalf("paired %+v", p)
	}
	// t(4 df) = 2.776, std = sqrt(0.0002/4).
	half := 2.776 * math.Sqrt(0.0002/4) / math.Sqrt(5)
	if math.Abs(*p.CILow-(0.05-half)) > 1e-12 || math.Abs(*p.CIHigh-(0.05+half)) > 1e-12 {
		t.Fatalf("interval [%v, %v], want 0.05 ± %v", *p.CILow, *p.CIHigh, half)
	}
	// Mixed signs: it does not.
	if q := pairedOf([]int64{1, 2, 3}, []float64{0.1, -0.1, 0.05}); q.Excludes0() {
		t.Fatalf("mixed differences exclude 0: %+v", q)
	}
	// One pair has no interval.
	if q := pairedOf([]int64{1}, []float64{0.3}); q.CILow != nil || q.Excludes0() {
		t.Fatalf("one pair: %+v", q)
	}
	if pairedOf(nil, nil) != nil {
		t.Fatal("no pairs give a result")
	}
	for df, want := range map[int]float64{1: 12.706, 4: 2.776, 30: 2.042, 1000: 1.96} {
		if got := tCritical95(df); math.Abs(got-want) > 1e-9 {
			t.Errorf("t(%d) = %v, want %v", df, got, want)
		}
	}
}

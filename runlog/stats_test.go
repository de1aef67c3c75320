package runlog

import (
	"errors"
	"math"
	"math/big"
	"slices"
	"testing"
)

func TestPassAtK(t *testing.T) {
	tests := []struct {
		n, c, k int
		want    float64
	}{
		{5, 2, 1, 0.4},        // c/n
		{5, 2, 2, 0.7},        // 1 - C(3,2)/C(5,2) = 1 - 3/10
		{5, 2, 3, 0.9},        // 1 - C(3,3)/C(5,3) = 1 - 1/10
		{5, 2, 4, 1},          // n-c < k
		{5, 0, 3, 0},          // no success
		{5, 5, 1, 1},          // all succeed
		{1, 1, 1, 1},          // single sample
		{1, 0, 1, 0},          // single failed sample
		{8, 1, 8, 1},          // k == n with one success
		{10, 3, 5, 11.0 / 12}, // 1 - C(7,5)/C(10,5) = 1 - 21/252
		{4, 2, 2, 5.0 / 6},    // 1 - C(2,2)/C(4,2) = 1 - 1/6
	}
	for _, tt := range tests {
		got, err := PassAtK(tt.n, tt.c, tt.k)
		if err != nil {
			t.Fatalf("PassAtK(%d, %d, %d): %v", tt.n, tt.c, tt.k, err)
		}
		if math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("PassAtK(%d, %d, %d) = %v, want %v", tt.n, tt.c, tt.k, got, tt.want)
		}
	}
}

func TestPassAtKErrors(t *testing.T) {
	tests := []struct {
		n, c, k int
		want    error
	}{
		{5, 2, 6, ErrInvalidK},
		{5, 2, 0, ErrInvalidK},
		{5, 2, -1, ErrInvalidK},
		{0, 0, 1, ErrInvalidCount},
		{5, 6, 1, ErrInvalidCount},
		{5, -1, 1, ErrInvalidCount},
	}
	for _, tt := range tests {
		if _, err := PassAtK(tt.n, tt.c, tt.k); !errors.Is(err, tt.want) {
			t.Errorf("PassAtK(%d, %d, %d) error %v, want %v", tt.n, tt.c, tt.k, err, tt.want)
		}
	}
}

// TestPassAtKMatchesExactBinomials checks the product form against the
// definition evaluated in exact rational arithmetic.
func TestPassAtKMatchesExactBinomials(t *testing.T) {
	for n := 1; n <= 40; n++ {
		for c := 0; c <= n; c++ {
			for k := 1; k <= n; k++ {
				num := new(big.Int).Binomial(int64(n-c), int64(k))
				den := new(big.Int).Binomial(int64(n), int64(k))
				exact := new(big.Rat).Sub(big.NewRat(1, 1), new(big.Rat).SetFrac(num, den))
				want, _ := exact.Float64()
				got, err := PassAtK(n, c, k)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(got-want) > 1e-13 {
					t.Fatalf("PassAtK(%d, %d, %d) = %v, exact %v", n, c, k, got, want)
				}
			}
		}
	}
	// Large n, where C(n, k) overflows float64, stays finite and in range.
	got, err := PassAtK(5000, 3, 2500)
	if err != nil || !(got > 0.87 && got < 0.88) { // 1 - (1/2)^3 roughly
		t.Errorf("PassAtK(5000, 3, 2500) = %v, %v; want about 0.875", got, err)
	}
}

func TestBestAtK(t *testing.T) {
	tests := []struct {
		name   string
		scores []float64
		k      int
		want   float64
	}{
		{"k equals n is the max", []float64{0.2, 0.9, 0.5}, 3, 0.9},
		{"k equals n with negatives", []float64{-3, -1, -2}, 3, -1},
		{"k of 1 is the mean", []float64{0, 1, 0.5, 0.5}, 1, 0.5},
		// Pairs of {1,2,3,4}: max is 2 once, 3 twice, 4 three times, over 6.
		{"pairs of four", []float64{4, 1, 3, 2}, 2, (2 + 3*2 + 4*3) / 6.0},
		{"ties", []float64{1, 1, 0}, 2, 1},
		{"single score", []float64{0.7}, 1, 0.7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := BestAtK(tt.scores, tt.k)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("BestAtK(%v, %d) = %v, want %v", tt.scores, tt.k, got, tt.want)
			}
		})
	}
}

func TestBestAtKErrors(t *testing.T) {
	tests := []struct {
		scores []float64
		k      int
		want   error
	}{
		{nil, 1, ErrInvalidCount},
		{[]float64{1, 2}, 3, ErrInvalidK},
		{[]float64{1, 2}, 0, ErrInvalidK},
		{[]float64{1, math.NaN()}, 1, ErrNonFinite},
		{[]float64{math.Inf(1)}, 1, ErrNonFinite},
	}
	for _, tt := range tests {
		if _, err := BestAtK(tt.scores, tt.k); !errors.Is(err, tt.want) {
			t.Errorf("BestAtK(%v, %d) error %v, want %v", tt.scores, tt.k, err, tt.want)
		}
	}
}

// TestBestAtKMatchesEnumeration checks the closed form against the mean max
// over every k-subset, and that on 0/1 scores it equals pass@k.
func TestBestAtKMatchesEnumeration(t *testing.T) {
	scores := []float64{0.3, -1, 0.3, 2, 0.75, 0, 1.5, 0.1}
	for n := 1; n <= len(scores); n++ {
		for k := 1; k <= n; k++ {
			sum, count := 0.0, 0
			forEachSubset(n, k, func(idx []int) {
				best := math.Inf(-1)
				for _, i := range idx {
					best = math.Max(best, scores[i])
				}
				sum += best
				count++
			})
			got, err := BestAtK(scores[:n], k)
			if err != nil {
				t.Fatal(err)
			}
			if want := sum / float64(count); math.Abs(got-want) > 1e-12 {
				t.Errorf("BestAtK(%v, %d) = %v, enumeration %v", scores[:n], k, got, want)
			}
		}
	}
	for n := 1; n <= 12; n++ {
		for c := 0; c <= n; c++ {
			binary := make([]float64, n)
			for i := range c {
				binary[i] = 1
			}
			for k := 1; k <= n; k++ {
				best, _ := BestAtK(binary, k)
				pass, _ := PassAtK(n, c, k)
				if math.Abs(best-pass) > 1e-12 {
					t.Errorf("n=%d c=%d k=%d: best@k %v != pass@k %v", n, c, k, best, pass)
				}
			}
		}
	}
}

func forEachSubset(n, k int, fn func([]int)) {
	idx := make([]int, 0, k)
	var rec func(start int)
	rec = func(start int) {
		if len(idx) == k {
			fn(slices.Clone(idx))
			return
		}
		for i := start; i < n; i++ {
			idx = append(idx, i)
			rec(i + 1)
			idx = idx[:len(idx)-1]
		}
	}
	rec(0)
}

func TestValidate(t *testing.T) {
	ok := Rollout{Score: 1, Success: true}
	bad := Rollout{Score: 0}
	half := Rollout{Score: 0.5}
	tests := []struct {
		name  string
		tasks [][]Rollout
		k     int
		want  ValidationStats
	}{
		{"k equals n", [][]Rollout{{ok, bad}, {bad, bad}, {half, ok}}, 2, ValidationStats{
			Tasks: 3, Rollouts: 6, K: 2,
			Success: (0.5 + 0 + 0.5) / 3,
			AvgAtK:  (0.5 + 0 + 0.75) / 3,
			BestAtK: (1 + 0 + 1) / 3.0,
			PassAtK: (1 + 0 + 1) / 3.0,
		}},
		{"k below n, uneven tasks", [][]Rollout{{ok, bad, bad, bad, ok}, {ok, ok}}, 1, ValidationStats{
			Tasks: 2, Rollouts: 7, K: 1,
			Success: (0.4 + 1) / 2,
			AvgAtK:  (0.4 + 1) / 2,
			BestAtK: (0.4 + 1) / 2,
			PassAtK: (0.4 + 1) / 2,
		}},
		{"success and score differ", [][]Rollout{{{Score: 0.9}, {Score: 0.2, Success: true}, {Score: 0.4}}}, 2, ValidationStats{
			Tasks: 1, Rollouts: 3, K: 2,
			Success: 1.0 / 3,
			AvgAtK:  0.5,
			BestAtK: (0.4 + 0.9*2) / 3, // pairs: {0.2,0.4}->0.4, two pairs with 0.9
			PassAtK: 2.0 / 3,           // 1 - C(2,2)/C(3,2)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Validate(tt.tasks, tt.k)
			if err != nil {
				t.Fatal(err)
			}
			near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
			if got.Tasks != tt.want.Tasks || got.Rollouts != tt.want.Rollouts || got.K != tt.want.K ||
				!near(got.Success, tt.want.Success) || !near(got.AvgAtK, tt.want.AvgAtK) ||
				!near(got.BestAtK, tt.want.BestAtK) || !near(got.PassAtK, tt.want.PassAtK) {
				t.Errorf("Validate = %+v\nwant       %+v", got, tt.want)
			}
		})
	}
}

func TestValidateErrors(t *testing.T) {
	ok := Rollout{Score: 1, Success: true}
	tests := []struct {
		name  string
		tasks [][]Rollout
		k     int
		want  error
	}{
		{"no tasks", nil, 1, ErrNoTasks},
		{"k zero", [][]Rollout{{ok}}, 0, ErrInvalidK},
		{"task with fewer than k", [][]Rollout{{ok, ok}, {ok}}, 2, ErrInvalidK},
		{"task without rollouts", [][]Rollout{{}}, 1, ErrInvalidK},
		{"NaN score", [][]Rollout{{ok, {Score: math.NaN()}}}, 1, ErrNonFinite},
	}
	for _, tt := range tests {
		if _, err := Validate(tt.tasks, tt.k); !errors.Is(err, tt.want) {
			t.Errorf("%s: error %v, want %v", tt.name, err, tt.want)
		}
	}
}

func TestValidationStatsMetrics(t *testing.T) {
	s := ValidationStats{K: 8, Success: 0.1, AvgAtK: 0.2, BestAtK: 0.3, PassAtK: 0.4}
	got := s.Metrics("val/")
	want := map[string]float64{"val/success": 0.1, "val/avg@8": 0.2, "val/best@8": 0.3, "val/pass@8": 0.4, "val/failed": 0}
	if len(got) != len(want) {
		t.Fatalf("Metrics = %v, want %v", got, want)
	}
	for name, v := range want {
		if got[name] != v {
			t.Errorf("Metrics[%q] = %v, want %v", name, got[name], v)
		}
	}
}

func TestValidateFinished(t *testing.T) {
	// Task 0 kept 1 of its 2 rollouts, task 1 both, task 2 none.
	tasks := [][]Rollout{
		{{Score: 1, Success: true}},
		{{Score: 0}, {Score: 0.5}},
		nil,
	}
	got, err := ValidateFinished(tasks, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	// Task 0 with k = 1, task 1 with k = 2; task 2 is left out.
	want := ValidationStats{Tasks: 2, Rollouts: 3, K: 2, Success: 0.5, AvgAtK: (1 + 0.25) / 2, BestAtK: (1 + 0.5) / 2, PassAtK: 0.5, Failed: 3}
	if got != want {
		t.Errorf("ValidateFinished = %+v, want %+v", got, want)
	}
	if got.FailedRate() != 0.5 {
		t.Errorf("FailedRate = %v, want 3/6", got.FailedRate())
	}
	if _, err := ValidateFinished([][]Rollout{nil, nil}, 2, 4); !errors.Is(err, ErrNoTasks) {
		t.Errorf("all failed: err = %v, want ErrNoTasks", err)
	}
	// Validate itself still needs k rollouts per task.
	if _, err := Validate(tasks[:2], 2); !errors.Is(err, ErrInvalidK) {
		t.Errorf("Validate with a short task: err = %v, want ErrInvalidK", err)
	}
}

package model

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/org/agentevolver/internal/vecmath"
)

// referenceSample is the sampler as first written (every path through the
// sorted index order, the maximum by math.Max over the scaled logits), kept
// to check that the faster paths draw the same tokens with the same bits.
func referenceSample(s *sampler, logits []float32, rng *rand.Rand) (int, float64) {
	n := len(logits)
	m := math.Inf(-1)
	for _, v := range logits {
		m = math.Max(m, float64(v)/s.temperature)
	}
	exponent := make([]float32, n)
	for i, v := range logits {
		exponent[i] = float32(float64(v)/s.temperature - m)
	}
	vecmath.Exp(exponent, exponent)
	order, probs := make([]int, n), make([]float64, n)
	for i := range order {
		order[i] = i
	}
	kept := n
	if (s.topK > 0 && s.topK < n) || s.topP < 1 {
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(logits[b], logits[a]) })
		if s.topK > 0 && s.topK < n {
			kept = s.topK
		}
	}
	total := 0.0
	for _, i := range order[:kept] {
		probs[i] = float64(exponent[i])
		total += probs[i]
	}
	if s.topP < 1 {
		mass := 0.0
		for j, i := range order[:kept] {
			mass += probs[i] / total
			if mass >= s.topP {
				kept = j + 1
				break
			}
		}
		total = 0
		for _, i := range order[:kept] {
			total += probs[i]
		}
	}
	u := rng.Float64() * total
	token := order[kept-1]
	for _, i := range order[:kept] {
		u -= probs[i]
		if u < 0 {
			token = i
			break
		}
	}
	return token, math.Log(probs[token] / total)
}

// TestSamplerMatchesReference draws from random logits (with ties, large
// and negative values) under every filter and several temperatures and
// checks token and log-probability bit for bit against referenceSample.
func TestSamplerMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 400 {
		n := 1 + rng.IntN(1100)
		logits := make([]float32, n)
		for i := range logits {
			logits[i] = float32(rng.NormFloat64() * 4)
			if rng.IntN(10) == 0 {
				logits[i] = logits[rng.IntN(i+1)] // ties
			}
		}
		s := sampler{temperature: []float64{0.3, 0.7, 1, 1.7}[trial%4], topP: 1}
		switch trial % 5 {
		case 1:
			s.topK = 1 + rng.IntN(n)
		case 2:
			s.topP = rng.Float64()
		case 3:
			s.topK, s.topP = 1+rng.IntN(n), 0.5+rng.Float64()/2
		}
		seed := rng.Uint64()
		gotToken, gotLogP := s.sample(logits, rand.New(rand.NewPCG(seed, 1)))
		wantToken, wantLogP := referenceSample(&s, logits, rand.New(rand.NewPCG(seed, 1)))
		if gotToken != wantToken || math.Float64bits(gotLogP) != math.Float64bits(wantLogP) {
			t.Fatalf("trial %d (%+v, %d logits): got %d %v, want %d %v", trial, s, n, gotToken, gotLogP, wantToken, wantLogP)
		}
	}
}

func BenchmarkSampler(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	logits := make([]float32, 833)
	for i := range logits {
		logits[i] = float32(rng.NormFloat64() * 4)
	}
	for _, s := range []sampler{{temperature: 0.7, topP: 1}, {temperature: 0}, {temperature: 0.7, topP: 0.9}} {
		b.Run(fmtSampler(s), func(b *testing.B) {
			for b.Loop() {
				s.sample(logits, rng)
			}
		})
	}
}

func fmtSampler(s sampler) string {
	switch {
	case s.temperature == 0:
		return "greedy"
	case s.topP < 1:
		return "top-p"
	}
	return "plain"
}

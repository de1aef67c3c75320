package model

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/org/agentevolver/internal/vecmath"
)

// sampler draws next tokens from logits on the host. The exponentials run
// in float32 on internal/vecmath's SIMD kernels (within ~1 ulp of math.Exp
// of the rounded argument): one math.Exp per vocabulary entry and row was a
// tenth of a rollout's time. Sums, probabilities and log-probabilities are
// float64.
type sampler struct {
	temperature float64 // 0: greedy
	topK        int     // 0: off
	topP        float64 // 1: off
	// scratch, reused across calls of one row
	probs    []float64
	order    []int
	exponent []float32
}

// sample picks a token from logits and returns it with its log-probability
// under the distribution it was drawn from: softmax(logits/temperature)
// restricted to the top-k tokens and then to the top-p nucleus, and
// renormalised (vLLM's order). Greedy decoding (temperature 0) returns the
// argmax with its log-probability under the unscaled model distribution.
func (s *sampler) sample(logits []float32, rng *rand.Rand) (token int, logProb float64) {
	if s.temperature == 0 {
		best := 0
		for i, v := range logits {
			if v > logits[best] {
				best = i
			}
		}
		return best, float64(logits[best]) - s.logSumExp(logits)
	}
	n := len(logits)
	exponent, _ := s.shiftedExp(logits, s.temperature)
	if (s.topK <= 0 || s.topK >= n) && s.topP >= 1 {
		return sampleAll(exponent, rng)
	}
	if cap(s.probs) < n {
		s.probs, s.order = make([]float64, n), make([]int, n)
	}
	probs, order := s.probs[:n], s.order[:n]
	for i := range order {
		order[i] = i
	}
	// Only the filters need the tokens in order of likelihood.
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(logits[b], logits[a]) })
	kept := n
	if s.topK > 0 && s.topK < n {
		kept = s.topK
	}
	total := 0.0
	for _, i := range order[:kept] {
		probs[i] = float64(exponent[i])
		total += probs[i]
	}
	if s.topP < 1 {
		// Keep the smallest prefix whose mass reaches topP (at least one token).
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
	token = order[kept-1] // guards against rounding leaving u above the running sum
	for _, i := range order[:kept] {
		u -= probs[i]
		if u < 0 {
			token = i
			break
		}
	}
	return token, math.Log(probs[token] / total)
}

// sampleAll draws from the unfiltered weights exponent (a token's
// probability is its weight over their sum): sample without top-k or top-p,
// in the same order of sums, without the index indirection.
func sampleAll(exponent []float32, rng *rand.Rand) (token int, logProb float64) {
	total := 0.0
	for _, e := range exponent {
		total += float64(e)
	}
	u := rng.Float64() * total
	token = len(exponent) - 1 // guards against rounding leaving u above the running sum
	for i, e := range exponent {
		u -= float64(e)
		if u < 0 {
			token = i
			break
		}
	}
	return token, math.Log(float64(exponent[token]) / total)
}

// logSumExp returns log Σ exp(x), computed stably: shifted by the maximum,
// exponentials in float32 (vecmath), the sum and logarithm in float64.
func (s *sampler) logSumExp(x []float32) float64 {
	exponent, maxX := s.shiftedExp(x, 1)
	sum := 0.0
	for _, e := range exponent {
		sum += float64(e)
	}
	return maxX + math.Log(sum)
}

// shiftedExp returns exp(x/temperature − m) in the scratch slice, with m
// the largest x/temperature (computed in float64, rounded to float32 for
// the SIMD exponential).
func (s *sampler) shiftedExp(x []float32, temperature float64) ([]float32, float64) {
	// x/temperature is monotone in x (temperature > 0), so its largest
	// value is the largest x's: one SIMD max instead of a division and a
	// math.Max per entry.
	m := float64(vecmath.Max(float32(math.Inf(-1)), x)) / temperature
	if cap(s.exponent) < len(x) {
		s.exponent = make([]float32, len(x))
	}
	exponent := s.exponent[:len(x)]
	for i, v := range x {
		exponent[i] = float32(float64(v)/temperature - m)
	}
	vecmath.Exp(exponent, exponent)
	return exponent, m
}

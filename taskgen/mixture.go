package taskgen

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"

	"github.com/org/agentevolver"
)

// ErrInvalidRatio reports a synthetic ratio that is negative or NaN.
var ErrInvalidRatio = errors.New("taskgen: synthetic ratio must be a non-negative number")

// MixtureStrategy decides which tasks a training epoch runs: some mixture
// of the environment's original tasks and synthesised ones (reference
// §4.7). Implementations must not modify their arguments and must return
// tasks that share no mutable state with them. They are safe for
// concurrent use when their fields are not changed.
type MixtureStrategy interface {
	// Mix returns the tasks of the mixture of synthetic and original.
	Mix(synthetic, original []agentevolver.Task) ([]agentevolver.Task, error)
	// NeedSynthetic reports whether Mix uses synthetic tasks at all, so
	// that a caller can skip generating them.
	NeedSynthetic() bool
}

var (
	_ MixtureStrategy = UnifiedMixtureStrategy{}
	_ MixtureStrategy = OriginalOnlyStrategy{}
)

// UnifiedMixtureStrategy is the reference's general mixture: all original
// tasks or none, plus synthetic tasks in proportion to the number of
// original ones, optionally shuffled. Examples, as in the reference:
// {UseOriginal: true} = originals only; {SyntheticRatio: 1} = as many
// synthetic tasks as there are originals, no originals; {UseOriginal: true,
// SyntheticRatio: 0.5} = all originals plus half as many synthetic tasks;
// {SyntheticRatio: math.Inf(1)} (or the reference's 999999) = every
// synthetic task. The zero value mixes nothing and returns no task.
type UnifiedMixtureStrategy struct {
	// UseOriginal includes every original task.
	UseOriginal bool
	// SyntheticRatio asks for int(len(original) * SyntheticRatio)
	// synthetic tasks, relative to the number of original tasks even when
	// UseOriginal is false (so with no original tasks there are no
	// synthetic ones either, as in the reference). 0 means none; +Inf
	// means all of them when there are original tasks. Negative or NaN is
	// an error (ErrInvalidRatio).
	SyntheticRatio float64
	// Shuffle shuffles the mixture.
	Shuffle bool
	// Seed, when not nil, seeds the sampling and the shuffle afresh on
	// every call, so that equal inputs always give the same mixture (the
	// reference re-creates its Random(seed) per call too: to vary the
	// mixture per epoch, vary the seed). nil draws a fresh random seed per
	// call.
	Seed *int64
	// Logger receives the warning when there are fewer synthetic tasks
	// than asked for, and a summary of each mixture at debug level; nil
	// discards them.
	Logger *slog.Logger
}

// NeedSynthetic reports whether SyntheticRatio > 0.
func (s UnifiedMixtureStrategy) NeedSynthetic() bool { return s.SyntheticRatio > 0 }

// Mix returns deep copies of the original tasks when UseOriginal, followed
// by the synthetic tasks asked for by SyntheticRatio: target =
// int(len(original) * SyntheticRatio); when target exceeds
// len(synthetic), all of them in their order (with a warning), else a
// random sample of target of them in sampling order; then, when Shuffle,
// the whole mixture is shuffled. The result is never nil.
//
// Randomness comes from math/rand/v2's PCG seeded from Seed (or from a
// random seed when Seed is nil): for a given seed and inputs the mixture
// is the same on every call and machine, but it is not the
// mixture Python's random.Random(seed) would give. The reference copies
// only the originals; here the synthetic tasks are deep copies too.
func (s UnifiedMixtureStrategy) Mix(synthetic, original []agentevolver.Task) ([]agentevolver.Task, error) {
	if math.IsNaN(s.SyntheticRatio) || s.SyntheticRatio < 0 {
		return nil, fmt.Errorf("%w: got %v", ErrInvalidRatio, s.SyntheticRatio)
	}
	rng := newRNG(s.Seed)
	log := s.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	out := []agentevolver.Task{}
	if s.UseOriginal {
		for _, t := range original {
			out = append(out, cloneTask(t))
		}
	}
	nOriginal := len(out)
	if s.SyntheticRatio > 0 && len(original) > 0 {
		want := math.Floor(float64(len(original)) * s.SyntheticRatio)
		switch {
		case want > float64(len(synthetic)):
			log.Warn("taskgen: not enough synthetic tasks, using all of them",
				"want", want, "have", len(synthetic), "ratio", s.SyntheticRatio)
			for _, t := range synthetic {
				out = append(out, cloneTask(t))
			}
		case want > 0:
			for _, i := range sampleIndices(rng, len(synthetic), int(want)) {
				out = append(out, cloneTask(synthetic[i]))
			}
		}
	}
	if s.Shuffle {
		rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	}
	log.Debug("taskgen: task mixture", "original", nOriginal, "synthetic", len(out)-nOriginal, "total", len(out))
	return out, nil
}

// newRNG returns a generator seeded from seed, or from a random seed.
func newRNG(seed *int64) *rand.Rand {
	if seed == nil {
		return rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	// The second PCG word only decorrelates nearby seeds' streams; any
	// fixed constant keeps the result a pure function of the seed.
	return rand.New(rand.NewPCG(uint64(*seed), 0x9e3779b97f4a7c15))
}

// sampleIndices returns k distinct indices of [0, n) in random order (a
// partial Fisher-Yates shuffle, like Python's random.sample), 0 <= k <= n.
func sampleIndices(rng *rand.Rand, n, k int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	for i := range k {
		j := i + rng.IntN(n-i)
		idx[i], idx[j] = idx[j], idx[i]
	}
	return idx[:k]
}

// OriginalOnlyStrategy uses the original tasks only, never synthetic ones:
// the reference's OriginalOnlyStrategy (its default shuffles; set
// Shuffle), used for validation. It is UnifiedMixtureStrategy{UseOriginal:
// true, Shuffle: Shuffle, Seed: Seed}.
type OriginalOnlyStrategy struct {
	// Shuffle shuffles the tasks.
	Shuffle bool
	// Seed seeds the shuffle as UnifiedMixtureStrategy.Seed does.
	Seed *int64
}

// NeedSynthetic returns false.
func (OriginalOnlyStrategy) NeedSynthetic() bool { return false }

// Mix returns deep copies of original, shuffled when Shuffle; synthetic is
// ignored.
func (s OriginalOnlyStrategy) Mix(synthetic, original []agentevolver.Task) ([]agentevolver.Task, error) {
	return UnifiedMixtureStrategy{UseOriginal: true, Shuffle: s.Shuffle, Seed: s.Seed}.Mix(synthetic, original)
}
